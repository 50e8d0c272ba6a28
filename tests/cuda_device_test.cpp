// tests/cuda_device_test.cpp — the device rules (batch/cuda_device.hpp, core/cuda_device.hpp): the
// default chunk of a CUDA sweep, worked out by hand for one and several ranks per device; which
// GPUs a build's kernel images load on, against NVIDIA's compatibility rules.
// (Ranks::node_ranks_with, which counts the ranks on a device, runs under mpirun in
// SweepCommand.MpiRanksWriteTheSingleRunsFiles; scripts/gpu_checks.sh checks its count on a GPU.)
#include "fivsim/batch/cuda_device.hpp"

#include <gtest/gtest.h>

#include "fivsim/core/cuda_device.hpp"

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

// machine code for sm_XY runs on X.Z, Z >= Y, of the same major; PTX for compute_XY on any later
// capability (the CUDA C Programming Guide's binary and PTX compatibility)
TEST(KernelImage, LoadsWhereNvidiasCompatibilityRulesSay) {
  const std::string release = "80-real;86-real;89-real;90";
  for (const auto& [major, minor] : {std::pair{8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}})
    EXPECT_TRUE(kernel_image_loads(major, minor, release)) << major << "." << minor;
  for (const auto& [major, minor] : {std::pair{7, 5}, {7, 0}, {6, 1}})
    EXPECT_FALSE(kernel_image_loads(major, minor, release)) << major << "." << minor;
  // Hopper only (the old default): nothing before 9.0 loads it
  EXPECT_FALSE(kernel_image_loads(8, 6, "90"));
  EXPECT_TRUE(kernel_image_loads(9, 0, "90"));
  EXPECT_TRUE(kernel_image_loads(10, 0, "90"));  // through its PTX
  EXPECT_FALSE(kernel_image_loads(10, 0, "90-real"));
  EXPECT_TRUE(kernel_image_loads(8, 9, "80-real"));  // sm_80 machine code on an sm_89
  EXPECT_FALSE(kernel_image_loads(9, 0, "80-real"));  // but not across majors
  EXPECT_TRUE(kernel_image_loads(9, 0, "90-virtual"));
  EXPECT_FALSE(kernel_image_loads(8, 9, "90-virtual"));
  EXPECT_TRUE(kernel_image_loads(8, 6, "80-real,86-real"));  // the compile definition's separator
  EXPECT_FALSE(kernel_image_loads(9, 0, ""));  // a build without CUDA
}

TEST(KernelImage, AGpuWithoutAnImageIsNotUsedAndSaysWhatToRebuildWith) {
  CudaDeviceInfo a6000;
  a6000.available = true;
  a6000.description = "NVIDIA RTX A6000";
  a6000.major = 8;
  a6000.minor = 6;
  const CudaDeviceInfo judged = judged_device(a6000, "90");
  EXPECT_FALSE(judged.available);
  EXPECT_TRUE(judged.unusable_gpu);
  EXPECT_EQ(judged.description,
            "no usable CUDA device: NVIDIA RTX A6000 (compute capability 8.6) cannot run this build's kernels (built "
            "for 90); rebuild with -DCMAKE_CUDA_ARCHITECTURES=86 (or native)");
  const CudaDeviceInfo kept = judged_device(a6000, "80-real;86-real;89-real;90");
  EXPECT_TRUE(kept.available);
  EXPECT_EQ(kept.description, "NVIDIA RTX A6000");
}

}  // namespace
}  // namespace fivsim::batch
