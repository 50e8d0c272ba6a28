// fivsim/pinn/lcp_pinn.hpp — the LCP-PINN: a small network trained to output an LCP's x and y
// (seed 000 §2.3.1, Eqs. 16–20, Fig. 3; seed 001 §2.2, Eqs. 9–12), by L-BFGS on the problem scaled
// to unit size (equilibrated where that fails), with blocked outputs lifted, restarts, and a polish
// on the active set the network chose (docs/METHODS.md "PINN time steppers"). The answer is judged like every
// solver's (lcp.hpp); a training that never reaches the tolerance is reported, not hidden. The
// workspace keeps the weights, so a time stepper starts each step's training from the last.
#pragma once

#include "fivsim/lcp/lcp.hpp"
#include "fivsim/pinn/mlp.hpp"
#include "fivsim/pinn/optimizer.hpp"

namespace fivsim {

inline constexpr int kLcpPinnMaxWidth = 8;
inline constexpr int kLcpPinnMaxLayers = 4;  // hidden layers
inline constexpr int kLcpPinnMaxHistory = 10;

struct LcpPinnSettings {
  int layers = 3;  // hidden layers (seed 000 Table 1: 3 × 5)
  int width = 5;
  Activation activation = Activation::tanh_fn;
  OutputMap output = OutputMap::shifted_relu;
  double c1 = 1.0, c2 = 0.0;  // g = max(0, z + c1) + c2: outputs start near 1, off the flat part
  uint64_t seed = 1;
  int restarts = 8;        // lifts and fresh initialisations, alternately, after a stall
  bool warm_start = true;  // start from the weights of the previous solve
  // after each training, solve the LCP on the active set the network chose (x_i > y_i) and take
  // that answer when it is feasible: the network makes the nonsmooth decision, one linear solve
  // supplies the last digits (fivsim's addition; false gives the seeds' network-only answer)
  bool polish = true;
  OptimizerOptions optimizer{OptimizerKind::lbfgs, 2000, 1e-26, kLcpPinnMaxHistory};
};

template <int Cap>
struct LcpPinnCapacity {
  static constexpr int W = kLcpPinnMaxWidth;
  static constexpr int params = (1 + 1) * W + (kLcpPinnMaxLayers - 1) * (W * W + W) + (W + 1) * 2 * Cap;
  static constexpr int cache = 1 + 2 * (kLcpPinnMaxLayers * W + 2 * Cap);
  static constexpr int scratch = 2 * (W > 2 * Cap ? W : 2 * Cap);
  static constexpr int work = 2 * kLcpPinnMaxHistory * params + 2 * kLcpPinnMaxHistory + 4 * params;
};

// where one LCP-PINN solve is between two evaluations (lcp_pinn_start / lcp_pinn_tell)
template <class T>
struct LcpPinnRun {
  OptimizerRun<T> opt;    // the current optimizer run
  OptimizerResult total;  // summed over the solve's runs
  LcpOptions opt_lcp;     // the solve's options
  LcpResult res;          // the answer, once training is false
  T beta = T(0);          // max |b_i|, the problem's scale
  int pass = 0, attempt = 0;
  bool training = false;
};

template <class T, int Cap>
struct LcpPinnWorkspace {
  using Size = LcpPinnCapacity<Cap>;
  MlpLayout layout;
  bool trained = false;  // params hold a previous solve's weights
  int restarts_used = 0;
  OptimizerResult last;
  LcpPinnRun<T> run;
  T params[Size::params];
  T grad[Size::params];
  T cache[Size::cache];
  T scratch[Size::scratch];
  T d_out[2 * Cap > 0 ? 2 * Cap : 1];
  T work[Size::work];
  LcpMatrix<T, Cap> A;  // the scaled problem
  LcpVector<T, Cap> b;
  LcpVector<T, Cap> col_scale;  // x = col_scale * x' (x' the network's output)
};

// the network of an LCP of n unknowns
FIVSIM_HD inline MlpLayout lcp_pinn_layout(const LcpPinnSettings& s, int n) {
  MlpLayout L;
  L.layers = s.layers + 1;
  L.width[0] = 1;
  for (int l = 1; l <= s.layers; ++l) L.width[l] = s.width;
  L.width[L.layers] = 2 * n;
  L.hidden = s.activation;
  L.output = s.output;
  L.c1 = s.c1;
  L.c2 = s.c2;
  return L;
}

// Eq. 19 and its gradient for the outputs (x, y) of one forward pass
template <class T, int Cap, class Out, class DOut>
FIVSIM_HD inline T lcp_pinn_loss(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, Out out, DOut d_out) {
  const int n = A.rows;
  const Out x = out;
  const Out y = out + n;
  for (int i = 0; i < 2 * n; ++i) d_out[i] = T(0);
  T loss = T(0);
  const T w = T(2) / T(n);
  for (int i = 0; i < n; ++i) {
    T f = y[i] - b[i];
    for (int j = 0; j < n; ++j) f -= A(i, j) * x[j];
    const T r = x[i] * y[i];
    loss += f * f + r * r;
    d_out[n + i] += w * (f + r * x[i]);
    d_out[i] += w * r * y[i];
    for (int j = 0; j < n; ++j) d_out[j] -= w * f * A(i, j);
  }
  return loss / T(n);
}

// A stalled training is mostly an output held in the modified ReLU's flat part (z + c1 ≤ 0, zero
// gradient) although the loss would fall if it grew — a complementary pair that chose the wrong
// member. Lifts the output bias of every such output (and of every x_k at zero whose
// y_k = (Ax+b)_k is negative) so that it leaves the flat part at 1, and returns whether there was
// one (otherwise the caller re-initialises). A heuristic: the training is not convex and may
// still end above tolerance, which the solver then reports (Status::lcp_inaccurate).
template <class T, int Cap>
FIVSIM_HD inline bool lcp_pinn_lift_blocked_outputs(const MlpLayout& L, T* params, const LcpMatrix<T, Cap>& A,
                                                    const LcpVector<T, Cap>& b, T* cache, T* d_out) {
  if (L.output == OutputMap::linear) return false;
  const T one = T(1);
  const T* out = mlp_forward(L, params, &one, cache);
  lcp_pinn_loss(A, b, out, d_out);
  const T* z = cache + L.pre_offset(L.layers);
  T* bias = params + L.weight_offset(L.layers - 1) + L.width[L.layers] * L.width[L.layers - 1];
  const int n = A.rows;
  bool lifted = false;
  for (int k = 0; k < L.outputs(); ++k) {
    const T s = z[k] + T(L.c1);
    if (s > T(0)) continue;
    // the loss wants this output larger (d_out < 0: growing it lowers the loss), or it is an x_k
    // at zero while y_k = (A x + b)_k < 0 (as in pivoting, x_k must enter)
    bool enter = (L.output == OutputMap::scaled_relu ? d_out[k] * T(L.c2) : d_out[k]) < T(0);
    if (k < n) {
      T yk = b[k];
      for (int j = 0; j < n; ++j) yk += A(k, j) * out[j];
      enter = enter || yk < T(0);
    }
    if (enter) {
      bias[k] += T(1) - s;
      lifted = true;
    }
  }
  return lifted;
}

// the polish: the LCP solved on the active set of the network's outputs (x, y of the scaled
// problem), {i : x_i > y_i}. A pair with both members near zero (below 1e-3 of the unit-size
// problem: a contact at a stick-slip or separation boundary) is a choice the network cannot make
// reliably, so both members of up to kPolishFlips such pairs are tried. Returns whether one of
// these bases is feasible; x and y then hold its solution. scratch: where the basis solves keep
// their temporaries (lcp.hpp)
inline constexpr int kPolishFlips = 4;

template <class T, int Cap, class Out, class Scratch = LcpOwnStack>
FIVSIM_HD inline bool lcp_pinn_polish(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, Out out,
                                      LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                      Scratch scratch = {}) {
  const int n = A.rows;
  uint64_t mask = 0;
  int near[kPolishFlips];
  int k = 0;
  for (int i = 0; i < n && i < kLcpMaskBits; ++i) {
    if (out[i] > out[n + i]) mask |= uint64_t(1) << i;
    if (k < kPolishFlips && out[i] < T(1e-3) && out[n + i] < T(1e-3)) near[k++] = i;
  }
  for (int flips = 0; flips < (1 << k); ++flips) {
    uint64_t m = mask;
    for (int j = 0; j < k; ++j)
      if (flips & (1 << j)) m ^= uint64_t(1) << near[j];
    if (lcp_solve_on_basis(A, b, m, x, y, T(opt.pivot_tolerance), lcp_basis_rel_tol<T>(), scratch)) return true;
  }
  return false;
}

// the training problem in ws: LCP(R A C, R b) with x = C x' (ws.col_scale) and y = R⁻¹ y'.
// Uniform: R = 1/max|b|, C = max|b|/max|A| (the problem at unit size). Equilibrated: row i scaled
// by 1/max(|b_i|, 1e-3·max|b|), then each column of R A to size one, so that small rows (a friction
// bound of 1e-3 beside a free velocity of 1) weigh in the loss as much as large ones.
// Complementarity is unchanged by positive diagonal scalings.
template <class T, int Cap>
FIVSIM_HD inline void lcp_pinn_scale(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, T beta, bool equilibrate,
                                     LcpPinnWorkspace<T, Cap>& ws) {
  const int n = A.rows;
  ws.A.resize(n, n);
  ws.b.resize(n);
  ws.col_scale.resize(n);
  LcpVector<T, Cap> row;
  row.resize(n);
  T alpha = T(0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) alpha = max_value(alpha, abs_value(A(i, j)));
  if (alpha == T(0)) alpha = T(1);
  for (int i = 0; i < n; ++i) {
    row[i] = equilibrate ? T(1) / max_value(abs_value(b[i]), T(1e-3) * beta) : T(1) / beta;
    ws.b[i] = b[i] * row[i];
  }
  for (int j = 0; j < n; ++j) {
    T big = T(0);
    for (int i = 0; i < n; ++i) big = max_value(big, abs_value(A(i, j)) * row[i]);
    ws.col_scale[j] = !equilibrate ? beta / alpha : big > T(0) ? T(1) / big : T(1);
    for (int i = 0; i < n; ++i) ws.A(i, j) = A(i, j) * row[i] * ws.col_scale[j];
  }
}

// the LCP-PINN's training in reverse communication, like the optimizer it drives: lcp_pinn_start,
// then lcp_pinn_evaluate and lcp_pinn_tell until tell says it is done, the answer then in x, y and
// ws.run.res. The restarts, lifts, second pass and polish between optimizer runs happen inside the
// tell, so a batch of LCP-PINNs trains in lockstep like the dynamic networks (cases/pinn_case.hpp),
// and lcp_pinn_solve is the same code in a plain loop. A, b, x, y are the caller's and stay put
// between the calls.
template <class T, int Cap>
FIVSIM_HD inline bool lcp_pinn_start(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, LcpVector<T, Cap>& x,
                                     LcpVector<T, Cap>& y, const LcpOptions& opt, const LcpPinnSettings& set,
                                     LcpPinnWorkspace<T, Cap>& ws) {
  LcpPinnRun<T>& run = ws.run;
  run = LcpPinnRun<T>();
  run.opt_lcp = opt;
  // this solve's training totals (none when it needs no training), not the previous solve's
  ws.last = OptimizerResult();
  const int n = A.rows;
  x.n = y.n = n;
  if (set.layers < 1 || set.layers > kLcpPinnMaxLayers || set.width < 1 || set.width > kLcpPinnMaxWidth ||
      set.optimizer.history > kLcpPinnMaxHistory) {
    run.res.status = Status::lcp_too_large;
    return false;
  }
  if (n == 0) {
    run.res = lcp_finish(A, b, x, y, opt, 0);
    return false;
  }
  if (lcp_has_nonfinite(A, b)) {
    run.res.status = Status::nonfinite;
    return false;
  }
  T beta = T(0);
  for (int i = 0; i < n; ++i) beta = max_value(beta, abs_value(b[i]));
  if (beta == T(0)) {
    // x = 0 solves every LCP with b = 0
    for (int i = 0; i < n; ++i) x[i] = T(0);
    run.res = lcp_finish(A, b, x, y, opt, 0);
    return false;
  }
  run.beta = beta;
  const MlpLayout L = lcp_pinn_layout(set, n);
  const bool same_shape = ws.trained && ws.layout.param_count() == L.param_count() && ws.layout.outputs() == 2 * n;
  ws.layout = L;
  ws.restarts_used = 0;
  if (!(set.warm_start && same_shape)) mlp_init(L, set.seed, 0, ws.params);
  // first pass on the uniformly scaled problem; a second, only when the first fails, on the
  // equilibrated one (lcp_pinn_scale)
  lcp_pinn_scale(A, b, beta, false, ws);
  run.training = true;
  optimizer_start(L.param_count(), ws.params, set.optimizer, run.opt, ws.work);
  return true;
}

// the loss of the network at its optimizer's evaluation point, the gradient left beside that point
template <class T, int Cap>
FIVSIM_HD inline T lcp_pinn_evaluate(LcpPinnWorkspace<T, Cap>& ws) {
  const MlpLayout& L = ws.layout;
  const int np = L.param_count();
  const T* p = optimizer_eval_x(np, ws.work);
  T* g = optimizer_eval_grad(np, ws.work);
  const T one = T(1);
  const T* out = mlp_forward(L, p, &one, ws.cache);
  const T loss = lcp_pinn_loss(ws.A, ws.b, out, ws.d_out);
  for (int i = 0; i < np; ++i) g[i] = T(0);
  mlp_backward(L, p, ws.cache, ws.d_out, g, ws.scratch);
  return loss;
}

// tells the training the loss at its evaluation point; whether it wants another evaluation. scratch:
// where the polish's basis solves keep their temporaries (lcp.hpp)
template <class T, int Cap, class Scratch = LcpOwnStack>
FIVSIM_HD inline bool lcp_pinn_tell(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, LcpVector<T, Cap>& x,
                                    LcpVector<T, Cap>& y, const LcpPinnSettings& set, LcpPinnWorkspace<T, Cap>& ws,
                                    T loss, Scratch scratch = {}) {
  LcpPinnRun<T>& run = ws.run;
  if (!run.training) return false;
  const MlpLayout& L = ws.layout;
  const int np = L.param_count();
  if (optimizer_tell(np, ws.params, ws.grad, loss, set.optimizer, run.opt, ws.work)) return true;
  const OptimizerResult& r = run.opt.res;
  run.total.iterations += r.iterations;
  run.total.evaluations += r.evaluations;
  run.total.loss = r.loss;
  run.total.converged = r.converged;
  ws.restarts_used = run.attempt + run.pass * (set.restarts + 1);
  const T one = T(1);
  if (set.polish && lcp_pinn_polish(A, b, mlp_forward(L, ws.params, &one, ws.cache), x, y, run.opt_lcp, scratch)) {
    ws.last = run.total;
    ws.trained = true;
    run.res = lcp_accept(b, x, y, run.opt_lcp, run.total.iterations);
    run.training = false;
    return false;
  }
  if (!r.converged && run.attempt < set.restarts) {
    // after a stall: lift the blocked outputs, and when that stalls too, start afresh
    const bool lift = ++run.attempt % 2 == 1;
    if (!(lift && lcp_pinn_lift_blocked_outputs(L, ws.params, ws.A, ws.b, ws.cache, ws.d_out)))
      mlp_init(L, set.seed, uint64_t(run.attempt + run.pass * (set.restarts + 1)), ws.params);
    optimizer_start(np, ws.params, set.optimizer, run.opt, ws.work);
    return true;
  }
  // the pass ends: the network's own answer, judged like every solver's
  ws.last = run.total;
  ws.trained = true;
  const T* out = mlp_forward(L, ws.params, &one, ws.cache);
  for (int i = 0; i < A.rows; ++i) x[i] = out[i] * ws.col_scale[i];
  run.res = lcp_finish(A, b, x, y, run.opt_lcp, run.total.iterations);
  if (run.res.status == Status::ok || run.pass == 1) {
    run.training = false;
    return false;
  }
  run.pass = 1;
  run.attempt = 0;
  lcp_pinn_scale(A, b, run.beta, true, ws);
  mlp_init(L, set.seed, uint64_t(set.restarts + 1), ws.params);
  optimizer_start(np, ws.params, set.optimizer, run.opt, ws.work);
  return true;
}

// the LCP-PINN as a solver (shared signature): the training above in a plain loop
template <class T, int Cap>
FIVSIM_HD inline LcpResult lcp_pinn_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, LcpVector<T, Cap>& x,
                                          LcpVector<T, Cap>& y, const LcpOptions& opt, const LcpPinnSettings& set,
                                          LcpPinnWorkspace<T, Cap>& ws) {
  if (lcp_pinn_start(A, b, x, y, opt, set, ws))
    while (lcp_pinn_tell(A, b, x, y, set, ws, lcp_pinn_evaluate(ws))) {
    }
  return ws.run.res;
}

}  // namespace fivsim
