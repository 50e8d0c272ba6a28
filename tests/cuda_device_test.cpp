// tests/cuda_device_test.cpp — the device rules of the batch engine (cuda_device.hpp):
// the default chunk of a CUDA sweep, worked out by hand for one and several ranks per device.
// (Ranks::node_ranks_with, which counts the ranks on a device, runs under mpirun in
// SweepCommand.MpiRanksWriteTheSingleRunsFiles; scripts/gpu_checks.sh checks its count on a GPU.)
#include "fivsim/batch/cuda_device.hpp"

#include <gtest/gtest.h>

namespace fivsim::batch {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

TEST(DeviceChunk, FillsHalfTheFreeMemoryForOneRank) {
  // 8 GiB free, 1 KiB a case: half of it is 4 Mi cases
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 1), 4L << 20);
  // no count (a process without MPI passes 1; 0 must not divide)
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 0), 4L << 20);
}

TEST(DeviceChunk, RanksSharingADeviceSplitItsHalf) {
  // two ranks on one GPU: a quarter each, so that both chunks fit at once
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 2), 2L << 20);
  // three: a sixth each
  EXPECT_EQ(device_chunk_cases(6 * kGiB, 1024.0, 3), 1L << 20);
  // whatever the sharing, the ranks' chunks together fill at most half the memory, and less than
  // one case per rank short of it
  for (int ranks = 1; ranks <= 16; ++ranks) {
    const double taken = static_cast<double>(device_chunk_cases(8 * kGiB, 1000.0, ranks)) * 1000.0 * ranks;
    EXPECT_LE(taken, 0.5 * 8 * kGiB) << ranks << " ranks";
    EXPECT_GT(taken, 0.5 * 8 * kGiB - 1000.0 * ranks) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace fivsim::batch
