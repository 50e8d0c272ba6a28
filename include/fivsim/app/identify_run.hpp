// fivsim/app/identify_run.hpp — one identification as `fivsim identify` and fivsim.identify (the
// Python module) do it: the configuration document read into a config and its record, the
// identification (identify/identification.hpp; seed 003), and what its files hold — identified.json,
// and the tables record.csv, response.csv and bounds.csv as named columns (docs/IDENTIFY.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim {

struct LoadedIdentification {
  IdentifyConfig config;
  Record record;
};

// a document (overrides applied, no sweep block) → config → record; `base_dir` resolves the
// relative paths of /data/path and /data/scenario; every failure is an InputError. A grey-box
// search of a model scenario's numbers gets its batches of candidates scored by sweeps
// (sweep/greybox_sweeps.hpp) on the device its options name: no front end has to remember it.
LoadedIdentification load_identification(const nlohmann::json& document, const std::string& base_dir);

struct IdentifyOutcome {
  IdentifyConfig config;  // as identified: with candidate laws, the best law's search
  IdentificationResult result;
  nlohmann::json identified;  // what identified.json holds
  NamedColumns record;        // record.csv: the data as identified (after noise)
  NamedColumns response;      // response.csv: the record beside every identified equation's response
  NamedColumns bounds;        // bounds.csv: extended SINDy's Φ1/Φ2 surfaces; empty when it ran no grid
  NamedColumns laws;          // laws.csv: with candidate laws, each fitted μ against the sliding speed
};

IdentifyOutcome run_identification(const LoadedIdentification& loaded);

// a grey-box search of a model scenario's numbers: its batches of candidates scored by sweeps on
// the device its options name (nothing for other methods); load_identification and each case of a
// batch (identify_batch.hpp) call it
void score_populations_on_options_device(IdentifyConfig& config);

// the files an identification reads (its config file where it came from one, a record's CSV): an
// output folder may not hold them
std::vector<std::filesystem::path> identify_inputs(const std::string& config_file, const IdentifyConfig& config);

}  // namespace fivsim
