// tests/cases/case_shape_test.cpp — the general runner in the exact instantiation of a model's shape
// (cases/case_shape.hpp; the CPU backend moves a 2-DoF, one-contact model of the 2 × 2 capacity
// instantiation there) against the same cases run in the capacity instantiation, bit for bit:
// every statistic, count, class and kept point, with each time stepper, the Lyapunov twin, every
// contact kind, a forced model and a model that blows up.
#include "fivsim/cases/case_shape.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fivsim/sweep/sweep.hpp"
#include "prepared_sweep.hpp"

namespace fivsim::sweep {
namespace {

using Capacity = SweepDims2<double>;
using Exact = Dims<double, 2, 1, true>;

// every case once through the CPU backend (which moves it to the exact shape) and once through
// run_case in the capacity instantiation; returns the latter's results, so that a caller can check
// what the cases did
std::vector<CaseResult<Capacity>> expect_exact_equals_capacity(const json& doc) {
  PreparedSweep<Capacity> p(doc, false);
  const CaseBatch<Capacity> batch = p.cases.batch();
  const Model<Capacity>& m = batch.setups[0].model;
  EXPECT_EQ(m.n_dof, 2);
  EXPECT_EQ(m.n_contacts, 1);
  const long n = batch.n, per_case = case_points_size(m.n_dof, p.an);
  std::vector<CaseResult<Capacity>> exact(static_cast<std::size_t>(n)), capacity(exact.size());
  std::vector<double> exact_points(static_cast<std::size_t>(n * per_case), -1.0),
      capacity_points(exact_points.size(), -1.0);
  run_chunk_cpu(batch, p.an, p.opt, exact.data(), exact_points.data(), 2);
  auto ws = std::make_unique<CaseWorkspace<Capacity>>();
  auto twin = std::make_unique<LyapunovTwin<Capacity>>();
  auto s = std::make_unique<State<Capacity>>();
  auto scratch = std::make_unique<CaseSetup<Capacity>>();
  for (long c = 0; c < n; ++c) {
    run_case<Capacity>(batch.setup(c, *scratch), batch.map(c), p.an, p.opt, *ws, *s,
                       capacity[static_cast<std::size_t>(c)], capacity_points.data() + c * per_case, twin.get());
    expect_same_case_bits(exact[static_cast<std::size_t>(c)], capacity[static_cast<std::size_t>(c)], c, 2, 1);
  }
  EXPECT_EQ(std::memcmp(exact_points.data(), capacity_points.data(), sizeof(double) * exact_points.size()), 0);
  return capacity;
}

// the seeds' mode-coupling oscillator (a spring contact) across the flutter threshold, with its
// start varied: cases that stay small and cases that grow into stick-slip and separation
json mode_coupling(const char* method) {
  json doc = scenario_file("model2_mu_scan.json");
  doc["integrator"]["method"] = method;
  doc["integrator"]["t_end"] = 6.0;
  doc["analysis"]["t_transient"] = 2.0;
  doc["sweep"] = {
      {"mode", "random"},
      {"samples", 12},
      {"seed", 5},
      {"parameters",
       {{{"path", "/friction/mu"}, {"range", {0.6, 1.5}}}, {{"path", "/initial/q/0"}, {"range", {0.0, 0.01}}}}}};
  return doc;
}

bool mixed_classes(const std::vector<CaseResult<Capacity>>& results) {
  for (const auto& r : results)
    if (r.klass != results.front().klass) return true;
  return false;
}

TEST(CaseShape, EveryTimeStepperRunsTheCapacityInstantiationsNumbers) {
  for (const char* method : {"moreau", "rk4lcp", "irk"}) {
    SCOPED_TRACE(method);
    json doc = mode_coupling(method);
    if (std::string(method) == "irk") doc["integrator"]["order"] = 2;
    EXPECT_TRUE(mixed_classes(expect_exact_equals_capacity(doc)));
  }
}

TEST(CaseShape, TheLyapunovTwinRunsTheCapacityInstantiationsNumbers) {
  json doc = mode_coupling("moreau");
  doc["analysis"]["lyapunov"] = {{"every", 10}};
  expect_exact_equals_capacity(doc);
}

// a general model of the shape with every field the step reads set: mass coupling, damping,
// constant and harmonic forcing, a gap, a moving surface, a Stribeck law; a rigid contact, a
// given normal force and a spring contact, the last with a stiffness that blows some cases up
json multibody(const char* kind) {
  json contact = {
      {"kind", kind},      {"w_T", {1.0, -0.3}},
      {"w_N", {0.2, 1.0}}, {"gap0", 0.001},
      {"v_surface", 0.4},  {"k_c", 2e4},
      {"Fn", 5.0},         {"friction", {{"law", "stribeck_exp"}, {"mu_s", 0.5}, {"mu_d", 0.3}, {"alpha", 10.0}}}};
  if (std::string(kind) != "spring") contact.erase("k_c");
  if (std::string(kind) != "given_normal") contact.erase("Fn");
  return {{"name", "shape"},
          {"model",
           {{"type", "linear_multibody"},
            {"M", {{2.0, 0.3}, {0.3, 1.0}}},
            {"K", {{800.0, -200.0}, {-200.0, 500.0}}},
            {"C", {{0.4, 0.0}, {0.0, 0.2}}},
            {"f", {0.0, -9.81}},
            {"f_sin", {3.0, 0.0}},
            {"f_cos", {0.0, 1.0}},
            {"omega", 18.0},
            {"contacts", {contact}}}},
          {"friction", {{"law", "coulomb"}, {"mu", 0.3}}},
          {"initial", {{"q", {0.0, 0.0}}, {"u", {0.0, 0.0}}}},
          {"integrator", {{"method", "moreau"}, {"dt", 1e-3}, {"t_end", 4.0}}},
          {"output", {{"timeseries", false}}},
          {"analysis",
           {{"t_transient", 1.0},
            {"points", 16},
            {"poincare", {{"section", "velocity"}, {"dof", 0}, {"value", 0.0}, {"direction", "down"}}}}},
          {"sweep",
           {{"mode", "random"},
            {"samples", 10},
            {"seed", 3},
            {"parameters",
             {{{"path", "/model/f_sin/0"}, {"range", {0.0, 40.0}}},
              {{"path", "/model/contacts/0/v_surface"}, {"range", {-0.5, 0.8}}}}}}}};
}

TEST(CaseShape, EveryContactKindAndForcingRunsTheCapacityInstantiationsNumbers) {
  for (const char* kind : {"rigid", "given_normal", "spring"})
    for (const char* method : {"moreau", "rk4lcp"}) {
      SCOPED_TRACE(std::string(kind) + " " + method);
      json doc = multibody(kind);
      doc["integrator"]["method"] = method;
      expect_exact_equals_capacity(doc);
    }
}

TEST(CaseShape, ACaseThatBlowsUpFailsAlikeInBoth) {
  // a negative stiffness: the first DoF leaves exponentially (e-folding in 3 ms) until it overflows
  json doc = multibody("given_normal");
  doc["model"]["K"] = {{-2e5, 0.0}, {0.0, 500.0}};
  long failed = 0;
  for (const auto& r : expect_exact_equals_capacity(doc)) failed += r.status != Status::ok;
  EXPECT_GT(failed, 0);
}

// the copies themselves: a setup moved to the exact shape and back holds the entries it had
TEST(CaseShape, ASetupMovedThereAndBackIsUnchanged) {
  PreparedSweep<Capacity> p(multibody("rigid"), false);
  const CaseSetup<Capacity>& a = p.cases.setups[0];
  auto exact = std::make_unique<CaseSetup<Exact>>();
  auto back = std::make_unique<CaseSetup<Capacity>>();
  copy_case_setup(a, *exact);
  copy_case_setup(*exact, *back);
  const Model<Capacity>&ma = a.model, &mb = back->model;
  EXPECT_EQ(mb.n_dof, 2);
  EXPECT_EQ(mb.n_contacts, 1);
  EXPECT_EQ(mb.n_normal, ma.n_normal);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(same_bits(mb.f0[i], ma.f0[i]) && same_bits(mb.f_sin[i], ma.f_sin[i]) &&
                same_bits(mb.f_cos[i], ma.f_cos[i]));
    EXPECT_TRUE(same_bits(mb.WN(i, 0), ma.WN(i, 0)) && same_bits(mb.WT(i, 0), ma.WT(i, 0)));
    for (int j = 0; j < 2; ++j)
      EXPECT_TRUE(same_bits(mb.M(i, j), ma.M(i, j)) && same_bits(mb.Minv(i, j), ma.Minv(i, j)) &&
                  same_bits(mb.C(i, j), ma.C(i, j)) && same_bits(mb.K(i, j), ma.K(i, j)));
  }
  EXPECT_TRUE(same_bits(mb.omega, ma.omega) && same_bits(mb.gap0[0], ma.gap0[0]) &&
              same_bits(mb.v_surface[0], ma.v_surface[0]));
  EXPECT_TRUE(same_bits(mb.GNN(0, 0), ma.GNN(0, 0)) && same_bits(mb.GNT(0, 0), ma.GNT(0, 0)) &&
              same_bits(mb.GTN(0, 0), ma.GTN(0, 0)) && same_bits(mb.GTT(0, 0), ma.GTT(0, 0)));
  EXPECT_EQ(mb.law[0].kind, ma.law[0].kind);
  EXPECT_EQ(mb.normal_slot[0], ma.normal_slot[0]);
  EXPECT_EQ(back->steps, a.steps);
  EXPECT_TRUE(same_bits(back->dt, a.dt) && same_bits(back->t_transient, a.t_transient));
}

}  // namespace
}  // namespace fivsim::sweep
