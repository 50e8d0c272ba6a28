// src/cli/merge_command.cpp — `fivsim merge DIR…`: the command line over app/merge.hpp.
#include <cstdio>

#include "commands.hpp"
#include "fivsim/app/merge.hpp"
#include "fivsim/core/input_error.hpp"

namespace fivsim::cli {

int merge_command(const MergeArgs& args) {
  try {
    const MergeOutcome m = merge_shards(args.shards, args.out);
    std::printf("merge %s: %zu shards, %ld cases -> %s\n", m.summary["name"].get<std::string>().c_str(), m.shards,
                m.summary["cases"].get<long>(), m.out.c_str());
    for (const auto& [cls, count] : m.summary["classes"].items())
      std::printf("  %-28s %ld\n", cls.c_str(), count.get<long>());
    return kExitOk;
  } catch (const InputError& e) {
    // a refusal about the shards names no pointer
    std::fprintf(stderr, "fivsim merge: %s\n", e.pointer.empty() ? printable(e.rule).c_str() : e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fivsim merge: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace fivsim::cli
