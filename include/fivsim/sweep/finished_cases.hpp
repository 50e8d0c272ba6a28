// fivsim/sweep/finished_cases.hpp — the cases table of a finished sweep folder read back as named
// columns (results.h5 where it holds one, else cases.csv), for the passes that run over a sweep's
// cases once they are written: its basins (sweep/basins.hpp) and the starts of a continuation.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fivsim::sweep {

// columns of the cases table by their names in cases.csv; "class" as the CaseClass code (with
// "period_n" beside it)
using NamedColumns = std::map<std::string, std::vector<double>>;

// the cases table of a finished sweep folder (results.h5 where it holds one, else cases.csv), "class"
// as its CaseClass code; `only`, where not empty, names the columns read; throws std::runtime_error
// where the folder has neither
NamedColumns read_sweep_cases(const std::filesystem::path& dir, const std::vector<std::string>& only = {});

}  // namespace fivsim::sweep
