// tests/analysis/stability_test.cpp — the linearised sliding system against closed forms: the flutter
// threshold of seed 000 Model II (two modes merge where (K11 − K22)² + 4 K12 K21 = 0 for
// K_eff = K + [[0, μ k_c], [0, k_c]]), the negative damping a falling Stribeck curve gives a
// 1-DoF slider, and the note for a still surface.
#include "fivsim/analysis/stability.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

ModeCouplingParams model_ii(double mu) {
  ModeCouplingParams p;
  p.m = 5;
  p.k1 = 1000;
  p.k3 = 600;
  p.kc = 500;
  p.Fp = 20;
  p.v0 = 20;
  p.law.kind = FrictionLawKind::coulomb;
  p.law.p[0] = mu;
  return p;
}

// K_eff = [[k1 + k3/2, −k3/2 + μ kc], [−k3/2, k3/2 + kc]] = [[1300, −300 + 500μ], [−300, 800]]:
// the frequencies merge when 500² − 1200 (−300 + 500 μ) = 0, at μc = 61/60
TEST(Stability, ModelIIFlutterThreshold) {
  auto max_real = [](double mu) {
    const SlidingLinearization l = linearize_sliding(make_mode_coupling_2dof(model_ii(mu)));
    return l.max_real - 1e-9 * l.eigenvalues.cwiseAbs().maxCoeff();
  };
  const double mu_c = locate_crossing(max_real, 0.0, 1.5, 1e-12);
  EXPECT_NEAR(mu_c, 61.0 / 60.0, 1e-9);
  const SlidingLinearization l = linearize_sliding(make_mode_coupling_2dof(model_ii(0.4)));
  EXPECT_NEAR(l.K_eff(0, 1), -300 + 500 * 0.4, 1e-12);
  EXPECT_NEAR(l.K_eff(1, 1), 800, 1e-12);
  // sliding equilibrium: the preload compresses the contact spring, λ_N > 0
  EXPECT_TRUE(l.consistent);
  EXPECT_GT(l.normal_force(0), 0.0);
  const Eigen::VectorXd residual = l.K_eff * l.q_equilibrium - Eigen::Vector2d(0.0, -20.0);
  EXPECT_LE(residual.norm(), 1e-12);
  // below μc four eigenvalues on the imaginary axis: ±iω1, ±iω2 of the undamped system
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(l.eigenvalues(i).real(), 0.0, 1e-9);
}

// m ẍ + (c + μ'(v0) Fn) ẋ + k x = 0 about the sliding equilibrium, with μ = μs/(1 + δ|v|):
// μ'(v0) = −μs δ / (1 + δ v0)²
TEST(Stability, StribeckSliderNegativeDamping) {
  SliderBeltParams p;
  p.m = 2.0;
  p.k = 8.0;
  p.c = 0.1;
  p.v0 = 0.5;
  p.Fn = 10.0;
  p.law.kind = FrictionLawKind::stribeck_rational;
  p.law.p[0] = 0.1;
  p.law.p[1] = 1.0;
  const SlidingLinearization l = linearize_sliding(make_slider_belt(p));
  const double slope = -0.1 * 1.0 / std::pow(1.0 + 0.5, 2);
  const double c_eff = 0.1 + slope * 10.0;
  EXPECT_NEAR(l.C_eff(0, 0), c_eff, 1e-8);
  const std::complex<double> root = (-c_eff + std::sqrt(std::complex<double>(c_eff * c_eff - 4 * 2.0 * 8.0))) / 4.0;
  EXPECT_NEAR(l.eigenvalues(0).real(), root.real(), 1e-8);
  EXPECT_NEAR(std::abs(l.eigenvalues(0).imag()), std::abs(root.imag()), 1e-8);
  EXPECT_GT(l.max_real, 0.0);  // c_eff < 0: the steady sliding is unstable (stick-slip follows)
  // the equilibrium sits where the spring balances the kinetic friction: k x = μ(v0) Fn
  EXPECT_NEAR(l.q_equilibrium(0), 0.1 / 1.5 * 10.0 / 8.0, 1e-12);
}

TEST(Stability, StillSurfaceIsNamed) {
  BaseExcitedParams p;
  p.m = 1;
  p.k = 100;
  p.Fn = 1;
  p.A = 0.01;
  p.law.kind = FrictionLawKind::coulomb;
  p.law.p[0] = 0.1;
  const SlidingLinearization l = linearize_sliding(make_base_excited_sdof(p));
  EXPECT_NE(l.note.find("still surface"), std::string::npos) << l.note;
  EXPECT_NEAR(std::abs(l.eigenvalues(0).imag()), 10.0, 1e-9);
}

TEST(Stability, RefusesDynamicFrictionLaws) {
  SliderBeltParams p;
  p.v0 = 0.5;
  p.Fn = 10.0;
  ModelDescription d = make_slider_belt(p);
  d.contacts[0].dynamic = true;
  d.contacts[0].dynamic_law.kind = DynamicLawKind::lugre;
  EXPECT_THROW(linearize_sliding(d), ModelError);
}

}  // namespace
}  // namespace fivsim
