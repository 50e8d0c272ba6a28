// src/cli/cli_common.cpp — scenario loading and the progress line (cli_common.hpp).
#include "cli_common.hpp"

#include <unistd.h>

#include <cstdio>

namespace fivsim::cli {

LoadedScenario load_scenario(const ScenarioArgs& args) {
  json doc = load_json_file(args.scenario);
  for (const auto& s : args.set) apply_override(doc, s);
  LoadedScenario out;
  out.scenario = parse_scenario(doc);
  out.model = std::make_unique<Model<HostDims>>();
  try {
    make_model(out.scenario.model, *out.model);
  } catch (const ModelError& e) {
    throw InputError("/model", e.what());
  }
  return out;
}

ProgressLine::ProgressLine(bool enabled, double t_end) : enabled_(enabled && ::isatty(2)), t_end_(t_end) {}

void ProgressLine::update(double t, long steps) {
  if (!enabled_ || (steps & 1023) != 0) return;
  const double now = seconds_since(start_);
  if (now < 1.0 || now - last_ < 0.2) return;
  last_ = now;
  const double frac = t / t_end_;
  std::fprintf(stderr, "\r  t = %.4g / %.4g s (%3.0f%%), %.3g steps/s, ETA %.0f s   ", t, t_end_, 100.0 * frac,
               steps / now, frac > 0 ? now * (1.0 - frac) / frac : 0.0);
  shown_ = true;
}

void ProgressLine::done() {
  if (shown_) std::fprintf(stderr, "\n");
}

}  // namespace fivsim::cli
