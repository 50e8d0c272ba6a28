// fivsim/app/scenario_run.hpp — one scenario's simulation as `fivsim run` and fivsim.run (the
// Python module) do it: the document validated into a scenario and its model, the run with its
// kept rows handed to a sink as they come (the command line writes timeseries.csv from them, the
// module fills arrays), and what summary.json holds (docs/DESIGN.md §5).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/io/scenario.hpp"
#include "fivsim/io/timeseries_csv.hpp"

namespace fivsim {

// the document checked as every verb that reads it would (the scenario and model, and the sweep and
// continuation blocks where it has them, with the same limits), so that `fivsim validate` and
// fivsim.validate accept what the commands accept; every failure an InputError
LoadedScenario validate_document(const nlohmann::json& document);

// every 1024 steps: the time reached and the steps taken; an exception thrown here ends the run and
// leaves run_scenario (how a caller stops a long run, Ctrl-C in Python)
using RunProgress = std::function<void(double t, long steps)>;

struct ScenarioRunResult {
  bool complete = false;   // false: a numerical failure ended the run (the rows up to it were sent)
  nlohmann::json summary;  // what summary.json holds
  std::string failure;     // "<status>: <message> at t = <t>" when incomplete
};

// the scenario's simulation; rows go to `rows` when the scenario keeps a time series
// (/output/timeseries), progress to `progress` (either may be empty)
ScenarioRunResult run_scenario(const LoadedScenario& loaded, const RunRowSink& rows, const RunProgress& progress);

}  // namespace fivsim
