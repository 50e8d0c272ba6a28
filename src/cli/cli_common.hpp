// src/cli/cli_common.hpp — what the verbs of the fivsim tool share: loading a scenario with its
// overrides into a model, wall clocks, and the progress line on stderr (docs/DESIGN.md §6).
#pragma once

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <utility>

#include "commands.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/app/scenario_run.hpp"
#include "fivsim/core/stopwatch.hpp"

namespace fivsim::cli {

using Clock = std::chrono::steady_clock;

// file → overrides → validation → model; every failure is an InputError
LoadedScenario load_scenario(const ScenarioArgs& args);

// body() with its failures as the exit codes of commands.hpp: bad input (an InputError) 2, a
// sweep rank's failure its own, any other failure 1, each handed to fail(code, message), which
// says it and gives the code to exit with. Every verb runs through it
template <class Body, class Fail>
int exit_code_of(Body&& body, Fail&& fail) {
  try {
    return body();
  } catch (const InputError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const RankFailure& e) {
    return fail(e.exit_code, e.what());
  } catch (const std::exception& e) {
    return fail(kExitError, e.what());
  }
}
// ... each failure said on stderr as "fivsim <verb>: …"
template <class Body>
int exit_code_of(const char* verb, Body&& body) {
  return exit_code_of(std::forward<Body>(body), [verb](int code, const char* message) {
    std::fprintf(stderr, "fivsim %s: %s\n", verb, message);
    return code;
  });
}

// "\r  t = 12.0 / 40 s (30%), 1.2e+06 steps/s, ETA 3 s" (a run) or "\r  cases = 1.2e+04 / 1e+05
// (12%), 3.4e+09 case-steps/s, ETA 20 s" (a sweep) on stderr, when it is a terminal and the work
// takes longer than a second
class ProgressLine {
 public:
  ProgressLine(bool enabled, double total, const char* what, const char* unit, const char* rate_unit);
  // a line still shown (the work failed) is ended, so that the message starts a line of its own
  ~ProgressLine() { done(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
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
