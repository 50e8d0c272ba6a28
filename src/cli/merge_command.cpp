// src/cli/merge_command.cpp — `fivsim merge DIR…`: the command line over app/merge.hpp.
#include <cstdio>

#include "cli_common.hpp"
#include "fivsim/app/merge.hpp"

namespace fivsim::cli {

int merge_command(const MergeArgs& args) {
  return exit_code_of("merge", [&] {
    const MergeOutcome m = merge_shards(args.shards, args.out);
    std::printf("merge %s: %zu shards, %ld cases -> %s\n", m.summary["name"].get<std::string>().c_str(), m.shards,
                m.summary["cases"].get<long>(), m.out.c_str());
    for (const auto& [cls, count] : m.summary["classes"].items())
      std::printf("  %-28s %ld\n", cls.c_str(), count.get<long>());
    return kExitOk;
  });
}

}  // namespace fivsim::cli
