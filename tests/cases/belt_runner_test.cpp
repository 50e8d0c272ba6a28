// tests/cases/belt_runner_test.cpp — the belt runner (cases/belt_runner.hpp) against the general case
// runner (case_runner.hpp, moreau_step) on the same cases, bit for bit: every statistic, count,
// class and kept point, in double and float, forced and unforced, with a case that blows up and
// lanes left partly empty; which batches it takes; and the observer sets: a leaner set computes
// the same numbers for what it keeps.
#include "fivsim/cases/belt_runner.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include <cstring>
#include <functional>
#include <memory>

#include "fivsim/sweep/sweep.hpp"
#include "prepared_sweep.hpp"

namespace fivsim::sweep {
namespace {

// every case once through the belt runner (run_chunk_cpu takes it) and once through run_case
// `edit`: a change to the prepared cases before they run
template <class D>
void expect_belt_equals_general(const json& doc, bool single, unsigned observers = kObserveBifurcation,
                                const std::function<void(PreparedSweep<D>&)>& edit = {}) {
  PreparedSweep<D> p(doc, single);
  if (edit) edit(p);
  SweepAnalysis an = p.an;
  an.observers = observers;
  if (!observes_points(observers)) an.capacity = 0;
  const CaseBatch<D> batch = p.cases.batch();
  ASSERT_TRUE(runs_as_belt(batch, an, p.opt));
  const long n = batch.n, per_case = case_points_size(D::max_dof, an);
  std::vector<CaseResult<D>> belt(static_cast<std::size_t>(n)), general(belt.size());
  std::vector<double> belt_points(static_cast<std::size_t>(n * per_case)), general_points(belt_points.size());
  run_chunk_cpu(batch, an, p.opt, belt.data(), belt_points.data(), 2);
  auto ws = std::make_unique<CaseWorkspace<D>>();
  auto s = std::make_unique<State<D>>();
  auto scratch = std::make_unique<CaseSetup<D>>();
  for (long c = 0; c < n; ++c)
    run_case<D>(batch.setup(c, *scratch), nullptr, an, p.opt, *ws, *s, general[static_cast<std::size_t>(c)],
                general_points.data() + c * per_case);
  for (long c = 0; c < n; ++c)
    expect_same_case_bits(belt[static_cast<std::size_t>(c)], general[static_cast<std::size_t>(c)], c, D::max_dof,
                          D::max_dof);
  // byte for byte (memcmp takes no null pointer, which empty vectors may hold: lean keeps no points)
  if (!belt_points.empty()) {
    EXPECT_EQ(std::memcmp(belt_points.data(), general_points.data(), sizeof(double) * belt_points.size()), 0);
  }
}

json chain_random(int samples) {
  json doc = scenario_file("chain2_load_sweep.json");
  doc["integrator"]["t_end"] = 40.0;
  doc["analysis"]["t_transient"] = 10.0;
  // 13 cases: one group of lanes, its last ones copies of the 13th case
  doc["sweep"] = {{"mode", "random"},
                  {"samples", samples},
                  {"seed", 11},
                  {"parameters",
                   {{{"path", "/model/Fn"}, {"range", {1, 30}}},
                    {{"path", "/model/v0"}, {"range", {0.1, 0.8}}},
                    {{"path", "/initial/q/1"}, {"range", {0, 1}}},
                    {{"path", "/initial/u/0"}, {"values", {0.0, 0.3}}},
                    {{"path", "/friction/alpha"}, {"range", {1, 8}}}}}};
  return doc;
}

// seed 002's asymmetric law, vectorised over the lanes (reproducible_sech and _tanh), with its
// direction's parameters and its steepness swept
json chain_asymmetric() {
  json doc = chain_random(11);
  doc["friction"] = {{"law", "asymmetric"}, {"Ts_l", 0.2328},   {"Ts_r", 0.0928}, {"T0_l", 0.2188},
                     {"T0_r", 0.0917},      {"alpha", 92.6465}, {"beta", 0.0928}};
  doc["sweep"]["parameters"][4] = {{"path", "/friction/alpha"}, {"range", {5, 150}}};
  doc["sweep"]["parameters"].push_back({{"path", "/friction/Ts_r"}, {"range", {0.05, 0.3}}});
  return doc;
}

// seed 002's general Stribeck law, vectorised over the lanes ((|v|/v_s)^alpha as
// reproducible_exp(alpha·reproducible_log(|v|/v_s))), its exponent and Stribeck velocity swept
json chain_stribeck() {
  json doc = chain_random(11);
  doc["friction"] = {{"law", "stribeck"}, {"mu_s", 0.6}, {"mu_c", 0.35}, {"v_s", 0.1}, {"alpha", 2.0}, {"mu_v", 0.01}};
  doc["sweep"]["parameters"][4] = {{"path", "/friction/alpha"}, {"range", {0.5, 3}}};
  doc["sweep"]["parameters"].push_back({{"path", "/friction/v_s"}, {"range", {0.02, 0.5}}});
  return doc;
}

TEST(BeltRunner, TheGeneralStribeckLawIsMoreauStepBitForBit) {
  expect_belt_equals_general<SweepDimsExact2<double>>(chain_stribeck(), false);
  expect_belt_equals_general<SweepDimsExact2<float>>(chain_stribeck(), true);
}

TEST(BeltRunner, TheTwoDofChainIsMoreauStepBitForBit) {
  expect_belt_equals_general<SweepDimsExact2<double>>(chain_random(13), false);
  expect_belt_equals_general<SweepDimsExact2<float>>(chain_random(13), true);
}

// the CPU's narrower copies of the runner (AVX2 with fused multiply-adds; the baseline, which
// divides), where this machine runs them: the same bits as the general runner too
TEST(BeltRunner, EveryCpuCopyKeepsTheGeneralRunnersNumbers) {
  for (const char* copy : {"v3", "baseline"}) {
    SCOPED_TRACE(copy);
    setenv("FIVSIM_BELT_COPY", copy, 1);
    expect_belt_equals_general<SweepDimsExact2<double>>(chain_random(13), false);
    expect_belt_equals_general<SweepDimsExact2<float>>(chain_random(13), true);
    expect_belt_equals_general<SweepDimsExact2<double>>(chain_random(9), false, kObserveLean);
    expect_belt_equals_general<SweepDimsExact2<double>>(chain_asymmetric(), false);
    expect_belt_equals_general<SweepDimsExact2<double>>(chain_stribeck(), false);
    unsetenv("FIVSIM_BELT_COPY");
  }
}

TEST(BeltRunner, EveryObserverSetKeepsTheGeneralRunnersNumbers) {
  for (const unsigned set : kBeltObserverSets)
    expect_belt_equals_general<SweepDimsExact2<double>>(chain_random(9), false, set);
  // a velocity section instead of the break-away
  json doc = chain_random(9);
  doc["analysis"]["poincare"] = {{"section", "velocity"}, {"dof", 1}, {"value", 0.3}, {"direction", "both"}};
  expect_belt_equals_general<SweepDimsExact2<double>>(doc, false);
}

TEST(BeltRunner, TheAsymmetricLawIsMoreauStepBitForBit) {
  expect_belt_equals_general<SweepDimsExact2<double>>(chain_asymmetric(), false);
  expect_belt_equals_general<SweepDimsExact2<float>>(chain_asymmetric(), true);
}

TEST(BeltRunner, FiveSlidersAndASliderAreMoreauStepBitForBit) {
  json chain5 = scenario_file("chain5_F15.json");
  chain5["integrator"]["t_end"] = 30.0;
  chain5["analysis"]["t_transient"] = 10.0;
  chain5["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"linspace", {5, 25, 11}}}}}};
  expect_belt_equals_general<SweepDimsExact5<double>>(chain5, false);
  json model1 = scenario_file("model1_v0_delta_grid.json");
  model1["integrator"]["t_end"] = 100.0;
  model1["analysis"]["t_transient"] = 50.0;
  model1["friction"] = {{"law", "coulomb_tanh"}, {"mu", 0.1}, {"eps", 20}};
  model1["sweep"]["parameters"][1] = {{"path", "/friction/eps"}, {"values", {5, 50}}};
  expect_belt_equals_general<SweepDims1<double>>(model1, false);
}

// the base-excited oscillator (seed 003): forcing evaluated at each step's start, a stroboscopic
// section at the forcing period
TEST(BeltRunner, AForcedOscillatorIsMoreauStepBitForBit) {
  json doc = scenario_file("sdof_base_two_stop.json");
  doc["integrator"]["t_end"] = 8.0;
  doc["analysis"]["t_transient"] = 3.0;
  doc["sweep"] = {
      {"mode", "grid"},
      {"parameters",
       {{{"path", "/model/Ff"}, {"linspace", {0.02, 0.1, 6}}}, {{"path", "/initial/q/0"}, {"values", {0, 0.001}}}}}};
  expect_belt_equals_general<SweepDims1<double>>(doc, false);
}

// a case whose state overflows ends at its failing step, as run_case ends it; its lane mates go on
TEST(BeltRunner, ACaseThatBlowsUpEndsAsInTheGeneralRunner) {
  json doc = chain_random(3);
  doc["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/initial/q/0"}, {"values", {0.5, 0.7, 0.2}}}}}};
  // a start at 1e308 m, beyond what a scenario may say (±1e100), put into the prepared row: it
  // overflows within a step
  const auto blow_up = [](PreparedSweep<SweepDimsExact2<double>>& q) { q.cases.rows[1] = 1e308; };
  expect_belt_equals_general<SweepDimsExact2<double>>(doc, false, kObserveBifurcation, blow_up);
  PreparedSweep<SweepDimsExact2<double>> p(doc, false);
  blow_up(p);
  std::vector<CaseResult<SweepDimsExact2<double>>> r(3);
  std::vector<double> points(3 * case_points_size(2, p.an));
  run_chunk_cpu(p.cases.batch(), p.an, p.opt, r.data(), points.data(), 1);
  EXPECT_EQ(r[1].status, Status::nonfinite);
  EXPECT_EQ(r[1].klass, CaseClass::diverged);
  EXPECT_EQ(r[0].status, Status::ok);
  EXPECT_EQ(r[2].status, Status::ok);
}

// Model II (a spring contact), a per-case model and the Lyapunov twin go through the general runner
TEST(BeltRunner, TakesOnlyBeltModelsSharingOneSetup) {
  const PreparedSweep<SweepDims2<double>> m2(scenario_file("model2_mu_scan.json"), false);
  EXPECT_FALSE(runs_as_belt(m2.cases.batch(), m2.an, m2.opt));
  json structural = chain_random(4);
  structural["sweep"]["parameters"][0] = {{"path", "/model/k/1"}, {"range", {0.5, 2}}};
  const PreparedSweep<SweepDimsExact2<double>> per_case(structural, false);
  EXPECT_FALSE(runs_as_belt(per_case.cases.batch(), per_case.an, per_case.opt));
  const PreparedSweep<SweepDimsExact2<double>> chain(chain_random(4), false);
  EXPECT_TRUE(runs_as_belt(chain.cases.batch(), chain.an, chain.opt));
  SweepAnalysis twin = chain.an;
  twin.lyapunov_every = 10;
  EXPECT_FALSE(runs_as_belt(chain.cases.batch(), twin, chain.opt));
  StepOptions lemke = chain.opt;
  lemke.closed_form_decoupled = false;
  EXPECT_FALSE(runs_as_belt(chain.cases.batch(), chain.an, lemke));
}

TEST(BeltRunner, ObserverMasksRoundUpToACompiledSet) {
  EXPECT_EQ(belt_observer_set(kObserveLean), kObserveLean);
  EXPECT_EQ(belt_observer_set(kObserveRms | kObserveMinMax), kObserveStatistics);
  EXPECT_EQ(belt_observer_set(kObserveRms | kObserveTransitions), kObserveBifurcation);
  EXPECT_EQ(belt_observer_set(kObserveBifurcation), kObserveBifurcation);
}

}  // namespace
}  // namespace fivsim::sweep
