// fivsim/app/continuation.hpp — `fivsim continue` and fivsim.continuation as one library call:
// the scenario's equilibria (steady sliding) or periodic orbits through stick-slip followed in one
// parameter by pseudo-arclength continuation (analysis/continuation.hpp), with their eigenvalues or
// Floquet multipliers, stability and the folds, Hopf, period-doubling, torus and grazing points on
// them. Equilibria are zeros of the exact switching model's vector field in the modes it takes
// there (integrate/switching_tangent.hpp switching_field); orbits are shot on a Poincaré section
// (integrate/switching_orbit.hpp), the first from a run of the scenario or from each family of
// stable orbits in a sweep's results, whose branches run side by side on CPU threads. The parameter
// is set by the sweep engine's plan (batch/sweep_plan.hpp), so that what is continued is the model
// a sweep runs.
//
//   "continuation": {"parameter": "/model/v0", "range": [1.0, 2.0], "direction": "up",
//                    "start": "equilibrium" | "orbit" | "sweep", "from": "runs/sweep_folder",
//                    "step": {"initial": 0.01, "min": 1e-7, "max": 0.05}, "tol": 1e-10, "max_points": 2000}
#pragma once

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
};

// the scenario document (overrides applied) continued as its `continuation` block says; the
// branches of a sweep's starts side by side on `threads` CPU threads (0: all cores). Bad input is
// an InputError naming the pointer
ContinuationRun run_continuation(const nlohmann::json& document, int threads = 0);

}  // namespace fivsim
