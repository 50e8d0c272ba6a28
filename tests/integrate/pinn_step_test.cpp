// tests/integrate/pinn_step_test.cpp — the PINN time steppers (integrate/pinn_step.hpp) against independent
// references: the IRK-PINN frameworks against the Gauss IRK-LCP stepper they converge to (their
// zero-loss point), the dual variants against the single ones (LCP-PINN vs Lemke), and the seed
// 001 central-difference scheme against a hand-written central-difference loop with the closed
// form of the friction impulse, and the LCP-PINN as the classical steppers' solver against Lemke.
#include "fivsim/integrate/pinn_step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "fivsim/integrate/method.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

struct Series {
  std::vector<double> q, u;
  MethodOutcome outcome;
};

// seed 000 Model I, slow Stribeck law: stick-slip from rest
Scenario model1(double t_end, double dt) {
  json doc = json::parse(R"({
    "name": "t",
    "model": {"type": "slider_belt", "m": 1.0, "k": 1.0, "c": 0.0, "v0": 0.5, "Fn": 10.0},
    "friction": {"law": "stribeck_rational", "mu_s": 0.1, "delta": 1.0},
    "initial": {"q": [0.0], "u": [0.0]},
    "integrator": {"method": "moreau", "dt": 0.01, "t_end": 1.0}
  })");
  doc["integrator"]["dt"] = dt;
  doc["integrator"]["t_end"] = t_end;
  return parse_scenario(doc);
}

// seed 000 Model II Example 1 (spring contact, Coulomb μ = 0.4): separation and reattachment
Scenario model2_example1(double t_end) {
  json doc = json::parse(R"({
    "name": "t",
    "model": {"type": "mode_coupling_2dof", "m": 5.0, "k1": 1000.0, "k3": 600.0, "kc": 500.0,
              "c1": 0.0, "c2": 0.0, "Fp": 20.0, "v0": 250.0},
    "friction": {"law": "coulomb", "mu": 0.4},
    "initial": {"q": [-10.0, -10.0], "u": [250.0, 250.0]},
    "integrator": {"method": "moreau", "dt": 0.001, "t_end": 1.0}
  })");
  doc["integrator"]["t_end"] = t_end;
  return parse_scenario(doc);
}

Series run(const Scenario& sc, const std::string& label) {
  auto m = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *m);
  MethodSpec spec = parse_method_label(label);
  spec.pinn = sc.integrator.pinn;
  Series s;
  s.outcome = run_method(spec, sc.model, *m, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.integrator.step,
                         [&](const SeriesPoint& p) {
                           s.q.push_back(p.q[0]);
                           s.u.push_back(p.u[0]);
                         });
  return s;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// 10 s of stick-slip: a stick, a break-away and a return to stick (3 events)
TEST(PinnStep, SingleAndAdvancedSingleConvergeToTheirIrkLcpCounterparts) {
  const Scenario sc = model1(10.0, 0.01);
  const Series irk = run(sc, "irk4"), irk_interp = run(sc, "irk4-interp");
  const Series single = run(sc, "pinn_single4"), adv = run(sc, "pinn_adv_single4");
  ASSERT_EQ(single.outcome.status, Status::ok);
  ASSERT_EQ(adv.outcome.status, Status::ok);
  EXPECT_EQ(single.outcome.pinn.unconverged, 0);
  EXPECT_LE(single.outcome.pinn.max_loss, 1e-24);
  // a training tolerance of 1e-24 on (1+|u|)²-scaled squared velocities leaves ~1e-12 per step
  EXPECT_LT(max_difference(single.q, irk.q), 1e-9);
  EXPECT_LT(max_difference(single.u, irk.u), 1e-9);
  EXPECT_LT(max_difference(adv.q, irk_interp.q), 1e-9);
  EXPECT_LT(max_difference(adv.u, irk_interp.u), 1e-9);
  EXPECT_EQ(single.outcome.events.size(), irk.outcome.events.size());
  EXPECT_EQ(single.outcome.events.size(), 3u);
}

TEST(PinnStep, DualMatchesSingleThroughTheLcpPinn) {
  const Scenario sc = model1(10.0, 0.01);
  const Series single = run(sc, "pinn_single4"), dual = run(sc, "pinn_dual4");
  ASSERT_EQ(dual.outcome.status, Status::ok);
  EXPECT_GT(dual.outcome.pinn.lcp_iterations, 0);
  EXPECT_EQ(single.outcome.pinn.lcp_iterations, 0);
  // the LCP-PINN's answers meet a natural-map residual of 1e-9 on impulses of ~1e-2
  EXPECT_LT(max_difference(dual.q, single.q), 1e-8);
  EXPECT_LT(max_difference(dual.u, single.u), 1e-8);
}

TEST(PinnStep, ModelTwoWithSeparationMatchesIrk) {
  // spring contact, separation and reattachment: 0.2 s of seed 000 Example 1 at dt = 1e-3
  const Scenario sc = model2_example1(0.2);
  const Series irk = run(sc, "irk4"), single = run(sc, "pinn_single4");
  ASSERT_EQ(single.outcome.status, Status::ok);
  ASSERT_GE(irk.outcome.events.size(), 2u);  // the contact opens and closes in these 0.2 s
  EXPECT_EQ(single.outcome.events.size(), irk.outcome.events.size());
  // displacements ~10, velocities ~250: relative agreement of 1e-9
  EXPECT_LT(max_difference(single.q, irk.q), 1e-8);
  EXPECT_LT(max_difference(single.u, irk.u), 1e-7);
}

TEST(PinnStep, CentralDifferenceFollowsSeed001Equations) {
  // seed 001 Eqs. 13–14 by hand for the slider on a belt: q_M = q + dt/2 u; the friction impulse
  // of the velocity update is the clamp of the sticking impulse to ±μ(v_r(u_A))·Fn·dt
  const Scenario sc = model1(10.0, 0.01);
  const Series central = run(sc, "pinn_central");
  ASSERT_EQ(central.outcome.status, Status::ok);
  const double m = 1, k = 1, v0 = 0.5, Fn = 10, mus = 0.1, delta = 1, dt = 0.01;
  double q = 0, u = 0;
  std::vector<double> qs = {q}, us = {u};
  for (long i = 0; i < sc.integrator.steps; ++i) {
    const double qm = q + 0.5 * dt * u;
    const double u_free = u + dt * (-k * qm) / m;
    const double mu = mus / (1 + delta * std::abs(u - v0));
    const double bound = mu * Fn * dt;
    const double stick = -(u_free - v0) * m;  // impulse that makes u_E = v0
    const double P = std::clamp(stick, -bound, bound);
    u = u_free + P / m;
    q = qm + 0.5 * dt * u;
    qs.push_back(q);
    us.push_back(u);
  }
  EXPECT_LT(max_difference(central.q, qs), 1e-9);
  EXPECT_LT(max_difference(central.u, us), 1e-9);
  EXPECT_GT(central.outcome.pinn.lcp_iterations, 0);
}

// the LCP-PINN as the contact solver of the classical steppers (lcp_solver lcp_pinn): on Model II
// with separation and stick-slip, Moreau and Gauss IRK-LCP give what they give with Lemke — the
// same events and the same states to rounding
TEST(PinnStep, LcpPinnSolvesTheClassicalSteppersLcps) {
  const Scenario sc = model2_example1(0.5);
  for (const char* method : {"moreau", "irk4-interp"}) {
    const Series lemke = run(sc, method), pinn = run(sc, std::string(method) + "+lcp_pinn");
    ASSERT_EQ(pinn.outcome.status, Status::ok) << method;
    ASSERT_GE(lemke.outcome.events.size(), 2u);
    EXPECT_EQ(pinn.outcome.events.size(), lemke.outcome.events.size()) << method;
    EXPECT_LT(max_difference(pinn.q, lemke.q), 1e-9) << method;
    EXPECT_LT(max_difference(pinn.u, lemke.u), 1e-8) << method;
    EXPECT_GT(pinn.outcome.pinn.lcp_iterations, 0) << method;
  }
}

TEST(PinnStep, LabelsRoundTrip) {
  for (const char* label :
       {"pinn_single10", "pinn_dual4", "pinn_adv_single2", "pinn_adv_dual10", "pinn_central", "moreau+lcp_pinn",
        "irk4-interp+lcp_pinn", "rk4lcp+lcp_pinn", "rk4lcp-euler_lcp", "irk10-euler_lcp+lcp_pinn"})
    EXPECT_EQ(parse_method_label(label).label(), label);
  EXPECT_THROW(parse_method_label("pinn_dual4+lcp_pinn"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("switching+lcp_pinn"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("pinn_single"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("pinn_central4"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("pinn_triple4"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("pinn_single101"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("moreau-euler_lcp"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("irk4-interp-euler_lcp"), std::invalid_argument);
  EXPECT_THROW(parse_method_label("pinn_single4-euler_lcp"), std::invalid_argument);
}

}  // namespace
}  // namespace fivsim
