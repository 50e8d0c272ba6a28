// fivsim/core/small_eigenvalues.hpp — eigenvalues of a small dense nonsymmetric matrix in per-case
// FIVSIM_HD code (no heap): the Floquet multipliers of a periodic orbit's monodromy matrix
// (integrate/switching_orbit.hpp) on the CPU and the GPU alike.
//
// Householder reduction to upper Hessenberg form, then Francis' implicit double-shift QR steps on
// the active window with deflation at negligible subdiagonals (Golub & Van Loan, Matrix
// Computations, 4th ed., Algorithms 7.4.2 and 7.5.1–7.5.2); a 2×2 block left at the bottom gives a
// real pair or a complex-conjugate one. Exceptional shifts every eleventh step without
// deflation break the cycles a real shift pair can fall into.
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/small_linalg.hpp"

namespace fivsim {

namespace eigen_detail {

// a reflector P = I − 2vvᵀ/(vᵀv) that maps x (length len ≤ 3) to a multiple of e₁; false when x is 0
template <class T>
FIVSIM_HD inline bool reflector(const T* x, int len, T* v, T& beta) {
  T norm2 = T(0);
  for (int i = 0; i < len; ++i) norm2 += x[i] * x[i];
  if (!(norm2 > T(0))) return false;
  const T alpha = x[0] >= T(0) ? -sqrt(norm2) : sqrt(norm2);
  for (int i = 0; i < len; ++i) v[i] = x[i];
  v[0] -= alpha;
  T vv = T(0);
  for (int i = 0; i < len; ++i) vv += v[i] * v[i];
  if (!(vv > T(0))) return false;
  beta = T(2) / vv;
  return true;
}

// H ← P H on rows r0..r0+len−1, columns c0..c1, and H ← H P on columns r0..r0+len−1, rows q0..q1
template <class T, int N>
FIVSIM_HD inline void reflect(Mat<T, N, N>& H, const T* v, T beta, int len, int r0, int c0, int c1, int q0, int q1) {
  for (int j = c0; j <= c1; ++j) {
    T s = T(0);
    for (int i = 0; i < len; ++i) s += v[i] * H(r0 + i, j);
    s *= beta;
    for (int i = 0; i < len; ++i) H(r0 + i, j) -= s * v[i];
  }
  for (int i = q0; i <= q1; ++i) {
    T s = T(0);
    for (int j = 0; j < len; ++j) s += H(i, r0 + j) * v[j];
    s *= beta;
    for (int j = 0; j < len; ++j) H(i, r0 + j) -= s * v[j];
  }
}

// the eigenvalues of the 2×2 block [a b; c d]
template <class T>
FIVSIM_HD inline void block_eigenvalues(T a, T b, T c, T d, T* re, T* im) {
  const T p = T(0.5) * (a - d), q = p * p + b * c, mid = T(0.5) * (a + d);
  if (q >= T(0)) {
    // the root of larger modulus first (no cancellation), the other from the product
    const T r = mid >= T(0) ? sqrt(q) : -sqrt(q);
    const T big = mid + r;
    re[0] = big;
    re[1] = big != T(0) ? (a * d - b * c) / big : mid - r;
    im[0] = im[1] = T(0);
  } else {
    re[0] = re[1] = mid;
    im[0] = sqrt(-q);
    im[1] = -im[0];
  }
}

}  // namespace eigen_detail

// the n eigenvalues (re[i] + i·im[i]) of the leading n×n block of A (A is overwritten); false when
// the QR iteration did not converge (then re/im hold what was found)
template <class T, int N>
FIVSIM_HD inline bool small_eigenvalues(Mat<T, N, N>& H, int n, T* re, T* im) {
  namespace ed = eigen_detail;
  T v[3], x[3], beta;
  // Hessenberg form: column k's entries below the subdiagonal reflected away
  for (int k = 0; k + 2 < n; ++k) {
    const int len = n - k - 1;
    T col[N > 0 ? N : 1] = {}, w[N > 0 ? N : 1] = {};  // zeroed: gcc cannot see that len entries are written
    for (int i = 0; i < len; ++i) col[i] = H(k + 1 + i, k);
    T b;
    if (!ed::reflector(col, len, w, b)) continue;
    ed::reflect(H, w, b, len, k + 1, k, n - 1, 0, n - 1);
    for (int i = k + 2; i < n; ++i) H(i, k) = T(0);
  }
  T norm = T(0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) norm += fabs(H(i, j));
  const T eps = T(sizeof(T) == sizeof(float) ? 1.2e-7 : 2.3e-16);
  int hi = n - 1, its = 0;
  while (hi >= 0) {
    // the active window lo..hi ends above a negligible subdiagonal
    int lo = hi;
    for (; lo > 0; --lo) {
      T s = fabs(H(lo - 1, lo - 1)) + fabs(H(lo, lo));
      if (s == T(0)) s = norm;
      if (fabs(H(lo, lo - 1)) <= eps * s) {
        H(lo, lo - 1) = T(0);
        break;
      }
    }
    if (lo == hi) {
      re[hi] = H(hi, hi);
      im[hi] = T(0);
      --hi;
      its = 0;
      continue;
    }
    if (lo == hi - 1) {
      ed::block_eigenvalues(H(hi - 1, hi - 1), H(hi - 1, hi), H(hi, hi - 1), H(hi, hi), re + hi - 1, im + hi - 1);
      hi -= 2;
      its = 0;
      continue;
    }
    if (++its > 90) return false;
    // the shifts: the eigenvalues of the trailing 2×2 block (their sum s and product t)
    const int m = hi - 1;
    T s = H(m, m) + H(hi, hi), t = H(m, m) * H(hi, hi) - H(m, hi) * H(hi, m);
    if (its % 11 == 10) {
      const T w = fabs(H(hi, m)) + fabs(H(m, m - 1));
      s = T(1.5) * w;
      t = w * w;
    }
    // the first column of (H − σ₁)(H − σ₂), then its bulge chased down the window
    x[0] = H(lo, lo) * H(lo, lo) + H(lo, lo + 1) * H(lo + 1, lo) - s * H(lo, lo) + t;
    x[1] = H(lo + 1, lo) * (H(lo, lo) + H(lo + 1, lo + 1) - s);
    x[2] = H(lo + 1, lo) * H(lo + 2, lo + 1);
    for (int k = lo; k <= hi - 2; ++k) {
      if (ed::reflector(x, 3, v, beta)) {
        const int c0 = k > lo ? k - 1 : lo;
        const int q1 = k + 3 < hi ? k + 3 : hi;
        ed::reflect(H, v, beta, 3, k, c0, hi, lo, q1);
        if (k > lo) H(k + 1, k - 1) = H(k + 2, k - 1) = T(0);  // the bulge left column k − 1
      }
      x[0] = H(k + 1, k);
      x[1] = H(k + 2, k);
      x[2] = k + 3 <= hi ? H(k + 3, k) : T(0);
    }
    if (ed::reflector(x, 2, v, beta)) {
      ed::reflect(H, v, beta, 2, hi - 1, hi - 2, hi, lo, hi);
      H(hi, hi - 2) = T(0);
    }
  }
  return true;
}

// n eigenvalues reordered largest modulus first (insertion sort: n is small)
template <class T>
FIVSIM_HD inline void sort_by_modulus(T* re, T* im, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && re[j] * re[j] + im[j] * im[j] > re[j - 1] * re[j - 1] + im[j - 1] * im[j - 1]; --j) {
      const T r = re[j], q = im[j];
      re[j] = re[j - 1];
      im[j] = im[j - 1];
      re[j - 1] = r;
      im[j - 1] = q;
    }
}

}  // namespace fivsim
