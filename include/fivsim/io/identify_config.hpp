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

}  // namespace fivsim
