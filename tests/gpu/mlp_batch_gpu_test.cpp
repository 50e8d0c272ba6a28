// tests/gpu/mlp_batch_gpu_test.cpp — the CUDA backend of the batched networks computes the CPU
// backend's numbers on the same batch: about 2000 least-squares fits of 7 × 20 networks (every
// mapping: a thread per network, a group of lanes per network, with its gradient summed in shared
// memory or in place, a warp per network with its points on the lanes, cuBLAS's batched products),
// narrower layouts in groups of 16 and 8 lanes, and 2000 LCP-PINNs of 3 × 5 networks (n = 1, 2, 5,
// 8): losses, gradients and natural-map residuals within 1e-12 relative in double (FMA contraction
// is off on the device, so only libm's tanh and the order of the sums differ) and 1e-4 in float;
// and trained batches (forward + backward + Adam step per network) ending at the CPU's parameters
// after 20 steps, within 1e-10 relative in double and 1e-3 in float. Skips without a device (ctest
// label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pinn/mlp_batch_problems.hpp"
#include "fivsim/sweep/sweep_backend.hpp"

namespace fivsim {
namespace {

template <class T>
double worst_relative(const std::vector<T>& a, const std::vector<T>& b) {
  double scale = 0.0, worst = 0.0;
  for (const T& v : b) scale = std::max(scale, std::abs(static_cast<double>(v)));
  for (std::size_t i = 0; i < a.size(); ++i)
    worst =
        std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) / (scale > 0 ? scale : 1.0));
  return worst;
}

template <class T>
void fit_matches_cpu(double tol, MlpCudaMapping mapping, long networks, int points, const std::vector<int>& hidden,
                     int outputs = 11) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  auto cpu = test::make_fit_batch<T>(networks, points, 1, hidden, outputs);
  auto gpu = cpu;
  mlp_fit_batch_cpu(cpu.L, cpu.view(), 0, MlpCpuMapping::network);
  double s = 0.0;
  ASSERT_EQ(mlp_fit_batch_cuda(gpu.L, gpu.view(), 1, s, mapping).error, "");
  EXPECT_LT(worst_relative(gpu.loss, cpu.loss), tol);
  EXPECT_LT(worst_relative(gpu.grad, cpu.grad), tol);
}

template <class T>
void lcp_matches_cpu(double tol) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  for (int n : {1, 2, 5, 8}) {
    auto cpu = test::make_lcp_batch<T>(2000, n);
    auto gpu = cpu;
    lcp_pinn_batch_cpu(cpu.L, cpu.view(), 0);
    double s = 0.0;
    ASSERT_EQ(lcp_pinn_batch_cuda(gpu.L, gpu.view(), 1, s).error, "");
    EXPECT_LT(worst_relative(gpu.loss, cpu.loss), tol) << "n " << n;
    EXPECT_LT(worst_relative(gpu.grad, cpu.grad), tol) << "n " << n;
    EXPECT_LT(worst_relative(gpu.residual, cpu.residual), tol) << "n " << n;
  }
}

// 20 steps asked; Adam's own count (max_iter) past them, or ending before them
template <class T>
void training_matches_cpu(double tol, long networks, int points, const std::vector<int>& hidden,
                          MlpCudaMapping mapping = MlpCudaMapping::automatic, int adam_steps = 21) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  auto d = test::make_fit_batch<T>(networks, points, 2, hidden, 10);
  OptimizerOptions adam;
  adam.kind = OptimizerKind::adam;
  adam.max_iter = adam_steps;
  adam.tol = 0.0;
  std::vector<T> cpu = d.params, gpu = d.params, cpu_loss(static_cast<std::size_t>(networks)), gpu_loss = cpu_loss;
  mlp_train_batch_cpu(d.L, d.train_view(cpu, cpu_loss), 20, adam, 0);
  double s = 0.0;
  ASSERT_EQ(mlp_train_batch_cuda(d.L, d.train_view(gpu, gpu_loss), 20, adam, s, mapping).error, "");
  EXPECT_LT(worst_relative(gpu, cpu), tol);
  EXPECT_LT(worst_relative(gpu_loss, cpu_loss), tol);
  EXPECT_NE(cpu, d.params);  // the steps moved the parameters
}

const std::vector<int> kIrk(7, 20);  // the seed's dynamic IRK-PINN: one network a warp

// 1 point (the gradient summed in place) and 32 (in shared memory); 1001 networks leave the last
// block's second group past the end
TEST(MlpBatchGpu, TrainingMatchesCpuDouble) {
  training_matches_cpu<double>(1e-10, 1001, 1, kIrk);
  training_matches_cpu<double>(1e-10, 1001, 32, kIrk);
  training_matches_cpu<double>(1e-10, 999, 32, {5, 5, 5});
}
TEST(MlpBatchGpu, TrainingMatchesCpuFloat) { training_matches_cpu<float>(1e-3, 1001, 32, kIrk); }
// the gemm mapping's steps: one graph a step, the tells a warp a network; runs that end before the
// last step (Adam's 10) keep their point and last loss; 64 neurons, past a warp
TEST(MlpBatchGpu, GemmTrainingMatchesCpu) {
  training_matches_cpu<double>(1e-10, 1001, 1, kIrk, MlpCudaMapping::gemm);
  training_matches_cpu<double>(1e-10, 1001, 32, kIrk, MlpCudaMapping::gemm);
  training_matches_cpu<double>(1e-10, 999, 32, {5, 5, 5}, MlpCudaMapping::gemm, 10);
  training_matches_cpu<double>(1e-10, 257, 8, {64, 64}, MlpCudaMapping::automatic);
  training_matches_cpu<float>(1e-3, 1001, 32, kIrk, MlpCudaMapping::gemm);
}

TEST(MlpBatchGpu, FitMatchesCpuDouble) {
  fit_matches_cpu<double>(1e-12, MlpCudaMapping::thread, 2000, 4, kIrk);
  // an odd count leaves the last block's second network past the end
  fit_matches_cpu<double>(1e-12, MlpCudaMapping::group, 2001, 4, kIrk);         // summed in shared memory
  fit_matches_cpu<double>(1e-12, MlpCudaMapping::group, 2001, 1, kIrk);         // written in place
  fit_matches_cpu<double>(1e-12, MlpCudaMapping::group, 999, 3, {12, 7, 12});   // groups of 16 lanes
  fit_matches_cpu<double>(1e-12, MlpCudaMapping::group, 999, 2, {5, 5, 5}, 4);  // groups of 8 lanes
}
TEST(MlpBatchGpu, FitMatchesCpuFloat) {
  fit_matches_cpu<float>(1e-4, MlpCudaMapping::thread, 2000, 4, kIrk);
  fit_matches_cpu<float>(1e-4, MlpCudaMapping::group, 2001, 4, kIrk);
  fit_matches_cpu<float>(1e-4, MlpCudaMapping::group, 2001, 1, kIrk);
}
// the points mapping: one warp per network, points on the lanes in chunks of 32 (1, 32 and 45
// points: a chunk partly past the points), 1001 networks
TEST(MlpBatchGpu, PointsMappingMatchesCpu) {
  for (int points : {1, 32, 45}) {
    fit_matches_cpu<double>(1e-12, MlpCudaMapping::points, 1001, points, kIrk);
    fit_matches_cpu<double>(1e-12, MlpCudaMapping::points, 1001, points, {5, 5, 5}, 4);
  }
  fit_matches_cpu<float>(1e-4, MlpCudaMapping::points, 1001, 32, kIrk);
}

// the gemm mapping: cuBLAS's batched products in a captured graph, at any width (64 neurons: past
// what a warp holds); three replays of the graph give one replay's answer (nothing accumulates)
TEST(MlpBatchGpu, GemmMappingMatchesCpu) {
  for (int points : {1, 32, 45}) {
    fit_matches_cpu<double>(1e-12, MlpCudaMapping::gemm, 1001, points, kIrk);
    fit_matches_cpu<double>(1e-12, MlpCudaMapping::gemm, 1001, points, {5, 5, 5}, 4);
  }
  fit_matches_cpu<double>(1e-12, MlpCudaMapping::gemm, 257, 8, {64, 64}, 3);
  fit_matches_cpu<float>(1e-4, MlpCudaMapping::gemm, 1001, 32, kIrk);
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  auto once = test::make_fit_batch<double>(300, 32, 1, kIrk, 11);
  auto thrice = once;
  double s = 0.0;
  ASSERT_EQ(mlp_fit_batch_cuda(once.L, once.view(), 1, s, MlpCudaMapping::gemm).error, "");
  ASSERT_EQ(mlp_fit_batch_cuda(thrice.L, thrice.view(), 3, s, MlpCudaMapping::gemm).error, "");
  EXPECT_EQ(once.loss, thrice.loss);
  EXPECT_EQ(once.grad, thrice.grad);
}

TEST(MlpBatchGpu, GroupMappingRefusesWideLayers) {
  if (!cuda_device_info().available) GTEST_SKIP() << cuda_device_info().description;
  auto d = test::make_fit_batch<double>(4, 1, 1, {40}, 1);
  double s = 0.0;
  EXPECT_NE(mlp_fit_batch_cuda(d.L, d.view(), 1, s, MlpCudaMapping::group).error, "");
  EXPECT_EQ(mlp_fit_batch_cuda(d.L, d.view(), 1, s).error, "");  // automatic: a thread per network
}
TEST(MlpBatchGpu, LcpResidualsMatchCpuDouble) { lcp_matches_cpu<double>(1e-12); }
TEST(MlpBatchGpu, LcpResidualsMatchCpuFloat) { lcp_matches_cpu<float>(1e-4); }

}  // namespace
}  // namespace fivsim
