// fivsim/sweep/greybox_sweeps.hpp — a grey-box search's populations scored by the sweep engine
// (seed 002 §3.3.2, output error): one sweep per batch of candidates (a generation, an iteration),
// its cases the candidates (zip over the parameters' JSON pointers), each case reduced by the
// output_error observer (analysis/observers.hpp) to the RMS of x − record over the record's
// samples, on the CPU backend or on the GPU; for a least-squares search each case also keeps its
// residual series (SweepOptions::keep_residuals). No trajectory is stored; the same per-case code
// runs on both backends.
#pragma once

#include <string>

#include "fivsim/sweep/sweep_runner.hpp"
#include "fivsim/identify/identification.hpp"

namespace fivsim::sweep {

// sets config.population_error and config.population_residuals (a grey-box search of a model
// scenario's numbers, whose batches of candidates use them; nothing otherwise) to one sweep per
// call on `device`; `threads` CPU threads (0: all cores)
void score_populations_by_sweeps(IdentifyConfig& config, SweepDevice device = SweepDevice::automatic, int threads = 0);

}  // namespace fivsim::sweep
