// src/cli/continue_command.cpp — `fivsim continue`: the branch of app/continuation.hpp written to
// branches.csv (one row per point), bifurcations.csv (one row per fold or Hopf point) and
// summary.json, with one line per bifurcation on stdout.
#include <cstdio>
#include <optional>

#include "cli_common.hpp"
#include "fivsim/app/continuation.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {

int continue_command(const ContinueArgs& args) {
  ContinuationRun run;
  std::optional<StagedDirectory> dir;
  try {
    json base = load_json_file(args.scenario);
    for (const auto& s : args.set) apply_override(base, s);
    const std::string name = base.is_object() && base.contains("name") && base["name"].is_string()
                                 ? base["name"].get<std::string>()
                                 : std::string("scenario");
    dir.emplace(output_folder(args.out, name + "_continuation"), std::vector<std::filesystem::path>{args.scenario});
    run = run_continuation(base, args.threads);
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim continue: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fivsim continue: %s\n", e.what());
    return kExitError;
  }
  try {
    const json& r = run.report;
    write_columns(run.branches, dir->file("branches.csv"));
    write_columns(run.bifurcations, dir->file("bifurcations.csv"));
    if (!run.orbit_points.names.empty()) write_columns(run.orbit_points, dir->file("orbit_points.csv"));
    write_json_file(dir->file("summary.json"), r);
    dir->commit();
    if (!args.quiet) {
      if (r.contains("starts"))
        std::printf("continue %s: %zu orbit branches over %s from %zu families of %s, %zu points -> %s\n",
                    r["name"].get<std::string>().c_str(), r["branches"].size(), run.parameter.c_str(),
                    r["starts"].size(), r["from"].get<std::string>().c_str(), r["points"].get<std::size_t>(),
                    dir->final_path().c_str());
      else
        std::printf("continue %s: %s branch over %s, %zu points (%s) -> %s\n", r["name"].get<std::string>().c_str(),
                    r["start"].get<std::string>().c_str(), run.parameter.c_str(), r["points"].get<std::size_t>(),
                    r["stop"].get<std::string>().c_str(), dir->final_path().c_str());
      for (const auto& b : r["bifurcations"]) {
        const std::string kind = b["kind"].get<std::string>();
        std::printf("  %s at %s = %.10g", kind.c_str(), run.parameter.c_str(), b["parameter"].get<double>());
        if (kind == "hopf") std::printf(" (frequency %.6g rad/s)", b["frequency"].get<double>());
        if (kind == "torus") std::printf(" (multipliers at angle %.6g rad)", b["angle"].get<double>());
        if (kind == "grazing")
          std::printf(" (the orbit's events a period: %ld to %ld%s)", b["events"][0].get<long>(),
                      b["events"][1].get<long>(), b["turns"].get<bool>() ? "; the branch turns back" : "");
        if (b.contains("becomes"))
          std::printf("; the %s becomes %s", r["start"] == "equilibrium" ? "equilibrium" : "orbit",
                      b["becomes"].get<std::string>().c_str());
        std::printf("\n");
      }
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fivsim continue: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace fivsim::cli
