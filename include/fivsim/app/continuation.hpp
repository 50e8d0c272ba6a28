// fivsim/app/continuation.hpp — `fivsim continue` and fivsim.continuation as one library call:
// the scenario's equilibria or periodic orbits followed in one parameter (analysis/continuation.hpp,
// docs/METHODS.md), with their stability and bifurcations, and each fold's, doubling's or Hopf
// point's curve in a second parameter. The block (docs/SCENARIOS.md):
//
//   "continuation": {"parameter": "/model/v0", "range": [1.0, 2.0], "direction": "up",
//                    "start": "equilibrium" | "orbit" | "sweep", "from": "runs/sweep_folder",
//                    "step": {"initial": 0.01, "min": 1e-7, "max": 0.05}, "tol": 1e-10, "max_points": 2000,
//                    "curves": {"parameter": "/model/v0", "range": [0.1, 0.8]}}
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "fivsim/io/output.hpp"

namespace fivsim {

struct ContinuationRun {
  std::string parameter;      // the JSON pointer continued
  nlohmann::json report;      // summary.json: the settings, the branch's end, every bifurcation
  NamedColumns branches;      // branches.csv: one row per point of the branch
  NamedColumns bifurcations;  // bifurcations.csv: a row per fold, Hopf, period-doubling, torus or grazing point
  NamedColumns orbit_points;  // orbit_points.csv (orbits only): every section crossing of each point's orbit
  NamedColumns curves;        // curves.csv (a `curves` block): the folds' and doublings' curves in a second parameter
};

// the run's tables (branches, bifurcations, orbit points, curves) as groups of one HDF5 file, its
// report as the root's summary (sweep/results_h5.hpp write_tables_h5); replaces `file`
void write_continuation_h5(const ContinuationRun& run, const std::filesystem::path& file);

// the paths a continuation reads besides its scenario (the sweep folder of "start": "sweep"), for
// the output's check against its inputs; the block's errors as run_continuation's
std::vector<std::filesystem::path> continuation_inputs(const nlohmann::json& document);

// hears of each finished branch of a sweep's starts: branches done of all, and their points so far
using ContinuationProgress = std::function<void(long done, long total, long points)>;
// where the orbits' shots run: CPU threads, or the GPU (a batch one launch)
enum class ShotDevice { cpu, cuda };
// the scenario document (overrides applied) continued as its `continuation` block says; the
// shots of the orbits' correctors on `device` (the CPU's on `threads` threads, 0: all cores). Bad
// input is an InputError naming the pointer
ContinuationRun run_continuation(const nlohmann::json& document, int threads = 0,
                                 const ContinuationProgress& progress = {}, ShotDevice device = ShotDevice::cpu);

}  // namespace fivsim
