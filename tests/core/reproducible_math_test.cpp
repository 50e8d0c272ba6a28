// tests/core/reproducible_math_test.cpp — core/reproducible_math.hpp against the C library in long
// double: the same functions to two ulps (the exponential and the logarithm to one) from subnormal to huge arguments
// and results. (pow(x, −0.2) in double is not the reference: −0.2 is 1/5 only to 1e-17, which |ln x| ≈ 700 grows to 36
// ulps.)
#include "fivsim/core/reproducible_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace fivsim {
namespace {

// a fixed sequence of doubles uniform in [0, 1): the top 53 bits of Knuth's MMIX generator
struct UniformSequence {
  unsigned long long state;
  double operator()() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  }
};

TEST(ReproducibleMath, InverseFifthRootIsPowToTwoUlps) {
  double worst = 0.0;
  // every binary exponent's residue mod 5 and mantissas across [0.5, 1), subnormals too
  for (double x = 1e-310; x < 1e300; x = std::max(x * 1.0137, std::nextafter(x, HUGE_VAL))) {
    const long double ref = std::pow(static_cast<long double>(x), -1.0L / 5);
    const double got = inverse_fifth_root(x);
    worst = std::max(worst, static_cast<double>(std::abs(got - ref) / (ref * std::numeric_limits<double>::epsilon())));
  }
  EXPECT_LE(worst, 2.0);
  EXPECT_EQ(inverse_fifth_root(1.0), 1.0);
  EXPECT_EQ(inverse_fifth_root(32.0), 0.5);
  EXPECT_EQ(inverse_fifth_root(0.0), HUGE_VAL);
  EXPECT_TRUE(std::isnan(inverse_fifth_root(-1.0)));
}

TEST(ReproducibleMath, ExpIsExpToOneUlp) {
  double worst = 0.0;
  const auto check = [&](double x) {
    const long double ref = std::exp(static_cast<long double>(x));
    const double r = static_cast<double>(ref);
    // one ulp of the double nearest the reference (the smallest subnormal below the normal range)
    const double ulp = r < 2.2250738585072014e-308 ? 4.9406564584124654e-324 : std::nextafter(r, HUGE_VAL) - r;
    worst = std::max(worst, static_cast<double>(std::abs(reproducible_exp(x) - ref) / ulp));
  };
  for (double x = -745.0; x < 709.78; x += 0.00731) check(x);
  // and a million arguments where the friction laws take them, |x| ≤ 40, drawn from a fixed sequence
  UniformSequence uniform{1};
  for (int n = 0; n < 1000000; ++n) check(-40.0 + 80.0 * uniform());
  EXPECT_LE(worst, 1.0);
  EXPECT_EQ(reproducible_exp(0.0), 1.0);
  EXPECT_EQ(reproducible_exp(710.0), HUGE_VAL);
  EXPECT_EQ(reproducible_exp(-746.0), 0.0);
  EXPECT_TRUE(std::isnan(reproducible_exp(NAN)));
  EXPECT_EQ(reproducible_exp(HUGE_VAL), HUGE_VAL);
  EXPECT_EQ(reproducible_exp(-HUGE_VAL), 0.0);
  // near the limits: the largest finite result, and the smallest subnormal
  EXPECT_EQ(reproducible_exp(709.782712893384), 1.7976931348622732e308);
  EXPECT_EQ(reproducible_exp(-745.0), 4.9406564584124654e-324);
}

// check(x) on a grid of [0, to) in steps of 7.31e-5, then on a million random significands over the
// `binades` binades from 2^−1075 up (a generator of `seed`)
template <class F>
void over_the_binades(double to, int binades, unsigned long long seed, const F& check) {
  for (double x = 0.0; x < to; x += 0.0000731) check(x);
  UniformSequence uniform{seed};
  for (int n = 0; n < 1000000; ++n) {
    const double u = 1.0 + uniform();
    check(std::ldexp(u, static_cast<int>(uniform.state % static_cast<unsigned long long>(binades)) - 1075));
  }
}

// tanh from the exponential and a polynomial: within 1.3 ulp of tanh (long double's as the
// reference) over the whole double range — every binade from 2^−1074 to 2^30, both signs — and
// densely where the friction laws take it, |x| < 25 (glibc's tanh itself strays 2.2 ulp on these
// arguments); exact at the specials, odd to the bit
TEST(ReproducibleMath, TanhIsTanhWithinAnUlpAndAThird) {
  double worst = 0.0;
  const auto check = [&](double x) {
    const long double ref = std::tanh(static_cast<long double>(x));
    const double r = std::abs(static_cast<double>(ref));
    const double ulp = r < 2.2250738585072014e-308 ? 4.9406564584124654e-324 : std::nextafter(r, HUGE_VAL) - r;
    worst = std::max(worst, static_cast<double>(std::abs(reproducible_tanh(x) - ref) / ulp));
    EXPECT_EQ(std::signbit(reproducible_tanh(x)), std::signbit(x)) << x;
    EXPECT_EQ(reproducible_tanh(-x), -reproducible_tanh(x)) << x;
  };
  over_the_binades(25.0, 1105, 3, check);
  EXPECT_LE(worst, 1.3);
  EXPECT_EQ(reproducible_tanh(0.0), 0.0);
  EXPECT_TRUE(std::signbit(reproducible_tanh(-0.0)));
  EXPECT_EQ(reproducible_tanh(4.9406564584124654e-324), 4.9406564584124654e-324);
  EXPECT_EQ(reproducible_tanh(HUGE_VAL), 1.0);
  EXPECT_EQ(reproducible_tanh(-HUGE_VAL), -1.0);
  EXPECT_EQ(reproducible_tanh(1e300), 1.0);
  EXPECT_TRUE(std::isnan(reproducible_tanh(NAN)));
}

// sech against 1/cosh in long double over every binade where it is a normal number, and its
// limits; the bound is what 2m/(1 + m²) allows: m's ulp (reproducible_exp's), half an ulp from
// each of m², 1 + m² and the quotient
TEST(ReproducibleMath, SechIsOneOverCoshWithinTwoAndAHalfUlps) {
  double worst = 0.0;
  const auto check = [&](double x) {
    const long double ref = 1.0L / std::cosh(static_cast<long double>(x));
    const double r = static_cast<double>(ref);
    if (r < 2.2250738585072014e-308) return;  // 1/cosh below the normal numbers: checked apart
    const double ulp = std::nextafter(r, HUGE_VAL) - r;
    worst = std::max(worst, static_cast<double>(std::abs(reproducible_sech(x) - ref) / ulp));
    EXPECT_EQ(reproducible_sech(-x), reproducible_sech(x)) << x;
  };
  over_the_binades(40.0, 1084, 5, check);
  EXPECT_LE(worst, 2.5);
  EXPECT_EQ(reproducible_sech(0.0), 1.0);
  EXPECT_EQ(reproducible_sech(1e-300), 1.0);
  EXPECT_EQ(reproducible_sech(750.0), 0.0);
  EXPECT_EQ(reproducible_sech(-HUGE_VAL), 0.0);
  EXPECT_TRUE(std::isnan(reproducible_sech(NAN)));
  std::printf("sech: worst %.3f ulp\n", worst);
}

// ln against long double's over every binade of the doubles, subnormals included (a million
// random significands and a grid of [0, 40)), within an ulp (fdlibm's bound; 0.78 on these); its
// specials as the C library's
TEST(ReproducibleMath, LogIsLogWithinAnUlp) {
  double worst = 0.0;
  const auto check = [&](double x) {
    if (!(x > 0.0) || std::isinf(x)) return;
    const long double ref = std::log(static_cast<long double>(x));
    const double r = std::abs(static_cast<double>(ref));
    if (r == 0.0) {
      EXPECT_EQ(reproducible_log(x), 0.0) << x;
      return;
    }
    const double ulp = std::nextafter(r, HUGE_VAL) - r;
    worst = std::max(worst, static_cast<double>(std::abs(reproducible_log(x) - ref) / ulp));
  };
  over_the_binades(40.0, 2099, 7, check);
  EXPECT_LE(worst, 1.0);
  EXPECT_EQ(reproducible_log(1.0), 0.0);
  EXPECT_EQ(reproducible_log(0.0), -HUGE_VAL);
  EXPECT_EQ(reproducible_log(-0.0), -HUGE_VAL);
  EXPECT_EQ(reproducible_log(HUGE_VAL), HUGE_VAL);
  EXPECT_TRUE(std::isnan(reproducible_log(-1.0)));
  EXPECT_TRUE(std::isnan(reproducible_log(-HUGE_VAL)));
  EXPECT_TRUE(std::isnan(reproducible_log(NAN)));
  EXPECT_EQ(reproducible_log(4.9406564584124654e-324), std::log(4.9406564584124654e-324));
  EXPECT_EQ(reproducible_log(1.7976931348623157e308), std::log(1.7976931348623157e308));
  std::printf("log: worst %.3f ulp\n", worst);
}

// x^y for x ≥ 0 as e^(y ln x): the logarithm's error (under an ulp) and the product's rounding
// (half an ulp) are an absolute error of up to 1.28·2^−52·|y ln x| in the exponent, which e^t
// makes a relative one, up to 2.56 ulp of the result per unit of |y ln x|; with the exponential's
// own ulp the bound is 2.6|y ln x| + 1 ulp of powl. Checked for the exponents and bases of the
// Stribeck law (y in [0.1, 5], x over forty binades each way); 0^y = 0, 1^y = 1
TEST(ReproducibleMath, PowOfNonnegativeIsPowWithinItsExponentsRounding) {
  UniformSequence uniform{11};
  double worst_excess = -HUGE_VAL;
  for (int n = 0; n < 1000000; ++n) {
    const double x = std::ldexp(1.0 + uniform(), static_cast<int>(80.0 * uniform()) - 40);
    const double y = 0.1 + 4.9 * uniform();
    const long double ref = std::pow(static_cast<long double>(x), static_cast<long double>(y));
    const double r = static_cast<double>(ref);
    const double ulp = std::nextafter(r, HUGE_VAL) - r;
    const double err = static_cast<double>(std::abs(reproducible_pow_of_nonnegative(x, y) - ref) / ulp);
    const double bound = 2.6 * std::abs(y * std::log(x)) + 1.0;
    worst_excess = std::max(worst_excess, err - bound);
    ASSERT_LE(err, bound) << x << "^" << y;
  }
  EXPECT_EQ(reproducible_pow_of_nonnegative(0.0, 0.5), 0.0);
  EXPECT_EQ(reproducible_pow_of_nonnegative(0.0, 3.0), 0.0);
  EXPECT_EQ(reproducible_pow_of_nonnegative(1.0, 2.7), 1.0);
  EXPECT_NEAR(reproducible_pow_of_nonnegative(2.0, 10.0), 1024.0, 1024.0 * 1e-14);
  std::printf("pow: worst %.3f ulp beyond 2.6|y ln x| + 1\n", worst_excess);
}

// the quotient from the reciprocal is the division's, bit for bit: time steps and masses' inverses
// as the belt runner divides by, and random significands over exponents from −300 to 300
TEST(ReproducibleMath, QuotientFromReciprocalIsTheDivisionsBits) {
  UniformSequence uniform{7};
  const auto random_double = [&] { return std::ldexp(1.0 + uniform(), static_cast<int>(600.0 * uniform()) - 300); };
  const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  long differ = 0, n = 0;
  const double divisors[] = {1e-3, 1e-4, 5e-4, 2.5e-4, 0.01, 1.0, 0.5, 1.0 / 3.0, 0.1, 1e-5, 0.7, 1.9999999999999998};
  for (const double b : divisors)
    for (int k = 0; k < 1000000; ++k, ++n) {
      const double a = (k % 2 ? -1.0 : 1.0) * random_double();
      differ += same(quotient_from_reciprocal(a, b, 1.0 / b), a / b) ? 0 : 1;
    }
  for (int k = 0; k < 4000000; ++k, ++n) {
    const double a = random_double(), b = random_double();
    differ += same(quotient_from_reciprocal(a, b, 1.0 / b), a / b) ? 0 : 1;
  }
  EXPECT_EQ(differ, 0) << "of " << n;
  // zeros keep their sign, as a division's
  EXPECT_TRUE(same(quotient_from_reciprocal(-0.0, 1e-3, 1e3), -0.0));
  EXPECT_TRUE(same(quotient_from_reciprocal(0.0, 1e-3, 1e3), 0.0));
  EXPECT_TRUE(same(quotient_from_reciprocal(-0.0, 3.0, 1.0 / 3.0), -0.0));
}

TEST(ReproducibleMath, PowerOfTwoIsLdexpOfOne) {
  for (int k = -1022; k <= 1023; ++k) EXPECT_EQ(power_of_two(k), std::ldexp(1.0, k)) << k;
}

}  // namespace
}  // namespace fivsim
