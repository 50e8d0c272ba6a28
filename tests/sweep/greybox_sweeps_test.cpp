// tests/sweep/greybox_sweeps_test.cpp — grey-box populations scored by the sweep engine
// (sweep/greybox_sweeps.hpp): the output_error observer's mean squared error of each candidate
// against the same candidate simulated on its own (IdentifyConfig::response, the serial path), the
// residual series a sweep keeps against the same simulations, and the genetic, Nelder–Mead and
// Levenberg–Marquardt searches by sweeps against the same searches by simulations.
#include "fivsim/sweep/greybox_sweeps.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fivsim/app/identify_run.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

// seed 000 Model I's Stribeck law by the genetic search, cut to 10 s of record
LoadedIdentification stribeck_search(int population, int generations) {
  nlohmann::json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/identify/model1_stribeck_genetic.json");
  doc["data"]["t_end"] = 10.0;
  doc["options"]["population"] = population;
  doc["options"]["generations"] = generations;
  doc["options"]["device"] = "cpu";
  LoadedIdentification loaded = load_identification(doc, FIVSIM_SOURCE_DIR "/scenarios/identify");
  sweep::score_populations_by_sweeps(loaded.config, sweep::SweepDevice::cpu);
  return loaded;
}

TEST(GreyboxSweeps, PopulationErrorIsEachCandidatesSimulatedError) {
  const LoadedIdentification l = stribeck_search(8, 1);
  ASSERT_TRUE(l.config.population_error);
  const Record& r = l.record;
  // candidates across the box, the truth among them
  Eigen::MatrixXd pop(2, 5);
  pop << 0.02, 0.05, 0.3, 0.17, l.config.parameters[0].truth,  //
      0.1, 1.5, 5.0, 2.3, l.config.parameters[1].truth;
  const Eigen::VectorXd f = l.config.population_error(pop, r);
  ASSERT_EQ(f.size(), 5);
  const double scale = r.x.squaredNorm() / static_cast<double>(r.size());
  for (long j = 0; j < pop.cols(); ++j) {
    const Eigen::VectorXd x = l.config.response(pop.col(j), r, nullptr);
    ASSERT_EQ(x.size(), r.size());
    const double mse = (x - r.x).squaredNorm() / static_cast<double>(r.size());
    // the same step functions on the same grid: equal to rounding (of the sums, and of x at 1e-11 × its size)
    EXPECT_NEAR(f(j), mse, 1e-9 * mse + 1e-18 * scale) << j;
  }
  EXPECT_LT(f(4), 1e-18 * scale);  // the data's own parameters reproduce the record
  EXPECT_GT(f(0), 1e-8);
}

// the same search by sweeps and by simulations: the same batches, values within value_tol
// (relative) and errors as close as the two paths' responses (5e-9 of the range, below); both results
std::pair<IdentificationResult, IdentificationResult> same_search(LoadedIdentification& sweeps,
                                                                  LoadedIdentification& serial, double value_tol) {
  const double range = serial.record.x.cwiseAbs().maxCoeff();
  serial.config.evaluate = "simulations";
  IdentificationResult a = identify(sweeps.config, sweeps.record);
  IdentificationResult b = identify(serial.config, serial.record);
  EXPECT_EQ(a.greybox.evaluated_by, "sweeps");
  EXPECT_EQ(b.greybox.evaluated_by, "simulations");
  EXPECT_EQ(a.greybox.batches, b.greybox.batches);
  for (long i = 0; i < a.greybox.values.size(); ++i)
    EXPECT_NEAR(a.greybox.values(i), b.greybox.values(i), value_tol * std::abs(b.greybox.values(i))) << i;
  EXPECT_NEAR(a.greybox.rmse, b.greybox.rmse, 5e-9 * range);
  return {std::move(a), std::move(b)};
}

TEST(GreyboxSweeps, GeneticSearchBySweepsIsTheSearchBySimulations) {
  LoadedIdentification sweeps = stribeck_search(12, 4);
  LoadedIdentification serial = stribeck_search(12, 4);
  sweeps.config.polish = serial.config.polish = false;
  // the scores agree to rounding, so the generations make the same choices
  const auto [a, b] = same_search(sweeps, serial, 1e-12);
  EXPECT_EQ(a.greybox.evaluations, b.greybox.evaluations);
  EXPECT_NEAR(a.greybox.rmse, b.greybox.rmse, 1e-9 * b.greybox.rmse);
}

TEST(GreyboxSweeps, ResidualSeriesAreEachCandidatesResponseMinusTheRecord) {
  const LoadedIdentification l = stribeck_search(8, 1);
  ASSERT_TRUE(l.config.population_residuals);
  const Record& r = l.record;
  Eigen::MatrixXd pop(2, 3);
  pop << 0.05, 0.3, 0.17,  //
      1.5, 5.0, 2.3;
  const Eigen::MatrixXd e = l.config.population_residuals(pop, r);
  const Eigen::VectorXd f = l.config.population_error(pop, r);
  ASSERT_EQ(e.rows(), r.size());
  ASSERT_EQ(e.cols(), 3);
  const double range = r.x.cwiseAbs().maxCoeff();
  for (long j = 0; j < pop.cols(); ++j) {
    const Eigen::VectorXd x = l.config.response(pop.col(j), r, nullptr);
    ASSERT_EQ(x.size(), r.size());
    // the same event-driven steps on the same grid, their events located to the solver's tolerance
    // along two paths (the sweep's case runner, the run of one case): each sample to 5e-9 of the range
    EXPECT_LT((e.col(j) - (x - r.x)).cwiseAbs().maxCoeff(), 5e-9 * range) << j;
    // and the series' mean square is the case's output_rmse²
    EXPECT_NEAR(e.col(j).squaredNorm() / static_cast<double>(r.size()), f(j), 1e-9 * f(j)) << j;
  }
  // the series need a sweep kept in memory, with a reference to differ from
  const nlohmann::json sweep = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_load_sweep.json");
  sweep::SweepOptions options;
  options.keep_residuals = true;
  sweep::Ranks ranks;
  EXPECT_THROW(sweep::run_sweep(sweep, options, ranks), std::invalid_argument);
  sweep::SweepTables tables;
  options.tables = &tables;
  try {
    sweep::run_sweep(sweep, options, ranks);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer, "/analysis/reference");
  }
}

TEST(GreyboxSweeps, NelderMeadSimplicesBySweepsAreTheSearchBySimulations) {
  LoadedIdentification sweeps = stribeck_search(8, 1), serial = stribeck_search(8, 1);
  for (LoadedIdentification* l : {&sweeps, &serial}) {
    l->config.greybox_optimizer = "nelder_mead";
    l->config.simplices = 2;
    l->config.max_iter_search = 40;
    l->config.parameters[0].initial = 0.14;  // the data's 0.1 and 1.0, 40 % and 60 % off
    l->config.parameters[1].initial = 1.6;
  }
  same_search(sweeps, serial, 1e-9);
}

TEST(GreyboxSweeps, LevenbergMarquardtBySweepsFindsTheStribeckLaw) {
  LoadedIdentification sweeps = stribeck_search(8, 1), serial = stribeck_search(8, 1);
  for (LoadedIdentification* l : {&sweeps, &serial}) {
    l->config.greybox_optimizer = "levenberg_marquardt";
    l->config.max_iter_search = 30;
    l->config.parameters[0].initial = 0.14;
    l->config.parameters[1].initial = 1.6;
  }
  const IdentificationResult a = same_search(sweeps, serial, 1e-9).first;
  for (std::size_t k = 0; k < sweeps.config.parameters.size(); ++k) {
    const GreyboxParameter& p = sweeps.config.parameters[k];
    EXPECT_NEAR(a.greybox.values(static_cast<long>(k)), p.truth, 1e-4 * p.truth) << p.path;
  }
}

}  // namespace
}  // namespace fivsim
