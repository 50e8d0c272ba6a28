// src/cli/commands.hpp — the verbs of the fivsim tool (docs/DESIGN.md §6).
#pragma once

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/app/sweep.hpp"

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

struct CompareArgs : ScenarioArgs {
  std::string methods = "moreau,rk4lcp,irk4,irk10,switching";
  std::string dt;       // comma-separated; empty: the scenario's dt
  std::string out;      // empty: runs/<name>_compare
  double window = 0.0;  // transition pairing window (s); 0: from the reference's event spacing
  bool series = false;  // also write every run's time series
  bool quiet = false;
};

struct StabilityArgs : ScenarioArgs {
  std::string param;                               // JSON pointer; empty: the friction coefficient
  std::vector<double> linspace = {0.0, 1.5, 151};  // start stop count
  std::string out;                                 // empty: runs/<name>_stability
};

struct ContinueArgs : ScenarioArgs {
  std::string out;             // empty: runs/<name>_continuation
  int threads = 0;             // the CPU threads that run the orbits' shots (0: all cores)
  std::string device = "cpu";  // where the orbits' shots run: cpu or cuda
  bool quiet = false;
};

struct SweepArgs : ScenarioArgs {
  SweepRequest request;  // --out, --device, --precision, --format, --chunk, --threads, --shard, --resume
  bool quiet = false;
  bool verbose = false;  // the host's time stage by stage
};

struct MergeArgs {
  std::vector<std::string> shards;  // output folders of `fivsim sweep --shard i/N`
  std::string out;
};

struct IdentifyArgs {
  std::string config;            // identification JSON file
  std::vector<std::string> set;  // "/json/pointer=value" overrides of the config
  std::string out;               // empty: runs/<name>
};

struct FrictionArgs : ScenarioArgs {
  double amplitude = std::numeric_limits<double>::quiet_NaN();  // NaN: torsion_pendulum's /model/input
  double f_hz = std::numeric_limits<double>::quiet_NaN();
  double t_end = 0.0;  // 0: two periods
  double dt = 0.0;     // 0: a 2000th of a period
  int contact = 0;
  std::string out;  // empty: runs/<name>_friction
};

int run_command(const RunArgs& args);
int friction_command(const FrictionArgs& args);
int identify_command(const IdentifyArgs& args);
int sweep_command(const SweepArgs& args);
int merge_command(const MergeArgs& args);
int stability_command(const StabilityArgs& args);
int continue_command(const ContinueArgs& args);
int compare_command(const CompareArgs& args);
int validate_command(const ScenarioArgs& args);

}  // namespace fivsim::cli
