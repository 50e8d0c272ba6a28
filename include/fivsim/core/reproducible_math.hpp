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

#include "fivsim/core/c_library.hpp"

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

// e^x to one ulp (fdlibm's reduction, a Taylor polynomial): x = k ln 2 + r with |r| ≤ ln 2 / 2,
// ln 2 split Cody–Waite style so that k·ln2_hi is exact; e^r = 1 + r + r²(1/2 + r q(r)) with q to
// degree 10 (the remainder r¹⁴/14! < 4e-18) by Estrin's scheme, whose products of r², r⁴, r⁸ leave
// chains a quarter of Horner's length (a core runs many lanes' chains side by side); then ·2^k.
// The argument is clamped to [−746, 710], where e^x has already reached 0 and +∞ (NaN passes); k
// is rounded to nearest by adding 1.5·2^52, whose sum holds k in its low bits, from which 2^k is
// made as 2^h·2^(k−h), h = k/2 rounded, each factor a normal number for every k this reaches (−1076
// … 1024), so that results near the overflow and subnormal limits round once. Arithmetic and bit
// operations alone, without branches or calls, so that the belt runner's loop over lanes
// vectorises it on AVX-512 and AVX2 alike (a compare-and-select, a conversion to int, a 64-bit
// shift right would make the vectoriser refuse or scalarise).
FIVSIM_HD inline double reproducible_exp(double x) {
  using u64 = unsigned long long;
  const u64 low = u64{0} - static_cast<u64>(x < -746.0), high = u64{0} - static_cast<u64>(x > 710.0);
  const double a = double_of((bits_of(x) & ~(low | high)) | (bits_of(-746.0) & low) | (bits_of(710.0) & high));
  const double shifter = 6755399441055744.0;  // 1.5·2^52: a sum with it is rounded to an integer
  const double shifted = a * 1.44269504088896338700 + shifter;
  const double k = shifted - shifter;
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double r = (a - k * ln2_hi) - k * ln2_lo;
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  // q(r) = Σ_{n=3}^{13} r^(n−3)/n!: pairs, then pairs of pairs (an array of the coefficients would
  // be a load the vectoriser refuses)
  const double c0 = 1.0 / 6.0 + r * (1.0 / 24.0);
  const double c1 = 1.0 / 120.0 + r * (1.0 / 720.0);
  const double c2 = 1.0 / 5040.0 + r * (1.0 / 40320.0);
  const double c3 = 1.0 / 362880.0 + r * (1.0 / 3628800.0);
  const double c4 = 1.0 / 39916800.0 + r * (1.0 / 479001600.0);
  const double c5 = 1.0 / 6227020800.0;
  const double q = ((c0 + r2 * c1) + r4 * (c2 + r2 * c3)) + r8 * (c4 + r2 * c5);
  const double p = 1.0 + (r + r2 * (0.5 + r * q));
  // 2^h and 2^(k−h) from the bits of the shifted sums (their difference from the shifter's is the
  // integer, as a two's complement the exponent's bias makes positive)
  const double shifted_half = k * 0.5 + shifter;
  const u64 bias = 1023;
  const u64 h_bits = (bits_of(shifted_half) - bits_of(shifter) + bias) << 52;
  const u64 rest_bits = (bits_of(shifted) - bits_of(shifted_half) + bias) << 52;
  return p * double_of(h_bits) * double_of(rest_bits);
}

// tanh(x) from arithmetic and reproducible_exp alone, as reproducible on every platform and as
// free of branches (both forms evaluated, one kept), so that a loop over lanes vectorises it:
// 1 − 2/(e^(2|x|) + 1) where |x| ≥ 0.875 (no cancellation: the quotient is below 0.3), and
// x + x·y·P(y), y = x², below it, P the degree-14 Chebyshev fit of (tanh x − x)/x³ on [0, 0.875²]
// (mpmath.chebyfit, error 1.8e-18; its coefficients rounded to double) by Estrin's scheme; the
// sign is x's, −0 kept (ReproducibleMath.TanhIsTanhWithinAnUlpAndAThird)
FIVSIM_HD inline double reproducible_tanh(double x) {
  using u64 = unsigned long long;
  const u64 sign = u64{1} << 63;
  const double ax = double_of(bits_of(x) & ~sign);
  const double big = 1.0 - 2.0 / (reproducible_exp(2.0 * ax) + 1.0);
  const double y = ax * ax, y2 = y * y, y4 = y2 * y2, y8 = y4 * y4;
  const double d0 = -0.3333333333333333 + y * 0.13333333333333228;
  const double d1 = -0.053968253968150824 + y * 0.021869488532160076;
  const double d2 = -0.00886323544861719 + y * 0.003592127037088968;
  const double d3 = -0.0014558263309485413 + y * 0.0005899826658036132;
  const double d4 = -0.0002389519301249939 + y * 9.640640221692903e-05;
  const double d5 = -3.820653633317692e-05 + y * 1.4261086694241563e-05;
  const double d6 = -4.5755399255996345e-06 + y * 1.070360309846551e-06;
  const double d7 = -1.3037928719242213e-07;
  const double poly = ((d0 + y2 * d1) + y4 * (d2 + y2 * d3)) + y8 * ((d4 + y2 * d5) + y4 * (d6 + y2 * d7));
  const double small = ax + ax * (y * poly);
  // the choice as bit masks: a conditional choice lets the compiler move the division into a branch
  // (it may trap), and a branch keeps a loop over lanes scalar
  const u64 below = u64{0} - static_cast<u64>(ax < 0.875);
  return double_of((bits_of(small) & below) | (bits_of(big) & ~below) | (bits_of(x) & sign));
}

// sech x = 1/cosh x = 2m/(1 + m²), m = e^(−|x|) from reproducible_exp: no overflow (m ≤ 1; beyond
// |x| = 746 m and the result are 0, where 1/cosh x is below the smallest subnormal anyway), no
// branch and no call, so that a loop over lanes vectorises it; 2.1 ulp
// (ReproducibleMath.SechIsOneOverCoshWithinTwoAndAHalfUlps)
FIVSIM_HD inline double reproducible_sech(double x) {
  // −|x| by setting the sign bit
  const double m = reproducible_exp(double_of(bits_of(x) | (1ULL << 63)));
  return 2.0 * m / (1.0 + m * m);
}

// ln x to about one ulp (fdlibm's e_log.c: its reduction and polynomial): x = 2^k·z with z in
// [√½, √2), f = z − 1, s = f/(2 + f), ln(1 + f) = f − (f²/2 − s(f²/2 + R(s²))), R fdlibm's
// Remez polynomial Lg1…Lg7 (error below 2^−58.45), then k·ln 2 split as in reproducible_exp. k and
// z come from the bits as in musl's log: subtracting √½'s bits moves the exponent's boundary to
// √½, the difference's top 12 bits are k (as two's complement) and taking them away leaves z;
// k + 1024 by a logical shift after adding 2^62, made a double by OR-ing it into 2^52's
// mantissa. A subnormal x is scaled by 2^54 first. 0 gives −∞, +∞ gives +∞, x < 0 and NaN give
// NaN. Arithmetic and bit operations, the choices as masks, so that a loop over lanes vectorises
// it (ReproducibleMath.LogIsLogWithinAnUlp)
FIVSIM_HD inline double reproducible_log(double x) {
  using u64 = unsigned long long;
  const u64 subnormal = u64{0} - static_cast<u64>(x < 2.2250738585072014e-308);
  const u64 xb = (bits_of(x * 18014398509481984.0) & subnormal) | (bits_of(x) & ~subnormal);  // ·2^54
  const u64 tmp = xb - 0x3fe6a09e667f3bcdULL;                                                 // − √½
  const u64 k_biased = (tmp + (u64{1} << 62)) >> 52;                                          // k + 1024
  const double z = double_of(xb - (tmp & 0xfff0000000000000ULL));
  const double k = (double_of(0x4330000000000000ULL | k_biased) - (4503599627370496.0 + 1024.0)) -
                   double_of(bits_of(54.0) & subnormal);
  const double f = z - 1.0;
  const double hfsq = 0.5 * f * f;
  const double s = f / (2.0 + f);
  const double w = s * s, w2 = w * w;
  const double t1 = w2 * (3.999999999940941908e-01 + w2 * (2.222219843214978396e-01 + w2 * 1.531383769920937332e-01));
  const double t2 =
      w * (6.666666666666735130e-01 +
           w2 * (2.857142874366239149e-01 + w2 * (1.818357216161805012e-01 + w2 * 1.479819860511658591e-01)));
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double R = t2 + t1;
  const double r = k * ln2_hi - ((hfsq - (s * (hfsq + R) + k * ln2_lo)) - f);
  // the special arguments: 0 → −∞, +∞ → +∞, below 0 or NaN → NaN
  const u64 zero = u64{0} - static_cast<u64>(x == 0.0);
  const u64 infinite = u64{0} - static_cast<u64>(x == double_of(0x7ff0000000000000ULL));
  const u64 invalid = u64{0} - static_cast<u64>(!(x >= 0.0));
  const u64 ordinary = ~(zero | infinite | invalid);
  return double_of((bits_of(r) & ordinary) | (0xfff0000000000000ULL & zero) | (0x7ff0000000000000ULL & infinite) |
                   (0x7ff8000000000000ULL & invalid));
}

// x^y for x ≥ 0 as e^(y ln x) from reproducible_exp and reproducible_log: the logarithm's and the
// product's rounding make an error in the exponent that grows with |y ln x|, within
// 2.6|y ln x| + 1 ulp (ReproducibleMath.PowOfNonnegativeIsPowWithinItsExponentsRounding; a few ulp
// where x^y is near 1, and a law that takes e^(−x^y) loses none of it); 0^y is 0 for y > 0.
// Vectorises as they do.
FIVSIM_HD inline double reproducible_pow_of_nonnegative(double x, double y) {
  return reproducible_exp(y * reproducible_log(x));
}

// a / b from y = 1/b (rounded to nearest) with two fused multiply-adds: q = a·y, whose residual
// r = a − q·b one fma gives exactly, and q + r·y rounded once — the correctly rounded quotient, as
// a / b (Markstein 1990, IBM J. Res. Dev. 34(1), Theorem 1), where the residual does not
// underflow (|a| above 2^−969); a zero residual keeps q, and with it the sign of a zero a. A
// division costs a vector divider 16 cycles for 8 lanes, these two fmas one or two; non-finite a
// or b give NaN where a / b would give ±∞ (the lanes that reach them have failed already)
template <class T>
FIVSIM_HD inline T quotient_from_reciprocal(T a, T b, T y) {
  const T q = a * y;
  const T r = fma(-q, b, a);
  return r == T(0) ? q : fma(r, y, q);
}

}  // namespace fivsim
