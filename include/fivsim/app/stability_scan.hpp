// fivsim/app/stability_scan.hpp — `fivsim stability` and fivsim.stability as one library call:
// eigenvalues of the linearised steady-sliding system (analysis/stability.hpp) at each value of one
// scenario parameter, and the values where the largest real part crosses zero, refined by
// bisection (seed 000 Fig. 19). What stability.json and stability.csv hold.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/io/output.hpp"

namespace fivsim {

struct StabilityScan {
  std::string parameter;  // the JSON pointer scanned
  nlohmann::json report;  // stability.json: crossings, the critical value, a note, the scenario
  NamedColumns table;     // stability.csv: the value, max_real, consistent, re0, im0, …
};

// the scenario document (overrides applied) scanned over `parameter` (empty: the first coefficient
// of its friction law) at `linspace` = {start, stop, count}; bad input is an InputError naming the
// pointer, or "--param" / "--linspace" for the arguments
StabilityScan scan_stability(const nlohmann::json& document, std::string parameter,
                             const std::vector<double>& linspace);

}  // namespace fivsim
