// fivsim/lcp/lcp_lemke.hpp — Lemke's complementary pivoting with the lexicographic ratio test.
//
// Tableau form of y = A x + b:  I·w − A·z − d·z0 = b, covering vector d = 1. z0 enters first
// against the most negative b; then the complement of each leaving variable enters, until z0
// leaves (solution) or the entering column has no positive entry (ray termination, reported as
// Status::lcp_ray, never as a solution). The lexicographic rule (ties broken on the rows of
// B⁻¹, the w-columns of the tableau) prevents cycling on degenerate problems; a pivot cap
// catches what floating point still lets through (Status::lcp_cycling).
#pragma once

#include "fivsim/lcp/lcp.hpp"

namespace fivsim {

template <class T, int Cap>
struct LemkeTableau {
  // columns: [0, n) w, [n, 2n) z, 2n z0, 2n+1 right-hand side
  Mat<T, Cap, 2 * Cap + 2> t;
  int basis[Cap > 0 ? Cap : 1];  // variable index held by each row
};

namespace detail {

template <class T, int Cap>
FIVSIM_HD inline void lemke_pivot(LemkeTableau<T, Cap>& tab, int n, int row, int col) {
  const int width = 2 * n + 2;
  auto& t = tab.t;
  const T inv = T(1) / t(row, col);
  for (int j = 0; j < width; ++j) t(row, j) *= inv;
  for (int i = 0; i < n; ++i) {
    if (i == row) continue;
    const T f = t(i, col);
    if (f == T(0)) continue;
    for (int j = 0; j < width; ++j) t(i, j) -= f * t(row, j);
    t(i, col) = T(0);
  }
  tab.basis[row] = col;
}

// lexicographic minimum-ratio row for the entering column, or -1 when no entry is positive;
// prefers the z0 row among ties so that the algorithm ends as soon as it can
template <class T, int Cap>
FIVSIM_HD inline int lemke_ratio_row(const LemkeTableau<T, Cap>& tab, int n, int col, T piv_tol) {
  const auto& t = tab.t;
  const int rhs = 2 * n + 1;
  const int z0 = 2 * n;
  bool cand[Cap > 0 ? Cap : 1];
  T inv[Cap > 0 ? Cap : 1];
  int count = 0, last = -1;
  for (int i = 0; i < n; ++i) {
    cand[i] = t(i, col) > piv_tol;
    if (cand[i]) {
      inv[i] = T(1) / t(i, col);
      ++count;
      last = i;
    }
  }
  if (count <= 1) return last;
  // stage -1 compares the right-hand side, stages 0..n-1 the rows of B⁻¹
  for (int stage = -1; stage < n && count > 1; ++stage) {
    const int c = stage < 0 ? rhs : stage;
    T best = T(0);
    bool have = false;
    for (int i = 0; i < n; ++i) {
      if (!cand[i]) continue;
      const T r = t(i, c) * inv[i];
      if (!have || r < best) {
        best = r;
        have = true;
      }
    }
    // ties are equal ratios up to rounding, relative to the ratio itself (an absolute floor
    // would merge distinct ratios of small problems and leave y slightly negative)
    const T tie = T(64) * machine_epsilon<T>() * abs_value(best);
    count = 0;
    int z0_row = -1;
    for (int i = 0; i < n; ++i) {
      if (!cand[i]) continue;
      cand[i] = t(i, c) * inv[i] <= best + tie;
      if (cand[i]) {
        ++count;
        last = i;
        if (tab.basis[i] == z0) z0_row = i;
      }
    }
    if (z0_row >= 0) return z0_row;
  }
  return last;
}

}  // namespace detail

template <class T, int Cap>
FIVSIM_HD inline LcpResult lemke_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                       LcpVector<T, Cap>& x, LcpVector<T, Cap>& y,
                                       const LcpOptions& opt = {}) {
  const int n = A.rows;
  LcpResult fail;
  if (n > Cap) {
    fail.status = Status::lcp_too_large;
    fail.residual = -1.0;
    return fail;
  }
  // warm start: the hinted active set, verified like any other answer
  if (opt.use_basis_hint && n <= kLcpMaskBits) {
    const uint64_t hint = opt.basis_hint & (n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1);
    if (lcp_solve_on_basis(A, b, hint, x, y, T(opt.pivot_tolerance), lcp_basis_rel_tol<T>())) {
      const LcpResult warm = lcp_accept(b, x, y, opt, 0);
      if (warm.status == Status::ok) return warm;
    }
  }
  x.resize(n);
  y.resize(n);
  if (lcp_has_nonfinite(A, b)) {
    fail.status = Status::nonfinite;
    return fail;
  }
  // trivial solution: x = 0, y = b
  int most_negative = -1;
  for (int i = 0; i < n; ++i)
    if (b[i] < T(0) && (most_negative < 0 || b[i] < b[most_negative])) most_negative = i;
  if (most_negative < 0) {
    for (int i = 0; i < n; ++i) y[i] = b[i];
    return lcp_accept(b, x, y, opt, 0);
  }

  LemkeTableau<T, Cap> tab;
  auto& t = tab.t;
  const int z0 = 2 * n;
  const int rhs = 2 * n + 1;
  t.resize(n, 2 * n + 2);
  T scale = T(1);
  for (int i = 0; i < n; ++i) {
    t(i, i) = T(1);
    for (int j = 0; j < n; ++j) {
      t(i, n + j) = -A(i, j);
      scale = max_value(scale, abs_value(A(i, j)));
    }
    t(i, z0) = T(-1);
    t(i, rhs) = b[i];
    tab.basis[i] = i;
  }
  const T piv_tol = T(opt.pivot_tolerance) * scale;
  const int max_pivots = opt.max_iterations > 0 ? opt.max_iterations : 50 * (n + 1);

  // z0 enters against the most negative b (lexicographic ties: the first such row)
  int leaving_var = tab.basis[most_negative];
  detail::lemke_pivot(tab, n, most_negative, z0);
  int pivots = 1;
  while (true) {
    // the complement of the variable that just left enters
    const int entering = leaving_var < n ? leaving_var + n : leaving_var - n;
    const int row = detail::lemke_ratio_row(tab, n, entering, piv_tol);
    if (row < 0) {
      fail.status = Status::lcp_ray;
      fail.iterations = pivots;
      fail.residual = -1.0;
      return fail;
    }
    leaving_var = tab.basis[row];
    detail::lemke_pivot(tab, n, row, entering);
    ++pivots;
    if (leaving_var == z0) break;
    if (pivots >= max_pivots) {
      fail.status = Status::lcp_cycling;
      fail.iterations = pivots;
      fail.residual = -1.0;
      return fail;
    }
  }
  // Gauss–Jordan on the tableau loses digits when A mixes scales (a spring contact's compliance
  // 1/(k_c dt²) beside Delassus entries of order 1/m): the answer is re-solved on the final basis
  // with partial pivoting, and the tableau's values are the fallback
  uint64_t mask = 0;
  for (int i = 0; i < n; ++i) {
    const int v = tab.basis[i];
    if (v >= n && v < 2 * n) {
      x[v - n] = max_value(t(i, rhs), T(0));
      if (v - n < kLcpMaskBits) mask |= uint64_t(1) << (v - n);
    }
  }
  if (n <= kLcpMaskBits) {
    LcpVector<T, Cap> xs, ys;
    if (lcp_solve_on_basis(A, b, mask, xs, ys, piv_tol, lcp_basis_rel_tol<T>())) {
      const LcpResult exact = lcp_accept(b, xs, ys, opt, pivots);
      if (exact.status == Status::ok) {
        x = xs;
        y = ys;
        return exact;
      }
    }
  }
  return lcp_finish(A, b, x, y, opt, pivots);
}

}  // namespace fivsim
