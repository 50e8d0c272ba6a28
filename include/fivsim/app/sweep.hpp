// fivsim/app/sweep.hpp — a sweep as the front ends start it (`fivsim sweep`, fivsim.sweep): the
// options as the user wrote them (device, precision, format, shard: parsed here, once, a bad one an
// InputError naming the option as that front end spells it), then the library's sweep runner
// (sweep/sweep_runner.hpp) over the document. Also the device names a grey-box search's options
// hold, read by the same parser.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/sweep_runner.hpp"

namespace fivsim {

using sweep::make_worker_exchange;
using sweep::RankFailure;
using sweep::Ranks;
using sweep::SweepHooks;
using sweep::SweepOutcome;
using sweep::SweepTables;

struct SweepRequest {
  nlohmann::json document;  // the scenario, its overrides applied
  std::string out;          // output folder; empty: runs/<name> (a shard's: runs/<name>.shard<i>of<N>)
  std::vector<std::filesystem::path> inputs;  // the files it was read from: --out may not hold them
  std::string device = "auto";                // auto | cpu | cuda
  std::string precision = "double";           // double | float
  std::string format = "auto";                // auto | csv | h5 | both
  std::string compression = "none";           // none | deflate: results.h5's real columns
  std::string shard;                          // "i/N": the i-th of N contiguous case ranges; empty: all
  long chunk = 0;                             // cases per chunk; 0: from the device's memory or the CPU's threads
  int threads = 0;                            // CPU threads; 0: all cores
  bool resume = false;                        // continue the unfinished sweep in <out>.partial
  std::string kernels = "specialised";        // specialised | generic: the device's kernels
  std::string kernel_cache;                   // compiled kernels' folder; "": the default, "off": none
  SweepHooks hooks;                           // what tests make a sweep do
  SweepTables* tables = nullptr;              // keep the tables in memory (fivsim.sweep) instead of files
  std::function<void(double done, double total, double case_steps)> progress;
  // how errors name the options: "--device" (the command line) or "device" (Python's keywords)
  std::string option_prefix = "--";
};

// "auto" | "cpu" | "cuda" as a sweep device; anything else an InputError naming `option`
sweep::SweepDevice parse_sweep_device(const std::string& name, const std::string& option);

// the request's options checked and the sweep run (under mpirun on every rank, rank 0 the writer)
SweepOutcome run_sweep_request(const SweepRequest& request, Ranks& ranks);

}  // namespace fivsim
