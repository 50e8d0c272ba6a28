// fivsim/app/merge.hpp — `fivsim merge` and fivsim.merge: the output folders of `fivsim sweep
// --shard i/N` (i = 0 … N−1) joined into the files one run of the whole sweep writes (cases.csv and
// points.csv byte for byte, results.h5 in case order, the trajectories copied, summary.json adding
// up the counts and keeping each shard's throughput and device under "shards").
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fivsim {

struct MergeOutcome {
  nlohmann::json summary;     // the merged summary.json
  std::filesystem::path out;  // where it was written
  std::size_t shards = 0;
};

// every shard checked first (the same sweep, every index once, each file as its summary's checksum
// says); a refusal is an InputError without a pointer. `out` the folder to write, empty: runs/<name>
MergeOutcome merge_shards(const std::vector<std::string>& shard_dirs, const std::string& out);

}  // namespace fivsim
