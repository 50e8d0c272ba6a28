// tests/gpu/moreau_batch_gpu_test.cpp — the CUDA batch kernel runs the same Moreau stepper as
// the CPU: final states of a batch of 2-DoF chain cases agree to 1e-9 relative. Skips when no
// device is present (ctest label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "fivsim/batch/cuda_batch.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

TEST(MoreauBatchGpu, MatchesCpuOnTwoDofChain) {
  const auto info = batch::cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;

  SliderChainParams p;
  p.m = {1, 1};
  p.k = {1, 1};
  p.c = {0, 0};
  p.Fn = {15, 15};
  p.v0 = 0.5;
  p.law.kind = FrictionLawKind::stribeck_rational;
  p.law.p[0] = 0.1;
  p.law.p[1] = 1.0;
  const ModelDescription d = make_slider_chain(p);
  const int n = 256;
  const double dt = 1e-3;
  const long steps = 20000;
  std::vector<double> q(2 * n), u(2 * n, 0.0);
  for (int c = 0; c < n; ++c) q[c] = q[n + c] = 0.5 + 0.01 * c;
  std::vector<double> q_gpu = q, u_gpu = u;
  const StepOptions opt;
  const auto res = batch::moreau_batch_cuda(d, dt, steps, opt, n, q_gpu, u_gpu);
  ASSERT_TRUE(res.ran) << res.message;

  auto m = std::make_unique<Model<HostDims>>();
  make_model(d, *m);
  for (int c = 0; c < n; ++c) {
    auto s = std::make_unique<State<HostDims>>();
    make_initial_state(*m, Eigen::Vector2d(q[c], q[n + c]), Eigen::Vector2d::Zero(), 0.0, opt.stick_tol, *s);
    const RunOutcome out = simulate_moreau(*m, *s, dt, steps, opt, [](const auto&, long, const auto&) {});
    ASSERT_EQ(out.status, Status::ok);
    EXPECT_EQ(res.status[c], 0);
    for (int d = 0; d < 2; ++d) {
      EXPECT_NEAR(q_gpu[d * n + c], s->q[d], 1e-9 * (1 + std::abs(s->q[d]))) << "case " << c;
      EXPECT_NEAR(u_gpu[d * n + c], s->u[d], 1e-9 * (1 + std::abs(s->u[d]))) << "case " << c;
    }
  }
}

}  // namespace
}  // namespace fivsim
