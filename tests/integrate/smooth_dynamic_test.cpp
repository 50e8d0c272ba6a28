// tests/integrate/smooth_dynamic_test.cpp — the smooth method (integrate/smooth_dynamic.hpp) against closed
// forms: a frictionless damped oscillator, and the steady-sliding equilibria of a slider on a belt
// with LuGre (k x* = Fn (g(v0) + σ2 v0)) and Dahl (k x* = Fn Fc) friction.
#include "fivsim/integrate/smooth_dynamic.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

ModelDescription belt(double Fn, const DynamicFrictionLaw& law) {
  SliderBeltParams p;
  p.m = 1.0;
  p.k = 100.0;
  p.c = 2.0;
  p.v0 = 0.1;
  p.Fn = Fn;
  ModelDescription d = make_slider_belt(p);
  d.contacts[0].dynamic = true;
  d.contacts[0].dynamic_law = law;
  return d;
}

DynamicFrictionLaw lugre() {
  DynamicFrictionLaw l;
  l.kind = DynamicLawKind::lugre;
  const double p[7] = {1e5, 300.0, 0.05, 0.3, 0.4, 0.01, 2.0};
  for (int i = 0; i < 7; ++i) l.p[i] = p[i];
  return l;
}

// the final sample of a run from (x0, 0)
ReferenceSample last_sample(const ModelDescription& d, double x0, double t_end, SmoothOutcome* out = nullptr) {
  ReferenceSample last;
  Eigen::VectorXd q(1), u(1);
  q << x0;
  u << 0.0;
  const SmoothOutcome r =
      simulate_smooth(d, q, u, t_end, 0.01, 1e-9, SmoothOptions{}, [&](const ReferenceSample& s) { last = s; });
  if (out) *out = r;
  EXPECT_EQ(r.status, Status::ok) << r.message;
  return last;
}

TEST(SmoothMethod, FrictionlessOscillatorMatchesTheClosedForm) {
  // Fn = 0: m ẍ + c ẋ + k x = 0 from x0, the bristle state has no effect
  const ModelDescription d = belt(0.0, lugre());
  Eigen::VectorXd q(1), u(1);
  q << 0.2;
  u << 0.0;
  const double w = 10.0, zeta = 0.1, wd = w * std::sqrt(1 - zeta * zeta);
  double worst = 0.0;
  simulate_smooth(d, q, u, 3.0, 0.01, 1e-9, SmoothOptions{}, [&](const ReferenceSample& s) {
    const double x = 0.2 * std::exp(-zeta * w * s.t) * (std::cos(wd * s.t) + zeta * w / wd * std::sin(wd * s.t));
    worst = std::max(worst, std::abs(s.q(0) - x));
  });
  EXPECT_LT(worst, 1e-8);  // rel_tol 1e-8 on an amplitude of 0.2, over 5 periods
}

TEST(SmoothMethod, LuGreSliderSettlesAtTheSteadySlidingEquilibrium) {
  const DynamicFrictionLaw l = lugre();
  const ModelDescription d = belt(10.0, l);
  const double g = stribeck_curve(l.p[3], l.p[4], l.p[5], l.p[6], 0.1);
  const double x_star = 10.0 * (g + l.p[2] * 0.1) / 100.0;
  SmoothOutcome r;
  const ReferenceSample s = last_sample(d, x_star + 0.01, 25.0, &r);
  // e^{−ζω t} = e^{−25}: the transient is gone
  EXPECT_NEAR(s.q(0), x_star, 1e-9);
  EXPECT_NEAR(s.lamT(0), 100.0 * x_star, 1e-7);     // λ_T balances the spring
  EXPECT_EQ(s.contact[0], ContactState::slip_neg);  // slower than the belt
  EXPECT_GT(r.steps, 10);
}

TEST(SmoothMethod, DahlSliderSettlesAtTheCoulombForce) {
  DynamicFrictionLaw l;
  l.kind = DynamicLawKind::dahl;
  l.p[0] = 1e5;
  l.p[1] = 0.3;
  l.p[2] = 1.0;
  const ModelDescription d = belt(10.0, l);
  const ReferenceSample s = last_sample(d, 0.0, 25.0);
  EXPECT_NEAR(s.q(0), 10.0 * 0.3 / 100.0, 1e-9);
}

TEST(SmoothMethod, RefusesSetValuedLawsAndRigidContacts) {
  SliderBeltParams p;
  p.Fn = 1.0;
  p.law.kind = FrictionLawKind::coulomb;
  p.law.p[0] = 0.3;
  std::string why;
  EXPECT_FALSE(smooth_supports(make_slider_belt(p), &why));
  EXPECT_NE(why.find("'coulomb' is set-valued"), std::string::npos);
  p.law.kind = FrictionLawKind::coulomb_tanh;
  p.law.p[1] = 1e3;
  EXPECT_TRUE(smooth_supports(make_slider_belt(p)));
}

}  // namespace
}  // namespace fivsim
