// src/cli/cli_common.hpp — what the verbs of the fivsim tool share: loading a scenario with its
// overrides into a model, wall clocks, and the progress line on stderr (DESIGN.md §6).
#pragma once

#include <chrono>
#include <memory>

#include "commands.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim::cli {

using Clock = std::chrono::steady_clock;

struct LoadedScenario {
  Scenario scenario;
  std::unique_ptr<Model<HostDims>> model;
};

// file → overrides → validation → model; every failure is an InputError
LoadedScenario load_scenario(const ScenarioArgs& args);

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// "\r  t = 12.0 / 40 s (30%), 1.2e+06 steps/s, ETA 3 s" on stderr, when it is a terminal and the
// run takes longer than a second
class ProgressLine {
 public:
  ProgressLine(bool enabled, double t_end);
  void update(double t, long steps);
  void done();

 private:
  bool enabled_;
  double t_end_;
  Clock::time_point start_ = Clock::now();
  double last_ = 0.0;
  bool shown_ = false;
};

}  // namespace fivsim::cli
