// tests/gpu/sweep_gpu_test.cpp — the CUDA backend runs the same case runner as the CPU backend:
// on 512 cases of the 2-DoF chain load sweep, double precision gives identical transition counts
// and classes and metrics within 1e-9 relative, with Moreau and with Gauss IRK-LCP; float gives
// the same event counts within 2% and RMS within 1e-3 relative on the periodic cases; a chunk
// after a failed allocation (the retry path of `fivsim sweep`) runs. Skips without a device
// (ctest label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#ifdef FIVSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "fivsim/batch/sweep.hpp"

namespace fivsim {
namespace {

// a sweep's cases prepared as `fivsim sweep` prepares a chunk of them
template <class D>
struct Prepared {
  Scenario base;
  SweepSpec spec;
  std::unique_ptr<batch::SweepPlan> plan;
  std::unique_ptr<batch::SweepShared<D>> shared;
  batch::PreparedCases<D> cases;
  SweepAnalysis an;
  StepOptions opt;
};

template <class D>
Prepared<D> prepare(const json& doc, bool single) {
  Prepared<D> p;
  p.base = parse_scenario(doc);
  p.spec = parse_sweep(doc);
  p.plan = std::make_unique<batch::SweepPlan>(p.base, p.spec);
  p.an = batch::sweep_analysis(p.base);
  p.opt = batch::sweep_step_options(p.base, single);
  p.shared = std::make_unique<batch::SweepShared<D>>(*p.plan, p.opt.stick_tol);
  batch::prepare_cases(*p.plan, *p.shared, 0, p.spec.n_cases(), p.cases);
  return p;
}

template <class D>
struct Batch {
  std::vector<CaseResult<D>> cpu, gpu;
  std::vector<double> points_cpu, points_gpu;
  SweepAnalysis an;
};

template <class D>
Batch<D> make_batch(long n, bool single, bool irk = false) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_load_sweep.json");
  if (irk) {
    doc["integrator"]["method"] = "irk";
    doc["integrator"]["order"] = 4;
  }
  doc["integrator"]["t_end"] = 40.0;
  doc["analysis"]["t_transient"] = 10.0;
  doc["sweep"]["parameters"][0]["linspace"] = {1.0, 30.0, n};
  const Prepared<D> p = prepare<D>(doc, single);
  Batch<D> b;
  b.an = p.an;
  const long per_case = case_points_size(2, b.an.capacity);
  b.cpu.resize(n);
  b.gpu.resize(n);
  b.points_cpu.assign(n * per_case, 0.0);
  b.points_gpu.assign(n * per_case, 0.0);
  batch::run_chunk_cpu(p.cases.batch(), b.an, p.opt, b.cpu.data(), b.points_cpu.data(), 0);
  double kernel_s = 0.0;
  const batch::CudaOutcome out = batch::run_chunk_cuda(p.cases.batch(), b.an, p.opt, b.gpu.data(), b.points_gpu.data(), kernel_s);
  EXPECT_EQ(out.error, "");
  return b;
}

class SweepGpuDouble : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(SweepGpu, SweepGpuDouble, ::testing::Values(false, true));

TEST_P(SweepGpuDouble, MatchesCpu) {
  const auto info = batch::cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  auto b = make_batch<batch::SweepDimsExact2<double>>(GetParam() ? 128 : 512, false, GetParam());
  for (std::size_t c = 0; c < b.cpu.size(); ++c) {
    const auto &x = b.cpu[c], &y = b.gpu[c];
    ASSERT_EQ(x.status, y.status) << "case " << c;
    EXPECT_EQ(x.transitions, y.transitions) << "case " << c;
    EXPECT_EQ(x.section_hits, y.section_hits) << "case " << c;
    EXPECT_EQ(x.klass, y.klass) << "case " << c;
    EXPECT_EQ(x.period_n, y.period_n) << "case " << c;
    for (int s = 0; s < 8; ++s) {
      EXPECT_NEAR(x.series[s].rms(), y.series[s].rms(), 1e-9 * (1e-12 + std::abs(x.series[s].rms()))) << c;
      EXPECT_NEAR(x.series[s].max, y.series[s].max, 1e-9 * (1e-12 + std::abs(x.series[s].max))) << c;
    }
    EXPECT_NEAR(x.max_lcp_residual, y.max_lcp_residual, 1e-9 + 1e-6 * x.max_lcp_residual);
  }
  for (std::size_t i = 0; i < b.points_cpu.size(); ++i)
    ASSERT_NEAR(b.points_cpu[i], b.points_gpu[i], 1e-9 * (1 + std::abs(b.points_cpu[i]))) << "point value " << i;
}

// `fivsim sweep` retries a chunk on fewer cases after cudaErrorMemoryAllocation; the failed
// allocation stays the runtime's "last error", which the retry's launch check must not take for
// its own. A failed allocation just before a chunk: the chunk runs and matches the CPU.
TEST(SweepGpu, RunsAfterAFailedAllocation) {
  const auto info = batch::cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
#ifdef FIVSIM_HAVE_CUDA
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, std::size_t(1) << 52), cudaErrorMemoryAllocation);  // 4 PiB
  auto b = make_batch<batch::SweepDimsExact2<double>>(64, false);
  for (std::size_t c = 0; c < b.cpu.size(); ++c) {
    ASSERT_EQ(b.cpu[c].status, b.gpu[c].status) << "case " << c;
    EXPECT_EQ(b.cpu[c].transitions, b.gpu[c].transitions) << "case " << c;
    EXPECT_EQ(b.cpu[c].klass, b.gpu[c].klass) << "case " << c;
  }
#endif
}

TEST(SweepGpu, LyapunovMatchesCpu) {
  const auto info = batch::cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = batch::SweepDimsExact2<double>;
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_load_sweep.json");
  doc["integrator"]["t_end"] = 20.0;
  doc["analysis"]["t_transient"] = 5.0;
  doc["analysis"]["lyapunov"] = {{"every", 10}};
  doc["sweep"]["parameters"][0]["linspace"] = {1.0, 30.0, 64};
  const Prepared<D> p = prepare<D>(doc, false);
  std::vector<CaseResult<D>> cpu(64), gpu(64);
  std::vector<double> pc(64 * case_points_size(2, p.an.capacity)), pg(pc.size());
  batch::run_chunk_cpu<D>(p.cases.batch(), p.an, p.opt, cpu.data(), pc.data(), 0);
  double kernel_s = 0;
  ASSERT_EQ(batch::run_chunk_cuda<D>(p.cases.batch(), p.an, p.opt, gpu.data(), pg.data(), kernel_s).error, "");
  for (int c = 0; c < 64; ++c) {
    EXPECT_NEAR(cpu[c].lyapunov_time, gpu[c].lyapunov_time, 1e-9) << c;
    EXPECT_NEAR(cpu[c].lyapunov, gpu[c].lyapunov, 1e-6 * (1 + std::abs(cpu[c].lyapunov))) << c;
  }
}

TEST(SweepGpu, FloatMatchesCpuFloat) {
  const auto info = batch::cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  auto b = make_batch<batch::SweepDimsExact2<float>>(256, true);
  for (std::size_t c = 0; c < b.cpu.size(); ++c) {
    const auto &x = b.cpu[c], &y = b.gpu[c];
    ASSERT_EQ(x.status, y.status) << "case " << c;
    EXPECT_NEAR(double(x.transitions), double(y.transitions), 1 + 0.02 * x.transitions) << "case " << c;
    if (x.klass != CaseClass::periodic) continue;
    for (int s = 0; s < 4; ++s)
      EXPECT_NEAR(x.series[s].rms(), y.series[s].rms(), 1e-3 * std::abs(x.series[s].rms())) << "case " << c;
  }
}

// a PINN sweep (seed 000 Model I over 16 belt speeds, dual and central frameworks): every thread
// trains its case's networks as the CPU backend does. The trainings stop at a tolerance, not at a
// bit pattern, so CPU and GPU (last bits of tanh apart) may take different iteration paths to the
// same Gauss step: events and classes agree, metrics within 1e-8 relative.
class SweepGpuPinn : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(SweepGpu, SweepGpuPinn, ::testing::Values("pinn_dual", "pinn_central"));

TEST_P(SweepGpuPinn, MatchesCpu) {
  const auto info = batch::cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = PinnSweepDims;
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model1_pinn_v0_sweep.json");
  doc["integrator"]["method"] = GetParam();
  if (GetParam() == "pinn_central") doc["integrator"].erase("order");
  // 300 steps: the belt drags every case with v0 > 1/3 out of stick (at t = mu_s Fn / (k v0)) while
  // each GPU thread, training its networks serially, stays within seconds
  doc["integrator"]["t_end"] = 3.0;
  doc["analysis"]["t_transient"] = 1.0;
  doc["sweep"]["parameters"][0]["linspace"] = {0.2, 1.2, 16};
  const Prepared<D> p = prepare<D>(doc, false);
  const SweepAnalysis& an = p.an;
  const StepOptions& opt = p.opt;
  const MethodSpec ms = p.base.integrator.spec();
  const bool central = ms.framework == PinnFramework::central;
  const long n = 16;
  const std::vector<double> stages = central ? std::vector<double>() : gauss_stage_values<double>(ms.stages);
  batch::PinnChunk ch{p.cases.batch(), make_pinn_step_settings(ms, 1),
                      central ? StageTable<double>{} : stage_table_of(stages.data(), ms.stages), 1};
  std::vector<CaseResult<D>> cpu(n), gpu(n);
  std::vector<PinnTotals> tc(n), tg(n);
  std::vector<double> pc(n * case_points_size(1, an.capacity)), pg(pc.size());
  batch::run_chunk_cpu_pinn(ch, an, opt, cpu.data(), pc.data(), tc.data(), 0);
  double kernel_s = 0.0;
  ASSERT_EQ(batch::run_chunk_cuda_pinn(ch, an, opt, gpu.data(), pg.data(), tg.data(), kernel_s).error, "");
  for (long c = 0; c < n; ++c) {
    ASSERT_EQ(cpu[c].status, gpu[c].status) << "case " << c;
    EXPECT_EQ(cpu[c].transitions, gpu[c].transitions) << "case " << c;
    EXPECT_EQ(cpu[c].klass, gpu[c].klass) << "case " << c;
    for (int s = 0; s < 2; ++s)
      EXPECT_NEAR(cpu[c].series[s].rms(), gpu[c].series[s].rms(), 1e-8 * (1e-12 + std::abs(cpu[c].series[s].rms())))
          << "case " << c;
    EXPECT_GT(tg[c].lcp_iterations, 0) << "case " << c;
  }
}

}  // namespace
}  // namespace fivsim
