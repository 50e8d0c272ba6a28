// tests/core/cuda_device_test.cpp — the device rules (core/cuda_device.hpp): which GPUs a build's kernel
// images load on, against NVIDIA's compatibility rules. (The chunk a device's memory allows:
// memory_budget_test.cpp.)
// (Ranks::node_ranks_with, which counts the ranks on a device, runs under mpirun in
// SweepCommand.MpiRanksWriteTheSingleRunsFiles; scripts/tools/gpu_checks.sh checks its count on a GPU.)
#include "fivsim/core/cuda_device.hpp"

#include <gtest/gtest.h>

#include "fivsim/core/cuda_device.hpp"

namespace fivsim::sweep {
namespace {

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
  EXPECT_TRUE(kernel_image_loads(8, 9, "80-real"));   // sm_80 machine code on an sm_89
  EXPECT_FALSE(kernel_image_loads(9, 0, "80-real"));  // but not across majors
  EXPECT_TRUE(kernel_image_loads(9, 0, "90-virtual"));
  EXPECT_FALSE(kernel_image_loads(8, 9, "90-virtual"));
  EXPECT_TRUE(kernel_image_loads(8, 6, "80-real,86-real"));  // the compile definition's separator
  EXPECT_FALSE(kernel_image_loads(9, 0, ""));                // a build without CUDA
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
}  // namespace fivsim::sweep
