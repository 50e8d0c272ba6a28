// tests/gpu/switching_gpu_test.cpp — the device's switching sweeps against the CPU's (events and
// section samples, the Lyapunov exponent of the variational equations, the adaptive stop and the
// orbit observer), and the kernels specialised to a scenario against the prebuilt ones. Skips
// without a device (ctest label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "fivsim/sweep/chunk_backend.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "source_tree.hpp"
#include "sweep_gpu_cases.hpp"

namespace fivsim {
namespace {

using namespace gpu_test;

// the switching method: the device's cases keep the CPU's events and section samples —
// which tests/cases/case_runner_test.cpp holds to the host's event-driven reference — on Model I, the
// 2- and 5-DoF chains and Model II, to 1e-9 in time and state. Both sides round alike: the step
// factor and the exponential Stribeck law are reproducible_math.hpp's (with the library's pow and
// exp an H200 left the CPU by 4.5e-9 in an event's time on Model I and by 2.8e-6 on the 5-DoF
// chain after 40 s, 2026-11-26); the largest difference and the count beyond 1e-9 are printed
template <class D>
void expect_switching_matches_cpu(json doc, double t_end, double t_transient, double dt) {
  const double tol = 1e-9;
  doc["integrator"]["method"] = "switching";
  doc["integrator"]["dt"] = dt;
  doc["integrator"]["t_end"] = t_end;
  doc["analysis"]["t_transient"] = t_transient;
  doc["analysis"]["points"] = 64;
  const long n = parse_sweep(doc).n_cases();
  const Batch<D> b = run_both<D>(doc, n, false);
  const long per_case = case_points_size(D::max_dof, b.an);
  const int stride = point_stride(D::max_dof);
  long points = 0, beyond = 0, entries = 0;
  double worst = 0.0;
  for (long c = 0; c < n; ++c) {
    const auto &x = b.cpu[c], &y = b.gpu[c];
    ASSERT_EQ(x.status, y.status) << "case " << c;
    ASSERT_EQ(x.transitions, y.transitions) << "case " << c;
    for (int kind = 0; kind < kPointKinds; ++kind) {
      ASSERT_EQ(x.points_seen[kind], y.points_seen[kind]) << "case " << c;
      const int kept = static_cast<int>(std::min<long>(x.points_seen[kind], b.an.capacity));
      for (int i = 0; i < kept; ++i, ++points) {
        const double* p =
            ring_point(b.points_cpu.data() + c * per_case, kind, x.points_seen[kind], b.an.capacity, stride, i);
        const double* q =
            ring_point(b.points_gpu.data() + c * per_case, kind, x.points_seen[kind], b.an.capacity, stride, i);
        for (int k = 0; k < stride; ++k, ++entries) {
          const double d = std::abs(p[k] - q[k]) / (1 + std::abs(p[k]));
          worst = std::max(worst, d);
          beyond += d > 1e-9;
          EXPECT_LE(d, tol) << "case " << c << " point " << i << " entry " << k;
        }
      }
    }
    EXPECT_NEAR(x.series[0].rms(), y.series[0].rms(), tol * (1 + x.series[0].rms())) << "case " << c;
  }
  std::printf("%ld cases, %ld points: largest difference %.3g (relative to 1 + |x|), %ld of %ld entries beyond 1e-9\n",
              n, points, worst, beyond, entries);
  EXPECT_GT(points, n);
}

TEST(SweepGpu, SwitchingMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  const auto scenario = [](const char* file) { return load_json_file(scenario_path(file)); };
  json m1 = scenario("model1_v0_delta_grid.json");
  m1["sweep"]["parameters"][1]["linspace"] = {0.0, 5.0, 2};
  m1["sweep"]["parameters"][0]["linspace"] = {0.05, 1.5, 48};
  expect_switching_matches_cpu<SweepDims1<double>>(m1, 40.0, 5.0, 0.01);
  json c2 = scenario("chain2_load_sweep.json");
  c2["sweep"]["parameters"][0]["linspace"] = {1.0, 30.0, 96};
  expect_switching_matches_cpu<SweepDimsExact2<double>>(c2, 80.0, 10.0, 0.01);
  json c5 = scenario("chain5_F15.json");
  c5["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"linspace", {5, 25, 96}}}}}};
  expect_switching_matches_cpu<SweepDimsExact5<double>>(c5, 40.0, 5.0, 0.01);
  json m2 = scenario("model2_mu_scan.json");
  m2["sweep"]["parameters"][0]["linspace"] = {0.8, 1.4, 96};
  expect_switching_matches_cpu<SweepDims2<double>>(m2, 2.0, 0.2, 1e-3);
}

// the switching method on the general instantiations: 3 sliders (up to 8 DoF) and a 9-mass chain
// with two sliders (up to 24 DoF)
TEST(SweepGpu, SwitchingOnTheGeneralInstantiationsMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  expect_switching_matches_cpu<SweepDims8<double>>(model_for<SweepDims8<double>>(), 40.0, 10.0, 0.01);
  expect_switching_matches_cpu<SweepDimsGeneric<double>>(model_for<SweepDimsGeneric<double>>(), 40.0, 10.0, 0.01);
}

// a case on both backends: the same stop (status, step, class) and the same orbit, its period and
// multiplier to the shots' tolerance
template <class R>
void expect_same_stop_and_orbit(const R& x, const R& y, long c) {
  ASSERT_EQ(x.status, y.status) << c;
  EXPECT_EQ(x.steps, y.steps) << c;
  EXPECT_EQ(x.klass, y.klass) << c;
  EXPECT_EQ(x.period_n, y.period_n) << c;
  EXPECT_EQ(x.orbit_n, y.orbit_n) << c;
  EXPECT_NEAR(x.orbit_period, y.orbit_period, 1e-9 * x.orbit_period) << c;
  EXPECT_NEAR(x.orbit_multiplier, y.orbit_multiplier, 1e-7) << c;
  EXPECT_NEAR(x.orbit_settle_t, y.orbit_settle_t, 1e-6 * (1 + std::abs(x.orbit_settle_t))) << c;
}

// the README demo's own path: the switching method with the Lyapunov exponent of its variational
// equations (each thread's tangent in global scratch) and the adaptive stop (chain2_bifurcation.json
// over 48 loads, up to 600 s, with its orbit observer): every case stops at the CPU's step with the
// CPU's class, period, settling time, exponent and orbit (both sides round alike:
// reproducible_math.hpp)
TEST(SweepGpu, SwitchingWithExponentAndAdaptiveStopMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDimsExact2<double>;
  json doc = load_json_file(scenario_path("chain2_bifurcation.json"));
  doc["integrator"]["t_end"] = 600.0;
  doc["sweep"]["parameters"][0]["linspace"] = {2.0, 30.0, 48};
  const long n = 48;
  const Batch<D> b = run_both<D>(doc, n, false);
  ASSERT_TRUE(b.an.adaptive);
  ASSERT_GT(b.an.lyapunov_every, 0);
  long stopped_early = 0;
  for (long c = 0; c < n; ++c) {
    const auto &x = b.cpu[c], &y = b.gpu[c];
    expect_same_stop_and_orbit(x, y, c);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(x.transitions, y.transitions) << c;
    EXPECT_NEAR(x.settled_at, y.settled_at, 1e-9) << c;
    if (std::isfinite(x.lyapunov)) {
      EXPECT_NEAR(x.lyapunov, y.lyapunov, 1e-9 * (1 + std::abs(x.lyapunov))) << c;
    }
    stopped_early += x.steps < static_cast<long>(600.0 / 0.01);
  }
  EXPECT_GT(stopped_early, 0);
}

// the orbit observer on the device (the shots as the cases run in the switching kernel, and the pass
// after them, orbit_kernel) on the general instantiation of up to 8 DoF: the demo near its period
// doubling (7.4–8.3 N, up to 3000 s), where the orbit decides most cases: every case stops at the
// CPU's step with the CPU's class and orbit
TEST(SweepGpu, OrbitObserverOnTheGeneralInstantiationMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDims8<double>;
  json doc = load_json_file(scenario_path("chain2_bifurcation.json"));
  doc["sweep"]["parameters"][0]["linspace"] = {7.4, 8.3, 10};
  const long n = 10;
  const Batch<D> b = run_both<D>(doc, n, false);
  ASSERT_TRUE(b.an.observers & kObserveOrbit);
  long decided = 0;
  for (long c = 0; c < n; ++c) {
    const auto &x = b.cpu[c], &y = b.gpu[c];
    expect_same_stop_and_orbit(x, y, c);
    if (::testing::Test::HasFatalFailure()) return;
    decided += x.orbit_settle_t >= 0.0;
  }
  EXPECT_GT(decided, n / 2);
}

// the kernels generated for a scenario (sweep/kernel_source.hpp, compiled by NVRTC, no cache) give
// the prebuilt kernels' results: each case's steps, class, transitions, orbit and statistics, on
// the same two-slot pipeline
template <class D>
void expect_specialised_equals_generic(const json& doc) {
  const Prepared<D> p = prepare<D>(doc, false);
  const long n = p.cases.n, per_case = case_points_size(p.base.model.dof(), p.an);
  std::vector<CaseResult<D>> g(n), s(n);
  std::vector<double> qg(n * per_case), qs(qg.size());
  const auto generic = sweep::cuda_pipeline(D{}, nullptr, sweep::KernelOptions{false, {}});
  const auto special = sweep::cuda_pipeline(D{}, nullptr, sweep::KernelOptions{true, "off"});
  double seconds = 0.0;
  ASSERT_EQ(generic->launch(0, p.cases.batch(), p.an, p.opt).error, "");
  ASSERT_EQ(generic->finish(0, g.data(), qg.data(), seconds).error, "");
  ASSERT_EQ(special->launch(0, p.cases.batch(), p.an, p.opt).error, "");
  ASSERT_EQ(special->finish(0, s.data(), qs.data(), seconds).error, "");
  ASSERT_EQ(special->kernels().kernel, "specialised") << special->kernels().how;
  for (long c = 0; c < n; ++c) {
    const auto &x = g[c], &y = s[c];
    EXPECT_EQ(x.steps, y.steps) << c;
    EXPECT_EQ(x.klass, y.klass) << c;
    EXPECT_EQ(x.period_n, y.period_n) << c;
    EXPECT_EQ(x.transitions, y.transitions) << c;
    EXPECT_EQ(x.orbit_n, y.orbit_n) << c;
    for (int k = 0; k < 2 * p.base.model.dof(); ++k)
      EXPECT_NEAR(x.series[k].rms(), y.series[k].rms(), 1e-12 * (1 + std::abs(x.series[k].rms()))) << c;
    if (std::isfinite(x.lyapunov)) {
      EXPECT_NEAR(x.lyapunov, y.lyapunov, 1e-12 * (1 + std::abs(x.lyapunov))) << c;
    }
  }
}

TEST(SweepGpu, SpecialisedKernelsGiveThePrebuiltOnesResults) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  // the switching integrator, adaptive, with its exponent and the orbit observer's pass
  json bif = load_json_file(scenario_path("chain2_bifurcation.json"));
  bif["integrator"]["t_end"] = 600.0;
  bif["sweep"]["parameters"][0]["linspace"] = {2.0, 30.0, 48};
  expect_specialised_equals_generic<SweepDimsExact2<double>>(bif);
  // Moreau on the capacity instantiation of 2 DoF (Model II)
  json m2 = load_json_file(scenario_path("model2_mu_scan.json"));
  m2["sweep"]["parameters"][0]["linspace"] = {0.8, 1.4, 96};
  expect_specialised_equals_generic<SweepDims2<double>>(m2);
}

}  // namespace
}  // namespace fivsim
