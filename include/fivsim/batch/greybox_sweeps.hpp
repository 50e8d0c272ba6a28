// fivsim/batch/greybox_sweeps.hpp — a grey-box search's populations scored by the sweep engine
// (seed 002 §3.3.2, output error): one sweep per generation, its cases the candidates (zip over the
// parameters' JSON pointers), each case reduced by the output_error observer
// (analysis/observers.hpp) to the RMS of x − record over the record's samples, on the CPU backend
// or on the GPU. No trajectory is stored; the same per-case code runs on both backends.
#pragma once

#include <string>

#include "fivsim/batch/sweep_runner.hpp"
#include "fivsim/identify/identification.hpp"

namespace fivsim::batch {

// "auto" | "cpu" | "cuda" (an options.device) as a sweep device
SweepDevice sweep_device(const std::string& name);

// sets config.population_error (a grey-box search of a model scenario's numbers, whose genetic
// generations use it; nothing otherwise) to one sweep per call on `device`; `threads` CPU threads
// (0: all cores)
void score_populations_by_sweeps(IdentifyConfig& config, SweepDevice device = SweepDevice::automatic, int threads = 0);

}  // namespace fivsim::batch
