// fivsim/lcp/lcp_enum.hpp — exact LCP solution by enumerating the 2^n complementary bases.
//
// For each active set S (x_S free, y_S = 0, x_rest = 0) it solves A_SS x_S = −b_S and stops at
// the first basis with x ≥ 0 and y = A x + b ≥ 0 up to rounding (lcp_solve_on_basis). Exact (finds a solution whenever
// one exists with a nonsingular A_SS) and only meant for n ≤ 4 (16 bases): the reference that Lemke and PGS are tested
// against, and a fast solver for the 1- and 2-contact models.
#pragma once

#include "fivsim/lcp/lcp.hpp"

namespace fivsim {

inline constexpr int kEnumMaxSize = 4;

// scratch: where the solve keeps its temporaries (lcp.hpp)
template <class T, int Cap, class Scratch = LcpOwnStack>
FIVSIM_HD_NOINLINE inline LcpResult enum_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                               LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt = {},
                                               Scratch scratch = {}) {
  const int n = A.rows;
  LcpResult fail;
  if (n > kEnumMaxSize || n > Cap) {
    fail.status = Status::lcp_too_large;
    fail.residual = -1.0;
    return fail;
  }
  x.resize(n);
  y.resize(n);
  if (lcp_has_nonfinite(A, b)) {
    fail.status = Status::nonfinite;
    return fail;
  }
  const T rel_tol = lcp_basis_rel_tol<T>();
  const T piv_tol = T(opt.pivot_tolerance);
  int tried = 0;
  // the hinted basis first (warm start), then all 2^n in order
  const int first = opt.use_basis_hint ? -1 : 0;
  for (int m = first; m < (1 << n); ++m) {
    const uint64_t mask = m < 0 ? opt.basis_hint & ((uint64_t(1) << n) - 1) : uint64_t(m);
    ++tried;
    // a feasible complementary basis is a solution (to rounding): the first one found is kept
    if (lcp_solve_on_basis(A, b, mask, x, y, piv_tol, rel_tol, scratch)) return lcp_accept(b, x, y, opt, tried);
  }
  x.resize(n);
  fail.status = Status::lcp_no_solution;
  fail.iterations = tried;
  fail.residual = -1.0;
  return fail;
}

}  // namespace fivsim
