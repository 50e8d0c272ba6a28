// tests/cases/prepared_sweep.hpp — a scenario file's sweep prepared as `fivsim sweep` prepares one
// chunk of it (plan, shared setup, the chunk's cases, observers, step options), for the tests that
// run the CPU backend's runners on it and compare them.
#pragma once

#include <memory>
#include <string>

#include "fivsim/batch/sweep.hpp"

namespace fivsim::batch {

inline json scenario_file(const std::string& file) { return load_json_file(FIVSIM_SOURCE_DIR "/scenarios/" + file); }

// every case of the sweep in one chunk, in instantiation D (single: the float step options)
template <class D>
struct PreparedSweep {
  Scenario base;
  SweepSpec spec;
  std::unique_ptr<SweepPlan> plan;
  std::unique_ptr<SweepShared<D>> shared;
  PreparedCases<D> cases;
  SweepAnalysis an;
  StepOptions opt;
  PreparedSweep(const json& doc, bool single) {
    base = parse_scenario(doc);
    spec = parse_sweep(doc);
    plan = std::make_unique<SweepPlan>(base, spec);
    an = sweep_analysis(base);
    opt = sweep_step_options(base, single);
    shared = std::make_unique<SweepShared<D>>(*plan, opt.stick_tol);
    prepare_cases(*plan, *shared, 0, spec.n_cases(), cases);
  }
};

}  // namespace fivsim::batch
