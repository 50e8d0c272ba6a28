// tests/gpu/orbit_shots_gpu_test.cpp — a continuation's shots on the device (kernels/orbit_shots.cu)
// against the CPU's: the same per-case code in double precision without contraction, so the same
// outputs to the last bits the device's exp rounds otherwise; and a continuation whose shots run
// on the device against the same one on CPU threads.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integrate/orbit_shot_cases.hpp"
#include "fivsim/app/continuation.hpp"
#include "fivsim/sweep/orbit_shooter.hpp"
#include "fivsim/cases/case_batch.hpp"
#include "fivsim/core/cuda_device.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"
#include "source_tree.hpp"

namespace fivsim {
namespace {

using D = SweepDimsExact2<double>;  // the instantiation the chain runs on

// the demo chain at 8 N (v0 = 0.3)
nlohmann::json chain_document() {
  nlohmann::json doc = load_json_file(scenario_path("chain2_bifurcation.json"));
  doc["model"]["Fn"] = 8.0;
  doc.erase("sweep");
  return doc;
}

// 300 shots of three kinds (return maps, break-away maps, segments of both slip directions) from
// points spread over the chain's state space, on the device and one by one on the host: the same
// successes, returns and Jacobians to 1e-7 of their size (the last-bit differences of the
// device's exp grow over a return of some 20 s)
TEST(OrbitShotsGpu, DeviceShotsMatchTheCpusToRounding) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  const Scenario sc = parse_scenario(chain_document());
  auto model = std::make_unique<Model<D>>();
  make_model(sc.model, *model);
  const SwitchingSettings set;
  const SwitchingSection section = half_belt_section();
  constexpr int kShots = 300;
  std::vector<OrbitShot<D>> host = chain_shots<D>(kShots, 0.004, 0.01), device = host;
  auto work = std::make_unique<OrbitWork<D>>();
  for (OrbitShot<D>& s : host) run_orbit_shot(*model, set, section, s, *work);
  const std::unique_ptr<OrbitShooter<D>> gpu = cuda_orbit_shooter(D{});
  std::vector<ShotJob<D>> jobs;
  for (OrbitShot<D>& s : device) jobs.push_back({model.get(), &set, &section, &s});
  gpu->shoot(jobs);
  int ok = 0;
  for (int i = 0; i < kShots; ++i) {
    const OrbitShot<D>& a = host[static_cast<std::size_t>(i)];
    const OrbitShot<D>& b = device[static_cast<std::size_t>(i)];
    ASSERT_EQ(a.ok, b.ok) << "shot " << i;
    if (!a.ok) continue;
    ++ok;
    EXPECT_EQ(a.events, b.events) << "shot " << i;
    EXPECT_NEAR(a.t_end, b.t_end, 1e-7 * (1.0 + std::abs(a.t_end))) << "shot " << i;
    for (int r = 0; r < 4; ++r) {
      EXPECT_NEAR(a.x_end[r], b.x_end[r], 1e-7 * (1.0 + std::abs(a.x_end[r]))) << "shot " << i;
      for (int c = 0; c < 4; ++c) EXPECT_NEAR(a.dp[r][c], b.dp[r][c], 1e-7 * (1.0 + std::abs(a.dp[r][c])));
    }
  }
  EXPECT_GE(ok, kShots / 2);
}

// the demo chain's first period doubling (ContinueCommand.TheDemoChainsPeriodDoublings) with the
// corrector's shots on the device: the branch's points and the doubling as on CPU threads, to the
// multipliers' noise (the located load to 1e-7 N)
TEST(OrbitShotsGpu, ContinuationOnTheDeviceFollowsTheCpusBranch) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  nlohmann::json doc = load_json_file(scenario_path("chain2_bifurcation.json"));
  doc["continuation"] = {
      {"parameter", "/model/Fn"}, {"range", {7.0, 8.3}}, {"direction", "down"}, {"start", "orbit"}, {"doublings", 0}};
  const ContinuationRun cpu = run_continuation(doc, 2, {}, ShotDevice::cpu);
  const ContinuationRun gpu = run_continuation(doc, 2, {}, ShotDevice::cuda);
  EXPECT_EQ(gpu.report["device"], "cuda");
  EXPECT_GT(gpu.report["shots"].get<long>(), 0);
  ASSERT_EQ(cpu.report["bifurcations"].size(), 1u);
  ASSERT_EQ(gpu.report["bifurcations"].size(), 1u) << gpu.report["bifurcations"].dump();
  EXPECT_EQ(gpu.report["bifurcations"][0]["kind"], "period_doubling");
  EXPECT_NEAR(gpu.report["bifurcations"][0]["parameter"].get<double>(),
              cpu.report["bifurcations"][0]["parameter"].get<double>(), 1e-7);
  EXPECT_EQ(gpu.report["points"], cpu.report["points"]);
}

}  // namespace
}  // namespace fivsim
