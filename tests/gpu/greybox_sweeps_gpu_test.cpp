// tests/gpu/greybox_sweeps_gpu_test.cpp — a grey-box population scored by a device sweep
// (sweep/greybox_sweeps.hpp, the output_error observer in kernels/sweep_batch.cuh) against the
// same population on the CPU backend: the same step functions in double precision without
// contraction, so equal to rounding; and the residual series a device sweep keeps for
// Levenberg–Marquardt against the CPU backend's.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fivsim/core/cuda_device.hpp"
#include "fivsim/sweep/greybox_sweeps.hpp"
#include "fivsim/app/identify_run.hpp"
#include "fivsim/io/scenario.hpp"
#include "source_tree.hpp"

namespace fivsim {
namespace {

// seed 000 Model I's Stribeck identification, cut to 10 s of record, its populations scored by
// sweeps on the given backend
LoadedIdentification stribeck_scored_on(sweep::SweepDevice device) {
  nlohmann::json doc = load_json_file(scenario_path("identify/model1_stribeck_genetic.json"));
  doc["data"]["t_end"] = 10.0;
  LoadedIdentification loaded = load_identification(doc, scenario_path("identify"));
  sweep::score_populations_by_sweeps(loaded.config, device);
  return loaded;
}

TEST(GreyboxSweepsGpu, PopulationErrorMatchesCpu) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  LoadedIdentification cpu = stribeck_scored_on(sweep::SweepDevice::cpu);
  LoadedIdentification gpu = stribeck_scored_on(sweep::SweepDevice::cuda);
  // 256 candidates over the box
  Eigen::MatrixXd pop(2, 256);
  for (long j = 0; j < pop.cols(); ++j) {
    pop(0, j) = 0.02 + 0.28 * static_cast<double>(j % 16) / 15.0;
    pop(1, j) = 0.1 + 4.9 * static_cast<double>(j / 16) / 15.0;
  }
  const Eigen::VectorXd a = cpu.config.population_error(pop, cpu.record);
  const Eigen::VectorXd b = gpu.config.population_error(pop, gpu.record);
  const double scale = cpu.record.x.squaredNorm() / static_cast<double>(cpu.record.size());
  for (long j = 0; j < pop.cols(); ++j) EXPECT_NEAR(a(j), b(j), 1e-9 * a(j) + 1e-18 * scale) << j;
}

TEST(GreyboxSweepsGpu, ResidualSeriesMatchCpu) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  LoadedIdentification cpu = stribeck_scored_on(sweep::SweepDevice::cpu);
  LoadedIdentification gpu = stribeck_scored_on(sweep::SweepDevice::cuda);
  // a point of Levenberg–Marquardt's batch and its two differenced neighbours, and two more
  Eigen::MatrixXd pop(2, 5);
  pop << 0.14, 0.14 + 2.8e-7, 0.14, 0.05, 0.3,  //
      1.6, 1.6, 1.6 + 4.9e-6, 4.0, 0.2;
  const Eigen::MatrixXd a = cpu.config.population_residuals(pop, cpu.record);
  const Eigen::MatrixXd b = gpu.config.population_residuals(pop, gpu.record);
  ASSERT_EQ(a.rows(), cpu.record.size());
  ASSERT_EQ(b.rows(), a.rows());
  ASSERT_EQ(b.cols(), a.cols());
  const double range = cpu.record.x.cwiseAbs().maxCoeff();
  for (long j = 0; j < pop.cols(); ++j) EXPECT_LT((a.col(j) - b.col(j)).cwiseAbs().maxCoeff(), 1e-10 * range) << j;
}

}  // namespace
}  // namespace fivsim
