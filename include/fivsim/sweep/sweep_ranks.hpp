// fivsim/sweep/sweep_ranks.hpp — how the chunks of one sweep are shared out among processes. A
// single process takes its chunks in order. Under mpirun (a build with FIVSIM_MPI), rank 0 hands
// chunk ranges out on request: a rank asks for the next range when it has finished one, so a slow
// rank holds up nobody. Every rank runs its chunks and sends back their columns; rank 0 writes
// them in case order, so the files equal those of a single process.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/sweep_counts.hpp"

namespace fivsim::sweep {

struct ChunkRange {
  long first = 0, n = 0;  // cases [first, first + n)
};

// one chunk's columns and counts on their way to the files
struct ChunkOutput {
  long first = 0, n = 0;
  int rank = 0;                   // the process that ran it
  ColumnBlock cases, points;      // result_table.hpp
  std::vector<double> residuals;  // SweepOptions::keep_residuals (a single process): per case, in order
  ChunkCounts counts;
};

// a rank's failure as rank 0 reports it: the exit code it asked for and its message
struct RankFailure : std::runtime_error {
  RankFailure(int code, const std::string& what) : std::runtime_error(what), exit_code(code) {}
  int exit_code;
};

// the processes of this run: this one alone, or those mpirun (or srun) started
class Ranks {
 public:
  // joins MPI when the launcher's environment says so; throws std::runtime_error when started by a
  // launcher with several processes in a build without MPI
  Ranks();
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among the ranks on this node (picks the GPU)
  // collective (every rank calls it, in the same order as the others): how many ranks of this
  // node passed the same key, this one included; 1 in a single process
  int node_ranks_with(const std::string& key) const;
  std::string host() const;
  // rank 0 after a failure before the chunks were handed out: answers each waiting rank "stop"
  void release_workers();
  // set by rank 0's exchange once it has sent every other rank its stop
  void mark_released() { released_ = true; }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool mpi_ = false, released_ = false;
};

// what a rank's loop asks for and hands back
class ChunkExchange {
 public:
  virtual ~ChunkExchange() = default;
  // the next range to run, or none: the sweep is done or has failed (and none from then on)
  virtual std::optional<ChunkRange> next() = 0;
  virtual void done(ChunkOutput&& out) = 0;
  // this rank failed (exit code, message): the others stop after their current chunk
  virtual void fail(int code, const std::string& message) = 0;
  // rank 0: waits until every rank has stopped; throws RankFailure for another rank's failure or
  // rethrows the writer's exception
  virtual void finish() = 0;
  // rank 0: what each rank said about itself (host, backend, device, threads), by rank
  virtual std::vector<nlohmann::json> about_ranks() const = 0;
};

// rank 0 (or the single process): hands out [start, end) in ranges of `chunk` cases and calls
// `write` with the outputs in case order (one at a time, from whichever thread received them)
std::unique_ptr<ChunkExchange> make_writer_exchange(Ranks& ranks, long start, long end, long chunk,
                                                    nlohmann::json about, std::function<void(ChunkOutput&&)> write);
// every other rank: asks rank 0 for ranges and sends it the outputs
std::unique_ptr<ChunkExchange> make_worker_exchange(Ranks& ranks, nlohmann::json about);

}  // namespace fivsim::sweep
