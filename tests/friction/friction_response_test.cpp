// tests/friction/friction_response_test.cpp — friction under a prescribed velocity
// (friction/friction_response.hpp): a static law is its coefficient curve sample by sample; Dahl
// with β = 1 follows the closed-form pre-sliding branches; LuGre reaches the static curve under a
// constant velocity.
#include "fivsim/friction/friction_response.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

TEST(FrictionResponse, StaticLawIsItsCoefficientCurve) {
  FrictionLaw law;
  law.kind = FrictionLawKind::stribeck_rational;
  law.p[0] = 0.3;
  law.p[1] = 2.0;
  const auto s = friction_response(
      law, false, DynamicFrictionLaw{}, [](double t) { return std::sin(3 * t) - 0.2; }, 4.0, 0.01);
  ASSERT_EQ(s.size(), 401u);
  for (const auto& f : s) EXPECT_EQ(f.mu, friction_coefficient(law, std::sin(3 * f.t) - 0.2));
}

TEST(FrictionResponse, DahlFollowsTheClosedFormBranch) {
  // v = V cos(ωt) from rest: x = V/ω sin(ωt) rises monotonically to V/ω at t = π/2ω, where
  // F = Fc (1 − exp(−σ0 x / Fc)) for β = 1
  DynamicFrictionLaw d;
  d.kind = DynamicLawKind::dahl;
  d.p[0] = 5e3;
  d.p[1] = 0.2;
  d.p[2] = 1.0;
  const double V = 1e-4, w = 2.0;
  const auto s = friction_response(
      FrictionLaw{}, true, d, [&](double t) { return V * std::cos(w * t); }, M_PI / (2 * w), M_PI / (2 * w) / 500);
  for (std::size_t k = 0; k < s.size(); k += 50) {
    const double x = V / w * std::sin(w * s[k].t);
    EXPECT_NEAR(s[k].mu, 0.2 * (1 - std::exp(-5e3 * x / 0.2)), 1e-9) << s[k].t;
  }
}

TEST(FrictionResponse, LuGreReachesTheStaticCurveAtConstantSpeed) {
  DynamicFrictionLaw d;
  d.kind = DynamicLawKind::lugre;
  const double p[7] = {2e4, 1e2, 0.5, 0.12, 0.16, 1e-3, 2.0};  // seed 002 §2.3.2
  for (int i = 0; i < 7; ++i) d.p[i] = p[i];
  const auto s = friction_response(
      FrictionLaw{}, true, d, [](double) { return 0.004; }, 0.05, 1e-3);
  // relaxation rate σ0 v / g ≈ 670/s: after 0.05 s, e^{−33}
  EXPECT_NEAR(s.back().mu, stribeck_curve(0.12, 0.16, 1e-3, 2.0, 0.004) + 0.5 * 0.004, 1e-12);
}

}  // namespace
}  // namespace fivsim
