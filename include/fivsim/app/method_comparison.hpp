// fivsim/app/method_comparison.hpp — `fivsim compare` and fivsim.compare as one library call: every
// method × dt against the event-driven reference, as seed 000 Tables 2–3 and seed 001 Tables 1–2
// do (docs/DESIGN.md §5): RMS of each series and its error, transition matching (the seed's × for a
// missed transition), the RMS of the displacement at stick-slip transitions, dominant frequencies,
// cost. What compare.json, compare.csv and compare.md hold, and each run's time series on request.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/io/output.hpp"
#include "fivsim/app/scenario_run.hpp"

namespace fivsim {

struct ComparisonOptions {
  std::string methods = "moreau,rk4lcp,irk4,irk10,switching";  // method labels, comma-separated
  std::string dt;                                              // step sizes, comma-separated; empty: the scenario's dt
  double window = 0.0;  // transition pairing window (s); 0: from the reference's event spacing
  // each run's time series, every step: a sink per run ("reference", or "<label>_dt<dt>"), or
  // empty when not kept
  std::function<RunRowSink(const std::string& run)> series;
  // a line for the user as each run starts and ends; an exception thrown here stops the comparison
  std::function<void(const std::string& text)> say;
};

struct Comparison {
  bool reference_ok = true;  // false: the reference failed (failure says how) and nothing else ran
  std::string failure;
  nlohmann::json report;  // compare.json
  NamedColumns table;     // compare.csv: a row per run, the reference first
  std::string markdown;   // compare.md: the seeds' table layout
};

// the methods and step sizes are checked before any run: bad ones are an InputError naming
// "--methods", "--dt" or "--window" (the scenario's own faults name their pointers)
Comparison compare_methods(const LoadedScenario& loaded, const ComparisonOptions& options);

}  // namespace fivsim
