// tests/friction/static_laws_test.cpp — every static law against its formula at sample points,
// its static value, its continuity, and the direction split of the asymmetric law.
#include "fivsim/friction/static_laws.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace fivsim {
namespace {

FrictionLaw law(FrictionLawKind k, std::initializer_list<double> p) {
  FrictionLaw l;
  l.kind = k;
  int i = 0;
  for (double v : p) l.p[i++] = v;
  return l;
}

struct Case {
  FrictionLaw law;
  std::function<double(double)> formula;  // μ for v > 0 (and v < 0 for the asymmetric law)
};

std::vector<Case> cases() {
  return {
      {law(FrictionLawKind::coulomb, {0.3}), [](double) { return 0.3; }},
      {law(FrictionLawKind::coulomb_viscous, {0.3, 0.05}), [](double v) { return 0.3 + 0.05 * std::abs(v); }},
      {law(FrictionLawKind::coulomb_tanh, {0.3, 50.0}), [](double v) { return 0.3 * std::tanh(50.0 * std::abs(v)); }},
      {law(FrictionLawKind::stribeck_rational, {0.1, 10.0}), [](double v) { return 0.1 / (1 + 10 * std::abs(v)); }},
      {law(FrictionLawKind::stribeck_exp, {0.4, 0.25, 3.0}),
       [](double v) { return 0.25 + 0.15 * std::exp(-3 * std::abs(v)); }},
      {law(FrictionLawKind::stribeck, {0.5, 0.3, 0.1, 2.0, 0.02}),
       [](double v) { return 0.3 + 0.2 * std::exp(-std::pow(std::abs(v) / 0.1, 2.0)) + 0.02 * std::abs(v); }},
      // seed 002 Eq. 22 with the identified parameters of §4.2
      {law(FrictionLawKind::asymmetric, {0.2328, 0.0928, 0.2188, 0.0917, 92.6465, 0.0928}),
       [](double v) {
         const double ts = v >= 0 ? 0.2328 : 0.0928, t0 = v >= 0 ? 0.2188 : 0.0917;
         return ts / (1 + t0 * std::abs(v)) * (1 + 0.0928 / std::cosh(92.6465 * v)) * std::tanh(92.6465 * std::abs(v));
       }},
      {law(FrictionLawKind::coulomb_static, {0.6, 0.4}), [](double) { return 0.4; }},
  };
}

TEST(FrictionLaws, MatchFormulaAtSamplePoints) {
  for (const auto& c : cases()) {
    for (double v : {-3.0, -0.7, -0.01, 1e-4, 0.02, 0.5, 2.0, 10.0}) {
      EXPECT_NEAR(friction_magnitude(c.law, v), c.formula(v), 1e-15)
          << kFrictionLawInfo[static_cast<int>(c.law.kind)].name << " at v=" << v;
      // the signed curve of seed 000 Fig. 9 is the magnitude times sgn(v)
      EXPECT_NEAR(friction_coefficient(c.law, v), (v > 0 ? 1 : -1) * c.formula(v), 1e-15);
    }
  }
}

TEST(FrictionLaws, StaticValueIsMuAtZero) {
  double mp, mm;
  // the static/kinetic law: static at rest, kinetic in a slip mode from its first instant
  friction_bounds(law(FrictionLawKind::coulomb_static, {0.6, 0.4}), 0.0, mp, mm);
  EXPECT_DOUBLE_EQ(mp, 0.6);
  EXPECT_DOUBLE_EQ(mm, 0.6);
  EXPECT_DOUBLE_EQ(sliding_magnitude(law(FrictionLawKind::coulomb_static, {0.6, 0.4}), 0.0), 0.4);
  EXPECT_DOUBLE_EQ(sliding_magnitude(law(FrictionLawKind::stribeck_exp, {0.4, 0.25, 3.0}), 0.0), 0.4);
  friction_bounds(law(FrictionLawKind::stribeck_exp, {0.4, 0.25, 3.0}), 0.0, mp, mm);
  EXPECT_DOUBLE_EQ(mp, 0.4);
  EXPECT_DOUBLE_EQ(mm, 0.4);
  friction_bounds(law(FrictionLawKind::stribeck_rational, {0.1, 1.0}), 0.0, mp, mm);
  EXPECT_DOUBLE_EQ(mp, 0.1);
  // smooth laws have no static friction
  friction_bounds(law(FrictionLawKind::coulomb_tanh, {0.3, 50.0}), 0.0, mp, mm);
  EXPECT_DOUBLE_EQ(mp, 0.0);
}

// |μ(v) − μ(v + h)| → 0 as h → 0 away from v = 0 for every law; through v = 0 only for the
// smooth laws; the set-valued laws jump by 2μ(0) there
TEST(FrictionLaws, ContinuousWhereTheyShouldBe) {
  for (const auto& c : cases()) {
    const char* name = kFrictionLawInfo[static_cast<int>(c.law.kind)].name;
    for (double v : {-2.0, -0.3, -1e-3, 1e-3, 0.05, 0.3, 2.0}) {
      const double jump = std::abs(friction_coefficient(c.law, v + 1e-9) - friction_coefficient(c.law, v));
      EXPECT_LT(jump, 1e-6) << name << " at v=" << v;
    }
    const double across = std::abs(friction_coefficient(c.law, 1e-12) - friction_coefficient(c.law, -1e-12));
    if (friction_is_smooth(c.law.kind)) {
      EXPECT_LT(across, 1e-8) << name;
    } else {
      // the jump of the sliding curve across 0, and the stick's bounds at rest: the same but for the
      // static/kinetic law, whose static coefficient lies above its kinetic one
      double mp, mm;
      friction_bounds(c.law, 0.0, mp, mm);
      const double kinetic = sliding_magnitude(c.law, 0.0);
      EXPECT_NEAR(across, 2.0 * kinetic, 1e-8) << name;
      if (c.law.kind == FrictionLawKind::coulomb_static)
        EXPECT_NEAR(mp + mm, 2.0 * c.law.p[0], 1e-15) << name;
      else
        EXPECT_NEAR(across, mp + mm, 1e-8) << name;
    }
  }
}

TEST(FrictionLaws, AsymmetricSplitsDirections) {
  const FrictionLaw a = law(FrictionLawKind::asymmetric, {0.2328, 0.0928, 0.2188, 0.0917, 92.6465, 0.0928});
  double mp, mm;
  friction_bounds(a, -0.5, mp, mm);  // evaluated at |v| = 0.5 for both directions
  EXPECT_NEAR(mp, friction_magnitude(a, 0.5), 1e-15);
  EXPECT_NEAR(mm, friction_magnitude(a, -0.5), 1e-15);
  EXPECT_GT(mp, 2 * mm);
}

TEST(FrictionLaws, StribeckRationalDecreases) {
  const FrictionLaw slow = law(FrictionLawKind::stribeck_rational, {0.1, 1.0});
  const FrictionLaw sharp = law(FrictionLawKind::stribeck_rational, {0.1, 10.0});
  // seed 000 Fig. 9: at v = 0.5 the sharp law has lost 5/6 of its static value, the slow one 1/3
  EXPECT_NEAR(friction_magnitude(slow, 0.5), 0.1 / 1.5, 1e-15);
  EXPECT_NEAR(friction_magnitude(sharp, 0.5), 0.1 / 6.0, 1e-15);
}

// the general Stribeck law, whose (|v|/v_s)^alpha and exponential are reproducible_math's (the same
// bits on the CPU and the GPU, and arithmetic the belt runner's lanes vectorise): within 3 ulp of
// μ computed in long double, for a million draws of v_s in [1e-3, 1], alpha in [0.5, 4] and |v|
// up to 100 v_s, both signs; the slope agrees with the value's central difference
TEST(FrictionLaws, StribeckIsItsFormulaWithinThreeUlpsOfMu) {
  unsigned long long state = 5;
  const auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  };
  double worst = 0.0;
  for (int n = 0; n < 1000000; ++n) {
    const double vs = std::pow(10.0, -3.0 * uniform()), alpha = 0.5 + 3.5 * uniform();
    const double v = (n % 2 ? -1.0 : 1.0) * 100.0 * vs * uniform() * uniform();
    const FrictionLaw l = law(FrictionLawKind::stribeck, {0.5, 0.3, vs, alpha, 0.02});
    const long double s = std::abs(static_cast<long double>(v));
    const long double ref = 0.3L + 0.2L * std::exp(-std::pow(s / vs, static_cast<long double>(alpha))) + 0.02L * s;
    const double r = static_cast<double>(ref);
    const double ulp = std::nextafter(r, HUGE_VAL) - r;
    worst = std::max(worst, static_cast<double>(std::abs(friction_magnitude(l, v) - ref) / ulp));
  }
  EXPECT_LE(worst, 3.0);
  std::printf("stribeck: worst %.3f ulp of mu\n", worst);
  const FrictionLaw l = law(FrictionLawKind::stribeck, {0.5, 0.3, 0.1, 2.0, 0.02});
  for (double v : {0.01, 0.05, 0.1, 0.3}) {
    double slope = 0.0;
    const double mu = friction_magnitude_and_slope(l, v, slope);
    EXPECT_EQ(mu, friction_magnitude(l, v));
    const double h = 1e-6;
    EXPECT_NEAR(slope, (friction_magnitude(l, v + h) - friction_magnitude(l, v - h)) / (2 * h), 1e-6) << v;
  }
}

}  // namespace
}  // namespace fivsim
