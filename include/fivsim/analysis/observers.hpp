// fivsim/analysis/observers.hpp — what a sweep reduces each case to (the scenario's
// analysis.observers, docs/SCENARIOS.md), as bits: each adds its columns to cases.csv and its work
// to every step, and the case runner (cases/case_runner.hpp) does only what is asked.
#pragma once

#include "fivsim/core/config.hpp"

namespace fivsim {

// classification (class, period_n, period) needs min/max and transitions
enum : unsigned {
  kObserveRms = 1u,           // rms_ of every series (always on)
  kObserveMinMax = 2u,        // min_, max_ of every series and the largest change over one step
  kObserveTransitions = 4u,   // stick/slip/separation events: n_transitions and the transition points
  kObservePoincare = 8u,      // the Poincaré section: n_section and its samples
  kObserveFractions = 16u,    // time fractions per contact state
  kObserveLcpResidual = 32u,  // the largest LCP residual
  kObserveOutputError = 64u,  // q[dof] against a reference series at every step (output_rmse; grey-box searches)
  // after the run, the exact periodic orbit shot from the last section sample (cases/case_orbit.hpp):
  // orbit_* columns, and the class where a stable orbit is found
  kObserveOrbit = 128u,
};
inline constexpr unsigned kObserveLean = kObserveRms;
inline constexpr unsigned kObserveStatistics = kObserveRms | kObserveMinMax;
// every observer of a bifurcation diagram: all but the output error of grey-box searches
inline constexpr unsigned kObserveBifurcation =
    kObserveRms | kObserveMinMax | kObserveTransitions | kObservePoincare | kObserveFractions | kObserveLcpResidual;
// batch means of the Lyapunov estimate (one a cycle between section samples) that a class may rest on
inline constexpr long kLyapunovMinBlocks = 16;
// the batch means an adaptive case waits for before it stops as chaotic (analysis.lyapunov.window):
// transient chaos fools a short window (on the chain's class map, 7 of 22 cells stopped as chaotic
// after 16–44 blocks settle on periodic orbits in 40 000 s runs; BENCHMARKS.md)
inline constexpr long kChaosWindow = 256;
FIVSIM_HD constexpr bool observes_class(unsigned observers) {
  return (observers & kObserveMinMax) && (observers & kObserveTransitions);
}
// whether cases keep point rings
FIVSIM_HD constexpr bool observes_points(unsigned observers) {
  return (observers & (kObserveTransitions | kObservePoincare)) != 0;
}

// the names of the observers in the scenario file, bit by bit
inline constexpr int kObserverCount = 8;
inline constexpr const char* kObserverNames[kObserverCount] = {
    "rms", "min_max", "transitions", "poincare", "contact_fractions", "lcp_residual", "output_error", "orbit"};

}  // namespace fivsim
