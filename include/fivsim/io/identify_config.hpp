// fivsim/io/identify_config.hpp — identification files (`fivsim identify`, docs/DESIGN.md §4 and
// docs/IDENTIFY.md): validation into an IdentifyConfig. Unknown keys are errors; every rejection
// is an InputError naming the JSON pointer.
#pragma once

#include <string>

#include "fivsim/identify/identification.hpp"
#include "fivsim/io/json_reader.hpp"

namespace fivsim {

// `base_dir` resolves the relative paths of /data/path and /data/scenario
IdentifyConfig parse_identify_config(const json& doc, const std::string& base_dir);

// the grey-box search of one candidate law of c.candidates: c with the model's /friction replaced
// by the candidate's and its numbers fitted beside c's common parameters
IdentifyConfig candidate_config(const IdentifyConfig& c, const LawCandidate& candidate);

// the response x(t) of a scenario document at the record's times (its integrator, dt = the
// record's sample interval, its analysis, output and sweep blocks dropped); empty when the scenario
// is invalid or the run fails, with the reason in `why` (IdentifyConfig::response of a grey-box
// search is this, on the model scenario with the parameters' values written in)
Eigen::VectorXd scenario_response(const json& scenario, const Record& record, std::string* why = nullptr);

}  // namespace fivsim
