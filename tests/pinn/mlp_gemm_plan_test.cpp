// tests/pinn/mlp_gemm_plan_test.cpp — the plan the CUDA `gemm` mapping runs (pinn/mlp_gemm_plan.hpp)
// executed here step by step: each strided-batched product by the definition of BLAS's column-major
// C = op(A) op(B), every index it touches checked against its buffer's part of a network, each
// element-wise pass by the same mlp_pass_element the device kernels call. Its losses and gradients
// are the point-by-point passes' (mlp_least_squares) within 1e-12 relative in double (the sums
// are taken in another order), for three layouts, every activation and output map, and 1, 3 and
// 32 points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "pinn/mlp_batch_problems.hpp"
#include "fivsim/pinn/mlp_gemm_plan.hpp"

namespace fivsim {
namespace {

// a plan run on host arrays, each buffer exactly its networks' parts long
struct HostRun {
  const MlpGemmPlan& plan;
  long networks;
  std::vector<double> data[kMlpBuffers];
  MlpGemmBuffers<double> buffers() {
    MlpGemmBuffers<double> b;
    for (int k = 0; k < kMlpBuffers; ++k) {
      b.base[k] = data[k].data();
      b.per_network[k] = plan.per_network[k];
    }
    return b;
  }
  // value `index` of network `net`'s part of the slice's buffer, which the plan must stay inside
  double& at(const MlpSlice& s, long net, long index) {
    const int k = static_cast<int>(s.buffer);
    const long i = s.offset + index;
    EXPECT_GE(i, 0);
    EXPECT_LT(i, plan.per_network[k]) << "buffer " << k;
    return data[k][static_cast<std::size_t>(net * plan.per_network[k] + std::clamp(i, 0L, plan.per_network[k] - 1))];
  }
  void gemm(const MlpGemmStep& g) {
    for (long net = 0; net < networks; ++net)
      for (int j = 0; j < g.n; ++j)
        for (int i = 0; i < g.m; ++i) {
          double sum = 0.0;
          for (int q = 0; q < g.k; ++q) {
            const double a = g.trans_a ? at(g.a, net, q + static_cast<long>(i) * g.lda)
                                       : at(g.a, net, i + static_cast<long>(q) * g.lda);
            const double b = g.trans_b ? at(g.b, net, j + static_cast<long>(q) * g.ldb)
                                       : at(g.b, net, q + static_cast<long>(j) * g.ldb);
            sum += a * b;
          }
          at(g.c, net, i + static_cast<long>(j) * g.ldc) = sum;
        }
  }
  std::vector<double> run() {
    std::vector<double> loss(static_cast<std::size_t>(networks), 0.0);
    for (const MlpGemmOp& op : plan.ops) {
      if (op.is_gemm) {
        gemm(op.gemm);
        continue;
      }
      const MlpGemmBuffers<double> b = buffers();
      for (long net = 0; net < networks; ++net)
        for (int e = 0; e < op.pass.count; ++e)
          loss[static_cast<std::size_t>(net)] += mlp_pass_element(plan.L, op.pass, b, net, e);
    }
    return loss;
  }
};

double worst_relative(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0.0, worst = 0.0;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / scale);
  return worst;
}

void plan_matches_point_passes(const MlpLayout& layout, int in, const std::vector<int>& hidden, int out, int points) {
  const long networks = 5;
  auto d = test::make_fit_batch<double>(networks, points, in, hidden, out);
  d.L.hidden = layout.hidden;
  d.L.output = layout.output;
  d.L.c1 = layout.c1;
  d.L.c2 = layout.c2;
  mlp_fit_batch_cpu(d.L, d.view(), 1, MlpCpuMapping::network);
  const MlpGemmPlan plan = mlp_gemm_plan(d.L, points);
  HostRun run{plan, networks, {}};
  for (int k = 0; k < kMlpBuffers; ++k)
    run.data[k].assign(static_cast<std::size_t>(networks * plan.per_network[k]), 0.0);
  run.data[static_cast<int>(MlpBuffer::params)] = d.params;
  run.data[static_cast<int>(MlpBuffer::inputs)] = d.inputs;
  run.data[static_cast<int>(MlpBuffer::targets)] = d.targets;
  // a stale gradient must be overwritten, not added to
  run.data[static_cast<int>(MlpBuffer::grad)].assign(d.grad.size(), 7.0);
  const std::vector<double> loss = run.run();
  EXPECT_LT(worst_relative(loss, d.loss), 1e-12) << points << " points";
  EXPECT_LT(worst_relative(run.data[static_cast<int>(MlpBuffer::grad)], d.grad), 1e-12) << points << " points";
}

TEST(MlpGemmPlan, GivesThePointByPointLossAndGradient) {
  for (int points : {1, 3, 32}) {
    plan_matches_point_passes(make_mlp_layout(2, {20, 20, 20, 20, 20, 20}, 10, Activation::tanh_fn, OutputMap::linear),
                              2, {20, 20, 20, 20, 20, 20}, 10, points);
    plan_matches_point_passes(make_mlp_layout(1, {5, 5, 5}, 4, Activation::mish, OutputMap::shifted_relu, 0.3, 0.1), 1,
                              {5, 5, 5}, 4, points);
    plan_matches_point_passes(make_mlp_layout(3, {12, 7}, 2, Activation::relu, OutputMap::scaled_relu, 0.2, 1.5), 3,
                              {12, 7}, 2, points);
  }
}

TEST(MlpGemmPlan, HasAProductAndAPassPerLayerEachWay) {
  const MlpLayout L = make_mlp_layout(2, {20, 20, 20, 20, 20, 20}, 10, Activation::tanh_fn, OutputMap::linear);
  const MlpGemmPlan plan = mlp_gemm_plan(L, 32);
  long gemms = 0;
  for (const MlpGemmOp& op : plan.ops) gemms += op.is_gemm ? 1 : 0;
  // forward: a product and a bias pass per layer; the output's deltas; backward: the weight
  // gradient's product and the bias gradient per layer, the deltas' product and pass but the first
  EXPECT_EQ(gemms, 7 + 7 + 6);
  EXPECT_EQ(static_cast<long>(plan.ops.size()), 2 * 7 + 1 + 2 * 7 + 2 * 6);
  EXPECT_EQ(plan.per_network[static_cast<int>(MlpBuffer::pre)], (6 * 20 + 10) * 32);
  EXPECT_EQ(plan.per_network[static_cast<int>(MlpBuffer::act)], 6 * 20 * 32);
  EXPECT_EQ(plan.per_network[static_cast<int>(MlpBuffer::delta0)], 20 * 32);
}

}  // namespace
}  // namespace fivsim
