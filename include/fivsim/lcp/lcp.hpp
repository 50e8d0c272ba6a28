// fivsim/lcp/lcp.hpp — what every LCP solver shares: the problem types, the options, the
// result, and the one residual all of them are judged by.
//
// LCP (seed 000 Eq. 16): find x, y with y = A x + b, x ≥ 0, y ≥ 0, xᵀy = 0.
// Every solver has the signature solve(A, b, x, y, options) -> LcpResult and recomputes
// y = A x + b from its x before the residual is taken, so no solver reports a pivot
// result that was not checked (DESIGN.md §2).
#pragma once

#include "fivsim/core/small_linalg.hpp"
#include "fivsim/core/status.hpp"

namespace fivsim {

template <class T, int Cap>
using LcpMatrix = Mat<T, Cap, Cap>;
template <class T, int Cap>
using LcpVector = Vec<T, Cap>;

struct LcpOptions {
  int max_iterations = 0;          // 0: the solver's own default (pivots, sweeps or bases)
  double tolerance = 1e-10;        // accept when residual <= tolerance * (1 + ‖b‖∞)
  double pivot_tolerance = 1e-13;  // smallest pivot, relative to the problem's scale
};

struct LcpResult {
  Status status = Status::ok;
  int iterations = 0;
  double residual = 0.0;
};

// the natural-map residual ‖min(x, Ax + b)‖∞ (zero exactly at a solution)
template <class T, int Cap>
FIVSIM_HD inline T lcp_residual(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                const LcpVector<T, Cap>& x) {
  T r = T(0);
  for (int i = 0; i < A.rows; ++i) {
    T yi = b[i];
    for (int j = 0; j < A.cols; ++j) yi += A(i, j) * x[j];
    r = max_value(r, abs_value(min_value(x[i], yi)));
  }
  return r;
}

// y = A x + b, then the natural-map residual, then the acceptance test shared by all solvers
template <class T, int Cap>
FIVSIM_HD inline LcpResult lcp_finish(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                      const LcpVector<T, Cap>& x, LcpVector<T, Cap>& y,
                                      const LcpOptions& opt, int iterations) {
  LcpResult res;
  res.iterations = iterations;
  y.n = A.rows;
  T r = T(0);
  bool finite = true;
  for (int i = 0; i < A.rows; ++i) {
    T yi = b[i];
    for (int j = 0; j < A.cols; ++j) yi += A(i, j) * x[j];
    y[i] = yi;
    finite = finite && is_finite(yi) && is_finite(x[i]);
    r = max_value(r, abs_value(min_value(x[i], yi)));
  }
  res.residual = static_cast<double>(r);
  if (!finite) {
    res.status = Status::nonfinite;
  } else if (res.residual > opt.tolerance * (1.0 + static_cast<double>(norm_inf(b)))) {
    res.status = Status::lcp_inaccurate;
  }
  return res;
}

// true when any entry of A or b is NaN or Inf
template <class T, int Cap>
FIVSIM_HD inline bool lcp_has_nonfinite(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b) {
  for (int i = 0; i < A.rows; ++i) {
    if (!is_finite(b[i])) return true;
    for (int j = 0; j < A.cols; ++j)
      if (!is_finite(A(i, j))) return true;
  }
  return false;
}

}  // namespace fivsim
