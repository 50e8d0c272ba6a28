// fivsim/core/reproducible_math.hpp — functions that round the same on the CPU and on the GPU.
//
// The CUDA math library and glibc agree on +, −, ×, ÷ and sqrt (IEEE-754, correctly rounded; fivsim
// builds with FMA contraction off on both sides) but not on pow, exp or sin, which differ in the
// last bit for some arguments. Where such a difference would steer control flow — an adaptive
// integrator's next step size — a device run would leave the CPU's trajectory at the integrator's
// error level; where it feeds the physics (the exponential Stribeck law) the device's cases drift
// from the CPU's by what long stick-slip runs make of one ulp (2.8e-6 after 40 s of the 5-DoF
// chain on an H200, 2026-11-26). The functions here use only the exact operations and
// ldexp/frexp, so both sides get the same bits.
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

// e^x to about one ulp (fdlibm's reduction, a Taylor polynomial): x = k ln 2 + r with |r| ≤ ln 2 / 2,
// ln 2 split Cody–Waite style so that k·ln2_hi is exact; e^r to degree 13 (the remainder
// r¹⁴/14! < 4e-18); then ·2^k
FIVSIM_HD inline double reproducible_exp(double x) {
  if (!(x == x)) return x;
  if (x > 709.782712893384) return HUGE_VAL;
  if (x < -745.1332191019412) return 0.0;
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double k = floor(x * 1.44269504088896338700 + 0.5);
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 6227020800.0;  // 1/13!
  const double inv_fact[13] = {1.0 / 479001600.0,
                               1.0 / 39916800.0,
                               1.0 / 3628800.0,
                               1.0 / 362880.0,
                               1.0 / 40320.0,
                               1.0 / 5040.0,
                               1.0 / 720.0,
                               1.0 / 120.0,
                               1.0 / 24.0,
                               1.0 / 6.0,
                               0.5,
                               1.0,
                               1.0};
  for (int i = 0; i < 13; ++i) p = p * r + inv_fact[i];
  // 2^k in two factors, so that results near the overflow and subnormal limits stay exact
  const int ki = static_cast<int>(k);
  return ldexp(ldexp(p, ki / 2), ki - ki / 2);
}

}  // namespace fivsim
