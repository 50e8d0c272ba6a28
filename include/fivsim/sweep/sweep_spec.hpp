// fivsim/sweep/sweep_spec.hpp — the `sweep` block of a scenario (docs/DESIGN.md §4): which numbers of
// the scenario vary, and the value of every swept number for any case index.
//
//   "sweep": {"mode": "grid" | "zip" | "random",
//             "parameters": [{"path": "/model/Fn", "linspace": [1, 30, 30]},
//                            {"path": "/model/v0", "values": [0.2, 0.5]}],
//             "samples": 1000000, "seed": 1}          (samples and seed: random mode, or grid with ranges)
// grid is the Cartesian product with the last parameter varying fastest; zip pairs the i-th
// values of parameters of equal length; random draws each parameter of each case independently
// from `range` [a, b] (uniform), `logrange` [a, b] (log-uniform) or `values` (one of them). In grid
// mode, parameters with a range are drawn `samples` times at each point of the others' grid (its
// draws consecutive cases: a basin sweep's initial conditions at each parameter value). A random
// value depends only on (seed, case, parameter), so chunking never changes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fivsim/core/limits.hpp"
#include "fivsim/io/json_reader.hpp"

namespace fivsim {

enum class SweepMode { grid, zip, random };

struct SweepParameter {
  std::string path;            // JSON pointer into the scenario
  std::vector<double> values;  // values / linspace / logspace, expanded (grid, zip, random choice)
  bool draw_range = false;     // random, or grid with samples: uniform in [lo, hi] (of log10 when log_range)
  bool log_range = false;
  double lo = 0.0, hi = 0.0;
};

struct SweepSpec {
  SweepMode mode = SweepMode::grid;
  std::vector<SweepParameter> parameters;
  long samples = 0;   // random: number of cases; grid: draws of the range parameters a grid point (0: none)
  uint64_t seed = 0;  // random

  long n_cases() const;
  // the value of every parameter for case `index` (0 ≤ index < n_cases), in parameter order
  void case_values(long index, std::vector<double>& out) const;
};

inline constexpr long kSweepMaxCases = kMaxSweepCases;  // core/limits.hpp

// parses doc["sweep"]; every rejection is an InputError naming its pointer
SweepSpec parse_sweep(const json& doc);

// the scenario of one case: the document with the case's values written at their paths
void apply_sweep_values(const SweepSpec& spec, const std::vector<double>& values, json& doc);

}  // namespace fivsim
