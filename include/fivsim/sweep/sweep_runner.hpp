// fivsim/sweep/sweep_runner.hpp — a whole sweep as the library runs it, for `fivsim sweep` and
// any other caller: the scenario's plan (one model plus N rows, sweep_plan.hpp), its cases in
// chunks shared out among the processes of the run (sweep_ranks.hpp), each chunk on the CPU or
// the CUDA backend (a part that runs out of device memory halved and retried), the files written
// in case order into a staging folder with a resume journal and a lock (sweep_journal.hpp), and
// summary.json (sweep_counts.hpp).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/kernel_options.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/sweep_ranks.hpp"

namespace fivsim::sweep {

enum class SweepDevice { automatic, cpu, cuda };

// the files of a sweep's tables: cases.csv and points.csv, results.h5 (results_h5.hpp), or both;
// automatic: both for fewer than kSweepCsvLimit cases, results.h5 alone from there on (a CSV of
// 10^7 cases is gigabytes that every reader has to parse)
enum class SweepFormat { automatic, csv, h5, both };
inline constexpr long kSweepCsvLimit = 1'000'000;

// what a test makes a sweep do that a real run would not
struct SweepHooks {
  long device_cases = 0;  // a backend part of more cases fails as if the device were out of memory
  // allocation failures injected at a launch's points (parse_injected_failures: "slot1:2,launch:3")
  std::string fail;
  long exit_after_chunks = 0;  // the process ends as kill -9 would once this many chunks are recorded
  int slow_rank = -1;          // this rank spends slow_ms more on each chunk (a slower device or node)
  long slow_ms = 0;
  bool prepare_ahead = false;  // the CPU backend prepares the next chunk while one runs, as CUDA does
  // "NAME:X.Y": the device found is a GPU of that compute capability, judged against this build's
  // architectures (one this build can run is refused: the hook stands in for a GPU it cannot)
  std::string stub_gpu;
};

// one case's decimated time series (/output/trajectories): t, the series in series_names() order,
// each contact's state code (ContactState)
struct SweepTrajectory {
  long index = 0;
  std::vector<std::string> names;  // of the series (series_names())
  std::vector<double> t;
  std::vector<std::vector<double>> values;  // per series, a value per kept step
  std::vector<std::vector<int>> states;     // per contact
};

// a sweep kept in memory (SweepOptions::tables): the columns of cases.csv and points.csv in case
// order, one vector per column, and the trajectories asked for
struct SweepTables {
  TableSchema cases_schema, points_schema;
  std::vector<std::vector<double>> cases, points;
  // points are kept (/output/points with an observer that records them)
  bool has_points() const { return !points.empty(); }
  std::vector<SweepTrajectory> trajectories;
  // SweepOptions::keep_residuals: per case, q[dof] − reference at each of the reference's samples
  // (/analysis/reference; NaN from the first sample a case did not reach)
  std::vector<std::vector<double>> residuals;
};

// the most CPU threads and cases per chunk a sweep takes (more threads than a machine's hardware
// threads only wait; a chunk of 2^21 cases already hides its overhead on any device)
inline constexpr int kMaxSweepThreads = 1024;
inline constexpr long kMaxSweepChunk = 1L << 21;

struct SweepOptions {
  std::string out;  // output folder; empty: runs/<name>, or runs/<name>.shard<i>of<N> for a shard
  // the files the sweep was read from: --out may not name a folder holding one of them
  std::vector<std::filesystem::path> inputs;
  SweepDevice device = SweepDevice::automatic;
  bool single_precision = false;
  long chunk = 0;   // cases per chunk, up to kMaxSweepChunk; 0: from the device's free memory, or 256 per CPU thread
  int threads = 0;  // CPU backend threads, up to kMaxSweepThreads; 0: all cores
  SweepFormat format = SweepFormat::automatic;
  bool deflate_real = false;  // results.h5: real columns shuffled and deflated too (whole numbers and words always are)
  int shard_index = -1, shard_count = 0;  // a shard runs the i-th of N contiguous case ranges
  bool resume = false;                    // continue the unfinished sweep in <out>.partial
  SweepHooks hooks;
  // rank 0, after each chunk is written: cases done in this run, of `total`, and their case-steps;
  // an exception thrown here ends the sweep and leaves run_sweep (a caller's way to stop it)
  std::function<void(double done, double total, double case_steps)> progress;
  // not null: the tables are kept here instead of written to files (no folder, journal, lock or
  // summary.json; out, format, shards and resume do not apply), in a single process
  SweepTables* tables = nullptr;
  // with tables and an /analysis/reference: each case's residual series kept too (tables->residuals),
  // on either backend; what a least-squares search differentiates
  bool keep_residuals = false;
  KernelOptions kernels;  // on the device: specialised belt kernels (compiled, cached) or the generic ones
};

// the exit codes a failure carries (the command line's): 1 an error, 2 bad input
inline constexpr int kSweepError = 1;
inline constexpr int kSweepBadInput = 2;

struct SweepOutcome {
  bool writer = false;        // this process wrote the files (the single process, or rank 0)
  std::filesystem::path out;  // empty for a sweep kept in memory
  nlohmann::json summary;     // what summary.json holds
  std::string warning;        // for the user: the lock that could not be taken, a GPU it could not use
};

// runs the sweep of a scenario document (overrides applied). The writer returns the summary of
// the files it committed; any other rank returns after its last chunk, with its failures handed to
// rank 0. On the writer bad input throws InputError (naming the JSON pointer, nothing written),
// another rank's failure RankFailure (with its exit code), anything else std::exception.
SweepOutcome run_sweep(const nlohmann::json& document, const SweepOptions& options, Ranks& ranks);

}  // namespace fivsim::sweep
