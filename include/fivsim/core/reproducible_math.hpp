// fivsim/core/reproducible_math.hpp — functions that round the same on the CPU and on the GPU.
//
// The CUDA math library and glibc agree on +, −, ×, ÷ and sqrt (IEEE-754, correctly rounded; fivsim
// builds with FMA contraction off on both sides) but not on pow, exp or sin, which differ in the
// last bit for some arguments. Where such a difference would steer control flow — an adaptive
// integrator's next step size — a device run would leave the CPU's trajectory at the integrator's
// error level; where it feeds the physics (the exponential Stribeck law) the device's cases drift
// from the CPU's by what long stick-slip runs make of one ulp (2.8e-6 after 40 s of the 5-DoF
// chain on an H200, 2026-11-26). The functions here use only the exact operations, frexp/ldexp and
// exact powers of two made from their bits, so both sides get the same bits.
#pragma once

#include <math.h>

#include "fivsim/core/config.hpp"

namespace fivsim {

// x^(−1/5) for x > 0 (the Dormand–Prince step factor err^(−1/5)), to about one ulp: x = m·2^e with
// e = 5q + r, so x^(−1/5) = (m^(−1/5))·2^(−r/5)·2^(−q); m^(−1/5) on m ∈ [0.5, 1) by Newton's
// iteration w ← w(6 − m w⁵)/5 from 1.07 (six steps converge quadratically to rounding)
FIVSIM_HD inline double inverse_fifth_root(double x) {
  if (!(x > 0.0) || !(x < HUGE_VAL)) return x == 0.0 ? HUGE_VAL : (x > 0.0 ? 0.0 : NAN);
  int e = 0;
  const double m = frexp(x, &e);
  const int r = ((e % 5) + 5) % 5, q = (e - r) / 5;
  const double two_pow[5] = {1.0, 0.8705505632961241, 0.757858283255199, 0.6597539553864471, 0.5743491774985174};
  double w = 1.07;
  for (int it = 0; it < 6; ++it) {
    const double w2 = w * w;
    w = w * (6.0 - m * (w2 * w2 * w)) / 5.0;
  }
  return ldexp(w * two_pow[r], -q);
}

// a double's bits and back (arithmetic and bit operations only, so that a loop over lanes that uses
// them vectorises)
FIVSIM_HD inline unsigned long long bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned long long>(__double_as_longlong(x));
#else
  return __builtin_bit_cast(unsigned long long, x);
#endif
}
FIVSIM_HD inline double double_of(unsigned long long bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  return __builtin_bit_cast(double, bits);
#endif
}

// 2^k for an integer k in [−1022, 1023], exactly
FIVSIM_HD inline double power_of_two(int k) { return double_of(static_cast<unsigned long long>(k + 1023) << 52); }

// e^x to about one ulp (fdlibm's reduction, a Taylor polynomial): x = k ln 2 + r with |r| ≤ ln 2 / 2,
// ln 2 split Cody–Waite style so that k·ln2_hi is exact; e^r to degree 13 (the remainder
// r¹⁴/14! < 4e-18); then ·2^k. NaN gives NaN, above 709.782712893384 +∞, below −745.1332191019412
// zero. Written without branches or calls — the limits as bit masks, floor as a truncation — so
// that the belt runner's loop over lanes vectorises it (a compare-and-select the vectoriser turns
// into control flow, and floor, make it refuse)
FIVSIM_HD inline double reproducible_exp(double x) {
  using u64 = unsigned long long;
  const u64 bits = bits_of(x), magnitude = bits & 0x7fffffffffffffffULL, negative = bits >> 63;
  // |x|'s limit on x's side (the bits of positive doubles order as their values)
  const u64 above = bits_of(709.782712893384), below = bits_of(745.1332191019412);
  const u64 limit = above + (below - above) * negative;
  const u64 nan = u64{0} - static_cast<u64>(magnitude > 0x7ff0000000000000ULL);
  const u64 outside = u64{0} - static_cast<u64>(magnitude > limit);  // NaN too
  // the polynomial on x inside the limits (0 outside, where its value is not taken)
  const double a = double_of(bits & ~outside);
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double t = a * 1.44269504088896338700 + 0.5;
  const int truncated = static_cast<int>(t);
  const int ki = truncated - (static_cast<double>(truncated) > t ? 1 : 0);  // floor(t)
  const double k = static_cast<double>(ki);
  const double r = (a - k * ln2_hi) - k * ln2_lo;
  // Horner's rule from 1/13! down, written out (an array of the coefficients would be a load the
  // vectoriser refuses)
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^k in two factors, each a normal number for every k this reaches (−1075 … 1024), so that the
  // first product is exact and results near the overflow and subnormal limits round once, as
  // ldexp(ldexp(p, k/2), k − k/2) would
  const int half = ki / 2;
  const double e = p * power_of_two(half) * power_of_two(ki - half);
  const u64 limited = 0x7ff0000000000000ULL & (negative - 1);  // +∞ above, +0 below
  return double_of((bits & nan) | (limited & outside & ~nan) | (bits_of(e) & ~outside));
}

}  // namespace fivsim
