// fivsim/core/small_linalg.hpp — fixed-capacity vectors and matrices for the step path.
//
// Storage is sized at compile time (no heap) and the active size is a runtime field, so one
// instantiation serves every model up to its capacity on the host and in CUDA kernels alike.
// Eigen stays on the host (docs/DESIGN.md §3); these are the device-side helpers.
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/config.hpp"

namespace fivsim {

template <class T>
FIVSIM_HD inline bool is_finite(T x) {
  // inf - inf and nan - nan are nan, which compares unequal to itself
  T d = x - x;
  return d == d;
}

// unit roundoff of the scalar type, usable in device code (std::numeric_limits is host-only)
template <class T>
FIVSIM_HD constexpr T machine_epsilon();
template <>
FIVSIM_HD constexpr double machine_epsilon<double>() {
  return DBL_EPSILON;
}
template <>
FIVSIM_HD constexpr float machine_epsilon<float>() {
  return FLT_EPSILON;
}

// fabs compiles to a sign-bit mask; a compare-and-negate would branch
template <class T>
FIVSIM_HD inline T abs_value(T x) {
  return fabs(x);
}

template <class T>
FIVSIM_HD inline T max_value(T a, T b) {
  return a > b ? a : b;
}

template <class T>
FIVSIM_HD inline T min_value(T a, T b) {
  return a < b ? a : b;
}

// on the host, storage of at most this many entries is filled whole by resize, at a compile-time
// count: g++ turns a fill of a run-time count into a memset call, which costs more than the few
// stores (the general runner's step made one per row of its LCP). Entries past the size are not
// the vector's, so the values it holds are the same; device code fills the size only
#if defined(__CUDA_ARCH__)
inline constexpr int kFillWholeUpTo = 0;
#else
inline constexpr int kFillWholeUpTo = 64;
#endif

template <class T, int Cap>
struct Vec {
  int n = 0;
  T v[Cap > 0 ? Cap : 1];

  FIVSIM_HD T& operator[](int i) { return v[i]; }
  FIVSIM_HD const T& operator[](int i) const { return v[i]; }
  FIVSIM_HD void resize(int size, T fill = T(0)) {
    n = size;
    if constexpr (Cap <= kFillWholeUpTo) {
      for (int i = 0; i < Cap; ++i) v[i] = fill;
    } else {
      for (int i = 0; i < n; ++i) v[i] = fill;
    }
  }
};

template <class T, int RCap, int CCap>
struct Mat {
  int rows = 0;
  int cols = 0;
  T a[(RCap > 0 ? RCap : 1) * (CCap > 0 ? CCap : 1)];

  FIVSIM_HD T& operator()(int i, int j) { return a[i * CCap + j]; }
  FIVSIM_HD const T& operator()(int i, int j) const { return a[i * CCap + j]; }
  FIVSIM_HD void resize(int r, int c, T fill = T(0)) {
    rows = r;
    cols = c;
    if constexpr (RCap * CCap <= kFillWholeUpTo) {
      for (int i = 0; i < RCap * CCap; ++i) a[i] = fill;
    } else {
      for (int i = 0; i < r; ++i)
        for (int j = 0; j < c; ++j) (*this)(i, j) = fill;
    }
  }
};

// y = A x (sizes from A)
template <class T, int R, int C, int CX, int CY>
FIVSIM_HD inline void mat_vec(const Mat<T, R, C>& A, const Vec<T, CX>& x, Vec<T, CY>& y) {
  y.n = A.rows;
  for (int i = 0; i < A.rows; ++i) {
    T s = T(0);
    for (int j = 0; j < A.cols; ++j) s += A(i, j) * x[j];
    y[i] = s;
  }
}

// y = A^T x (sizes from A)
template <class T, int R, int C, int CX, int CY>
FIVSIM_HD inline void mat_t_vec(const Mat<T, R, C>& A, const Vec<T, CX>& x, Vec<T, CY>& y) {
  y.n = A.cols;
  for (int j = 0; j < A.cols; ++j) {
    T s = T(0);
    for (int i = 0; i < A.rows; ++i) s += A(i, j) * x[i];
    y[j] = s;
  }
}

template <class T, int Cap>
FIVSIM_HD inline T norm_inf(const Vec<T, Cap>& x) {
  T m = T(0);
  for (int i = 0; i < x.n; ++i) m = max_value(m, abs_value(x[i]));
  return m;
}

// a size known at compile time; converts to int, so that one loop `for (i = 0; i < n; ++i)` serves
// a runtime size (int) and a fixed one (FixedSize<N>, fully unrolled by the compiler)
template <int N>
struct FixedSize {
  FIVSIM_HD constexpr operator int() const { return N; }
};

// solves the leading k×k system S z = r in place by Gaussian elimination with partial
// pivoting; S and r are overwritten, z is returned in r. Returns false when a pivot is below
// pivot_tol times the largest entry of S (singular to working precision). Size is int or
// FixedSize<K>.
template <class T, int Cap, class Size>
FIVSIM_HD inline bool solve_dense_inplace(Mat<T, Cap, Cap>& S, Vec<T, Cap>& r, Size k, T pivot_tol) {
  T scale = T(0);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) scale = max_value(scale, abs_value(S(i, j)));
  if (scale == T(0)) return int(k) == 0;
  const T tol = pivot_tol * scale;
  for (int col = 0; col < k; ++col) {
    int piv = col;
    T best = abs_value(S(col, col));
    for (int i = col + 1; i < k; ++i) {
      const T v = abs_value(S(i, col));
      if (v > best) {
        best = v;
        piv = i;
      }
    }
    if (!(best > tol)) return false;
    if (piv != col) {
      for (int j = col; j < k; ++j) {
        const T t = S(col, j);
        S(col, j) = S(piv, j);
        S(piv, j) = t;
      }
      const T t = r[col];
      r[col] = r[piv];
      r[piv] = t;
    }
    const T inv = T(1) / S(col, col);
    for (int i = col + 1; i < k; ++i) {
      const T f = S(i, col) * inv;
      for (int j = col + 1; j < k; ++j) S(i, j) -= f * S(col, j);
      r[i] -= f * r[col];
    }
  }
  for (int i = int(k) - 1; i >= 0; --i) {
    T s = r[i];
    for (int j = i + 1; j < k; ++j) s -= S(i, j) * r[j];
    r[i] = s / S(i, i);
  }
  return true;
}

}  // namespace fivsim
