// tests/gpu/source_tree.hpp — where the device tests read scenarios: $FIVSIM_SOURCE_DIR where it is
// set (a build carried to a GPU machine, whose tree lies elsewhere), else the tree they were built
// from.
#pragma once

#include <cstdlib>
#include <string>

namespace fivsim {

inline std::string scenario_path(const std::string& relative) {
  const char* tree = std::getenv("FIVSIM_SOURCE_DIR");
  return std::string(tree && *tree ? tree : FIVSIM_SOURCE_DIR) + "/scenarios/" + relative;
}

}  // namespace fivsim
