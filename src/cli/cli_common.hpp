// src/cli/cli_common.hpp — what the verbs of the fivsim tool share: loading a scenario with its
// overrides into a model, wall clocks, and the progress line on stderr (docs/DESIGN.md §6).
#pragma once

#include <chrono>
#include <memory>

#include "commands.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/io/scenario_run.hpp"

namespace fivsim::cli {

using Clock = std::chrono::steady_clock;

// file → overrides → validation → model; every failure is an InputError
LoadedScenario load_scenario(const ScenarioArgs& args);

// the folder a command writes: --out, or runs/<default_name>; made before the work starts, so that
// an --out fivsim may not replace is refused (InputError "--out", exit 2) or a folder another
// command writes is refused (its lock) before anything runs
inline std::filesystem::path output_folder(const std::string& out, const std::string& default_name) {
  return out.empty() ? std::filesystem::path("runs") / default_name : std::filesystem::path(out);
}

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// "\r  t = 12.0 / 40 s (30%), 1.2e+06 steps/s, ETA 3 s" (a run) or "\r  cases = 1.2e+04 / 1e+05
// (12%), 3.4e+09 case-steps/s, ETA 20 s" (a sweep) on stderr, when it is a terminal and the work
// takes longer than a second
class ProgressLine {
 public:
  ProgressLine(bool enabled, double total, const char* what, const char* unit, const char* rate_unit);
  // done of total, and the work (steps, case-steps) behind the rate
  void update(double done, double work);
  void set_total(double total) { total_ = total; }
  void done();

 private:
  bool enabled_;
  double total_;
  const char* what_;
  const char* unit_;
  const char* rate_unit_;
  Clock::time_point start_ = Clock::now();
  double last_ = 0.0;
  bool shown_ = false;
};

}  // namespace fivsim::cli
