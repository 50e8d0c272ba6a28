// fivsim/sweep/sweep_context.hpp — what every rank of a sweep knows before its first chunk (the
// options, the scenario, its plan, the device and the cases it runs) and what every chunk shares
// (the per-case analysis, step options, table layout and PINN settings); how summary.json
// describes a rank and the run's settings; one case's trajectory (sweep/sweep_runner.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/sweep.hpp"
#include "fivsim/sweep/sweep_runner.hpp"
#include "fivsim/core/cuda_device.hpp"

namespace fivsim::sweep {

// what every rank knows of the sweep before its first chunk
struct RunContext {
  const SweepOptions& options;
  const Scenario& base;
  const SweepSpec& spec;
  const SweepPlan& plan;
  bool cuda = false;
  bool single = false;
  CudaDeviceInfo device;
  int device_ranks = 1;  // the ranks of this node on this process's device, this one included
  Ranks& ranks;
  // the cases this process runs: all, or one shard [first_case, end_case)
  long first_case = 0, end_case = 0;
  // the writer's progress within a running CPU chunk (cases of it finished); empty elsewhere
  std::function<void(long done)>* chunk_progress = nullptr;
  // why `--device auto` runs on the CPU beside a GPU it cannot use ("" otherwise)
  std::string device_fallback;
  bool runge_kutta() const { return method_has_step_map(base.integrator.spec()); }
  bool pinn() const { return base.integrator.spec().kind == MethodKind::pinn; }
};

// what every chunk shares: the per-case analysis, the step options, the table layout and, for the
// PINN methods, the stepper settings and stage table
struct ChunkSettings {
  SweepAnalysis an;
  StepOptions opt;
  int nq = 0, nc = 0;
  CaseTableLayout layout;
  PinnStepSettings pinn_set;
  std::vector<double> stages;
  StageTable<double> tab;  // over `stages`
  double pinn_block_bytes = 0.0;

  explicit ChunkSettings(const RunContext& ctx);
  ChunkSettings(const ChunkSettings&) = delete;
  ChunkSettings& operator=(const ChunkSettings&) = delete;
};

// what a rank says about itself in summary.json
nlohmann::json rank_about(const RunContext& ctx);

// the run's settings in summary.json: scenario, method, device, observers, section, the
// classification's and the exponent's settings
void describe_sweep(const RunContext& ctx, const ChunkSettings& set, nlohmann::json& summary);

// what the sweep engine runs, checked before its plan: InputError naming the pointer otherwise
void check_sweepable(const Scenario& base);

// the device of this rank (--device auto or cuda): its own GPU on a node, the CPU where a GPU
// cannot run the build's kernels or the rank's cases are too few for it; --device cuda without
// one is an InputError
void choose_device(RunContext& ctx);

// the decimated time series of one case, run on the host with the scenario's stepper
SweepTrajectory case_trajectory(const RunContext& ctx, long index);

}  // namespace fivsim::sweep
