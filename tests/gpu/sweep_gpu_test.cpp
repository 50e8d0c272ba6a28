// tests/gpu/sweep_gpu_test.cpp — the CUDA backend runs the same case runners as the CPU backend:
// every instantiation of the typed list (SweepInstantiations), in double and float, on a model it
// holds — the belt runner's kernel with each observer set on the exact sizes, the general kernel on
// the others — gives the CPU's transition counts and classes and its metrics within 1e-9 relative
// in double (2% and 1e-3 on periodic cases in float); on 512 cases of the 2-DoF chain load sweep
// likewise with Moreau and Gauss IRK-LCP; the two-slot pipeline gives each chunk's own results; a
// chunk after a failed allocation (the retry path of `fivsim sweep`) runs; a PINN chunk gives the
// CPU's classes with the prebuilt and the specialised round kernels, and as one CUDA graph the bits
// of its kernels launched one by one (the switching
// sweeps and the specialised kernels: switching_gpu_test.cpp). Skips without a device (ctest label
// gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <type_traits>

#ifdef FIVSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "fivsim/cases/belt_runner.hpp"
#include "fivsim/sweep/chunk_backend.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "source_tree.hpp"
#include "sweep_gpu_cases.hpp"

namespace fivsim {
namespace {

using namespace gpu_test;

template <class D>
Batch<D> make_batch(long n, bool single, bool irk = false) {
  json doc = load_json_file(scenario_path("chain2_load_sweep.json"));
  if (irk) {
    doc["integrator"]["method"] = "irk";
    doc["integrator"]["order"] = 4;
  }
  doc["integrator"]["t_end"] = 40.0;
  doc["analysis"]["t_transient"] = 10.0;
  doc["sweep"]["parameters"][0]["linspace"] = {1.0, 30.0, n};
  return run_both<D>(doc, n, single);
}

// the CPU's and the device's results of the same batch, compared
template <class D>
void expect_device_equals_cpu(const json& doc, unsigned observers) {
  const bool single = std::is_same_v<typename D::scalar, float>;
  Prepared<D> p = prepare<D>(doc, single);
  p.an.observers = observers;
  if (!observes_points(observers)) p.an.capacity = 0;
  const long n = p.cases.n, per_case = case_points_size(p.base.model.dof(), p.an);
  std::vector<CaseResult<D>> cpu(static_cast<std::size_t>(n)), gpu(cpu.size());
  std::vector<double> pc(static_cast<std::size_t>(n * per_case)), pg(pc.size());
  sweep::run_chunk_cpu(p.cases.batch(), p.an, p.opt, cpu.data(), pc.data(), 0);
  double kernel_s = 0.0;
  ASSERT_EQ(sweep::run_chunk_cuda(p.cases.batch(), p.an, p.opt, gpu.data(), pg.data(), kernel_s).error, "");
  for (long c = 0; c < n; ++c) {
    const auto &x = cpu[static_cast<std::size_t>(c)], &y = gpu[static_cast<std::size_t>(c)];
    ASSERT_EQ(x.status, y.status) << "case " << c;
    if (single) {
      EXPECT_NEAR(double(x.transitions), double(y.transitions), 1 + 0.02 * x.transitions) << "case " << c;
      if (x.klass != CaseClass::periodic) continue;
      for (int s = 0; s < 2 * p.base.model.dof(); ++s)
        EXPECT_NEAR(x.series[s].rms(), y.series[s].rms(), 1e-3 * std::abs(x.series[s].rms())) << "case " << c;
      continue;
    }
    EXPECT_EQ(x.transitions, y.transitions) << "case " << c;
    EXPECT_EQ(x.klass, y.klass) << "case " << c;
    for (int s = 0; s < 2 * p.base.model.dof(); ++s) {
      EXPECT_NEAR(x.series[s].rms(), y.series[s].rms(), 1e-9 * (1e-12 + std::abs(x.series[s].rms()))) << "case " << c;
      EXPECT_NEAR(x.series[s].max, y.series[s].max, 1e-9 * (1e-12 + std::abs(x.series[s].max))) << "case " << c;
    }
  }
}

template <class D>
class SweepGpuInstantiation : public ::testing::Test {};
using AllInstantiations =
    ::testing::Types<SweepDims1<double>, SweepDimsExact2<double>, SweepDimsExact5<double>, SweepDims2<double>,
                     SweepDims8<double>, SweepDimsGeneric<double>, SweepDims1<float>, SweepDimsExact2<float>,
                     SweepDimsExact5<float>, SweepDims2<float>, SweepDims8<float>, SweepDimsGeneric<float>>;
TYPED_TEST_SUITE(SweepGpuInstantiation, AllInstantiations);

TYPED_TEST(SweepGpuInstantiation, MatchesCpu) {
  using D = TypeParam;
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  const json doc = model_for<D>();
  // the model lands on this instantiation
  bool here = false;
  with_instantiation(SweepInstantiations<typename D::scalar>{}, parse_scenario(doc).model.dof(),
                     parse_scenario(doc).model.n_contacts(),
                     [&](auto tag) { here = std::is_same_v<typename decltype(tag)::type, D>; });
  ASSERT_TRUE(here);
  // each observer set of the belt kernel (the others run the general kernel with each mask)
  for (const unsigned observers : kBeltObserverSets) expect_device_equals_cpu<D>(doc, observers);
}

// two chunks queued on the two slots of the pipeline and finished in turn: each comes back as its
// own CPU run
TEST(SweepGpu, ThePipelinesSlotsKeepTheirChunksApart) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDimsExact2<double>;
  json a = model_for<D>(), b = a;
  b["model"]["v0"] = 0.5;
  const Prepared<D> pa = prepare<D>(a, false), pb = prepare<D>(b, false);
  const long n = pa.cases.n, per_case = case_points_size(2, pa.an);
  std::vector<CaseResult<D>> ca(n), cb(n), ga(n), gb(n);
  std::vector<double> qa(n * per_case), qb(qa.size()), ra(qa.size()), rb(qa.size());
  sweep::run_chunk_cpu(pa.cases.batch(), pa.an, pa.opt, ca.data(), qa.data(), 0);
  sweep::run_chunk_cpu(pb.cases.batch(), pb.an, pb.opt, cb.data(), qb.data(), 0);
  const std::unique_ptr<sweep::SweepPipeline<D>> pipeline =
      sweep::cuda_pipeline(D{}, nullptr, sweep::KernelOptions{false, {}});
  ASSERT_EQ(pipeline->launch(0, pa.cases.batch(), pa.an, pa.opt).error, "");
  ASSERT_EQ(pipeline->launch(1, pb.cases.batch(), pb.an, pb.opt).error, "");
  double s0 = 0, s1 = 0;
  ASSERT_EQ(pipeline->finish(0, ga.data(), ra.data(), s0).error, "");
  ASSERT_EQ(pipeline->finish(1, gb.data(), rb.data(), s1).error, "");
  EXPECT_GT(s0, 0.0);
  for (long c = 0; c < n; ++c) {
    EXPECT_EQ(ca[c].transitions, ga[c].transitions) << c;
    EXPECT_EQ(cb[c].transitions, gb[c].transitions) << c;
    EXPECT_NEAR(ca[c].series[0].rms(), ga[c].series[0].rms(), 1e-9 * std::abs(ca[c].series[0].rms())) << c;
    EXPECT_NEAR(cb[c].series[0].rms(), gb[c].series[0].rms(), 1e-9 * std::abs(cb[c].series[0].rms())) << c;
  }
}

// the CUDA backend meets the injected failures at its real points (sweep/chunk_backend.hpp): a
// launch failing at slot 0's device buffers, at its pinned buffers or at the kernel launch reports
// out of memory with the slot's memory given back, and the retry on the same slot runs the cases
// and gives the CPU's results
TEST(SweepGpu, InjectedFailuresAtEachPointLeaveTheSlotUsable) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDimsExact2<double>;
  const Prepared<D> p = prepare<D>(model_for<D>(), false);
  const long n = p.cases.n, per_case = case_points_size(2, p.an);
  std::vector<CaseResult<D>> cpu(n), gpu(n);
  std::vector<double> qc(n * per_case), qg(qc.size());
  sweep::run_chunk_cpu(p.cases.batch(), p.an, p.opt, cpu.data(), qc.data(), 0);
  for (const char* point : {"slot0:1", "pinned:1", "launch:1"}) {
    sweep::InjectedFailures inject = sweep::parse_injected_failures(point);
    sweep::BackendSettings settings;
    settings.cuda = true;
    settings.an = p.an;
    settings.opt = p.opt;
    settings.inject = &inject;
    const auto backend = sweep::make_chunk_backend<D>(settings);
    sweep::SlotWork<D> work;
    work.cases = p.cases.batch();
    work.results = gpu.data();
    work.points = qg.data();
    work.per_case = per_case;
    const DeviceOutcome failed = backend->launch(0, work);
    EXPECT_TRUE(failed.out_of_memory) << point << ": " << failed.error;
    double seconds = 0.0;
    ASSERT_EQ(backend->run(0, work, seconds).error, "") << point;
    for (long c = 0; c < n; ++c) {
      EXPECT_EQ(cpu[c].transitions, gpu[c].transitions) << point << " case " << c;
      EXPECT_EQ(cpu[c].klass, gpu[c].klass) << point << " case " << c;
    }
  }
}

class SweepGpuDouble : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(SweepGpu, SweepGpuDouble, ::testing::Values(false, true));

TEST_P(SweepGpuDouble, MatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  auto b = make_batch<SweepDimsExact2<double>>(GetParam() ? 128 : 512, false, GetParam());
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
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
#ifdef FIVSIM_HAVE_CUDA
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, std::size_t(1) << 52), cudaErrorMemoryAllocation);  // 4 PiB
  auto b = make_batch<SweepDimsExact2<double>>(64, false);
  for (std::size_t c = 0; c < b.cpu.size(); ++c) {
    ASSERT_EQ(b.cpu[c].status, b.gpu[c].status) << "case " << c;
    EXPECT_EQ(b.cpu[c].transitions, b.gpu[c].transitions) << "case " << c;
    EXPECT_EQ(b.cpu[c].klass, b.gpu[c].klass) << "case " << c;
  }
#endif
}

TEST(SweepGpu, LyapunovMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDimsExact2<double>;
  json doc = load_json_file(scenario_path("chain2_load_sweep.json"));
  doc["integrator"]["t_end"] = 20.0;
  doc["analysis"]["t_transient"] = 5.0;
  doc["analysis"]["lyapunov"] = {{"every", 10}};
  doc["sweep"]["parameters"][0]["linspace"] = {1.0, 30.0, 64};
  const Batch<D> b = run_both<D>(doc, 64, false);
  const auto &cpu = b.cpu, &gpu = b.gpu;
  for (int c = 0; c < 64; ++c) {
    EXPECT_NEAR(cpu[c].lyapunov_time, gpu[c].lyapunov_time, 1e-9) << c;
    EXPECT_NEAR(cpu[c].lyapunov, gpu[c].lyapunov, 1e-6 * (1 + std::abs(cpu[c].lyapunov))) << c;
  }
}

// an adaptive sweep: persistent threads take the cases from a queue and each stops when
// its class is known; every case stops where the CPU's does, with its class and evidence
TEST(SweepGpu, AdaptiveQueueMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDimsExact2<double>;
  json doc = load_json_file(scenario_path("chain2_bifurcation.json"));
  // the queue-fed Moreau kernel (the demo itself runs the switching method)
  doc["integrator"]["method"] = "moreau";
  doc["integrator"]["dt"] = 1e-3;
  doc["integrator"]["t_end"] = 1500.0;
  doc["sweep"]["parameters"][0]["linspace"] = {2.0, 30.0, 300};
  const long n = 300;
  const Batch<D> b = run_both<D>(doc, n, false);
  ASSERT_TRUE(b.an.adaptive);
  const auto &cpu = b.cpu, &gpu = b.gpu;
  // the Stribeck law's exp rounds alike on both sides (reproducible_math.hpp): every periodic case
  // stops at the same step with the same class, evidence and statistics to 1e-9 (with the
  // library's exp, 2 of 206 periodic cases on an H200 differed by 3e-8 in their rms after 1500 s,
  // 2026-11-26); the count beyond 1e-9 is printed
  long periodic = 0, same = 0, beyond = 0;
  for (long c = 0; c < n; ++c) {
    if (cpu[c].klass != CaseClass::periodic) continue;
    ++periodic;
    if (cpu[c].steps != gpu[c].steps) continue;
    ++same;
    EXPECT_EQ(cpu[c].klass, gpu[c].klass) << c;
    EXPECT_EQ(cpu[c].period_n, gpu[c].period_n) << c;
    EXPECT_NEAR(cpu[c].settled_at, gpu[c].settled_at, 1e-9) << c;
    const double rms = cpu[c].series[0].rms(), d = std::abs(rms - gpu[c].series[0].rms());
    beyond += d > 1e-9 * rms;
    EXPECT_LE(d, 1e-9 * rms) << c;
  }
  std::printf("%ld periodic cases, %ld stop at the same step, %ld of those with an rms beyond 1e-9 relative\n",
              periodic, same, beyond);
  EXPECT_GT(periodic, n / 2);
  EXPECT_EQ(same, periodic);
}

// RK4-LCP through the general kernel (3 sliders, up to 8 DoF), each case with its own step map
TEST(SweepGpu, Rk4LcpOnTheGeneralInstantiationMatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = SweepDims8<double>;
  json doc = model_for<D>();
  doc["integrator"]["method"] = "rk4lcp";
  doc["integrator"]["t_end"] = 20.0;
  doc["analysis"]["t_transient"] = 5.0;
  expect_device_equals_cpu<D>(doc, kObserveBifurcation);
}

TEST(SweepGpu, FloatMatchesCpuFloat) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  auto b = make_batch<SweepDimsExact2<float>>(256, true);
  for (std::size_t c = 0; c < b.cpu.size(); ++c) {
    const auto &x = b.cpu[c], &y = b.gpu[c];
    ASSERT_EQ(x.status, y.status) << "case " << c;
    EXPECT_NEAR(double(x.transitions), double(y.transitions), 1 + 0.02 * x.transitions) << "case " << c;
    if (x.klass != CaseClass::periodic) continue;
    for (int s = 0; s < 4; ++s)
      EXPECT_NEAR(x.series[s].rms(), y.series[s].rms(), 1e-3 * std::abs(x.series[s].rms())) << "case " << c;
  }
}

// a PINN sweep (seed 000 Model I over 16 belt speeds, or the 5-DoF chain over 8 loads): the device
// trains all cases' networks in lockstep (groups of lanes per network, a warp per optimizer step)
// where the CPU runs each row's training on one core. The trainings stop at a tolerance, not at a
// bit pattern, and the device sums in another order, so CPU and GPU may take different iteration
// paths to the same Gauss step: events and classes agree, metrics within 1e-8 relative, the
// dynamic trainings' iteration totals within 10 % (unconverged steps within 2 + 10 %), the
// Lyapunov estimates within 1e-2 (1 + |λ|). The variants reach every PINN kernel: each framework,
// L-BFGS (the scenario's) and Adam then L-BFGS, a dynamic network wider than a warp (one thread
// per row, evaluate_thread_kernel), and a multi-DoF model whose LCP-PINN has more than 8 outputs
// (one lane per LCP, lcp_evaluate_kernel's fallback)
struct PinnVariant {
  const char* name;
  const char* method;
  const char* optimizer = nullptr;  // the scenario's (lbfgs) when null
  int width = 0;                    // two hidden layers this wide instead of the scenario's 7 × 20
  bool chain5 = false;              // the 5-DoF chain instead of Model I
  long cases = 16;
};
void PrintTo(const PinnVariant& v, std::ostream* os) { *os << v.name; }
class SweepGpuPinn : public ::testing::TestWithParam<PinnVariant> {};
INSTANTIATE_TEST_SUITE_P(SweepGpu, SweepGpuPinn,
                         ::testing::Values(PinnVariant{"dual", "pinn_dual"}, PinnVariant{"central", "pinn_central"},
                                           PinnVariant{"adv_single", "pinn_adv_single"},
                                           PinnVariant{"adv_dual", "pinn_adv_dual"},
                                           PinnVariant{"single", "pinn_single"},
                                           PinnVariant{"adam_lbfgs", "pinn_dual", "adam+lbfgs", 0, false, 8},
                                           PinnVariant{"wide", "pinn_dual", nullptr, 40},
                                           PinnVariant{"chain5", "pinn_dual", nullptr, 0, true, 8}),
                         [](const auto& info) { return std::string(info.param.name); });

json pinn_variant_doc(const PinnVariant& v) {
  json doc = load_json_file(scenario_path("model1_pinn_v0_sweep.json"));
  const json pinn = doc["integrator"]["pinn"];
  doc["integrator"]["method"] = v.method;
  if (std::string(v.method) == "pinn_central") doc["integrator"].erase("order");
  if (v.optimizer) doc["integrator"]["pinn"]["optimizer"] = v.optimizer;
  if (v.width > 0) doc["integrator"]["pinn"]["hidden"] = {v.width, v.width};
  // 300 steps: the belt drags every case with v0 > 1/3 out of stick (at t = mu_s Fn / (k v0)) while
  // each GPU thread, training its networks serially, stays within seconds
  doc["integrator"]["t_end"] = 3.0;
  doc["analysis"]["t_transient"] = 1.0;
  doc["sweep"]["parameters"][0]["linspace"] = {0.2, 1.2, v.cases};
  if (std::string(v.method) == "pinn_adv_single") doc["analysis"]["lyapunov"] = {{"every", 10}};
  if (v.chain5) {
    // 10 steps of five sliders (10 LCP unknowns) over 8 loads
    json c5 = load_json_file(scenario_path("chain5_F15.json"));
    c5["integrator"] = {{"method", v.method}, {"order", 2}, {"dt", 0.01}, {"t_end", 0.1}, {"pinn", pinn}};
    c5["analysis"] = {{"t_transient", 0.0}};
    c5["output"] = json::object();
    c5["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"linspace", {5, 25, v.cases}}}}}};
    return c5;
  }
  return doc;
}

TEST_P(SweepGpuPinn, MatchesCpu) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  using D = PinnSweepDims;
  const PinnVariant& v = GetParam();
  const Prepared<D> p = prepare<D>(pinn_variant_doc(v), false);
  const SweepAnalysis& an = p.an;
  const StepOptions& opt = p.opt;
  const MethodSpec ms = p.base.integrator.spec();
  const bool central = ms.framework == PinnFramework::central;
  const long n = v.cases;
  const int dof = p.base.model.dof();
  const std::vector<double> stages = central ? std::vector<double>() : gauss_stage_values<double>(ms.stages);
  sweep::PinnChunk ch;
  ch.cases = p.cases.batch();
  ch.set = make_pinn_step_settings(ms, dof);
  ch.tab = central ? StageTable<double>{} : stage_table_of(stages.data(), ms.stages);
  ch.n_dof = dof;
  std::vector<CaseResult<D>> cpu(n), gpu(n);
  std::vector<PinnTotals> tc(n), tg(n);
  std::vector<double> pc(n * case_points_size(dof, an)), pg(pc.size());
  sweep::run_chunk_cpu_pinn(ch, an, opt, cpu.data(), pc.data(), tc.data(), 0);
  double kernel_s = 0.0;
  ASSERT_EQ(sweep::run_chunk_cuda_pinn(ch, an, opt, gpu.data(), pg.data(), tg.data(), kernel_s).error, "");
  // the chunk as one graph (the default) against its kernels launched one by one: bit for bit
  std::vector<CaseResult<D>> launched(n);
  std::vector<PinnTotals> tl(n);
  std::vector<double> pl(pg.size());
  ch.rounds = sweep::PinnRounds::launches;
  ASSERT_EQ(sweep::run_chunk_cuda_pinn(ch, an, opt, launched.data(), pl.data(), tl.data(), kernel_s).error, "");
  for (long c = 0; c < n; ++c) {
    EXPECT_EQ(launched[c].status, gpu[c].status) << "case " << c;
    EXPECT_EQ(launched[c].transitions, gpu[c].transitions) << "case " << c;
    EXPECT_EQ(launched[c].klass, gpu[c].klass) << "case " << c;
    EXPECT_EQ(tl[c].iterations, tg[c].iterations) << "case " << c;
    EXPECT_EQ(tl[c].lcp_iterations, tg[c].lcp_iterations) << "case " << c;
    EXPECT_EQ(tl[c].max_loss, tg[c].max_loss) << "case " << c;
    for (int k = 0; k < 2 * dof; ++k) EXPECT_EQ(launched[c].series[k].rms(), gpu[c].series[k].rms()) << "case " << c;
  }
  // the device's results (`what`) against the CPU's
  const auto like_cpu = [&](const std::vector<CaseResult<D>>& g, const std::vector<PinnTotals>& tg, const char* what) {
    for (long c = 0; c < n; ++c) {
      ASSERT_EQ(cpu[c].status, g[c].status) << what << ", case " << c;
      EXPECT_EQ(cpu[c].transitions, g[c].transitions) << what << ", case " << c;
      EXPECT_EQ(cpu[c].klass, g[c].klass) << what << ", case " << c;
      for (int s = 0; s < 2 * dof; ++s)
        EXPECT_NEAR(cpu[c].series[s].rms(), g[c].series[s].rms(), 1e-8 * (1e-12 + std::abs(cpu[c].series[s].rms())))
            << what << ", case " << c;
      // the LCP-PINN frameworks train one every step; the single ones put the complementarity in
      // the dynamic network's loss and train none
      if (pinn_uses_lcp_pinn(ms.framework)) {
        EXPECT_GT(tg[c].lcp_iterations, 0) << what << ", case " << c;
      } else {
        EXPECT_EQ(tg[c].lcp_iterations, 0) << what << ", case " << c;
      }
      if (!central) {
        EXPECT_NEAR(double(tg[c].iterations), double(tc[c].iterations), 0.1 * double(tc[c].iterations)) << what;
      }
      EXPECT_NEAR(double(tg[c].unconverged), double(tc[c].unconverged), 2.0 + 0.1 * double(tc[c].unconverged)) << what;
      if (an.lyapunov_every > 0 && std::isfinite(cpu[c].lyapunov)) {
        EXPECT_NEAR(cpu[c].lyapunov, g[c].lyapunov, 1e-2 * (1.0 + std::abs(cpu[c].lyapunov))) << what << ", case " << c;
      }
    }
  };
  like_cpu(gpu, tg, "prebuilt");
  // the round kernels specialised to the network (compiled by NVRTC, no cache), in the graph
  const sweep::PinnSpecialised special = sweep::specialise_pinn_rounds(ch.set, sweep::KernelOptions{true, "off"});
  if (central || ch.set.dynamics.max_width() > 32) {
    EXPECT_EQ(special.kernels.evaluate, nullptr);
    return;
  }
  ASSERT_NE(special.kernels.evaluate, nullptr) << special.report.how;
  EXPECT_EQ(special.report.kernel, "specialised");
  ch.kernels = special.kernels;
  ch.rounds = sweep::PinnRounds::graph;
  std::vector<CaseResult<D>> specialised(n);
  std::vector<PinnTotals> ts(n);
  ASSERT_EQ(sweep::run_chunk_cuda_pinn(ch, an, opt, specialised.data(), pl.data(), ts.data(), kernel_s).error, "");
  like_cpu(specialised, ts, "specialised");
}

}  // namespace
}  // namespace fivsim
