// fivsim/io/continuation_block.hpp — the `continuation` block of a scenario as `fivsim continue`
// reads it: the parameter and its range, the start (equilibrium, orbit, or a sweep's families of
// orbits), the shooting, the arclength steps and tolerances, the curves in a second parameter
// (docs/SCENARIOS.md; the method: docs/METHODS.md "`fivsim continue`").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fivsim/analysis/continuation.hpp"

namespace fivsim {

// the branch options (settings, curve_settings, doublings, multiple) and where the branches start
struct ContinuationBlock : BranchOptions {
  std::string parameter;
  double lo = 0.0, hi = 0.0;
  int direction = 1;
  bool orbit = false;        // start "orbit" or "sweep": periodic orbits, else an equilibrium
  std::string from;          // start "sweep": the sweep's results folder, a branch from each family of its orbits
  int period_n = 1;          // the orbit's period in break-away crossings
  double settle = 0.0;       // seconds of the run before its first shot (0: the scenario's t_transient)
  long at_once = 0;          // start "sweep": branches followed together, their shots one batch (0: all)
  std::string second;        // "curves": the second parameter of the bifurcations' curves
  double second_base = 0.0;  // its value in the scenario, where each curve starts
};

// the block of `doc` (overrides applied) checked; every rejection an InputError naming its pointer
ContinuationBlock parse_continuation_block(const nlohmann::json& doc);

}  // namespace fivsim
