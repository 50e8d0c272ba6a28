// fivsim/app/continuation.hpp — `fivsim continue` and fivsim.continuation as one library call: a
// branch of the scenario's equilibria (steady sliding) followed in one parameter by pseudo-arclength
// continuation (analysis/continuation.hpp), with their eigenvalues, stability and the folds and
// Hopf points on it — where a stick-slip cycle is born. The equilibria are zeros of the exact
// switching model's vector field in the modes it takes there (integrate/switching_tangent.hpp
// switching_field), the parameter set by the sweep engine's plan (batch/sweep_plan.hpp), so that
// what is continued is the model a sweep runs.
//
//   "continuation": {"parameter": "/model/v0", "range": [1.0, 2.0], "direction": "up",
//                    "start": "equilibrium", "step": {"initial": 0.01, "min": 1e-7, "max": 0.05},
//                    "tol": 1e-10, "max_points": 2000}
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

// the scenario document (overrides applied) continued as its `continuation` block says; bad input
// is an InputError naming the pointer
ContinuationRun run_continuation(const nlohmann::json& document);

}  // namespace fivsim
