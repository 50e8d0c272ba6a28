// src/cli/commands.hpp — the verbs of the fivsim tool (DESIGN.md §6).
#pragma once

#include <string>
#include <vector>

namespace fivsim::cli {

// exit codes: 0 ok, 1 an I/O or internal error, 2 bad input, 3 numerical failure of a run
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNumerical = 3;

struct ScenarioArgs {
  std::string scenario;
  std::vector<std::string> set;  // "/json/pointer=value" overrides, applied in order
};

struct RunArgs : ScenarioArgs {
  std::string out;  // empty: runs/<name>
  bool quiet = false;
};

int run_command(const RunArgs& args);
int validate_command(const ScenarioArgs& args);

}  // namespace fivsim::cli
