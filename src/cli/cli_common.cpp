// src/cli/cli_common.cpp — scenario loading and the progress line (cli_common.hpp).
#include "cli_common.hpp"

#include <unistd.h>

#include <cstdio>

namespace fivsim::cli {

LoadedScenario load_scenario(const ScenarioArgs& args) {
  json doc = load_json_file(args.scenario);
  for (const auto& s : args.set) apply_override(doc, s);
  return build_scenario(doc);
}

ProgressLine::ProgressLine(bool enabled, double total, const char* what, const char* unit, const char* rate_unit)
    : enabled_(enabled && ::isatty(2)), total_(total), what_(what), unit_(unit), rate_unit_(rate_unit) {}

void ProgressLine::update(double done, double work) {
  if (!enabled_) return;
  const double now = seconds_since(start_);
  if (now < 1.0 || now - last_ < 0.2) return;
  last_ = now;
  const double frac = done / total_;
  std::fprintf(stderr, "\r  %s = %.4g / %.4g%s (%3.0f%%), %.3g %s, ETA %.0f s   ", what_, done, total_, unit_,
               100.0 * frac, work / now, rate_unit_, frac > 0 ? now * (1.0 - frac) / frac : 0.0);
  shown_ = true;
}

void ProgressLine::done() {
  if (shown_) std::fprintf(stderr, "\n");
  shown_ = false;
}

}  // namespace fivsim::cli
