// tests/cli/sweep_test_util.hpp — what the sweep command's tests share: the short load sweep of
// the 2-DoF chain, results.h5's tables rendered as CSV (equal text: equal values), and a sweep
// killed after some chunks.
#pragma once

#include <cstdlib>
#include <string>

#include "cli/cli_test_util.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/results_h5.hpp"

namespace fivsim_test {

// a short load sweep of the 2-DoF chain: 24 loads, 30 s
inline const std::string kShortLoadSweep =
    " --set /integrator/t_end=30 --set /analysis/t_transient=10 --set '/sweep/parameters/0/linspace=[1,30,24]' -q";

// a results.h5 table rendered as the CSV writer renders its rows: equal text means equal values
inline std::string h5_as_csv(const fs::path& file, const std::string& group) {
  const fivsim::sweep::H5TableData d = fivsim::sweep::read_results_h5(file, group);
  std::string text = fivsim::sweep::csv_header(d.schema);
  fivsim::sweep::csv_rows(d.schema, d.rows, text);
  return text;
}

// a sweep ended after k recorded chunks the way kill -9 ends it (FIVSIM_SWEEP_EXIT_AFTER_CHUNKS:
// _Exit, no destructors, no flush), to be `--resume`d
inline Result run_killed_after(const std::string& args, int chunks) {
  ::setenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS", std::to_string(chunks).c_str(), 1);
  const Result r = run_fivsim(args);
  ::unsetenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS");
  return r;
}

}  // namespace fivsim_test
