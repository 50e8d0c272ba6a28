// fivsim/lcp/lcp_enum.hpp — exact LCP solution by enumerating the 2^n complementary bases.
//
// For each active set S (x_S free, y_S = 0, x_rest = 0) it solves A_SS x_S = −b_S and keeps
// the basis when x ≥ 0 and y = A x + b ≥ 0 up to rounding. Exact (finds a solution whenever one
// exists with a nonsingular A_SS) and only meant for n ≤ 4 (16 bases): the reference that
// Lemke and PGS are tested against, and a fast solver for the 1- and 2-contact models.
#pragma once

#include "fivsim/lcp/lcp.hpp"

namespace fivsim {

inline constexpr int kEnumMaxSize = 4;

template <class T, int Cap>
FIVSIM_HD inline LcpResult enum_solve(const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                      LcpVector<T, Cap>& x, LcpVector<T, Cap>& y,
                                      const LcpOptions& opt = {}) {
  const int n = A.rows;
  x.resize(n);
  y.resize(n);
  LcpResult fail;
  if (n > kEnumMaxSize) {
    fail.status = Status::lcp_too_large;
    fail.residual = -1.0;
    return fail;
  }
  if (lcp_has_nonfinite(A, b)) {
    fail.status = Status::nonfinite;
    return fail;
  }
  T scale = T(1);
  for (int i = 0; i < n; ++i) {
    scale = max_value(scale, abs_value(b[i]));
    for (int j = 0; j < n; ++j) scale = max_value(scale, abs_value(A(i, j)));
  }
  const T feas_tol = T(1e-12) * scale;

  constexpr int kc = kEnumMaxSize;
  Vec<T, kc> best_x;
  best_x.resize(n);
  T best_r = T(-1);
  int tried = 0;
  for (int mask = 0; mask < (1 << n); ++mask) {
    ++tried;
    int idx[kc];
    int k = 0;
    for (int i = 0; i < n; ++i)
      if (mask & (1 << i)) idx[k++] = i;
    Mat<T, kc, kc> S;
    Vec<T, kc> r;
    S.resize(k, k);
    r.resize(k);
    for (int a = 0; a < k; ++a) {
      r[a] = -b[idx[a]];
      for (int c = 0; c < k; ++c) S(a, c) = A(idx[a], idx[c]);
    }
    if (!solve_dense_inplace(S, r, k, T(opt.pivot_tolerance))) continue;
    Vec<T, kc> cx;
    cx.resize(n);
    bool ok = true;
    for (int a = 0; a < k; ++a) {
      if (r[a] < -feas_tol) ok = false;
      cx[idx[a]] = max_value(r[a], T(0));
    }
    if (!ok) continue;
    T res = T(0);
    for (int i = 0; i < n; ++i) {
      T yi = b[i];
      for (int j = 0; j < n; ++j) yi += A(i, j) * cx[j];
      if (!(mask & (1 << i)) && yi < -feas_tol) ok = false;
      res = max_value(res, abs_value(min_value(cx[i], yi)));
    }
    if (!ok) continue;
    if (best_r < T(0) || res < best_r) {
      best_r = res;
      for (int i = 0; i < n; ++i) best_x[i] = cx[i];
    }
    if (res == T(0)) break;
  }
  if (best_r < T(0)) {
    fail.status = Status::lcp_no_solution;
    fail.iterations = tried;
    fail.residual = -1.0;
    return fail;
  }
  for (int i = 0; i < n; ++i) x[i] = best_x[i];
  return lcp_finish(A, b, x, y, opt, tried);
}

}  // namespace fivsim
