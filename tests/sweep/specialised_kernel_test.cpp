// tests/sweep/specialised_kernel_test.cpp — the specialised kernels' CPU half: the generated
// source of every bundled sweep, the PINN sweep's round kernels too, compiles with NVRTC (no device
// needed), a minimum of resident blocks holds a kernel's registers, the PINN case's tell keeps the
// LCP solvers off its stack, and the kernel cache keeps an image under a key that changes with each
// input and loads only an intact entry (sweep/kernel_source.hpp, kernel_compiler.hpp,
// kernel_cache.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fivsim/integrate/simulation.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/sweep/kernel_cache.hpp"
#include "fivsim/sweep/kernel_compiler.hpp"
#include "fivsim/sweep/kernel_source.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "fivsim/sweep/sweep_backend.hpp"
#include "fivsim/sweep/sweep_plan.hpp"
#include "fivsim/sweep/sweep_spec.hpp"

namespace fivsim::sweep {
namespace {

namespace fs = std::filesystem;

// the source of the specialised kernel of a bundled scenario's first cases, and the kernel's name
// (the belt runner's where the sweep runs on it, else the general one's)
struct ScenarioKernel {
  std::string source, name;
};
ScenarioKernel kernel_of(const std::string& scenario) {
  const nlohmann::json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/" + scenario);
  const Scenario sc = parse_scenario(doc);
  const SweepSpec spec = parse_sweep(doc);
  const SweepPlan plan(sc, spec);
  ScenarioKernel kernel;
  const auto make = [&](auto tag) {
    using D = typename decltype(tag)::type;
    SweepAnalysis an = sweep_analysis(sc);
    if (!observes_points(an.observers)) an.capacity = 0;
    const StepOptions opt = sweep_step_options(sc, false);
    const auto shared = std::make_unique<SweepShared<D>>(plan, opt.stick_tol);
    const auto cases = std::make_unique<PreparedCases<D>>();
    prepare_cases(plan, *shared, 0, std::min<long>(spec.n_cases(), 4), *cases);
    const CaseBatch<D> batch = cases->batch();
    if constexpr (D::exact && D::max_dof == D::max_contacts) {
      if (runs_as_belt(batch, an, opt)) {
        const auto b = std::make_unique<BeltModel<D>>();
        make_belt_model(batch.setups[0], *b);
        kernel = {belt_kernel_source(*b, an, opt), kSpecialisedBeltKernelName};
        return;
      }
    }
    kernel = {case_kernel_source(batch, an, opt), kSpecialisedCaseKernelName};
  };
  with_instantiation(SweepInstantiations<double>{}, sc.model.dof(), sc.model.n_contacts(), make);
  return kernel;
}

TEST(SpecialisedKernel, EveryBundledSweepsSourceCompilesWithNvrtc) {
  if (kernel_compiler_id().empty()) GTEST_SKIP() << "built without CUDA: no NVRTC";
  std::vector<std::string> belt, with_orbits;
  std::vector<std::string> scenarios;
  // every sweep `fivsim sweep` runs with these kernels: not the identification batches (their
  // sweep is of records), nor the PINN sweeps (their own lockstep kernels)
  for (const auto& e : fs::recursive_directory_iterator(FIVSIM_SOURCE_DIR "/scenarios")) {
    const std::string name = fs::relative(e.path(), FIVSIM_SOURCE_DIR "/scenarios").string();
    if (e.path().extension() != ".json" || name.rfind("identify/", 0) == 0) continue;
    const nlohmann::json doc = load_json_file(e.path().string());
    if (doc.contains("sweep") && parse_scenario(doc).integrator.spec().kind != MethodKind::pinn)
      scenarios.push_back(name);
  }
  std::sort(scenarios.begin(), scenarios.end());
  EXPECT_EQ(scenarios.size(), 11u);
  for (const std::string& scenario : scenarios) {
    // (that the same scenario gives the same source in every run: folded_bytes_test.cpp)
    const ScenarioKernel kernel = kernel_of(scenario);
    if (kernel.name == kSpecialisedBeltKernelName) belt.push_back(scenario);
    CompiledKernel k;
    double seconds = 0.0;
    // a checking build (CI's) compiles them unoptimised, as it does its prebuilt kernels; the
    // belt kernels (a quarter of a second) optimised in every build
    const KernelBuild build = FIVSIM_CHECKING_KERNELS && kernel.name != kSpecialisedBeltKernelName
                                  ? KernelBuild::checking
                                  : KernelBuild::optimised;
    // optimised ones to machine code (ptxas's registers and spills printed), the others to PTX
    const bool cubin = build == KernelBuild::optimised;
    const DeviceOutcome out = compile_kernel(kernel.source, cubin ? "sm_90" : "compute_90", k, seconds, build);
    EXPECT_EQ(out.error, "") << scenario;
    const KernelResources r = k.resources[kernel.name];
    // the orbit observer's pass, where the sweep has it, in the same module
    if (kernel.source.find(kSpecialisedOrbitKernelName) != std::string::npos) {
      with_orbits.push_back(scenario);
      if (!cubin) {
        EXPECT_NE(k.image.find(kSpecialisedOrbitKernelName), std::string::npos) << scenario;
      }
    }
    if (cubin)
      EXPECT_GT(r.registers, 0) << scenario;
    else
      EXPECT_NE(k.image.find(kernel.name), std::string::npos) << scenario;
    std::printf("%-48s %-26s %-9s %6.2f s", scenario.c_str(), kernel.name.c_str(), cubin ? "optimised" : "checking",
                seconds);
    if (cubin) std::printf("  sm_90: %d registers, %ld bytes spilled", r.registers, r.spill_stores);
    std::printf("\n");
  }
  // the Moreau sweeps of sliders on a belt run the belt runner; the switching ones, Model II's and
  // the adaptive ones the general kernel
  EXPECT_EQ(belt, (std::vector<std::string>{"chain2_bench_random.json", "chain2_load_sweep.json",
                                            "model1_v0_delta_grid.json"}));
  EXPECT_EQ(with_orbits, (std::vector<std::string>{"chain2_bifurcation.json", "chain2_classmap.json",
                                                   "seed_constants/seed001_chain_constants.json"}));
}

// FIVSIM_KERNEL_MIN_BLOCKS (a benchmark's knob) asks the launch bounds for that many resident blocks
// a multiprocessor: another source, so another cache entry, and ptxas holds the bundled benchmark's
// belt kernel (the bifurcation observers) to the registers 4 blocks of 128 threads leave, where it
// takes more without
TEST(SpecialisedKernel, MinimumBlocksHoldTheKernelsRegisters) {
  if (kernel_compiler_id().empty()) GTEST_SKIP() << "built without CUDA: no NVRTC";
  const ScenarioKernel plain = kernel_of("chain2_bench_random.json");
  ::setenv("FIVSIM_KERNEL_MIN_BLOCKS", "4", 1);
  const ScenarioKernel held = kernel_of("chain2_bench_random.json");
  ::unsetenv("FIVSIM_KERNEL_MIN_BLOCKS");
  ASSERT_EQ(held.name, kSpecialisedBeltKernelName);
  EXPECT_NE(held.source.find("__launch_bounds__(" + std::to_string(kSpecialisedBlock) + ", 4)"), std::string::npos);
  EXPECT_EQ(plain.source.find("__launch_bounds__(" + std::to_string(kSpecialisedBlock) + ", "), std::string::npos);
  CompiledKernel a, b;
  double seconds = 0.0;
  ASSERT_EQ(compile_kernel(plain.source, "sm_90", a, seconds).error, "");
  ASSERT_EQ(compile_kernel(held.source, "sm_90", b, seconds).error, "");
  const int budget = 65536 / (4 * kSpecialisedBlock);
  const KernelResources p = a.resources[plain.name], h = b.resources[held.name];
  EXPECT_GT(p.registers, budget);
  EXPECT_GT(h.registers, 0);
  EXPECT_LE(h.registers, budget);
  std::printf("belt kernel sm_90: %d registers; held to 4 blocks: %d registers, %ld bytes spilled\n", p.registers,
              h.registers, h.spill_stores);
}

// the PINN sweep's round kernels, its dynamic network's layout and optimizer folded in: the bundled
// PINN sweep's source compiles (optimised to sm_90 machine code where the build's kernels are, its
// registers printed), and another layout gives another source (another cache entry)
TEST(SpecialisedKernel, ThePinnSweepsRoundKernelsCompileWithNvrtc) {
  if (kernel_compiler_id().empty()) GTEST_SKIP() << "built without CUDA: no NVRTC";
  const Scenario sc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model1_pinn_v0_sweep.json"));
  ASSERT_EQ(sc.integrator.spec().kind, MethodKind::pinn);
  const PinnStepSettings set = make_pinn_step_settings(sc.integrator.spec(), sc.model.dof());
  const std::string source = pinn_kernel_source(set);
  PinnStepSettings wider = set;
  wider.dynamics.width[1] += 1;
  EXPECT_NE(pinn_kernel_source(wider), source);
  EXPECT_EQ(pinn_kernel_source(set), source);
  const KernelBuild build = FIVSIM_CHECKING_KERNELS ? KernelBuild::checking : KernelBuild::optimised;
  const bool cubin = build == KernelBuild::optimised;
  CompiledKernel k;
  double seconds = 0.0;
  const DeviceOutcome out = compile_kernel(source, cubin ? "sm_90" : "compute_90", k, seconds, build);
  ASSERT_EQ(out.error, "");
  for (const char* name : {kSpecialisedPinnEvaluateName, kSpecialisedPinnTellName}) {
    const KernelResources r = k.resources[name];
    if (cubin)
      EXPECT_GT(r.registers, 0) << name;
    else
      EXPECT_NE(k.image.find(name), std::string::npos) << name;
    std::printf("%-34s %-9s %6.2f s", name, cubin ? "optimised" : "checking", seconds);
    if (cubin)
      std::printf("  sm_90: %d registers, %ld bytes stack, %ld bytes spilled", r.registers, r.stack_frame,
                  r.spill_stores);
    std::printf("\n");
  }
}

// the PINN sweep's per-case kernels over the largest LCPs it holds (24 unknowns): their contact
// solvers keep Lemke's dictionary and the basis matrix in the case's block (PinnStepper::solver), so
// the kernels' stack, which the device reserves for every thread it can hold, stays within 2 KB (it
// was 11.4 KB for the step's begin and 11.6 KB for the tell with those temporaries on it). The tell
// reaches every solver the begin does (a regime change solves the step's LCP again)
TEST(SpecialisedKernel, ThePinnSweepsTellKeepsTheLcpSolversOffTheStack) {
  if (kernel_compiler_id().empty()) GTEST_SKIP() << "built without CUDA: no NVRTC";
  const std::string source =
      "#include \"fivsim/cases/pinn_case.hpp\"\n"
      "extern \"C\" __global__ void tell(fivsim::PinnCase<fivsim::PinnSweepDims>* x, const double* loss, bool* more) "
      "{\n"
      "  more[threadIdx.x] = fivsim::pinn_case_tell(x[threadIdx.x], 0, loss[threadIdx.x]);\n"
      "}\n";
  CompiledKernel k;
  double seconds = 0.0;
  ASSERT_EQ(compile_kernel(source, "sm_90", k, seconds, KernelBuild::frames).error, "");
  const KernelResources r = k.resources["tell"];
  ASSERT_GE(r.stack_frame, 0) << k.log;
  EXPECT_LE(r.stack_frame, 2048);
  std::printf("tell sm_90: %ld bytes stack (%.1f s)\n", r.stack_frame, seconds);
}

TEST(SpecialisedKernel, AnErrorInTheSourceIsTheCompilersMessage) {
  if (kernel_compiler_id().empty()) GTEST_SKIP() << "built without CUDA: no NVRTC";
  CompiledKernel k;
  double seconds = 0.0;
  const DeviceOutcome out =
      compile_kernel("extern \"C\" __global__ void k() { undeclared(); }", "compute_90", k, seconds);
  EXPECT_NE(out.error.find("undeclared"), std::string::npos) << out.error;
  EXPECT_TRUE(k.image.empty());
}

TEST(SpecialisedKernel, PtxasReportsRegistersAndSpills) {
  if (kernel_compiler_id().empty()) GTEST_SKIP() << "built without CUDA: no NVRTC";
  // one module, two entries: one with little to hold, and one held to 32 registers (1024 threads,
  // two blocks a multiprocessor) while it keeps 64 doubles alive, which ptxas spills to the stack
  const std::string source =
      "extern \"C\" __global__ void small(double* x) { x[threadIdx.x] *= 2.0; }\n"
      "extern \"C\" __global__ void __launch_bounds__(1024, 2) tight(double* x) {\n"
      "  double v[64];\n"
      "#pragma unroll\n"
      "  for (int i = 0; i < 64; ++i) v[i] = x[i * 2048 + threadIdx.x];\n"
      "  double s = 0.0;\n"
      "#pragma unroll\n"
      "  for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i];\n"
      "#pragma unroll\n"
      "  for (int i = 0; i < 64; ++i) x[i * 2048 + threadIdx.x] = v[i] * s;\n"
      "}\n";
  CompiledKernel k;
  double seconds = 0.0;
  ASSERT_EQ(compile_kernel(source, "sm_90", k, seconds).error, "");
  ASSERT_EQ(k.resources.size(), 2u) << k.log;
  const KernelResources a = k.resources["small"], b = k.resources["tight"];
  EXPECT_GT(a.registers, 0);
  EXPECT_LT(a.registers, 32);
  EXPECT_EQ(a.spill_stores, 0);
  EXPECT_EQ(a.spill_loads, 0);
  EXPECT_EQ(a.stack_frame, 0);
  EXPECT_EQ(b.registers, 32);
  EXPECT_GT(b.spill_stores, 0);
  EXPECT_GT(b.spill_loads, 0);
  EXPECT_GE(b.stack_frame, b.spill_stores / 2);
  // PTX has not met ptxas
  CompiledKernel ptx;
  ASSERT_EQ(compile_kernel(source, "compute_90", ptx, seconds).error, "");
  EXPECT_TRUE(ptx.resources.empty());
}

TEST(KernelCache, TheKeyChangesWithEveryInput) {
  const std::string base = kernel_cache_key({"source", "sm_90", "nvrtc 13.0"});
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(base, kernel_cache_key({"source", "sm_90", "nvrtc 13.0"}));
  EXPECT_NE(base, kernel_cache_key({"source ", "sm_90", "nvrtc 13.0"}));
  EXPECT_NE(base, kernel_cache_key({"source", "sm_80", "nvrtc 13.0"}));
  EXPECT_NE(base, kernel_cache_key({"source", "sm_90", "nvrtc 13.1"}));
  // the same text split otherwise is another key
  EXPECT_NE(kernel_cache_key({"ab", "c"}), kernel_cache_key({"a", "bc"}));
}

TEST(KernelCache, ADamagedEntryIsNeverLoaded) {
  const fs::path folder = fs::path(::testing::TempDir()) / "fivsim_kernel_cache_test";
  fs::remove_all(folder);
  const std::string key = kernel_cache_key({"a kernel"});
  const std::string image("an image with\0 a zero byte\0", 27);
  EXPECT_FALSE(load_cached_kernel(folder, key));
  ASSERT_TRUE(store_cached_kernel(folder, key, image));
  ASSERT_EQ(load_cached_kernel(folder, key).value_or(""), image);
  // under another key, nothing
  EXPECT_FALSE(load_cached_kernel(folder, kernel_cache_key({"another kernel"})));
  const fs::path entry = folder / (key + ".kernel");
  const std::string whole = [&] {
    std::ifstream in(entry, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const auto write = [&](const std::string& text) { std::ofstream(entry, std::ios::binary | std::ios::trunc) << text; };
  // truncated, a byte of the image changed, a byte appended: each refused
  write(whole.substr(0, whole.size() - 3));
  EXPECT_FALSE(load_cached_kernel(folder, key));
  std::string changed = whole;
  changed[changed.size() - 5] ^= 1;
  write(changed);
  EXPECT_FALSE(load_cached_kernel(folder, key));
  write(whole + "x");
  EXPECT_FALSE(load_cached_kernel(folder, key));
  // compiled again and stored over it, it loads
  ASSERT_TRUE(store_cached_kernel(folder, key, image));
  EXPECT_EQ(load_cached_kernel(folder, key).value_or(""), image);
  // nothing but the entry is left in the folder
  long files = 0;
  for (const auto& e : fs::directory_iterator(folder)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
  fs::remove_all(folder);
}

TEST(KernelCache, TheFolderIsTheOptionThenTheEnvironment) {
  // the environment as it was, given back at the end
  const auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const std::optional<std::string> cache = saved("FIVSIM_KERNEL_CACHE"), xdg = saved("XDG_CACHE_HOME");
  ::unsetenv("FIVSIM_KERNEL_CACHE");
  EXPECT_EQ(kernel_cache_folder("/some/where").value_or(""), fs::path("/some/where"));
  EXPECT_FALSE(kernel_cache_folder("off"));
  ::setenv("FIVSIM_KERNEL_CACHE", "off", 1);
  EXPECT_FALSE(kernel_cache_folder(""));
  EXPECT_EQ(kernel_cache_folder("/given").value_or(""), fs::path("/given"));
  ::unsetenv("FIVSIM_KERNEL_CACHE");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(kernel_cache_folder("").value_or(""), fs::path("/xdg/fivsim/kernels"));
  ::unsetenv("XDG_CACHE_HOME");
  if (cache) ::setenv("FIVSIM_KERNEL_CACHE", cache->c_str(), 1);
  if (xdg) ::setenv("XDG_CACHE_HOME", xdg->c_str(), 1);
}

}  // namespace
}  // namespace fivsim::sweep
