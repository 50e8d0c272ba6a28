// fivsim/lcp/lcp_lemke.hpp — Lemke's complementary pivoting with the lexicographic ratio test.
//
// Dictionary form of y = A x + b with the artificial variable z0 and covering vector d = 1:
//   w = b + A z + d z0,  w, z, z0 ≥ 0,  w ⊥ z.
// Each basic variable is kept as an affine function of the n + 1 nonbasic ones (a compact
// tableau: half the columns of the textbook [I −A −d | b] form). z0 enters first against the
// most negative b; then the complement of each leaving variable enters, until z0 leaves (a
// solution) or no basic variable bounds the entering one (ray termination, Status::lcp_ray,
// never reported as a solution). Ties in the ratio test are broken lexicographically on the rows
// of B⁻¹, read off the dictionary, which prevents cycling on degenerate problems; a pivot cap
// catches what floating point still lets through (Status::lcp_cycling). The answer is then
// re-solved on the final basis with partial pivoting (lcp_solve_on_basis), because pivoting
// loses digits when A mixes scales (a spring contact's 1/(k_c dt²) beside Delassus entries of
// order 1/m). Problems of up to 6 unknowns pivot at a compile-time size. On the host the answers
// before any pivot (x = 0, the warm start's basis: most time steps) are inline in the caller and
// the pivots one call; device code calls one copy of the whole.
#pragma once

#include "fivsim/lcp/lcp.hpp"

namespace fivsim {

template <class T, int Cap>
struct LemkeDictionary {
  // basic variable of row i = q[i] + Σ_c D(i, c) · (nonbasic variable of column c)
  // variable ids: w_j = j, z_j = n + j, z0 = 2n
  Mat<T, Cap, Cap + 1> D;
  T q[Cap > 0 ? Cap : 1];
  int basic[Cap > 0 ? Cap : 1];  // variable of each row
  int nonbasic[Cap + 1];         // variable of each column
};

namespace detail {

// the entering variable of column e replaces the basic variable of row r
template <class T, int Cap, class Size>
FIVSIM_HD inline void lemke_pivot(LemkeDictionary<T, Cap>& d, Size n, int r, int e) {
  const int cols = int(n) + 1;
  const T inv = T(1) / d.D(r, e);
  // row r solved for the entering variable; the leaving one takes column e. The loops run over
  // whole rows without a test on c (so they vectorise) and column e is put right afterwards.
  const T minus_inv = -inv;
  d.q[r] *= minus_inv;
  for (int c = 0; c < cols; ++c) d.D(r, c) *= minus_inv;
  d.D(r, e) = inv;
  for (int i = 0; i < n; ++i) {
    if (i == r) continue;
    const T f = d.D(i, e);
    d.q[i] += f * d.q[r];
    for (int c = 0; c < cols; ++c) d.D(i, c) += f * d.D(r, c);
    d.D(i, e) = f * inv;
  }
  const int leaving = d.basic[r];
  d.basic[r] = d.nonbasic[e];
  d.nonbasic[e] = leaving;
}

// entry (i, j) of B⁻¹ — the coefficient of the original w_j in the tableau row of basic i
template <class T, int Cap>
FIVSIM_HD inline T lemke_binv(const LemkeDictionary<T, Cap>& d, const int* where, int i, int j) {
  const int at = where[j];  // ≥ 0: w_j basic in that row; < 0: nonbasic in column −at − 1
  return at >= 0 ? (at == i ? T(1) : T(0)) : -d.D(i, -at - 1);
}

// the leaving row for entering column e: the minimum of q_i / (−D(i, e)) over rows where the
// entering variable drives the basic one down, ties broken lexicographically on B⁻¹; the z0 row
// is preferred among ties so that the algorithm ends as soon as it can. −1: a ray.
template <class T, int Cap, class Size>
FIVSIM_HD inline int lemke_ratio_row(const LemkeDictionary<T, Cap>& d, Size n, int e, T piv_tol) {
  bool cand[Cap > 0 ? Cap : 1];
  T rate[Cap > 0 ? Cap : 1];
  int count = 0, last = -1;
  for (int i = 0; i < n; ++i) {
    cand[i] = d.D(i, e) < -piv_tol;
    rate[i] = T(0);
    if (cand[i]) {
      rate[i] = T(-1) / d.D(i, e);
      ++count;
      last = i;
    }
  }
  if (count <= 1) return last;
  const int z0 = 2 * int(n);
  int where[Cap > 0 ? Cap : 1];
  bool have_where = false;
  // stage −1 compares q, stages 0..n−1 the columns of B⁻¹
  for (int stage = -1; stage < n && count > 1; ++stage) {
    if (stage == 0 && !have_where) {
      for (int j = 0; j < n; ++j) where[j] = 0;
      for (int i = 0; i < n; ++i)
        if (d.basic[i] < n) where[d.basic[i]] = i;
      for (int c = 0; c <= n; ++c)
        if (d.nonbasic[c] < n) where[d.nonbasic[c]] = -c - 1;
      have_where = true;
    }
    T best = T(0);
    bool have = false;
    for (int i = 0; i < n; ++i) {
      if (!cand[i]) continue;
      const T v = (stage < 0 ? d.q[i] : lemke_binv(d, where, i, stage)) * rate[i];
      if (!have || v < best) {
        best = v;
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
      const T v = (stage < 0 ? d.q[i] : lemke_binv(d, where, i, stage)) * rate[i];
      cand[i] = v <= best + tie;
      if (cand[i]) {
        ++count;
        last = i;
        if (d.basic[i] == z0) z0_row = i;
      }
    }
    if (z0_row >= 0) return z0_row;
  }
  return last;
}

// Lemke's answers before any pivot: x = 0, y = b when b ≥ 0 (first, so that a warm start never
// changes such an answer), then the warm start's active set, verified like any other answer. True
// when one of them is the answer (res holds it); otherwise most_negative is the row of the most
// negative b, which z0 enters against. Inline in the host's callers, where most steps end: its
// result stays in registers (returned by a call, it went through memory and was read back in
// wider pieces than its fields were stored in, which store-to-load forwarding cannot serve).
// scratch: where the solve keeps its temporaries (lcp.hpp)
template <class T, int Cap, class Size, class Scratch>
FIVSIM_HD_INLINE_ON_HOST bool lemke_before_pivots(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                  LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                                  Size n, LcpResult& res, int& most_negative, Scratch scratch) {
  most_negative = -1;
  for (int i = 0; i < n; ++i)
    if (b[i] < T(0) && (most_negative < 0 || b[i] < b[most_negative])) most_negative = i;
  if (most_negative < 0) {
    x.resize(n);
    y.n = n;
    for (int i = 0; i < n; ++i) y[i] = b[i];
    if (lcp_has_nonfinite(A, b)) {
      res = LcpResult{};
      res.residual = -1.0;
      res.status = Status::nonfinite;
    } else {
      res = lcp_accept(b, x, y, opt, 0);
    }
    return true;
  }
  if (opt.use_basis_hint && n <= kLcpMaskBits) {
    const uint64_t hint = opt.basis_hint & (int(n) == 64 ? ~uint64_t(0) : (uint64_t(1) << int(n)) - 1);
    if (lcp_solve_on_basis(A, b, hint, x, y, T(opt.pivot_tolerance), lcp_basis_rel_tol<T>(), scratch)) {
      res = lcp_accept(b, x, y, opt, 0);
      if (res.status == Status::ok) return true;
    }
  }
  return false;
}

// the pivots, from z0 entering against row most_negative to z0 leaving, in the dictionary d; the
// answer re-solved on the final basis into xs, ys
template <class T, int Cap, class Size, class Scratch>
FIVSIM_HD_INLINE_ON_HOST LcpResult lemke_pivots_in(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                   LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                                   Size n, int most_negative, LemkeDictionary<T, Cap>& d,
                                                   LcpVector<T, Cap>& xs, LcpVector<T, Cap>& ys, Scratch scratch) {
  LcpResult fail;
  fail.residual = -1.0;
  x.resize(n);
  y.resize(n);
  if (lcp_has_nonfinite(A, b)) {
    fail.status = Status::nonfinite;
    return fail;
  }

  d.D.rows = n;
  d.D.cols = int(n) + 1;
  T scale = T(1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      d.D(i, j) = A(i, j);
      scale = max_value(scale, abs_value(A(i, j)));
    }
    d.D(i, n) = T(1);
    d.q[i] = b[i];
    d.basic[i] = i;
    d.nonbasic[i] = int(n) + i;
  }
  const int z0 = 2 * int(n);
  d.nonbasic[int(n)] = z0;
  const T piv_tol = T(opt.pivot_tolerance) * scale;
  const int max_pivots = opt.max_iterations > 0 ? opt.max_iterations : 50 * (int(n) + 1);

  // z0 enters against the most negative b
  int leaving = d.basic[most_negative];
  lemke_pivot(d, n, most_negative, int(n));
  int pivots = 1;
  while (true) {
    // the complement of the variable that just left enters
    const int entering = leaving < n ? leaving + int(n) : leaving - int(n);
    int e = 0;
    while (d.nonbasic[e] != entering) ++e;
    const int r = lemke_ratio_row(d, n, e, piv_tol);
    if (r < 0) {
      fail.status = Status::lcp_ray;
      fail.iterations = pivots;
      return fail;
    }
    leaving = d.basic[r];
    lemke_pivot(d, n, r, e);
    ++pivots;
    if (leaving == z0) break;
    if (pivots >= max_pivots) {
      fail.status = Status::lcp_cycling;
      fail.iterations = pivots;
      return fail;
    }
  }
  uint64_t mask = 0;
  for (int i = 0; i < n; ++i) {
    const int v = d.basic[i];
    if (v >= n && v < 2 * int(n)) {
      x[v - int(n)] = max_value(d.q[i], T(0));
      if (v - int(n) < kLcpMaskBits) mask |= uint64_t(1) << (v - int(n));
    }
  }
  // the exact re-solve on the final basis, the dictionary's values as the fallback
  if (n <= kLcpMaskBits) {
    if (lcp_solve_on_basis(A, b, mask, xs, ys, piv_tol, lcp_basis_rel_tol<T>(), scratch)) {
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

// ... with the dictionary on this call's stack
template <class T, int Cap, class Size>
FIVSIM_HD_NOINLINE inline LcpResult lemke_pivots(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                 LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                                 Size n, int most_negative, LcpOwnStack own) {
  LemkeDictionary<T, Cap> d;
  LcpVector<T, Cap> xs, ys;
  return lemke_pivots_in(A, b, x, y, opt, n, most_negative, d, xs, ys, own);
}

// ... or in the caller's scratch (its members dictionary, x, y, and the basis solve's)
template <class T, int Cap, class Size, class Scratch>
FIVSIM_HD_NOINLINE inline LcpResult lemke_pivots(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                 LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                                 Size n, int most_negative, Scratch* scratch) {
  return lemke_pivots_in(A, b, x, y, opt, n, most_negative, scratch->dictionary, scratch->x, scratch->y, scratch);
}

// the whole method, one copy (device code: its kernels call it)
template <class T, int Cap, class Size, class Scratch>
FIVSIM_HD_NOINLINE inline LcpResult lemke_core(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                               LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt,
                                               Size n, Scratch scratch) {
  LcpResult res;
  int most_negative = -1;
  if (lemke_before_pivots(A, b, x, y, opt, n, res, most_negative, scratch)) return res;
  return lemke_pivots(A, b, x, y, opt, n, most_negative, scratch);
}

// the pivots of problems of K ≤ 6 unknowns at a compile-time size (unrolled loops), larger ones
// at run time
template <int K, class T, int Cap, class Scratch>
FIVSIM_HD inline LcpResult lemke_pivots_fixed_or_runtime(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                                         LcpVector<T, Cap>& x, LcpVector<T, Cap>& y,
                                                         const LcpOptions& opt, int most_negative, Scratch scratch) {
  if constexpr (K <= Cap && K <= 6) {
    if (A.rows == K) return lemke_pivots(A, b, x, y, opt, FixedSize<K>{}, most_negative, scratch);
    return lemke_pivots_fixed_or_runtime<K + 1>(A, b, x, y, opt, most_negative, scratch);
  } else {
    return lemke_pivots(A, b, x, y, opt, A.rows, most_negative, scratch);
  }
}

}  // namespace detail

// scratch: where the solve keeps its temporaries (lcp.hpp)
template <class T, int Cap, class Scratch = LcpOwnStack>
FIVSIM_HD_INLINE_ON_HOST LcpResult lemke_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                               LcpVector<T, Cap>& x, LcpVector<T, Cap>& y, const LcpOptions& opt = {},
                                               Scratch scratch = {}) {
  if (A.rows > Cap) {
    LcpResult fail;
    fail.status = Status::lcp_too_large;
    fail.residual = -1.0;
    return fail;
  }
#if defined(__CUDA_ARCH__)
  // one size-generic copy in device code (its loops bounded at run time): the fixed-size copies
  // multiply the kernels' code and compile time for the few cycles their unrolling saves
  return detail::lemke_core(A, b, x, y, opt, A.rows, scratch);
#else
  LcpResult res;
  int most_negative = -1;
  if (detail::lemke_before_pivots(A, b, x, y, opt, A.rows, res, most_negative, scratch)) return res;
  return detail::lemke_pivots_fixed_or_runtime<1>(A, b, x, y, opt, most_negative, scratch);
#endif
}

}  // namespace fivsim
