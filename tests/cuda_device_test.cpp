// tests/cuda_device_test.cpp — the device rules of the batch engine (cuda_device.hpp):
// the default chunk of a CUDA sweep, worked out by hand for one and several ranks per device.
#include "fivsim/batch/cuda_device.hpp"

#include <gtest/gtest.h>

namespace fivsim::batch {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

TEST(DeviceChunk, FillsHalfTheFreeMemoryForOneRank) {
  // 8 GiB free, 1 KiB a case: half of it is 4 Mi cases
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 1, 1), 4L << 20);
  // one rank per device on a node of four: each has its device alone
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 4, 4), 4L << 20);
  // fewer ranks than devices: still the whole half
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 2, 8), 4L << 20);
}

TEST(DeviceChunk, RanksSharingADeviceSplitItsHalf) {
  // two ranks on one GPU: a quarter each, so that both chunks fit at once
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 2, 1), 2L << 20);
  // five ranks on two GPUs: up to three share one, so a sixth each
  EXPECT_EQ(device_chunk_cases(6 * kGiB, 1024.0, 5, 2), 1L << 20);
  // whatever the sharing, the chunks of the ranks on one device fill at most half its memory
  for (int ranks = 1; ranks <= 9; ++ranks)
    for (int devices = 1; devices <= 4; ++devices) {
      const int busiest = (ranks + devices - 1) / devices;
      const double taken = static_cast<double>(device_chunk_cases(8 * kGiB, 1000.0, ranks, devices)) * 1000.0 * busiest;
      EXPECT_LE(taken, 0.5 * 8 * kGiB) << ranks << " ranks on " << devices << " devices";
      EXPECT_GT(taken, 0.5 * 8 * kGiB - 1000.0 * busiest) << ranks << " ranks on " << devices << " devices";
    }
}

TEST(DeviceChunk, NoDeviceCountMeansNoSharing) {
  EXPECT_EQ(device_chunk_cases(8 * kGiB, 1024.0, 3, 0), 4L << 20);
}

}  // namespace
}  // namespace fivsim::batch
