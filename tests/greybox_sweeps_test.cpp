// tests/greybox_sweeps_test.cpp — grey-box populations scored by the sweep engine
// (batch/greybox_sweeps.hpp): the output_error observer's mean squared error of each candidate
// against the same candidate simulated on its own (IdentifyConfig::response, the serial path), and
// a genetic search scored by sweeps against the same search scored by simulations.
#include "fivsim/batch/greybox_sweeps.hpp"

#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fivsim/io/identify_run.hpp"
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
  batch::score_populations_by_sweeps(loaded.config, batch::SweepDevice::cpu);
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

TEST(GreyboxSweeps, GeneticSearchBySweepsIsTheSearchBySimulations) {
  LoadedIdentification sweeps = stribeck_search(12, 4);
  LoadedIdentification serial = stribeck_search(12, 4);
  sweeps.config.polish = serial.config.polish = false;
  serial.config.evaluate = "simulations";
  const IdentificationResult a = identify(sweeps.config, sweeps.record);
  const IdentificationResult b = identify(serial.config, serial.record);
  EXPECT_EQ(a.greybox.evaluated_by, "sweeps");
  EXPECT_EQ(b.greybox.evaluated_by, "simulations");
  EXPECT_EQ(a.greybox.evaluations, b.greybox.evaluations);
  // the scores agree to rounding, so the generations make the same choices
  for (long i = 0; i < a.greybox.values.size(); ++i)
    EXPECT_NEAR(a.greybox.values(i), b.greybox.values(i), 1e-12 * std::abs(b.greybox.values(i))) << i;
  EXPECT_NEAR(a.greybox.rmse, b.greybox.rmse, 1e-9 * b.greybox.rmse);
}

}  // namespace
}  // namespace fivsim
