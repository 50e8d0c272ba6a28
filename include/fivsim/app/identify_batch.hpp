// fivsim/app/identify_batch.hpp — an identification config with a `sweep` block as a batch: one
// identification per case (the config with the case's numbers written at their JSON pointers,
// sweep/sweep_spec.hpp), e.g. the seed 003 noise study (Table 6) or a record per generating
// frequency, friction level or noise seed. What `fivsim identify` writes as identifications.csv and
// summary.json, and fivsim.identify_batch hands back. Every case's config is checked before the
// first runs (a bad one is an InputError naming the case and pointer); a case whose record or
// identification fails at run time is flagged in its row and the others go on.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/sweep_spec.hpp"
#include "fivsim/core/limits.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim {

struct IdentifyBatch {
  nlohmann::json document;
  SweepSpec spec;
  std::vector<IdentifyConfig> configs;        // per case
  std::vector<std::vector<double>> values;    // per case, its swept numbers
  std::vector<std::filesystem::path> inputs;  // every file the cases read: an output folder may not hold one
  const std::string& name() const { return configs.front().name; }
  const std::string& method() const { return configs.front().method; }
};

// the document's cases, each config checked; `config_file` the file it was read from (empty for a
// document given as text), `base_dir` the folder relative record and scenario paths start from
IdentifyBatch plan_identify_batch(const nlohmann::json& document, const std::string& config_file,
                                  const std::string& base_dir);

struct IdentifyBatchResult {
  // identifications.csv: case, the swept numbers, status, samples, wall_s, the method's identified
  // numbers (NaN for a failed case), message
  NamedColumns table;
  nlohmann::json summary;  // summary.json: name, method, cases, status counts, wall_s, the config
};

// every case in turn; `progress` (may be empty) after each with (done, total)
IdentifyBatchResult run_identify_batch(const IdentifyBatch& batch, const std::function<void(long, long)>& progress);

}  // namespace fivsim
