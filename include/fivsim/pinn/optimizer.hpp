// fivsim/pinn/optimizer.hpp — the optimizers that train fivsim's PINNs: Adam and L-BFGS (the
// seeds train with L-BFGS, seed 000 §2.3.1, seed 001 §2.2), one network's parameters at a time.
//
// Each optimizer keeps its whole history in caller-owned memory (no heap), so every case of a batch
// has its own history and line search and stops on its own tolerance or iteration cap, on the
// host and in a kernel alike. An objective is a callable f(x, grad) -> loss that writes the
// gradient at x into grad.
#pragma once

#include <math.h>

#include "fivsim/core/config.hpp"

namespace fivsim {

enum class OptimizerKind : int { adam = 0, lbfgs = 1, adam_lbfgs = 2 };

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::lbfgs;
  int max_iter = 500;        // L-BFGS iterations (adam: Adam steps)
  double tol = 1e-20;        // stop when the loss is at or below this
  int history = 10;          // L-BFGS pairs kept
  int adam_iter = 200;       // adam_lbfgs: Adam steps before L-BFGS
  double learning_rate = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
};

struct OptimizerResult {
  double loss = 0.0;
  int iterations = 0;   // optimizer steps taken (Adam steps plus L-BFGS iterations)
  int evaluations = 0;  // objective evaluations (each one forward and backward pass)
  bool converged = false;
};

// scratch values needed for n parameters
FIVSIM_HD inline int optimizer_work_size(int n, const OptimizerOptions& opt) {
  const int adam = 2 * n;
  const int lbfgs = 2 * opt.history * n + 2 * opt.history + 4 * n;
  return adam > lbfgs ? adam : lbfgs;
}

namespace detail {

template <class T>
FIVSIM_HD inline T dot(int n, const T* a, const T* b) {
  T s = T(0);
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

template <class T>
FIVSIM_HD inline void fill(int n, T* a, T v) {
  for (int i = 0; i < n; ++i) a[i] = v;
}

}  // namespace detail

// Adam (Kingma & Ba) for opt.adam_iter (adam_lbfgs) or opt.max_iter (adam) steps; work holds 2n
template <class T, class Objective>
FIVSIM_HD inline OptimizerResult adam_minimize(int n, T* x, T* grad, Objective&& f, const OptimizerOptions& opt,
                                               int steps, T* work) {
  OptimizerResult res;
  T* m = work;
  T* v = work + n;
  detail::fill(n, m, T(0));
  detail::fill(n, v, T(0));
  const T b1 = T(opt.beta1), b2 = T(opt.beta2), lr = T(opt.learning_rate), eps = T(opt.epsilon);
  T b1t = T(1), b2t = T(1);
  res.loss = static_cast<double>(f(x, grad));
  res.evaluations = 1;
  for (int k = 0; k < steps && !(res.loss <= opt.tol); ++k) {
    b1t *= b1;
    b2t *= b2;
    for (int i = 0; i < n; ++i) {
      m[i] = b1 * m[i] + (T(1) - b1) * grad[i];
      v[i] = b2 * v[i] + (T(1) - b2) * grad[i] * grad[i];
      const T mh = m[i] / (T(1) - b1t), vh = v[i] / (T(1) - b2t);
      x[i] -= lr * mh / (sqrt(vh) + eps);
    }
    res.loss = static_cast<double>(f(x, grad));
    ++res.evaluations;
    ++res.iterations;
  }
  res.converged = res.loss <= opt.tol;
  return res;
}

// L-BFGS with a backtracking (Armijo) line search from the full quasi-Newton step; grad holds the
// gradient at x on entry (loss f0) and on return. Stops at opt.tol, opt.max_iter, or when no step
// along the search direction lowers the loss any more (converged to working precision).
template <class T, class Objective>
FIVSIM_HD inline OptimizerResult lbfgs_minimize(int n, T* x, T* grad, T f0, Objective&& f,
                                                const OptimizerOptions& opt, T* work) {
  OptimizerResult res;
  const int mem = opt.history;
  T* S = work;                  // mem × n position differences (a ring)
  T* Y = S + mem * n;           // mem × n gradient differences
  T* rho = Y + mem * n;         // 1 / (yᵀs)
  T* alpha = rho + mem;
  T* dir = alpha + mem;
  T* x_trial = dir + n;
  T* g_trial = x_trial + n;
  int stored = 0, newest = -1;
  T loss = f0;
  res.loss = static_cast<double>(loss);
  for (int it = 0; it < opt.max_iter && !(loss <= T(opt.tol)); ++it) {
    // two-loop recursion: dir = −H g
    for (int i = 0; i < n; ++i) dir[i] = grad[i];
    for (int k = 0; k < stored; ++k) {
      const int j = (newest - k + mem) % mem;
      alpha[j] = rho[j] * detail::dot(n, S + j * n, dir);
      for (int i = 0; i < n; ++i) dir[i] -= alpha[j] * Y[j * n + i];
    }
    T gamma;
    if (stored > 0) {
      const T* s = S + newest * n;
      const T* y = Y + newest * n;
      gamma = detail::dot(n, s, y) / detail::dot(n, y, y);
    } else {
      // first step: at most unit length in the largest component
      T gmax = T(0);
      for (int i = 0; i < n; ++i) gmax = fabs(grad[i]) > gmax ? fabs(grad[i]) : gmax;
      gamma = gmax > T(1) ? T(1) / gmax : T(1);
    }
    for (int i = 0; i < n; ++i) dir[i] *= gamma;
    for (int k = stored - 1; k >= 0; --k) {
      const int j = (newest - k + mem) % mem;
      const T beta = rho[j] * detail::dot(n, Y + j * n, dir);
      for (int i = 0; i < n; ++i) dir[i] += S[j * n + i] * (alpha[j] - beta);
    }
    for (int i = 0; i < n; ++i) dir[i] = -dir[i];
    T slope = detail::dot(n, grad, dir);
    if (!(slope < T(0))) {
      // not a descent direction (a stale history): restart from steepest descent
      stored = 0;
      for (int i = 0; i < n; ++i) dir[i] = -gamma * grad[i];
      slope = detail::dot(n, grad, dir);
      if (!(slope < T(0))) break;
    }
    T step = T(1), trial = T(0);
    bool accepted = false;
    for (int ls = 0; ls < 40; ++ls) {
      for (int i = 0; i < n; ++i) x_trial[i] = x[i] + step * dir[i];
      trial = f(x_trial, g_trial);
      ++res.evaluations;
      if (trial <= loss + T(1e-4) * step * slope) {
        accepted = true;
        break;
      }
      step *= T(0.5);
    }
    if (!accepted) break;
    // the new curvature pair, kept only when yᵀs > 0 (keeps H positive definite)
    const int slot = (newest + 1) % mem;
    T sy = T(0);
    for (int i = 0; i < n; ++i) {
      const T s = x_trial[i] - x[i], y = g_trial[i] - grad[i];
      S[slot * n + i] = s;
      Y[slot * n + i] = y;
      sy += s * y;
    }
    if (sy > T(0)) {
      rho[slot] = T(1) / sy;
      newest = slot;
      stored = stored < mem ? stored + 1 : mem;
    } else if (stored == mem) {
      --stored;  // the slot written was the oldest pair's
    }
    for (int i = 0; i < n; ++i) {
      x[i] = x_trial[i];
      grad[i] = g_trial[i];
    }
    const T previous = loss;
    loss = trial;
    ++res.iterations;
    if (!(loss < previous)) break;
  }
  res.loss = static_cast<double>(loss);
  res.converged = loss <= T(opt.tol);
  return res;
}

// the optimizer of opt.kind from x; grad is n scratch values, work optimizer_work_size(n, opt)
template <class T, class Objective>
FIVSIM_HD inline OptimizerResult minimize(int n, T* x, T* grad, Objective&& f, const OptimizerOptions& opt,
                                          T* work) {
  if (opt.kind == OptimizerKind::adam) return adam_minimize(n, x, grad, f, opt, opt.max_iter, work);
  OptimizerResult pre;
  T f0;
  if (opt.kind == OptimizerKind::adam_lbfgs) {
    pre = adam_minimize(n, x, grad, f, opt, opt.adam_iter, work);
    f0 = T(pre.loss);  // adam_minimize leaves grad at x
  } else {
    f0 = f(x, grad);
    pre.evaluations = 1;
  }
  OptimizerResult res = lbfgs_minimize(n, x, grad, f0, f, opt, work);
  res.iterations += pre.iterations;
  res.evaluations += pre.evaluations;
  return res;
}

}  // namespace fivsim
