// tests/gpu/identify_bounds_test.cpp — the CUDA bound grid of extended SINDy
// (kernels/identify_bounds.cu) equals the OpenMP one on the same samples (ctest label gpu; skips
// without a device).
#include <gtest/gtest.h>

#include "fivsim/sweep/sweep_backend.hpp"
#include "fivsim/core/random.hpp"
#include "fivsim/identify/extended_sindy.hpp"

namespace fivsim {
namespace {

TEST(IdentifyBoundsGpu, MatchesCpu) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  // random samples at the seed 003 scales (x, u ~ 1e-3 m, velocities ~ 1e-2 m/s)
  const long n = 5000;
  std::vector<double> a[5];
  for (int v = 0; v < 5; ++v)
    for (long i = 0; i < n; ++i)
      a[v].push_back((unit_draw(3, v, i) - 0.5) * (v == 2 ? 1.0 : v == 1 || v == 4 ? 2e-2 : 3e-3));
  const BoundSamples stop{a[0].data(), nullptr, nullptr, a[3].data(), a[4].data(), n / 3};
  const BoundSamples slip{a[0].data(), a[1].data(), a[2].data(), a[3].data(), a[4].data(), n};
  const GridAxis k{300.0, 420.0, 97}, c{0.0, 0.2, 61};
  const BoundSurfaces cpu = stick_slip_bounds(stop, slip, k, c);
  BoundSurfaces gpu;
  ASSERT_EQ(stick_slip_bounds_cuda(stop, slip, k, c, gpu).error, "");
  // the same operations in the same order without FMA contraction: equal to the last bit
  EXPECT_EQ((cpu.phi1 - gpu.phi1).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ((cpu.phi2 - gpu.phi2).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(cpu.k_star, gpu.k_star);
  EXPECT_EQ(cpu.c_star, gpu.c_star);
}

}  // namespace
}  // namespace fivsim
