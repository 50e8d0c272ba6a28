// tests/pinn/mlp_batch_test.cpp — the batched networks on the CPU backend (pinn/mlp_batch.hpp):
// gradients against central finite differences of the batch's own losses, the matrix-product
// mapping against the point-by-point one, the policy tables' choices, the LCP-PINN loss and
// natural-map residual against a hand computation from the network's outputs, and the
// structure-of-arrays evaluation through Strided views (the CUDA backend's layout, run here on
// the host) equal to the network-major one; the trained batch (forward + backward + Adam step per
// network) against Adam's update written out by hand.
#include "fivsim/pinn/mlp_batch.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "pinn/mlp_batch_problems.hpp"

namespace fivsim {
namespace {

using test::make_fit_batch;
using test::make_lcp_batch;

// largest |fd − analytic| / (1 + |fd|) over every parameter of networks `which`, where loss_of
// re-evaluates the batch's losses
template <class Data, class Eval>
double worst_fd_error(Data& d, const std::vector<long>& which, Eval&& loss_of) {
  const long np = d.L.param_count();
  const std::vector<double> grad = d.grad;
  const double h = 1e-6;
  double worst = 0.0;
  for (long b : which)
    for (long k = 0; k < np; ++k) {
      double& p = d.params[static_cast<std::size_t>(b * np + k)];
      const double keep = p;
      p = keep + h;
      const double up = loss_of(d, b);
      p = keep - h;
      const double down = loss_of(d, b);
      p = keep;
      const double fd = (up - down) / (2 * h);
      worst = std::max(worst, std::abs(fd - grad[static_cast<std::size_t>(b * np + k)]) / (1.0 + std::abs(fd)));
    }
  return worst;
}

TEST(MlpBatch, FitGradientsMatchFiniteDifferences) {
  auto d = make_fit_batch<double>(40, 5, 2, {20, 20, 20, 20, 20, 20, 20}, 11);
  mlp_fit_batch_cpu(d.L, d.view(), 2);
  for (double l : d.loss) ASSERT_GT(l, 0.0);
  // network b alone: a batch of one over its slice of the arrays
  auto loss_of = [](test::FitBatchData<double>& x, long b) {
    const long np = x.L.param_count(), P = x.points;
    double loss = 0.0;
    std::vector<double> grad(static_cast<std::size_t>(np));
    const MlpFitBatch<double> one{1,
                                  x.points,
                                  x.params.data() + b * np,
                                  x.inputs.data() + b * P * x.L.inputs(),
                                  x.targets.data() + b * P * x.L.outputs(),
                                  &loss,
                                  grad.data()};
    mlp_fit_batch_cpu(x.L, one, 1);
    return loss;
  };
  // central differences: truncation h² ≈ 1e-12, rounding ε/h ≈ 1e-10
  EXPECT_LT(worst_fd_error(d, {0, 17, 39}, loss_of), 1e-7);
}

// the CPU's gemm mapping (each layer's products over all points at once, Eigen) gives the loss
// and gradient of the point-by-point passes to rounding, for every activation and output map, at
// one point, a few and more than a chunk of them
TEST(MlpBatch, MatrixProductsGiveThePointByPointLossAndGradient) {
  for (const Activation act : {Activation::tanh_fn, Activation::mish, Activation::relu})
    for (const OutputMap out : {OutputMap::linear, OutputMap::shifted_relu, OutputMap::scaled_relu})
      for (const int points : {1, 8, 33}) {
        auto d = make_fit_batch<double>(9, points, 2, {20, 13, 20}, 3);
        d.L.hidden = act;
        d.L.output = out;
        d.L.c1 = 0.1;
        d.L.c2 = 0.5;
        mlp_fit_batch_cpu(d.L, d.view(), 2, MlpCpuMapping::network);
        const std::vector<double> loss = d.loss, grad = d.grad;
        mlp_fit_batch_cpu(d.L, d.view(), 2, MlpCpuMapping::gemm);
        double worst = 0.0;
        for (std::size_t k = 0; k < loss.size(); ++k)
          worst = std::max(worst, std::abs(d.loss[k] - loss[k]) / (1.0 + std::abs(loss[k])));
        for (std::size_t k = 0; k < grad.size(); ++k)
          worst = std::max(worst, std::abs(d.grad[k] - grad[k]) / (1.0 + std::abs(grad[k])));
        EXPECT_LT(worst, 1e-13) << activation_name(act) << " output " << static_cast<int>(out) << " points " << points;
        EXPECT_GT(*std::max_element(grad.begin(), grad.end()), 0.0);
      }
}

// the policy table's choices for the seeds' networks: the CUDA rows as the H200 and H100 measured
// them (points from 32 points, group below, thread above 32 neurons), the CPU's matrix products from
// 4 points
TEST(MlpBatch, PolicyTablesChooseAsMeasured) {
  const MlpLayout irk = make_mlp_layout(1, std::vector<int>(7, 20), 5, Activation::tanh_fn, OutputMap::linear);
  const MlpLayout lcp = make_mlp_layout(1, {5, 5, 5}, 2, Activation::relu, OutputMap::shifted_relu);
  const MlpLayout wide = make_mlp_layout(2, {64, 64}, 2, Activation::tanh_fn, OutputMap::linear);
  EXPECT_EQ(choose_cuda_mapping(mlp_batch_shape(irk, 1)), MlpCudaMapping::group);
  EXPECT_EQ(choose_cuda_mapping(mlp_batch_shape(irk, 32)), MlpCudaMapping::points);
  EXPECT_EQ(choose_cuda_mapping(mlp_batch_shape(lcp, 1)), MlpCudaMapping::group);
  EXPECT_EQ(choose_cuda_mapping(mlp_batch_shape(wide, 32)), MlpCudaMapping::thread);
  EXPECT_EQ(choose_cpu_mapping(mlp_batch_shape(irk, 1)), MlpCpuMapping::network);
  EXPECT_EQ(choose_cpu_mapping(mlp_batch_shape(irk, 3)), MlpCpuMapping::network);
  EXPECT_EQ(choose_cpu_mapping(mlp_batch_shape(irk, 4)), MlpCpuMapping::gemm);
  EXPECT_EQ(choose_cpu_mapping(mlp_batch_shape(wide, 32)), MlpCpuMapping::gemm);
}

TEST(MlpBatch, LcpLossAndResidualAsComputedByHand) {
  for (int n : {1, 2, 5, 8}) {
    auto d = make_lcp_batch<double>(25, n);
    lcp_pinn_batch_cpu(d.L, d.view(), 2);
    const long np = d.L.param_count();
    for (long k = 0; k < d.networks; ++k) {
      std::vector<double> cache(static_cast<std::size_t>(d.L.cache_size()));
      const double one = 1.0;
      const double* out = mlp_forward(d.L, d.params.data() + k * np, &one, cache.data());
      double loss = 0.0, nat = 0.0;
      for (int i = 0; i < n; ++i) {
        double Ax = d.b[static_cast<std::size_t>(k * n + i)];
        for (int j = 0; j < n; ++j) Ax += d.A[static_cast<std::size_t>((k * n + i) * n + j)] * out[j];
        const double f = out[n + i] - Ax, r = out[i] * out[n + i];
        loss += f * f + r * r;
        nat = std::max(nat, std::abs(std::min(out[i], Ax)));
      }
      EXPECT_NEAR(d.loss[static_cast<std::size_t>(k)], loss / n, 1e-13 * (1 + loss)) << "n " << n << " net " << k;
      EXPECT_NEAR(d.residual[static_cast<std::size_t>(k)], nat, 1e-13 * (1 + nat));
    }
    auto loss_of = [](test::LcpBatchData<double>& x, long b) {
      lcp_pinn_batch_cpu(x.L, x.view(), 2);
      return x.loss[static_cast<std::size_t>(b)];
    };
    lcp_pinn_batch_cpu(d.L, d.view(), 2);
    EXPECT_LT(worst_fd_error(d, {0, 24}, loss_of), 1e-7) << "n " << n;
  }
}

// the device layout on the host: value k of network b at k·B + b, read through Strided views by
// the same per-network function; the answers must be the network-major ones to the last bit
TEST(MlpBatch, StructureOfArraysThroughStridedViewsEqualsNetworkMajor) {
  auto d = make_fit_batch<double>(33, 3, 1, {20, 20, 20}, 5);
  mlp_fit_batch_cpu(d.L, d.view(), 1);
  const long B = d.networks, np = d.L.param_count(), nin = d.L.inputs(), nout = d.L.outputs(), P = d.points;
  auto soa = [B](const std::vector<double>& v, long per) {
    std::vector<double> out(v.size());
    for (long b = 0; b < B; ++b)
      for (long k = 0; k < per; ++k)
        out[static_cast<std::size_t>(k * B + b)] = v[static_cast<std::size_t>(b * per + k)];
    return out;
  };
  const std::vector<double> params = soa(d.params, np), inputs = soa(d.inputs, P * nin),
                            targets = soa(d.targets, P * nout);
  std::vector<double> grad(static_cast<std::size_t>(B * np)), cache(static_cast<std::size_t>(B * d.L.cache_size())),
      scratch(static_cast<std::size_t>(B * mlp_batch_scratch_size(d.L)));
  for (long b = 0; b < B; ++b) {
    const double loss = mlp_least_squares<double>(
        d.L, d.points, Strided<const double>{params.data() + b, B}, Strided<const double>{inputs.data() + b, B},
        Strided<const double>{targets.data() + b, B}, Strided<double>{grad.data() + b, B},
        Strided<double>{cache.data() + b, B}, Strided<double>{scratch.data() + b, B});
    EXPECT_EQ(loss, d.loss[static_cast<std::size_t>(b)]);
    for (long k = 0; k < np; ++k)
      ASSERT_EQ(grad[static_cast<std::size_t>(k * B + b)], d.grad[static_cast<std::size_t>(b * np + k)])
          << b << " " << k;
  }
}

// five Adam steps of every network of a batch (mlp_train_batch_cpu: the optimizer in reverse
// communication) against the update written out here from the batch's own gradients:
// m ← β1 m + (1−β1) g, v ← β2 v + (1−β2) g², x ← x − lr m̂ / (√v̂ + ε)
TEST(MlpBatch, TrainedBatchTakesAdamStepsPerNetwork) {
  auto d = make_fit_batch<double>(7, 3, 1, {6, 6}, 2);
  const long B = d.networks, np = d.L.param_count();
  const int steps = 5;
  OptimizerOptions adam;
  adam.kind = OptimizerKind::adam;
  adam.max_iter = steps + 1;
  adam.tol = 0.0;
  adam.learning_rate = 0.05;
  std::vector<double> trained = d.params, loss(static_cast<std::size_t>(B));
  mlp_train_batch_cpu(d.L, d.train_view(trained, loss), steps, adam, 2);
  // by hand: the batch's gradients from mlp_fit_batch_cpu, Adam's moments per parameter
  std::vector<double> m(d.params.size(), 0.0), v(d.params.size(), 0.0);
  double b1t = 1.0, b2t = 1.0;
  std::vector<double> last_loss(static_cast<std::size_t>(B));
  for (int s = 0; s < steps; ++s) {
    mlp_fit_batch_cpu(d.L, d.view(), 1);
    last_loss = d.loss;
    b1t *= adam.beta1;
    b2t *= adam.beta2;
    for (std::size_t i = 0; i < d.params.size(); ++i) {
      const double g = d.grad[i];
      m[i] = adam.beta1 * m[i] + (1 - adam.beta1) * g;
      v[i] = adam.beta2 * v[i] + (1 - adam.beta2) * g * g;
      d.params[i] -= adam.learning_rate * (m[i] / (1 - b1t)) / (std::sqrt(v[i] / (1 - b2t)) + adam.epsilon);
    }
  }
  for (long b = 0; b < B; ++b) {
    // the loss reported is the last evaluation's, before the last step
    EXPECT_NEAR(loss[static_cast<std::size_t>(b)], last_loss[static_cast<std::size_t>(b)], 1e-13) << b;
    for (long k = 0; k < np; ++k)
      ASSERT_NEAR(trained[static_cast<std::size_t>(b * np + k)], d.params[static_cast<std::size_t>(b * np + k)], 1e-13)
          << b << " " << k;
  }
  // and the steps did train: every network's loss fell
  mlp_fit_batch_cpu(d.L, d.view(), 1);
  auto first = make_fit_batch<double>(7, 3, 1, {6, 6}, 2);
  mlp_fit_batch_cpu(first.L, first.view(), 1);
  for (long b = 0; b < B; ++b) EXPECT_LT(d.loss[static_cast<std::size_t>(b)], first.loss[static_cast<std::size_t>(b)]);
}

TEST(MlpBatch, CudaEntryPointsSayWhyWithoutADevice) {
#ifdef FIVSIM_HAVE_CUDA
  GTEST_SKIP() << "built with CUDA: tests/gpu/mlp_batch_gpu_test.cpp covers the device";
#else
  auto d = make_fit_batch<double>(4, 1, 1, {5}, 2);
  double s = -1.0;
  EXPECT_EQ(mlp_fit_batch_cuda(d.L, d.view(), 1, s).error, "fivsim was built without CUDA");
  EXPECT_EQ(s, 0.0);
#endif
}

}  // namespace
}  // namespace fivsim
