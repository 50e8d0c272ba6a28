// fivsim/lcp/lcp_pgs.hpp — projected Gauss–Seidel: x_i ← max(0, x_i − (A x + b)_i / A_ii).
//
// Converges for symmetric positive definite A (and for many P-matrices). It needs every
// A_ii > 0, so a zero or negative diagonal is reported at once as Status::lcp_zero_diagonal:
// the friction LCPs of seed 000 Eqs. 12, 14 and 28 have zero diagonals in their γ_R rows.
// Starts from the x passed in when its size matches (warm start), else from zero.
#pragma once

#include "fivsim/lcp/lcp.hpp"

namespace fivsim {

template <class T, int Cap>
FIVSIM_HD_NOINLINE inline LcpResult pgs_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                              LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt = {}) {
  const int n = A.rows;
  LcpResult fail;
  if (n > Cap) {
    fail.status = Status::lcp_too_large;
    fail.residual = -1.0;
    return fail;
  }
  if (x.n != n) x.resize(n);
  y.resize(n);
  if (lcp_has_nonfinite(A, b)) {
    fail.status = Status::nonfinite;
    return fail;
  }
  for (int i = 0; i < n; ++i) {
    if (!(A(i, i) > T(0))) {
      fail.status = Status::lcp_zero_diagonal;
      fail.residual = -1.0;
      return fail;
    }
    x[i] = max_value(x[i], T(0));
  }
  const int max_sweeps = opt.max_iterations > 0 ? opt.max_iterations : 10000;
  const double accept = opt.tolerance * (1.0 + static_cast<double>(norm_inf(b)));
  int sweep = 0;
  LcpResult res;
  while (sweep < max_sweeps) {
    ++sweep;
    for (int i = 0; i < n; ++i) {
      T r = b[i];
      for (int j = 0; j < n; ++j) r += A(i, j) * x[j];
      x[i] = max_value(T(0), x[i] - r / A(i, i));
    }
    res = lcp_finish(A, b, x, y, opt, sweep);
    if (res.status == Status::nonfinite) return res;
    if (res.residual <= accept) return res;
  }
  res.status = Status::lcp_not_converged;
  return res;
}

}  // namespace fivsim
