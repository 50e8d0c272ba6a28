// fivsim/lcp/lcp.hpp — what every LCP solver shares: the problem types, the options, the
// result, and the one residual all of them are judged by.
//
// LCP (seed 000 Eq. 16): find x, y with y = A x + b, x ≥ 0, y ≥ 0, xᵀy = 0.
// Every solver has the signature solve(A, b, x, y, options) -> LcpResult and recomputes
// y = A x + b from its x before the residual is taken, so no solver reports a pivot
// result that was not checked (docs/DESIGN.md §2).
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/small_linalg.hpp"
#include "fivsim/core/status.hpp"

namespace fivsim {

template <class T, int Cap>
using LcpMatrix = Mat<T, Cap, Cap>;
template <class T, int Cap>
using LcpVector = Vec<T, Cap>;

inline constexpr int kLcpMaskBits = 64;

struct LcpOptions {
  int max_iterations = 0;          // 0: the solver's own default (pivots, sweeps or bases)
  double tolerance = 1e-10;        // accept when residual <= tolerance * (1 + ‖b‖∞)
  double pivot_tolerance = 1e-13;  // smallest pivot, relative to the problem's scale
  // warm start (Lemke, enumeration): first try the active set {i : bit i of basis_hint}, e.g.
  // the previous time step's; used only when n <= 64 and the guess is then verified
  bool use_basis_hint = false;
  uint64_t basis_hint = 0;
};

struct LcpResult {
  Status status = Status::ok;
  int iterations = 0;
  double residual = 0.0;
  uint64_t basis = 0;  // active set of the answer: bit i set when x_i > 0 (n <= 64)
};

// the natural-map residual ‖min(x, Ax + b)‖∞ (zero exactly at a solution)
template <class T, int Cap>
FIVSIM_HD inline T lcp_residual(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, const LcpVector<T, Cap>& x) {
  T r = T(0);
  for (int i = 0; i < A.rows; ++i) {
    T yi = b[i];
    for (int j = 0; j < A.cols; ++j) yi += A(i, j) * x[j];
    r = max_value(r, abs_value(min_value(x[i], yi)));
  }
  return r;
}

// the acceptance test shared by all solvers, on an x and its y = A x + b: natural-map residual,
// finiteness (NaN or Inf anywhere in A or b reaches y, since every entry is multiplied), active set
template <class T, int Cap>
FIVSIM_HD_INLINE_ON_HOST LcpResult lcp_accept(const LcpVector<T, Cap>& b, const LcpVector<T, Cap>& x,
                                              const LcpVector<T, Cap>& y, const LcpOptions& opt, int iterations) {
  LcpResult res;
  res.iterations = iterations;
  T r = T(0);
  bool finite = true;
  for (int i = 0; i < x.n; ++i) {
    finite = finite && is_finite(y[i]) && is_finite(x[i]);
    r = max_value(r, abs_value(min_value(x[i], y[i])));
    if (x[i] > T(0) && i < kLcpMaskBits) res.basis |= uint64_t(1) << i;
  }
  res.residual = static_cast<double>(r);
  if (!finite) {
    res.status = Status::nonfinite;
  } else if (!(res.residual <= opt.tolerance) &&
             !(res.residual <= opt.tolerance * (1.0 + static_cast<double>(norm_inf(b))))) {
    res.status = Status::lcp_inaccurate;
  }
  return res;
}

// y = A x + b, then lcp_accept
template <class T, int Cap>
FIVSIM_HD inline LcpResult lcp_finish(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                      const LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                      int iterations) {
  y.n = A.rows;
  for (int i = 0; i < A.rows; ++i) {
    T yi = b[i];
    for (int j = 0; j < A.cols; ++j) yi += A(i, j) * x[j];
    y[i] = yi;
  }
  return lcp_accept(b, x, y, opt, iterations);
}

// where a solver keeps its large temporaries (a Cap × Cap basis matrix, Lemke's dictionary): on its
// own stack (LcpOwnStack, the default), or in an LcpScratch the caller keeps (lcp_solve.hpp) and
// passes by pointer. Device code reserves a kernel's whole stack frame for every thread the device
// can hold, so kernels over large LCPs give their solvers scratch in the case's memory instead.
struct LcpOwnStack {};

namespace detail {

// lcp_solve_on_basis for an active set of k entries (idx) in the temporaries S, r: the k×k solve
template <class T, int Cap, int KCap, class Size>
FIVSIM_HD_INLINE_ON_HOST bool basis_solve_in(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, const int* idx,
                                             Size k, LcpVector<T, Cap>& x, T pivot_tol, T rel_tol,
                                             Mat<T, KCap, KCap>& S, Vec<T, KCap>& r) {
  for (int a = 0; a < k; ++a) {
    r[a] = -b[idx[a]];
    for (int c = 0; c < k; ++c) S(a, c) = A(idx[a], idx[c]);
  }
  if (!solve_dense_inplace(S, r, k, pivot_tol)) return false;
  T xmax = T(0);
  for (int a = 0; a < k; ++a) xmax = max_value(xmax, abs_value(r[a]));
  for (int a = 0; a < k; ++a) {
    if (!(r[a] >= -rel_tol * xmax)) return false;
    x[idx[a]] = max_value(r[a], T(0));
  }
  return true;
}

// the same for active sets of KCap or fewer entries in a KCap×KCap matrix, so that small active
// sets get small, fully unrolled arithmetic
template <int KCap, class T, int Cap, class Size>
FIVSIM_HD inline bool basis_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, const int* idx, Size k,
                                  LcpVector<T, Cap>& x, T pivot_tol, T rel_tol) {
  Mat<T, KCap, KCap> S;
  Vec<T, KCap> r;
  return basis_solve_in(A, b, idx, k, x, pivot_tol, rel_tol, S, r);
}

// the runtime-size case, one copy that its callers call: its Cap × Cap matrix then sits in one
// frame, not in each inlining caller's
template <class T, int Cap>
FIVSIM_HD_NOINLINE inline bool basis_solve_at_runtime_size(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                           const int* idx, int k, LcpVector<T, Cap>& x, T pivot_tol,
                                                           T rel_tol, LcpOwnStack) {
  return basis_solve<Cap>(A, b, idx, k, x, pivot_tol, rel_tol);
}

// ... or in the caller's scratch (its members basis and rhs)
template <class T, int Cap, class Scratch>
FIVSIM_HD inline bool basis_solve_at_runtime_size(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                  const int* idx, int k, LcpVector<T, Cap>& x, T pivot_tol, T rel_tol,
                                                  Scratch* scratch) {
  return basis_solve_in(A, b, idx, k, x, pivot_tol, rel_tol, scratch->basis, scratch->rhs);
}

}  // namespace detail

// the complementary basis with active set S = {i : bit i of mask}: x_S solves A_SS x_S = −b_S,
// x is zero elsewhere, y = A x + b. Returns false when A_SS is singular to working precision or
// the basis is infeasible beyond rounding: some x_i < −rel_tol·max|x_S|, or some y_i off S below
// −rel_tol·(|b_i| + Σ_j |A_ij x_j|) (a per-row bound, so badly scaled rows are judged fairly).
// Otherwise x (clamped at zero) and y hold the solution. Shared by enumeration, Lemke's warm
// start and Lemke's final re-solve; scratch as above.
template <class T, int Cap, class Scratch = LcpOwnStack>
FIVSIM_HD inline bool lcp_solve_on_basis(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b, uint64_t mask,
                                         LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, T pivot_tol, T rel_tol,
                                         Scratch scratch = {}) {
  const int n = A.rows;
  // at least 4 entries, so that the fixed-size cases below compile for every capacity
  int idx[Cap > 4 ? Cap : 4] = {};
  int k = 0;
  for (int i = 0; i < n; ++i) {
    x[i] = T(0);
    if (mask & (uint64_t(1) << i)) idx[k++] = i;
  }
  x.n = y.n = n;
  // the common small active sets at fixed size, the rest at the runtime size
  bool ok = true;
  switch (k) {
    case 0:
      break;
    case 1:
      ok = detail::basis_solve<1>(A, b, idx, FixedSize<1>{}, x, pivot_tol, rel_tol);
      break;
    case 2:
      ok = detail::basis_solve<2>(A, b, idx, FixedSize<2>{}, x, pivot_tol, rel_tol);
      break;
    case 3:
      ok = detail::basis_solve<3>(A, b, idx, FixedSize<3>{}, x, pivot_tol, rel_tol);
      break;
    case 4:
      ok = detail::basis_solve<4>(A, b, idx, FixedSize<4>{}, x, pivot_tol, rel_tol);
      break;
    default:
      ok = detail::basis_solve_at_runtime_size(A, b, idx, k, x, pivot_tol, rel_tol, scratch);
      break;
  }
  if (!ok) return false;
  for (int i = 0; i < n; ++i) {
    T yi = b[i];
    for (int a = 0; a < k; ++a) yi += A(i, idx[a]) * x[idx[a]];
    y[i] = yi;
    if ((mask & (uint64_t(1) << i)) || yi >= T(0)) continue;
    // a negative y_i off S: within rounding of its terms, or infeasible (NaN fails too)
    T mag = abs_value(b[i]);
    for (int a = 0; a < k; ++a) mag += abs_value(A(i, idx[a]) * x[idx[a]]);
    if (!(yi >= -rel_tol * mag)) return false;
  }
  return true;
}

// relative rounding allowance of lcp_solve_on_basis
template <class T>
FIVSIM_HD constexpr T lcp_basis_rel_tol() {
  return T(1024) * machine_epsilon<T>();
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
