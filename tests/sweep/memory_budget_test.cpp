// tests/sweep/memory_budget_test.cpp — the chunk of a device sweep (sweep/memory_budget.hpp) with the
// figures of the cards users have: an 80 GB H100 (132 SMs of 2048 threads) on a 128 GiB host, a
// 24 GB RTX 4090 (128 SMs of 1536) on 64 GiB, a 16 GB RTX 4080 (76 SMs of 1536) on 32 GiB; for the
// 2-DoF chain of the README (one shared setup, its point rings) and the 24×8 instantiation (each
// case its own setup). The local memory per thread is the general kernel's frame as the kernel
// declares it (its setup, workspace, Lyapunov twin, state and result), what cudaFuncGetAttributes
// reports up to the compiler's spills. Checked: both slots, the local memory of every resident
// thread and the runtime's reserve fit in the free memory, the host copies in their share of the
// host, the chunk is the largest that does, and the old rule (half the free memory for one slot)
// overcommits where local memory is large.
#include "fivsim/sweep/memory_budget.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fivsim/sweep/sweep.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim::sweep {
namespace {

constexpr double kGiB = double(1u << 30);

struct Card {
  const char* name;
  double free_bytes, host_available;
  int sms, threads_per_sm;
};
const Card kCards[] = {
    {"H100 80GB", 79.2 * kGiB, 120.0 * kGiB, 132, 2048},
    {"RTX 4090", 23.1 * kGiB, 56.0 * kGiB, 128, 1536},
    {"RTX 4080 16GB", 15.2 * kGiB, 28.0 * kGiB, 76, 1536},
};

MemoryFigures figures(const Card& c, int ranks = 1) {
  MemoryFigures m;
  m.device_free_bytes = static_cast<std::size_t>(c.free_bytes);
  m.multiprocessors = c.sms;
  m.threads_per_multiprocessor = c.threads_per_sm;
  m.host_available_bytes = static_cast<std::size_t>(c.host_available);
  m.device_ranks = ranks;
  return m;
}

// the general kernel's frame for D: one setup (passed by reference, written into a scratch where a
// row changes it), workspace, twin, state, result
template <class D>
std::size_t general_frame() {
  return sizeof(CaseSetup<D>) + sizeof(CaseWorkspace<D>) + sizeof(LyapunovTwin<D>) + sizeof(State<D>) +
         sizeof(CaseResult<D>);
}

// the README chain's footprint: its analysis decides the point rings
ChunkFootprint chain_footprint() {
  const Scenario sc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_load_sweep.json"));
  const SweepAnalysis an = sweep_analysis(sc);
  using D = SweepDimsExact2<double>;
  return case_footprint<D>(false, false, 1, case_points_size(2, an), 40, 0.0, general_frame<D>());
}

ChunkFootprint generic_footprint() {
  using D = SweepDimsGeneric<double>;
  return case_footprint<D>(true, false, 2, 0, 60, 0.0, general_frame<D>());
}

// the budget's promises, for any figures: what it gives fits and one case more does not; where it
// gives nothing, not one case a rank fits
void expect_fits_and_is_largest_or_refused(const MemoryFigures& m, const ChunkFootprint& f, const std::string& label) {
  const ChunkBudget b = chunk_budget(m, f);
  const auto device_need = [&](double cases) {
    return m.device_ranks * (kPipelineSlots * (cases * f.device_bytes + f.device_fixed_bytes) + b.local_bytes) +
           b.reserve_bytes;
  };
  const auto host_need = [&](double cases) {
    return m.device_ranks * kPipelineSlots * cases * (f.pinned_bytes + f.host_bytes);
  };
  const double n = static_cast<double>(b.cases);
  if (b.cases == 0) {
    // refused only where one case a rank does not fit, and said why
    EXPECT_TRUE(device_need(1) > static_cast<double>(m.device_free_bytes) ||
                host_need(1) > kHostShare * static_cast<double>(m.host_available_bytes))
        << label;
    EXPECT_NE(b.why.find("not one case fits"), std::string::npos) << label;
    return;
  }
  EXPECT_LE(device_need(n), static_cast<double>(m.device_free_bytes)) << label;
  EXPECT_LE(host_need(n), kHostShare * static_cast<double>(m.host_available_bytes)) << label;
  // one case more breaks the bound it names
  if (std::string(b.bound) == "device memory")
    EXPECT_GT(device_need(n + 1), static_cast<double>(m.device_free_bytes)) << label;
  else
    EXPECT_GT(host_need(n + 1), kHostShare * static_cast<double>(m.host_available_bytes)) << label;
  // the runtime keeps at least 512 MiB, and the resident threads' local memory is counted whole
  EXPECT_GE(b.reserve_bytes, 512.0 * (1 << 20)) << label;
  EXPECT_DOUBLE_EQ(b.local_bytes,
                   static_cast<double>(f.local_bytes_per_thread) * m.multiprocessors * m.threads_per_multiprocessor)
      << label;
}

TEST(ChunkBudget, BothSlotsLocalMemoryAndHostCopiesFitOnEveryCard) {
  for (const Card& c : kCards)
    for (const auto& [model, f] : {std::pair{"2-DoF chain", chain_footprint()}, {"24x8", generic_footprint()}})
      for (int ranks : {1, 2, 3})
        expect_fits_and_is_largest_or_refused(
            figures(c, ranks), f, std::string(c.name) + ", " + model + ", " + std::to_string(ranks) + " rank(s)");
  // one rank of the 24×8 kernel fits on every card; three ranks, each with its own 10 GiB of local
  // memory, do not on the 24 GB card
  for (const Card& c : kCards) EXPECT_GT(chunk_budget(figures(c), generic_footprint()).cases, 0) << c.name;
  EXPECT_EQ(chunk_budget(figures(kCards[1], 3), generic_footprint()).cases, 0);
}

// a large sweep on a device runs in at least four chunks, each still filling the device, so that
// copies and columns overlap the stepping; a small one in one; a chunk asked for is taken as is
TEST(ChunkBudget, ADeviceSweepRunsInAtLeastFourChunksThatFillTheDevice) {
  const MemoryFigures m = figures(kCards[0]);
  const long budget = chunk_budget(m, chain_footprint()).cases;
  ASSERT_GT(budget, 1L << 18);
  for (const long cases : {1000000L, 10000000L}) {
    const long chunk = sweep_chunk_cases(0, cases, chain_footprint(), &m, 10000, 16, false);
    EXPECT_GE((cases + chunk - 1) / chunk, 4) << cases;
    EXPECT_GE(chunk, kFullDeviceChunk) << cases;
    EXPECT_LE(chunk, budget) << cases;
  }
  EXPECT_EQ(sweep_chunk_cases(0, 100000, chain_footprint(), &m, 10000, 16, false), kFullDeviceChunk);
  EXPECT_EQ(sweep_chunk_cases(0, 5000, chain_footprint(), &m, 10000, 16, false), 5000);
  EXPECT_EQ(sweep_chunk_cases(123456, 1000000, chain_footprint(), &m, 10000, 16, false), 123456);
}

// the chain's cases are small on the device and their copies on the host twice as large: on the
// H100 a 128 GiB host bounds the chunk, not the card (the old rule would have pinned about
// 160 GB of host memory for an 80 GB card)
TEST(ChunkBudget, TheChainOnAnH100IsBoundedByItsHostsMemory) {
  const ChunkFootprint f = chain_footprint();
  const ChunkBudget b = chunk_budget(figures(kCards[0]), f);
  EXPECT_STREQ(b.bound, "host memory");
  const double old_chunk = 0.5 * kCards[0].free_bytes / f.device_bytes;
  EXPECT_GT(2.0 * old_chunk * (f.pinned_bytes + f.host_bytes), kCards[0].host_available);
  EXPECT_LT(static_cast<double>(b.cases), old_chunk);
}

// the 24×8 general kernel's local memory, reserved for every thread the H100 keeps resident, is
// gigabytes: counted, and the old rule (half the free memory for the buffers of one slot, nothing
// for local memory or the second slot) would have overcommitted the card
TEST(ChunkBudget, TheGenericKernelsLocalMemoryIsCountedForEveryResidentThread) {
  const ChunkFootprint f = generic_footprint();
  const Card& h100 = kCards[0];
  const ChunkBudget b = chunk_budget(figures(h100), f);
  EXPECT_GT(b.local_bytes, 10.0 * kGiB);  // tens of kilobytes a thread, 270 336 threads
  const double old_chunk = 0.5 * h100.free_bytes / f.device_bytes;
  EXPECT_GT(2.0 * old_chunk * f.device_bytes + b.local_bytes, h100.free_bytes);
  EXPECT_LT(static_cast<double>(b.cases), old_chunk);
}

// where the local memory alone exceeds what is free, no chunk fits: the budget says so with the
// figures a user needs, instead of a launch failing after every halving
TEST(ChunkBudget, NoCaseFitsWhereLocalMemoryExceedsTheFreeMemory) {
  ChunkFootprint f = generic_footprint();
  f.local_bytes_per_thread = 160 * 1024;  // 116 736 resident threads: 17.8 GiB on a 15.2 GiB card
  const ChunkBudget b = chunk_budget(figures(kCards[2]), f);
  EXPECT_EQ(b.cases, 0);
  EXPECT_NE(b.why.find("163840 bytes a thread for 116736 resident threads"), std::string::npos) << b.why;
  EXPECT_NE(b.why.find("15.20 GiB free on the device"), std::string::npos) << b.why;
}

// ranks sharing a device split what is left after the reserve, each with its own local memory
TEST(ChunkBudget, RanksSharingADeviceTakeLessEach) {
  const ChunkFootprint f = chain_footprint();
  long last = LONG_MAX;
  for (int ranks = 1; ranks <= 4; ++ranks) {
    const ChunkBudget b = chunk_budget(figures(kCards[1], ranks), f);
    EXPECT_LT(b.cases, last) << ranks;
    last = b.cases;
  }
}

TEST(ChunkBudget, ThisHostsAvailableMemoryIsRead) {
  // /proc/meminfo exists on every Linux machine the tests run on
  EXPECT_GT(host_available_bytes(), std::size_t(1) << 26);
}

// the H200 run of every bundled sweep on both backends (16 host threads, BENCHMARKS.md): the sweeps
// the CPU finished first are those below the rule's count, those the GPU finished first above it
TEST(DeviceChoice, TheH200AgainstSixteenThreadsPicksTheBackendThatWasFaster) {
  const long belt = fewest_cases_for_device(132, 16, false), pinn = fewest_cases_for_device(132, 16, true);
  EXPECT_EQ(belt, 4224);
  EXPECT_LT(450, belt);    // chain2_classmap: cpu 2.12 s, cuda 31.5 s
  EXPECT_LT(2000, belt);   // chain2_bifurcation: cpu 9.88 s, cuda 42.1 s
  EXPECT_LT(3060, belt);   // model1_v0_delta_grid: cpu 0.30 s, cuda 0.47 s
  EXPECT_GT(10000, belt);  // chain2_load_sweep: cpu 9.78 s, cuda 1.04 s
  EXPECT_GT(30000, belt);  // chain2_bench_random: cpu 2.09 s, cuda 0.87 s
  EXPECT_LT(32, pinn);     // model1_pinn_v0_sweep: cpu 0.74 s, cuda 3.48 s
  EXPECT_GT(1024, pinn);   // bench_pinn_sweep at 1024 cases: cuda 3.9-4.1x the 16 threads
}

// fewer host threads move the crossover down in proportion; no device takes nothing
TEST(DeviceChoice, FewerHostThreadsLeaveSmallerSweepsToTheDevice) {
  EXPECT_EQ(fewest_cases_for_device(132, 2, false), fewest_cases_for_device(132, 16, false) / 8);
  EXPECT_EQ(fewest_cases_for_device(0, 16, false), 0);
  EXPECT_EQ(fewest_cases_for_device(132, 0, false), fewest_cases_for_device(132, 1, false));
}

}  // namespace
}  // namespace fivsim::sweep
