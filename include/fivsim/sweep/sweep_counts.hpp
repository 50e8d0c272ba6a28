// fivsim/sweep/sweep_counts.hpp — what a chunk of a sweep adds to its summary (case-steps, times,
// classes, statuses, PINN trainings, device-memory halvings), kept per chunk in the resume
// manifest, and the totals of a whole sweep or of its merged shards as summary.json reports them:
// `fivsim sweep` and `fivsim merge` write them through the same code.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "fivsim/integrate/pinn_step.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::sweep {

struct ChunkCounts {
  double case_steps = 0.0;
  double compute_s = 0.0;  // the backend's own time (device events on CUDA, wall time on the CPU)
  double setup_s = 0.0;    // preparing the chunk's cases on the host
  // the host's time in the backend's launches (on the CPU: the stepping too), waiting for their
  // results (on a device: the kernel's end and the copies back), and making the chunk's columns and
  // counts
  double launch_s = 0.0, wait_s = 0.0, columns_s = 0.0;
  std::map<std::string, long> classes, status;
  long memory_halvings = 0;
  bool has_pinn = false;  // a PINN sweep: its trainings
  PinnTotals pinn;

  void add(const ChunkCounts& o);
};

using fivsim::pinn_totals_json;  // io/output.hpp

// a chunk's counts as the manifest keeps them, and back; from_json is false for anything to_json
// would not write (a hand-edited manifest: a fractional count, a missing field), before any of it
// is used
nlohmann::json to_json(const ChunkCounts& c);
bool from_json(const nlohmann::json& j, ChunkCounts& c);

// the counts of summary.json: a sweep's chunks added up, or its shards'
struct SweepTotals {
  long cases = 0;
  long chunks = 0;
  ChunkCounts counts;
  double wall_s = 0.0;
  double write_s = 0.0;           // the writer's time on the chunks' files and manifest (their fsyncs too)
  double case_steps_per_s = 0.0;  // the stepping rate: the sum of the ranks' (or shards') own rates
  nlohmann::json ranks = nlohmann::json::array();  // what each process ran
};

// writes the totals' fields into a summary: cases, chunks, case_steps, wall_s, setup_s, stages,
// compute_s, case_steps_per_s, end_to_end_case_steps_per_s, ranks, memory_halvings (when any),
// classes, status, the PINN training counts, and, where the summary's "scenario" sweeps initial
// conditions alone, basin_stability: each class's fraction of the cases with its standard error
void write_totals(const SweepTotals& t, nlohmann::json& summary);
// the totals of a summary.json that write_totals wrote (json::exception when a field is missing)
SweepTotals read_totals(const nlohmann::json& summary);

}  // namespace fivsim::sweep
