// fivsim/pinn/optimizer.hpp — the optimizers that train fivsim's PINNs: Adam and L-BFGS (the
// seeds train with L-BFGS, seed 000 §2.3.1, seed 001 §2.2), one network's parameters at a time.
//
// Each optimizer keeps its whole history in caller-owned memory (no heap), so every case of a batch
// has its own history and line search and stops on its own tolerance or iteration cap, on the
// host and in a kernel alike. An objective is a callable f(x, grad) -> loss that writes the
// gradient at x into grad.
//
// Both are written in reverse communication (optimizer_start / optimizer_tell): the optimizer
// never calls the objective; it names the point it wants evaluated (optimizer_eval_x) and is told
// the loss and gradient there. One case's training is then a plain loop (minimize), and a batch of
// cases trains in lockstep — every active case's evaluation in one batched pass, then every case's
// tell — with each case keeping its own history, line search and stopping test
// (cases/pinn_case.hpp). Both schedules run the same arithmetic, so they give the same bits; a
// Lanes policy lets a group of device lanes share one run's vector operations.
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/config.hpp"

namespace fivsim {

enum class OptimizerKind : int { adam = 0, lbfgs = 1, adam_lbfgs = 2 };

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::lbfgs;
  int max_iter = 500;   // L-BFGS iterations (adam: Adam steps)
  double tol = 1e-20;   // stop when the loss is at or below this
  int history = 10;     // L-BFGS pairs kept
  int adam_iter = 200;  // adam_lbfgs: Adam steps before L-BFGS
  double learning_rate = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
};

struct OptimizerResult {
  double loss = 0.0;
  int iterations = 0;   // optimizer steps taken (Adam steps plus L-BFGS iterations)
  int evaluations = 0;  // objective evaluations (each one forward and backward pass)
  bool converged = false;
};

// scratch values needed for n parameters: the evaluation point and its gradient, then Adam's
// moments or L-BFGS's pairs
FIVSIM_HD inline int optimizer_work_size(int n, const OptimizerOptions& opt) {
  const int adam = 2 * n;
  if (opt.kind == OptimizerKind::adam) return 2 * n + adam;  // no L-BFGS pairs
  const int lbfgs = 2 * opt.history * n + 2 * opt.history + n;
  return 2 * n + (adam > lbfgs ? adam : lbfgs);
}

// who works on a run's vectors: one thread alone (SerialLanes), or on the device a group of lanes
// that each take every stride()-th element and share sums and maxima (kernels/sweep_pinn.cu). The
// optimizer's branches depend on those shared scalars only, so every lane of a group takes the
// same path; each lane writes the run's scalars alike.
struct SerialLanes {
  FIVSIM_HD int first() const { return 0; }
  FIVSIM_HD int stride() const { return 1; }
  template <class T>
  FIVSIM_HD T sum(T v) const {
    return v;
  }
  template <class T>
  FIVSIM_HD T max(T v) const {
    return v;
  }
};

namespace detail {

template <class T, class Lanes>
FIVSIM_HD inline T dot(const Lanes& lanes, int n, const T* a, const T* b) {
  T s = T(0);
  for (int i = lanes.first(); i < n; i += lanes.stride()) s += a[i] * b[i];
  return lanes.sum(s);
}

template <class T, class Lanes>
FIVSIM_HD inline void fill(const Lanes& lanes, int n, T* a, T v) {
  for (int i = lanes.first(); i < n; i += lanes.stride()) a[i] = v;
}

template <class T, class Lanes>
FIVSIM_HD inline void copy(const Lanes& lanes, int n, T* to, const T* from) {
  for (int i = lanes.first(); i < n; i += lanes.stride()) to[i] = from[i];
}

}  // namespace detail

// where an optimizer run is between two evaluations
enum class OptimizerPhase : int { start = 0, adam = 1, line_search = 2, done = 3 };

// one training's progress between evaluations (plain values: a batch keeps one per case)
template <class T>
struct OptimizerRun {
  OptimizerPhase phase = OptimizerPhase::done;
  int adam_steps = 0;           // Adam steps to take (adam, adam_lbfgs)
  int lbfgs_iter = 0;           // L-BFGS iterations begun
  int stored = 0, newest = -1;  // L-BFGS pairs kept, the newest one's slot
  int searches = 0;             // line-search trials of the current iteration
  T loss = T(0);                // at x
  T step = T(0), slope = T(0);  // line search: step length along dir, gᵀdir
  T b1t = T(1), b2t = T(1);     // Adam: β1ᵗ, β2ᵗ
  OptimizerResult res;
  FIVSIM_HD bool done() const { return phase == OptimizerPhase::done; }
};

// the point the run wants evaluated next, and where its gradient goes (work's first 2n values)
template <class T>
FIVSIM_HD inline T* optimizer_eval_x(int /*n*/, T* work) {
  return work;  // optimizer_work's x_eval
}
template <class T>
FIVSIM_HD inline T* optimizer_eval_grad(int n, T* work) {
  return work + n;  // optimizer_work's g_eval
}

// a run of the optimizer of opt.kind from x: its first evaluation is at x itself
template <class T, class Lanes = SerialLanes>
FIVSIM_HD inline void optimizer_start(int n, const T* x, const OptimizerOptions& opt, OptimizerRun<T>& run, T* work,
                                      const Lanes& lanes = SerialLanes()) {
  run = OptimizerRun<T>();
  run.phase = OptimizerPhase::start;
  run.adam_steps = opt.kind == OptimizerKind::adam         ? opt.max_iter
                   : opt.kind == OptimizerKind::adam_lbfgs ? opt.adam_iter
                                                           : 0;
  detail::copy(lanes, n, optimizer_eval_x(n, work), x);
}

namespace detail {

// the parts of a run's work array: the evaluation point and its gradient, then Adam's moments or
// L-BFGS's ring of pairs, their ρ and α, and the search direction
template <class T>
struct OptimizerWork {
  T *x_eval, *g_eval;
  T *m, *v;                      // Adam
  T *S, *Y, *rho, *alpha, *dir;  // L-BFGS
};
template <class T>
FIVSIM_HD inline OptimizerWork<T> optimizer_work(int n, int mem, T* work) {
  OptimizerWork<T> w;
  w.x_eval = work;
  w.g_eval = work + n;
  w.m = work + 2 * n;
  w.v = w.m + n;
  w.S = work + 2 * n;
  w.Y = w.S + mem * n;
  w.rho = w.Y + mem * n;
  w.alpha = w.rho + mem;
  w.dir = w.alpha + mem;
  return w;
}

template <class T>
FIVSIM_HD inline bool optimizer_finish(OptimizerRun<T>& run, double loss, bool converged) {
  run.res.loss = loss;
  run.res.converged = converged;
  run.phase = OptimizerPhase::done;
  return false;
}

// L-BFGS ends at its current point
template <class T>
FIVSIM_HD inline bool lbfgs_finish(OptimizerRun<T>& run, const OptimizerOptions& opt) {
  return optimizer_finish(run, static_cast<double>(run.loss), run.loss <= T(opt.tol));
}

// L-BFGS: the next iteration's search direction (two-loop recursion, dir = −H g) and its first
// trial point; false when the run ends here (tolerance, iteration cap, no descent direction)
template <class T, class Lanes>
FIVSIM_HD inline bool lbfgs_begin_iteration(int n, const T* x, const T* grad, const OptimizerOptions& opt,
                                            OptimizerRun<T>& run, T* work, const Lanes& lanes) {
  if (!(run.lbfgs_iter < opt.max_iter && !(run.loss <= T(opt.tol)))) return lbfgs_finish(run, opt);
  const int mem = opt.history;
  const OptimizerWork<T> w = optimizer_work(n, mem, work);
  T *S = w.S, *Y = w.Y, *rho = w.rho, *alpha = w.alpha, *dir = w.dir;
  copy(lanes, n, dir, grad);
  for (int k = 0; k < run.stored; ++k) {
    const int j = (run.newest - k + mem) % mem;
    alpha[j] = rho[j] * dot(lanes, n, S + j * n, dir);
    for (int i = lanes.first(); i < n; i += lanes.stride()) dir[i] -= alpha[j] * Y[j * n + i];
  }
  T gamma;
  if (run.stored > 0) {
    const T* s = S + run.newest * n;
    const T* y = Y + run.newest * n;
    gamma = dot(lanes, n, s, y) / dot(lanes, n, y, y);
  } else {
    // first step: at most unit length in the largest component
    T gmax = T(0);
    for (int i = lanes.first(); i < n; i += lanes.stride()) gmax = fabs(grad[i]) > gmax ? fabs(grad[i]) : gmax;
    gmax = lanes.max(gmax);
    gamma = gmax > T(1) ? T(1) / gmax : T(1);
  }
  for (int i = lanes.first(); i < n; i += lanes.stride()) dir[i] *= gamma;
  for (int k = run.stored - 1; k >= 0; --k) {
    const int j = (run.newest - k + mem) % mem;
    const T beta = rho[j] * dot(lanes, n, Y + j * n, dir);
    for (int i = lanes.first(); i < n; i += lanes.stride()) dir[i] += S[j * n + i] * (alpha[j] - beta);
  }
  for (int i = lanes.first(); i < n; i += lanes.stride()) dir[i] = -dir[i];
  run.slope = dot(lanes, n, grad, dir);
  if (!(run.slope < T(0))) {
    // not a descent direction (a stale history): restart from steepest descent
    run.stored = 0;
    for (int i = lanes.first(); i < n; i += lanes.stride()) dir[i] = -gamma * grad[i];
    run.slope = dot(lanes, n, grad, dir);
    if (!(run.slope < T(0))) return lbfgs_finish(run, opt);
  }
  // a backtracking (Armijo) line search from the full quasi-Newton step
  run.step = T(1);
  run.searches = 0;
  for (int i = lanes.first(); i < n; i += lanes.stride()) w.x_eval[i] = x[i] + run.step * dir[i];
  run.phase = OptimizerPhase::line_search;
  return true;
}

// L-BFGS from x with loss run.loss and its gradient in grad
template <class T, class Lanes>
FIVSIM_HD inline bool lbfgs_begin(int n, const T* x, const T* grad, const OptimizerOptions& opt, OptimizerRun<T>& run,
                                  T* work, const Lanes& lanes) {
  run.stored = 0;
  run.newest = -1;
  run.lbfgs_iter = 0;
  return lbfgs_begin_iteration(n, x, grad, opt, run, work, lanes);
}

// Adam (Kingma & Ba): the next step from x, or the end of the Adam phase
template <class T, class Lanes>
FIVSIM_HD inline bool adam_next(int n, T* x, T* grad, const OptimizerOptions& opt, OptimizerRun<T>& run, T* work,
                                const Lanes& lanes) {
  const OptimizerWork<T> w = optimizer_work(n, opt.history, work);
  const T* g = w.g_eval;
  T *m = w.m, *v = w.v;
  if (run.res.iterations >= run.adam_steps || run.res.loss <= opt.tol) {
    copy(lanes, n, grad, g);
    if (opt.kind == OptimizerKind::adam) return optimizer_finish(run, run.res.loss, run.res.loss <= opt.tol);
    run.loss = T(run.res.loss);  // adam_lbfgs: L-BFGS goes on from Adam's last point
    return lbfgs_begin(n, x, grad, opt, run, work, lanes);
  }
  const T b1 = T(opt.beta1), b2 = T(opt.beta2), lr = T(opt.learning_rate), eps = T(opt.epsilon);
  run.b1t *= b1;
  run.b2t *= b2;
  for (int i = lanes.first(); i < n; i += lanes.stride()) {
    m[i] = b1 * m[i] + (T(1) - b1) * g[i];
    v[i] = b2 * v[i] + (T(1) - b2) * g[i] * g[i];
    const T mh = m[i] / (T(1) - run.b1t), vh = v[i] / (T(1) - run.b2t);
    x[i] -= lr * mh / (sqrt(vh) + eps);
  }
  copy(lanes, n, w.x_eval, static_cast<const T*>(x));
  run.phase = OptimizerPhase::adam;
  return true;
}

}  // namespace detail

// tells the run the loss at optimizer_eval_x (its gradient written to optimizer_eval_grad);
// returns whether it wants another evaluation. x holds the run's current point and grad (n
// values, the caller's) the gradient there; at the end x is the minimiser found and run.res the
// outcome. L-BFGS stops at opt.tol, opt.max_iter, or when no step along the search direction
// lowers the loss any more (converged to working precision); its new curvature pairs are kept
// only when yᵀs > 0 (H stays positive definite).
template <class T, class Lanes = SerialLanes>
FIVSIM_HD inline bool optimizer_tell(int n, T* x, T* grad, T loss, const OptimizerOptions& opt, OptimizerRun<T>& run,
                                     T* work, const Lanes& lanes = SerialLanes()) {
  const detail::OptimizerWork<T> w = detail::optimizer_work(n, opt.history, work);
  T *x_eval = w.x_eval, *g_eval = w.g_eval;
  ++run.res.evaluations;
  switch (run.phase) {
    case OptimizerPhase::start:
      run.res.loss = static_cast<double>(loss);
      if (opt.kind != OptimizerKind::lbfgs) {
        detail::fill(lanes, 2 * n, w.m, T(0));  // Adam's m and v
        return detail::adam_next(n, x, grad, opt, run, work, lanes);
      }
      detail::copy(lanes, n, grad, static_cast<const T*>(g_eval));
      run.loss = loss;
      return detail::lbfgs_begin(n, x, grad, opt, run, work, lanes);
    case OptimizerPhase::adam:
      run.res.loss = static_cast<double>(loss);
      ++run.res.iterations;
      return detail::adam_next(n, x, grad, opt, run, work, lanes);
    case OptimizerPhase::line_search: {
      if (!(loss <= run.loss + T(1e-4) * run.step * run.slope)) {
        run.step *= T(0.5);
        if (++run.searches >= 40) return detail::lbfgs_finish(run, opt);
        for (int i = lanes.first(); i < n; i += lanes.stride()) x_eval[i] = x[i] + run.step * w.dir[i];
        return true;
      }
      // accepted: the new curvature pair, kept only when yᵀs > 0
      const int mem = opt.history;
      T *S = w.S, *Y = w.Y, *rho = w.rho;
      const int slot = (run.newest + 1) % mem;
      T sy = T(0);
      for (int i = lanes.first(); i < n; i += lanes.stride()) {
        const T s = x_eval[i] - x[i], y = g_eval[i] - grad[i];
        S[slot * n + i] = s;
        Y[slot * n + i] = y;
        sy += s * y;
      }
      sy = lanes.sum(sy);
      if (sy > T(0)) {
        rho[slot] = T(1) / sy;
        run.newest = slot;
        run.stored = run.stored < mem ? run.stored + 1 : mem;
      } else if (run.stored == mem) {
        --run.stored;  // the slot written was the oldest pair's
      }
      detail::copy(lanes, n, x, static_cast<const T*>(x_eval));
      detail::copy(lanes, n, grad, static_cast<const T*>(g_eval));
      const T previous = run.loss;
      run.loss = loss;
      ++run.res.iterations;
      ++run.lbfgs_iter;
      if (!(run.loss < previous)) return detail::lbfgs_finish(run, opt);
      return detail::lbfgs_begin_iteration(n, x, grad, opt, run, work, lanes);
    }
    case OptimizerPhase::done:
    default:
      return false;
  }
}

// the optimizer of opt.kind from x, the objective called in a plain loop; grad is n scratch values
// (the gradient at the returned x), work optimizer_work_size(n, opt)
template <class T, class Objective>
FIVSIM_HD inline OptimizerResult minimize(int n, T* x, T* grad, Objective&& f, const OptimizerOptions& opt, T* work) {
  OptimizerRun<T> run;
  optimizer_start(n, x, opt, run, work);
  T* x_eval = optimizer_eval_x(n, work);
  T* g_eval = optimizer_eval_grad(n, work);
  while (optimizer_tell(n, x, grad, f(static_cast<const T*>(x_eval), g_eval), opt, run, work)) {
  }
  return run.res;
}

}  // namespace fivsim
