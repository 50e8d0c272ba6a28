// tests/friction/dynamic_laws_test.cpp — dynamic friction laws (friction/dynamic_laws.hpp, seed 002
// Eqs. 5–8), integrated by their RK4 step under a prescribed velocity, against closed forms and
// limits: the Dahl pre-sliding loop under a sinusoidal
// displacement (β = 1 has an exact solution along each monotone branch), LuGre approaching
// Coulomb + Stribeck as σ0 grows, and the stick and slip of GMS elements under a velocity ramp.
#include "fivsim/friction/dynamic_laws.hpp"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

// RK4 steps of the internal states (dynamic_friction_rk4_step) for a prescribed velocity v(t)
void integrate_states(const DynamicFrictionLaw& law, DynamicFrictionState& s, const std::function<double(double)>& v,
                      double t0, double t1, int steps) {
  const double h = (t1 - t0) / steps;
  for (int k = 0; k < steps; ++k) {
    const double t = t0 + k * h;
    dynamic_friction_rk4_step(law, s, v(t), v(t + h / 2), v(t + h), h);
  }
}

double force_at(const DynamicFrictionLaw& law, const DynamicFrictionState& s, double v) {
  double zdot[kGmsMaxElements];
  dynamic_friction_rates(law, s, v, zdot);
  return dynamic_friction_force(law, s, v, zdot);
}

TEST(DahlLaw, PreSlidingLoopFollowsTheClosedFormBranches) {
  // x = X sin(ωt); with β = 1, dF/dx = σ0 (1 − s F / Fc) on a branch of direction s, so
  // F = s Fc + (F_r − s Fc) exp(−σ0 s (x − x_r) / Fc) from the branch's start (x_r, F_r)
  DynamicFrictionLaw law;
  law.kind = DynamicLawKind::dahl;
  const double sigma0 = 2e4, Fc = 0.12, X = 2e-5, w = 2.0 * M_PI * 0.1;
  law.p[0] = sigma0;
  law.p[1] = Fc;
  law.p[2] = 1.0;
  auto x = [&](double t) { return X * std::sin(w * t); };
  auto v = [&](double t) { return X * w * std::cos(w * t); };
  auto branch = [&](double s, double xr, double Fr, double xx) {
    return s * Fc + (Fr - s * Fc) * std::exp(-sigma0 * s * (xx - xr) / Fc);
  };
  DynamicFrictionState st;
  const double quarter = M_PI / (2 * w);
  // loading from rest to x = X, then unloading to −X, then reloading to X (quarter-period steps
  // end exactly at the turning points)
  integrate_states(law, st, v, 0.0, quarter, 4000);
  const double F1 = branch(1.0, 0.0, 0.0, X);
  EXPECT_NEAR(sigma0 * st.z[0], F1, 1e-10 * Fc);
  integrate_states(law, st, v, quarter, 2 * quarter, 4000);
  const double mid = branch(-1.0, X, F1, x(2 * quarter));
  EXPECT_NEAR(sigma0 * st.z[0], mid, 1e-10 * Fc);
  integrate_states(law, st, v, 2 * quarter, 3 * quarter, 4000);
  const double F3 = branch(-1.0, X, F1, -X);
  EXPECT_NEAR(sigma0 * st.z[0], F3, 1e-10 * Fc);
  integrate_states(law, st, v, 3 * quarter, 5 * quarter, 8000);
  const double F5 = branch(1.0, -X, F3, X);
  EXPECT_NEAR(sigma0 * st.z[0], F5, 1e-10 * Fc);
  // a hysteresis loop: at x = 0 the reloading force (tending to +Fc) lies above the unloading one
  // (tending to −Fc), inside ±Fc
  EXPECT_GT(branch(1.0, -X, F3, 0.0) - mid, 0.1 * Fc);
  EXPECT_LT(std::abs(F5), Fc);
}

// LuGre with σ1 = 0 under v = V sin(ωt): the largest deviation from the static Stribeck law
// sgn(v) g(v) + σ2 v while |v| > V/5, second cycle
double lugre_deviation(double sigma0) {
  DynamicFrictionLaw law;
  law.kind = DynamicLawKind::lugre;
  const double Fc = 1.0, Fs = 1.5, vs = 0.01, beta = 2.0, sigma2 = 0.4, V = 0.1, w = 2.0 * M_PI;
  const double p[7] = {sigma0, 0.0, sigma2, Fc, Fs, vs, beta};
  for (int i = 0; i < 7; ++i) law.p[i] = p[i];
  auto v = [&](double t) { return V * std::sin(w * t); };
  DynamicFrictionState st;
  const int per_cycle = 200000;
  integrate_states(law, st, v, 0.0, 1.0, per_cycle);
  double worst = 0.0;
  const int chunk = 1000;
  for (int k = 0; k < per_cycle / chunk; ++k) {
    const double t0 = 1.0 + k * chunk * (1.0 / per_cycle), t1 = t0 + chunk * (1.0 / per_cycle);
    integrate_states(law, st, v, t0, t1, chunk);
    const double vv = v(t1);
    if (std::abs(vv) < V / 5) continue;
    const double static_force = signum(vv) * stribeck_curve(Fc, Fs, vs, beta, vv) + sigma2 * vv;
    worst = std::max(worst, std::abs(force_at(law, st, vv) - static_force));
  }
  return worst;
}

TEST(LuGreLaw, ApproachesCoulombStribeckAsTheBristlesStiffen) {
  // the bristle lag z − g/σ0 scales with 1/σ0: each tenfold stiffening cuts the deviation ~tenfold
  const double d3 = lugre_deviation(1e3), d4 = lugre_deviation(1e4), d5 = lugre_deviation(1e5);
  EXPECT_LT(d4, d3 / 5);
  EXPECT_LT(d5, d4 / 5);
  EXPECT_LT(d5, 1e-3);  // of Fc = 1
}

TEST(LuGreLaw, SteadySlidingGivesTheStaticCurve) {
  DynamicFrictionLaw law;
  law.kind = DynamicLawKind::lugre;
  const double p[7] = {2e4, 1e2, 0.5, 0.12, 0.16, 1e-3, 2.0};  // seed 002 §2.3.2
  for (int i = 0; i < 7; ++i) law.p[i] = p[i];
  for (double v : {-0.02, 5e-4, 0.01}) {
    DynamicFrictionState st;
    st.z[0] = signum(v) * stribeck_curve(p[3], p[4], p[5], p[6], v) / p[0];  // ż = 0
    double zdot[1];
    dynamic_friction_rates(law, st, v, zdot);
    EXPECT_NEAR(zdot[0], 0.0, 1e-15);
    EXPECT_NEAR(dynamic_friction_force(law, st, v, zdot),
                signum(v) * stribeck_curve(p[3], p[4], p[5], p[6], v) + p[2] * v, 1e-15);
  }
}

TEST(GmsLaw, ElementsStickUntilTheirThresholdsThenSlip) {
  // constant v from rest: element i follows z_i = v t until z_i* = α_i g(v)/K_i, then slips and
  // stays there (ż_i = C(1 − z_i/z_i*) = 0), so F is piecewise linear with the thresholds as kinks
  DynamicFrictionLaw law;
  law.kind = DynamicLawKind::gms;
  const double Fc = 1.0, Fs = 1.4, vs = 1e-3, sigma2 = 0.0, V = 1e-4;
  law.p[0] = Fc;
  law.p[1] = Fs;
  law.p[2] = vs;
  law.p[3] = sigma2;
  law.n_elements = 3;
  const double K[3] = {1e4, 2e4, 5e4}, alpha[3] = {0.2, 0.3, 0.5};
  for (int i = 0; i < 3; ++i) law.element[i] = GmsElement{K[i], 0.0, 50.0, alpha[i]};
  const double g = stribeck_curve(Fc, Fs, vs, 2.0, V);
  auto closed_form = [&](double t) {
    double f = 0.0;
    for (int i = 0; i < 3; ++i) f += K[i] * std::min(V * t, alpha[i] * g / K[i]);
    return f;
  };
  DynamicFrictionState st;
  auto v = [&](double) { return V; };
  const double dt = 1e-3;
  double t = 0.0;
  int slipping_seen = 0;
  for (int k = 0; k < 600; ++k) {
    integrate_states(law, st, v, t, t + dt, 1);
    t += dt;
    // a switch is caught at the end of the step that crosses it: one step of V·dt at most
    EXPECT_NEAR(force_at(law, st, V), closed_form(t), K[2] * V * dt) << t;
    slipping_seen = st.slipping[0] + st.slipping[1] + st.slipping[2];
  }
  EXPECT_EQ(slipping_seen, 3);
  EXPECT_NEAR(force_at(law, st, V), g, 1e-12);  // Σ α_i = 1: full sliding gives g(v)
  // reversal: every element sticks again and the force falls with slope −Σ K_i · V
  auto back = [&](double) { return -V; };
  const double F_peak = force_at(law, st, V);
  integrate_states(law, st, back, t, t + 2 * dt, 2);
  EXPECT_EQ(st.slipping[0] + st.slipping[1] + st.slipping[2], 0);
  EXPECT_NEAR(force_at(law, st, -V), F_peak - (K[0] + K[1] + K[2]) * V * 2 * dt, 1e-9);
}

}  // namespace
}  // namespace fivsim
