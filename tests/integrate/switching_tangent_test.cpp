// tests/integrate/switching_tangent_test.cpp — the variational equations of the switching model
// (integrate/switching_tangent.hpp): the friction laws' slopes against central differences; the
// state-transition matrix Φ = ∂y(t)/∂y(0) through slip→stick and stick→slip against the Coulomb
// slider's closed form; and Φ against central finite differences of the flow itself, through the
// stick-slip events of seed 000 Model I, the 2-DoF chain and Model II (separation and contact).
#include "fivsim/integrate/switching_tangent.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "integrate/event_driven_problems.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using TangentDims = Dims<double, 4, 4>;

// every law's dμ/d|v| against a central difference of μ, away from v = 0
TEST(FrictionSlope, MatchesCentralDifferencesOfEveryLawAndComesWithItsMagnitude) {
  const double params[kFrictionLawCount][kFrictionMaxParams] = {{0.3},
                                                                {0.3, 0.05},
                                                                {0.3, 4.0},
                                                                {0.3, 1.5},
                                                                {0.3, 0.12, 2.5},
                                                                {0.4, 0.25, 0.2, 1.7, 0.03},
                                                                {0.4, 0.3, 0.8, 1.1, 3.0, 0.6},
                                                                {0.6, 0.4}};
  for (int k = 0; k < kFrictionLawCount; ++k) {
    FrictionLaw law;
    law.kind = static_cast<FrictionLawKind>(k);
    for (int j = 0; j < kFrictionMaxParams; ++j) law.p[j] = params[k][j];
    for (double v : {-2.3, -0.4, -0.05, 0.07, 0.6, 1.9}) {
      const double h = 1e-6, s = v < 0 ? -1.0 : 1.0;
      // d/d|v| at fixed sign: step |v| outwards and inwards
      const double fd = (friction_magnitude(law, v + s * h) - friction_magnitude(law, v - s * h)) / (2 * h);
      double slope = 0.0;
      const double mu = friction_magnitude_and_slope(law, v, slope);
      EXPECT_NEAR(slope, fd, 1e-8 * (1 + std::abs(fd))) << kFrictionLawInfo[k].name << " at v = " << v;
      // the magnitude that comes with the slope is the law's own, bit for bit
      EXPECT_EQ(mu, friction_magnitude(law, v)) << kFrictionLawInfo[k].name << " at v = " << v;
    }
  }
}

struct TangentRun {
  Status status = Status::ok;
  std::vector<double> y;    // the state at t_end
  std::vector<double> phi;  // Φ(t_end), row-major ny × ny
  long saltations = 0, grazing = 0;
  bool ok = true;
  std::vector<std::pair<ContactState, ContactState>> changes;  // every mode change, in order
};

// the switching run from y0 = (q0, u0) at 0 to t_end, with Φ when `tangent`
TangentRun run(const Model<TangentDims>& m, const std::vector<double>& y0, double t_end, bool tangent = true) {
  const int nq = dof_count(m), ny = 2 * nq;
  auto ws = std::make_unique<SwitchingWorkspace<TangentDims>>();
  auto tan = std::make_unique<SwitchingTangent<TangentDims>>();
  SwitchingSettings set;
  set.rel_tol = 1e-12;
  set.abs_tol = 1e-14;
  set.event_tol = 1e-14;
  TangentRun out;
  auto sink = [&](const SwitchingEvent<double>& e) {
    if (!e.section) out.changes.emplace_back(e.from, e.to);
  };
  out.status = switching_start(m, set, SwitchingSection{}, *ws, 0.0, y0.data(), y0.data() + nq, false, sink);
  if (out.status != Status::ok) return out;
  tangent_reset(m, *tan);
  TangentHooks<TangentDims> hooks{*tan};
  out.status = tangent ? switching_advance(m, set, SwitchingSection{}, *ws, t_end, sink, hooks)
                       : switching_advance(m, set, SwitchingSection{}, *ws, t_end, sink);
  if (out.status != Status::ok) return out;
  State<TangentDims> s;
  switching_output(m, *ws, t_end, s);
  for (int i = 0; i < nq; ++i) out.y.push_back(s.q[i]);
  for (int i = 0; i < nq; ++i) out.y.push_back(s.u[i]);
  if (tangent) {
    out.ok = hooks.ok && tangent_at(m, *ws, *tan, t_end, tan->stage[0]);
    for (int i = 0; i < ny; ++i)
      for (int j = 0; j < ny; ++j) out.phi.push_back(tan->stage[0][i][j]);
    out.saltations = tan->saltations;
    out.grazing = tan->grazing;
  }
  return out;
}

std::unique_ptr<Model<TangentDims>> model_of(const ModelDescription& d) {
  auto m = std::make_unique<Model<TangentDims>>();
  make_model(d, *m);
  return m;
}

using test_problems::CoulombSlider;

// slip, stick, slip from rest at 0 (event_driven_problems.hpp). With a = x0 − 1, b = u0 the first
// slip is x = 1 + a cos t + b sin t; it sticks where u = 0.5 (t1) and slips again where x = 1, at
// t2 = t1 + 2(1 − x(t1)). So Φ = rotation before t1; in the stick x = x(t1) + 0.5(t − t1) gives
// ∂x/∂(x0, u0) = (√3/2, 1/2), ∂u = 0; after t2 the motion depends on y0 only through t2, whose
// gradient is (−√3, −1): Φ = −f(y(t)) ∇t2ᵀ = f(y(t)) (√3, 1)
TEST(SwitchingTangent, CoulombSliderClosedFormThroughStickAndSlip) {
  const auto m = model_of(CoulombSlider::model());
  const double t1 = CoulombSlider::t1, t2 = CoulombSlider::t2(), r3 = std::sqrt(3.0);
  struct Check {
    double t;
    double phi[4];
  } checks[] = {
      {0.4, {std::cos(0.4), std::sin(0.4), -std::sin(0.4), std::cos(0.4)}},
      {t1 + 1.0, {r3 / 2, 0.5, 0.0, 0.0}},
      {t2 + 1.0, {0.5 * std::cos(1.0) * r3, 0.5 * std::cos(1.0), -0.5 * std::sin(1.0) * r3, -0.5 * std::sin(1.0)}},
      {t2 + 2.5, {0.5 * std::cos(2.5) * r3, 0.5 * std::cos(2.5), -0.5 * std::sin(2.5) * r3, -0.5 * std::sin(2.5)}},
  };
  for (const Check& c : checks) {
    const TangentRun r = run(*m, {0.0, 0.0}, c.t);
    ASSERT_EQ(r.status, Status::ok);
    ASSERT_TRUE(r.ok);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(r.phi[k], c.phi[k], 1e-9) << "t = " << c.t << ", entry " << k;
    EXPECT_EQ(r.saltations, c.t < t1 ? 0 : (c.t < t2 ? 1 : 2));
    EXPECT_EQ(r.grazing, 0);
  }
}

// Φ against central differences of the flow, column by column; returns the largest difference
// relative to max(1, |Φ|)
double compare_with_differences(const Model<TangentDims>& m, const std::vector<double>& y0, double t_end, double h,
                                long* saltations, TangentRun* run_out = nullptr) {
  const int ny = static_cast<int>(y0.size());
  const TangentRun base = run(m, y0, t_end);
  if (run_out) *run_out = base;
  EXPECT_EQ(base.status, Status::ok);
  EXPECT_TRUE(base.ok);
  EXPECT_EQ(base.grazing, 0);
  *saltations = base.saltations;
  double phi_max = 1.0;
  for (double p : base.phi) phi_max = std::max(phi_max, std::abs(p));
  double worst = 0.0;
  for (int j = 0; j < ny; ++j) {
    std::vector<double> yp = y0, ym = y0;
    const double dj = h * (1 + std::abs(y0[j]));
    yp[j] += dj;
    ym[j] -= dj;
    const TangentRun rp = run(m, yp, t_end, false), rm = run(m, ym, t_end, false);
    EXPECT_EQ(rp.status, Status::ok);
    EXPECT_EQ(rm.status, Status::ok);
    for (int i = 0; i < ny; ++i) {
      const double fd = (rp.y[i] - rm.y[i]) / (2 * dj);
      worst = std::max(worst, std::abs(fd - base.phi[i * ny + j]) / phi_max);
    }
  }
  return worst;
}

// a bundled scenario's model from y0 to t_end: Φ within 1e-6 of central differences (step h, so
// that their own error, rounding over h and h² against Φ's scale, stays far below), through at
// least `saltations` events; the run, for a look at its modes
TangentRun expect_differences_agree(const char* scenario, const std::vector<double>& y0, double t_end, double h,
                                    long saltations) {
  const auto m = model_of(test_problems::bundled(scenario).model);
  long carried = 0;
  TangentRun r;
  const double worst = compare_with_differences(*m, y0, t_end, h, &carried, &r);
  std::printf("%s: %ld saltations, largest difference %.3g\n", scenario, carried, worst);
  EXPECT_GE(carried, saltations);
  EXPECT_LE(worst, 1e-6);
  return r;
}

TEST(SwitchingTangent, MatchesFiniteDifferencesOnModelI) {
  expect_differences_agree("model1_slow_stribeck", {0.2, 0.1}, 14.3, 1e-6, 2);
}

TEST(SwitchingTangent, MatchesFiniteDifferencesOnTheTwoDofChain) {
  expect_differences_agree("chain2_F15", {0.5, 0.45, 0.1, -0.05}, 9.7, 1e-6, 4);
}

TEST(SwitchingTangent, MatchesFiniteDifferencesOnModelIIThroughSeparation) {
  const TangentRun r = expect_differences_agree("model2_example1", {-10.0, -10.0, 240.0, 250.0}, 0.31, 1e-7, 2);
  bool separates = false;
  std::printf("modes:");
  for (const auto& [from, to] : r.changes) {
    std::printf(" %s->%s", contact_state_name(from), contact_state_name(to));
    separates = separates || (from != ContactState::free && to == ContactState::free);
  }
  std::printf("\n");
  EXPECT_TRUE(separates);
}

}  // namespace
}  // namespace fivsim
