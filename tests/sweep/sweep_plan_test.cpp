// tests/sweep/sweep_plan_test.cpp — a sweep as one model plus rows: what each kind of swept pointer
// resolves to (a field written per case, a model made on the host, the time grid), the rule its
// values obey, the refusals, and every case's setup against the one the JSON path makes (the
// case's document parsed and its model made from scratch), bit for bit.
#include "fivsim/sweep/sweep_plan.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "fivsim/sweep/sweep.hpp"
#include "fivsim/integrate/simulation.hpp"

namespace fivsim::sweep {
namespace {

json scenario(const std::string& file) { return load_json_file(FIVSIM_SOURCE_DIR "/scenarios/" + file); }

json with_sweep(json doc, const json& sweep) {
  doc["sweep"] = sweep;
  return doc;
}

json grid(const std::vector<std::pair<std::string, std::vector<double>>>& params) {
  json p = json::array();
  for (const auto& [path, values] : params) p.push_back({{"path", path}, {"values", values}});
  return {{"mode", "grid"}, {"parameters", p}};
}

SweepPlan plan_of(const json& doc) { return SweepPlan(parse_scenario(doc), parse_sweep(doc)); }

std::string error_of(const json& doc) {
  try {
    (void)plan_of(doc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

using Targets = std::vector<std::tuple<SlotKind, int, int>>;
Targets targets_of(const SweepSlot& s) {
  Targets t;
  for (const SlotTarget& x : s.targets) t.emplace_back(x.kind, x.index, x.param);
  return t;
}

TEST(SweepPlan, NumbersThatReachTheModelAsTheyAreAreWrittenPerCase) {
  const json chain = scenario("chain2_load_sweep.json");
  const SweepPlan p = plan_of(with_sweep(chain, grid({{"/model/Fn", {5, 10}},
                                                      {"/model/v0", {0.2, 0.3}},
                                                      {"/friction/alpha", {2, 3}},
                                                      {"/initial/q/1", {0, 0.5}},
                                                      {"/initial/u/0", {0, 0.1}}})));
  EXPECT_FALSE(p.rebuilds_model());
  EXPECT_FALSE(p.per_case_setups());
  const auto& s = p.slots();
  // the chain's one Fn and v0 set both sliders; stribeck_exp's alpha is the law's third number
  EXPECT_EQ(targets_of(s[0]), (Targets{{SlotKind::normal_force, 0, 0}, {SlotKind::normal_force, 1, 0}}));
  EXPECT_EQ(targets_of(s[1]), (Targets{{SlotKind::surface_velocity, 0, 0}, {SlotKind::surface_velocity, 1, 0}}));
  EXPECT_EQ(targets_of(s[2]), (Targets{{SlotKind::friction, 0, 2}, {SlotKind::friction, 1, 2}}));
  EXPECT_EQ(targets_of(s[3]), (Targets{{SlotKind::start_q, 1, 0}}));
  EXPECT_EQ(targets_of(s[4]), (Targets{{SlotKind::start_u, 0, 0}}));
  EXPECT_EQ(s[0].rule, NumberRule::non_negative);
  EXPECT_EQ(s[3].rule, NumberRule::any);
  EXPECT_EQ(p.targets().n, 8);
  // one slider's load, as an array entry
  json per_slider = chain;
  per_slider["model"]["Fn"] = {15.0, 15.0};
  const SweepPlan q = plan_of(with_sweep(per_slider, grid({{"/model/Fn/1", {5, 10}}})));
  EXPECT_EQ(targets_of(q.slots()[0]), (Targets{{SlotKind::normal_force, 1, 0}}));
  // Model II's contact stiffness and friction coefficient; the base-excited oscillator's Ff is its
  // normal force under a unit Coulomb law
  const SweepPlan m2 = plan_of(
      with_sweep(scenario("model2_mu_scan.json"), grid({{"/model/kc", {300, 500}}, {"/friction/mu", {0.5, 1}}})));
  EXPECT_EQ(targets_of(m2.slots()[0]), (Targets{{SlotKind::contact_stiffness, 0, 0}}));
  EXPECT_EQ(targets_of(m2.slots()[1]), (Targets{{SlotKind::friction, 0, 0}}));
  EXPECT_EQ(m2.slots()[0].rule, NumberRule::positive);
  const SweepPlan sdof = plan_of(with_sweep(scenario("sdof_base_two_stop.json"), grid({{"/model/Ff", {0.05, 0.08}}})));
  EXPECT_EQ(targets_of(sdof.slots()[0]), (Targets{{SlotKind::normal_force, 0, 0}}));
}

TEST(SweepPlan, NumbersTheMatricesAreMadeFromRebuildTheCasesModel) {
  const SweepPlan p =
      plan_of(with_sweep(scenario("chain2_load_sweep.json"),
                         grid({{"/model/k/1", {0.5, 2}}, {"/model/m/0", {1, 2}}, {"/model/Fn", {5, 10}}})));
  EXPECT_TRUE(p.rebuilds_model());
  EXPECT_TRUE(p.per_case_map());
  EXPECT_TRUE(p.slots()[0].rebuilds_model());
  EXPECT_TRUE(p.slots()[1].rebuilds_model());
  EXPECT_FALSE(p.slots()[2].rebuilds_model());
  EXPECT_EQ(p.targets().n, 2);  // Fn, written into each rebuilt model
  // Model II's preload enters f0 with its sign: not as it is
  const SweepPlan m2 = plan_of(with_sweep(scenario("model2_mu_scan.json"), grid({{"/model/Fp", {15, 20}}})));
  EXPECT_TRUE(m2.slots()[0].rebuilds_model());
  // a number whose every case holds the base's value changes nothing
  const SweepPlan same = plan_of(with_sweep(scenario("chain2_load_sweep.json"), grid({{"/model/k/1", {1, 1}}})));
  EXPECT_FALSE(same.rebuilds_model());
  EXPECT_EQ(same.targets().n, 0);
}

TEST(SweepPlan, TheTimeGridVariesPerCase) {
  const SweepPlan p =
      plan_of(with_sweep(scenario("chain2_load_sweep.json"),
                         grid({{"/integrator/dt", {1e-3, 2e-3}}, {"/analysis/t_transient", {50, 150}}})));
  EXPECT_TRUE(p.varies_grid());
  EXPECT_TRUE(p.per_case_setups());
  EXPECT_TRUE(p.per_case_map());
  EXPECT_FALSE(p.rebuilds_model());
  EXPECT_EQ(p.slots()[0].grid, GridSlot::dt);
}

TEST(SweepPlan, RefusesWhatASweepCannotVary) {
  const json chain = scenario("chain2_load_sweep.json");
  EXPECT_EQ(error_of(with_sweep(chain, grid({{"/analysis/points", {16, 32}}}))),
            "/sweep/parameters/0/path: '/analysis/points' cannot be swept: a sweep varies the numbers of "
            "/model, /friction and /initial, /integrator/dt, /integrator/t_end and /analysis/t_transient");
  const json scalar_chain = {
      {"name", "c"},
      {"model", {{"type", "slider_chain"}, {"n", 2}, {"m", 1}, {"k", 1}, {"v0", 0.3}, {"Fn", 15}}},
      {"friction", {{"law", "coulomb"}, {"mu", 0.1}}},
      {"integrator", {{"dt", 1e-3}, {"t_end", 1}}}};
  EXPECT_EQ(error_of(with_sweep(scalar_chain, grid({{"/model/n", {2, 3}}}))),
            "/sweep/parameters/0/path: a sweep may not change the number of DoF or contacts ('/model/n' does)");
  // a value the parser refuses only with the others: reported for the first case that has it
  EXPECT_EQ(error_of(with_sweep(chain, grid({{"/model/v0", {0.1, 0.2}}, {"/model/n", {2, 3}}}))),
            "/model/m: must have 3 entries (one per slider), got 2 in case 1 (/model/v0 = 0.1, /model/n = 3)");
  // the first bad case, as the parser reports it
  EXPECT_EQ(error_of(with_sweep(chain, grid({{"/model/v0", {0.1, 0.2}}, {"/model/Fn", {3, -1}}}))),
            "/model/Fn: must be >= 0, got -1 in case 1 (/model/v0 = 0.1, /model/Fn = -1)");
  EXPECT_EQ(
      error_of(with_sweep(chain, grid({{"/integrator/t_end", {200, 300}}, {"/analysis/t_transient", {100, 250}}}))),
      "/analysis/t_transient: must be < /integrator/t_end in case 1 (/integrator/t_end = 200, "
      "/analysis/t_transient = 250)");
}

// every number of a model, compared as bits
template <class D>
void expect_same_setup(const CaseSetup<D>& a, const CaseSetup<D>& b, long index) {
  using T = typename D::scalar;
  const Model<D>&x = a.model, &y = b.model;
  const auto same = [&](const T* p, const T* q, int n, const char* what) {
    EXPECT_EQ(std::memcmp(p, q, sizeof(T) * static_cast<std::size_t>(n)), 0) << what << " of case " << index;
  };
  const int n = x.n_dof, nc = x.n_contacts;
  ASSERT_EQ(n, y.n_dof);
  ASSERT_EQ(nc, y.n_contacts);
  for (const auto& [p, q, what] : {std::make_tuple(&x.M, &y.M, "M"), std::make_tuple(&x.Minv, &y.Minv, "Minv"),
                                   std::make_tuple(&x.C, &y.C, "C"), std::make_tuple(&x.K, &y.K, "K")})
    same(p->a, q->a, D::max_dof * D::max_dof, what);
  for (const auto& [p, q, what] : {std::make_tuple(&x.GNN, &y.GNN, "GNN"), std::make_tuple(&x.GTT, &y.GTT, "GTT"),
                                   std::make_tuple(&x.GTN, &y.GTN, "GTN")})
    same(p->a, q->a, D::max_contacts * D::max_contacts, what);
  same(x.f0.v, y.f0.v, n, "f0");
  same(x.f_sin.v, y.f_sin.v, n, "f_sin");
  same(x.f_cos.v, y.f_cos.v, n, "f_cos");
  same(x.Fn, y.Fn, nc, "Fn");
  same(x.v_surface, y.v_surface, nc, "v_surface");
  same(x.kc, y.kc, nc, "kc");
  for (int i = 0; i < nc; ++i)
    EXPECT_EQ(std::memcmp(x.law[i].p, y.law[i].p, sizeof x.law[i].p), 0) << "law of case " << index;
  EXPECT_EQ(x.decoupled_friction, y.decoupled_friction);
  same(a.start.q.v, b.start.q.v, n, "q0");
  same(a.start.u.v, b.start.u.v, n, "u0");
  same(a.start.lamN.v, b.start.lamN.v, nc, "lamN0");
  for (int i = 0; i < nc; ++i) EXPECT_EQ(a.start.contact[i], b.start.contact[i]) << "contact state of case " << index;
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.t_transient, b.t_transient);
}

// the prepared cases against each case's own document, parsed, with its model made from scratch
template <class D>
void expect_cases_as_from_json(const json& doc, double stick_tol) {
  const Scenario base = parse_scenario(doc);
  const SweepSpec spec = parse_sweep(doc);
  const SweepPlan plan(base, spec);
  const SweepShared<D> shared(plan, stick_tol);
  const long n = spec.n_cases();
  PreparedCases<D> prepared;
  prepare_cases(plan, shared, 0, n, prepared);
  const CaseBatch<D> batch = prepared.batch();
  auto scratch = std::make_unique<CaseSetup<D>>(), want = std::make_unique<CaseSetup<D>>();
  std::vector<double> values;
  for (long i = 0; i < n; ++i) {
    const Scenario sc = case_scenario(doc, spec, i, values);
    make_model(sc.model, want->model);
    make_initial_state(want->model, sc.q0, sc.u0, 0.0, stick_tol, want->start);
    want->dt = sc.integrator.dt;
    want->steps = sc.integrator.steps;
    want->t_transient = sc.analysis.t_transient;
    expect_same_setup(batch.setup(i, *scratch), *want, i);
  }
}

TEST(SweepPlan, EveryCaseIsTheCaseTheJsonMakes) {
  const json chain = scenario("chain2_load_sweep.json");
  const json random = {{"mode", "random"},
                       {"samples", 40},
                       {"seed", 3},
                       {"parameters",
                        {{{"path", "/model/Fn"}, {"range", {0, 30}}},
                         {{"path", "/model/v0"}, {"logrange", {0.01, 1}}},
                         {{"path", "/initial/u/1"}, {"range", {-0.5, 0.5}}},
                         {{"path", "/friction/mu_s"}, {"values", {0.1, 0.2}}}}}};
  expect_cases_as_from_json<SweepDimsExact2<double>>(with_sweep(chain, random), 1e-9);
  expect_cases_as_from_json<SweepDimsExact2<float>>(with_sweep(chain, random), 1e-5);
  // the model rebuilt from its parameters, with a per-slider load written into it
  json per_slider = chain;
  per_slider["model"]["Fn"] = {15.0, 15.0};
  expect_cases_as_from_json<SweepDims2<double>>(
      with_sweep(per_slider, grid({{"/model/k/1", {0.5, 2}}, {"/model/c/0", {0, 0.1}}, {"/model/Fn/0", {0, 7}}})),
      1e-9);
  // Model II: a rebuilt forcing, a written stiffness and coefficient
  expect_cases_as_from_json<SweepDims2<double>>(
      with_sweep(scenario("model2_mu_scan.json"),
                 grid({{"/model/Fp", {15, 20}}, {"/model/kc", {300, 500}}, {"/friction/mu", {0.5, 1.2}}})),
      1e-9);
  // the forced oscillator's frequency reaches ω and the forcing; its time grid varies too
  expect_cases_as_from_json<SweepDims1<double>>(
      with_sweep(scenario("sdof_base_two_stop.json"),
                 grid({{"/model/f_hz", {0.5, 1.5}}, {"/model/Ff", {0.05, 0.08}}, {"/integrator/dt", {1e-4, 3e-4}}})),
      1e-9);
  // linear_multibody: an entry of K and a contact's own numbers
  const json lm = {{"name", "lm"},
                   {"model",
                    {{"type", "linear_multibody"},
                     {"M", {{2.0, 0.0}, {0.0, 1.0}}},
                     {"K", {{3.0, -1.0}, {-1.0, 1.0}}},
                     {"contacts",
                      {{{"kind", "given_normal"}, {"w_T", {1.0, 0.0}}, {"Fn", 2.0}, {"v_surface", 0.3}},
                       {{"kind", "given_normal"}, {"w_T", {0.0, 1.0}}, {"Fn", 1.0}, {"v_surface", 0.3}}}}}},
                   {"friction", {{"law", "coulomb"}, {"mu", 0.2}}},
                   {"integrator", {{"dt", 1e-3}, {"t_end", 1.0}}}};
  expect_cases_as_from_json<SweepDimsExact2<double>>(
      with_sweep(lm, grid({{"/model/K/0/0", {3, 4}},
                           {"/model/contacts/1/Fn", {0.5, 1.5}},
                           {"/model/contacts/0/v_surface", {0.1, 0.4}}})),
      1e-9);
}

}  // namespace
}  // namespace fivsim::sweep
