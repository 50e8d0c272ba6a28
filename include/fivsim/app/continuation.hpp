// fivsim/app/continuation.hpp — `fivsim continue` and fivsim.continuation as one library call:
// the scenario's equilibria (steady sliding) or periodic orbits through stick-slip followed in one
// parameter by pseudo-arclength continuation (analysis/continuation.hpp), with their eigenvalues or
// Floquet multipliers, stability and the folds, Hopf, period-doubling, torus and grazing points on
// them. Equilibria are zeros of the exact switching model's vector field in the modes it takes
// there (integrate/switching_tangent.hpp switching_field); orbits are shot on a Poincaré section
// (integrate/switching_orbit.hpp), the first from a run of the scenario or from each family of
// stable orbits in a sweep's results, whose branches are followed together, the shots of their
// corrector iterations one batch over CPU threads (batch/orbit_shooter.hpp). The parameter
// is set by the sweep engine's plan (batch/sweep_plan.hpp), so that what is continued is the model
// a sweep runs. With a `curves` block each fold and period doubling of the orbits is followed in a
// second parameter (a minimally augmented system).
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

// the scenario document (overrides applied) continued as its `continuation` block says; the
// shots of the orbits' correctors on `device` (the CPU's on `threads` threads, 0: all cores). Bad input is
// an InputError naming the pointer
// `progress` (where set) hears of each finished branch of a sweep's starts: branches done of
// all, and their points so far
// the run's tables (branches, bifurcations, orbit points, curves) as groups of one HDF5 file, its
// report as the root's summary (batch/results_h5.hpp write_tables_h5); replaces `file`
void write_continuation_h5(const ContinuationRun& run, const std::filesystem::path& file);

// the paths a continuation reads besides its scenario (the sweep folder of "start": "sweep"), for
// the output's check against its inputs; the block's errors as run_continuation's
std::vector<std::filesystem::path> continuation_inputs(const nlohmann::json& document);

using ContinuationProgress = std::function<void(long done, long total, long points)>;
// where the orbits' shots run: CPU threads, or the GPU (a batch one launch)
enum class ShotDevice { cpu, cuda };
ContinuationRun run_continuation(const nlohmann::json& document, int threads = 0,
                                 const ContinuationProgress& progress = {}, ShotDevice device = ShotDevice::cpu);

}  // namespace fivsim
