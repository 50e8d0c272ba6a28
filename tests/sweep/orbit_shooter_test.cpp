// tests/sweep/orbit_shooter_test.cpp — the backends of a continuation's shots
// (sweep/orbit_shooter.hpp): the lockstep makes one batch of one shot request from every branch
// thread that takes part, and fewer as branches leave; the CPU backend's threads give the shots
// of a serial loop over run_orbit_shot bit for bit.
#include "fivsim/sweep/orbit_shooter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "integrate/orbit_shot_cases.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using D = Dims<double, 2, 2>;

// a backend that keeps which shots each batch held (a shot's `contact` says its thread)
class RecordingShooter final : public OrbitShooter<D> {
 public:
  void shoot(const std::vector<ShotJob<D>>& jobs) override {
    std::vector<int> threads;
    for (const ShotJob<D>& j : jobs) {
      threads.push_back(j.shot->contact);
      j.shot->ok = true;
    }
    std::sort(threads.begin(), threads.end());
    batches.push_back(threads);
  }
  std::vector<std::vector<int>> batches;
};

// six branch threads, thread i asking for i + 1 shots one at a time with pauses of its own between
// them: the first batch holds a shot of every thread, each later one a shot of each thread still
// shooting — 6, 5, …, 1 — and every shot has run when its thread goes on
TEST(OrbitShooter, LockstepBatchesOneShotOfEveryBranchStillShooting) {
  RecordingShooter backend;
  LockstepShooter<D> lockstep(backend);
  constexpr int kThreads = 6;
  for (int i = 0; i < kThreads; ++i) lockstep.join();
  std::vector<int> unfinished(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      auto shot = std::make_unique<OrbitShot<D>>();
      shot->contact = i;
      for (int k = 0; k <= i; ++k) {
        std::this_thread::sleep_for(std::chrono::microseconds(200 * ((i * 7 + k * 3) % 5)));
        shot->ok = false;
        lockstep.shoot({ShotJob<D>{nullptr, nullptr, nullptr, shot.get()}});
        if (!shot->ok) ++unfinished[static_cast<std::size_t>(i)];
      }
      lockstep.leave();
    });
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(backend.batches.size(), static_cast<std::size_t>(kThreads));
  for (int b = 0; b < kThreads; ++b) {
    std::vector<int> expect;
    for (int i = b; i < kThreads; ++i) expect.push_back(i);
    EXPECT_EQ(backend.batches[static_cast<std::size_t>(b)], expect) << "batch " << b;
  }
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(unfinished[static_cast<std::size_t>(i)], 0) << "thread " << i;
  EXPECT_EQ(lockstep.batches(), kThreads);
  EXPECT_EQ(lockstep.shots(), kThreads * (kThreads + 1) / 2);
}

// a backend that throws from its second batch on (a device lost in the middle of a run)
class FailingShooter final : public OrbitShooter<D> {
 public:
  void shoot(const std::vector<ShotJob<D>>& jobs) override {
    if (++batches > 1) throw std::runtime_error("the device is gone");
    for (const ShotJob<D>& j : jobs) j.shot->ok = true;
  }
  int batches = 0;
};

// three branch threads of two shots each on a backend that throws at the second batch: every
// thread goes on (no batch waits forever), the second batch's shots come back failed, and the
// lockstep says why
TEST(OrbitShooter, ABackendThatThrowsFailsItsBatchsShotsAndSaysWhy) {
  FailingShooter backend;
  LockstepShooter<D> lockstep(backend);
  constexpr int kThreads = 3;
  for (int i = 0; i < kThreads; ++i) lockstep.join();
  std::vector<int> ok(2 * kThreads, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      auto shot = std::make_unique<OrbitShot<D>>();
      for (int k = 0; k < 2; ++k) {
        shot->ok = false;
        lockstep.shoot({ShotJob<D>{nullptr, nullptr, nullptr, shot.get()}});
        ok[static_cast<std::size_t>(2 * i + k)] = shot->ok ? 1 : 0;
      }
      lockstep.leave();
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(ok[static_cast<std::size_t>(2 * i)], 1) << "thread " << i;
    EXPECT_EQ(ok[static_cast<std::size_t>(2 * i + 1)], 0) << "thread " << i;
  }
  EXPECT_EQ(lockstep.error(), "the device is gone");
  EXPECT_EQ(lockstep.batches(), 2);
}

// the demo chain at 8 N (v0 = 0.3), its outer slider's velocity falling through half the belt speed
std::unique_ptr<Model<D>> chain() {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_bifurcation.json");
  doc["model"]["Fn"] = 8.0;
  doc.erase("sweep");
  const Scenario s = parse_scenario(doc);
  auto m = std::make_unique<Model<D>>();
  make_model(s.model, *m);
  return m;
}

// 48 shots of three kinds (return maps from points of the section, break-away maps, segments of
// both slip directions), three threads against a serial loop on one scratch: the same outputs,
// every bit, and most shots found their return
TEST(OrbitShooter, CpuThreadsGiveTheSerialLoopsShotsBitForBit) {
  const std::unique_ptr<Model<D>> model = chain();
  const SwitchingSettings set;
  const SwitchingSection section = half_belt_section();
  constexpr int kShots = 48;
  std::vector<OrbitShot<D>> serial = chain_shots<D>(kShots, 0.02, 0.1), threaded = serial;
  auto work = std::make_unique<OrbitWork<D>>();
  for (OrbitShot<D>& s : serial) run_orbit_shot(*model, set, section, s, *work);
  CpuOrbitShooter<D> cpu(3);
  std::vector<ShotJob<D>> jobs;
  for (OrbitShot<D>& s : threaded) jobs.push_back({model.get(), &set, &section, &s});
  cpu.shoot(jobs);
  int ok = 0;
  for (int i = 0; i < kShots; ++i) {
    const OrbitShot<D>& a = serial[static_cast<std::size_t>(i)];
    const OrbitShot<D>& b = threaded[static_cast<std::size_t>(i)];
    ASSERT_EQ(a.ok, b.ok) << "shot " << i;
    if (!a.ok) continue;
    ++ok;
    EXPECT_EQ(std::memcmp(a.x_end, b.x_end, sizeof a.x_end), 0) << "shot " << i;
    EXPECT_EQ(std::memcmp(a.dp, b.dp, sizeof a.dp), 0) << "shot " << i;
    EXPECT_EQ(a.t_end, b.t_end) << "shot " << i;
    EXPECT_EQ(a.events, b.events) << "shot " << i;
    if (a.kind == ShotKind::segment) {
      EXPECT_EQ(std::memcmp(&a.boundary, &b.boundary, sizeof a.boundary), 0);
    }
  }
  EXPECT_GE(ok, kShots / 2);
}

}  // namespace
}  // namespace fivsim
