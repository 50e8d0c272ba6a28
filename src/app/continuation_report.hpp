// src/app/continuation_report.hpp — what `fivsim continue` found, and its tables and summary
// (branches, bifurcations, orbit points, curves: app/continuation.hpp ContinuationRun).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/analysis/branch_tree.hpp"
#include "fivsim/app/continuation.hpp"
#include "fivsim/io/continuation_block.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {

// a branch's start in a sweep's results: the middle case of a family of cases on stable periodic
// orbits (neighbours in the continued parameter, the other swept values equal, the same N)
struct SweepStart {
  long case_id = 0;
  double p = 0.0;
  int period_n = 1;
  long cases = 0;           // the family's
  nlohmann::json document;  // the scenario with the case's other swept values
};

// the shots a continuation ran and the batches they ran in
struct ShotCounts {
  long shots = 0, batches = 0;
};

struct ContinuationFound {
  std::vector<FollowedBranch> followed;
  std::vector<SweepStart> starts;   // "start": "sweep"
  std::vector<ContactState> modes;  // equilibria: the first point's modes
  int conditions = 0;               // an orbit's section conditions: its multipliers are the state's size less these
  ShotCounts counts;
  double wall_s = 0.0;
};

// the tables and summary of what the block `b` of `document` (scenario `sc`) found
ContinuationRun continuation_run(const nlohmann::json& document, const Scenario& sc, const ContinuationBlock& b,
                                 const ContinuationFound& found, ShotDevice device, int threads);

}  // namespace fivsim
