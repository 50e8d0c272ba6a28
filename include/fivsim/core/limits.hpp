// fivsim/core/limits.hpp — the most of each quantity fivsim takes: one table read by every
// command, `fivsim validate` and the Python API (README "What fivsim reads"). Beyond these a run would not
// end in a working day or its arrays would not fit in memory; below them every product that sizes
// an array (steps × samples, cases × columns) stays far from overflowing.
#pragma once

namespace fivsim {

// time steps of one run: /integrator/t_end over /integrator/dt
inline constexpr double kMaxSteps = 2.0e9;
// cases of one sweep (grid points × samples, or a random sweep's samples)
inline constexpr long kMaxSweepCases = 100'000'000;
// points of one continued branch or curve (/continuation/max_points)
inline constexpr long kMaxContinuationPoints = 1'000'000;
// samples a command holds in memory at once: `fivsim friction`'s t_end/dt, each run of
// `fivsim compare` (its series at the finest --dt)
inline constexpr double kMaxHeldSamples = 1.0e8;
// substeps of one `fivsim friction` sample (a dynamic law's bristle rate × dt)
inline constexpr double kMaxFrictionSubsteps = 1.0e6;
// identifications of one batch (each case's config is kept until its turn)
inline constexpr long kMaxIdentifications = 100'000;

}  // namespace fivsim
