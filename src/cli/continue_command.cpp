// src/cli/continue_command.cpp — `fivsim continue`: the branches of app/continuation.hpp written to
// branches.csv (one row per point), bifurcations.csv (one row per bifurcation), orbit_points.csv
// (orbits), the same tables in results.h5, and summary.json, with one line per bifurcation on stdout.
#include <cstdio>

#include "cli_common.hpp"
#include "fivsim/app/continuation.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {

int continue_command(const ContinueArgs& args) {
  return exit_code_of("continue", [&] {
    json base = load_json_file(args.scenario);
    for (const auto& s : args.set) apply_override(base, s);
    const std::string name = base.is_object() && base.contains("name") && base["name"].is_string()
                                 ? base["name"].get<std::string>()
                                 : std::string("scenario");
    std::vector<std::filesystem::path> inputs = continuation_inputs(base);
    inputs.emplace_back(args.scenario);
    StagedDirectory dir(output_folder(args.out, name + "_continuation"), inputs);
    const ShotDevice device = args.device == "cuda" ? ShotDevice::cuda : ShotDevice::cpu;
    ProgressLine line(!args.quiet, 1.0, "branches", "", "points/s");
    const ContinuationRun run = run_continuation(
        base, args.threads,
        [&](long done, long total, long points) {
          line.set_total(static_cast<double>(total));
          line.update(static_cast<double>(done), static_cast<double>(points));
        },
        device);
    line.done();
    const json& r = run.report;
    write_columns(run.branches, dir.file("branches.csv"));
    write_columns(run.bifurcations, dir.file("bifurcations.csv"));
    if (!run.orbit_points.names.empty()) write_columns(run.orbit_points, dir.file("orbit_points.csv"));
    if (!run.curves.names.empty()) write_columns(run.curves, dir.file("curves.csv"));
    write_continuation_h5(run, dir.file("results.h5"));
    write_json_file(dir.file("summary.json"), r);
    dir.commit();
    if (!args.quiet) {
      if (r.contains("starts"))
        std::printf("continue %s: %zu orbit branches over %s from %zu families of %s, %zu points -> %s\n",
                    r["name"].get<std::string>().c_str(), r["branches"].size(), run.parameter.c_str(),
                    r["starts"].size(), r["from"].get<std::string>().c_str(), r["points"].get<std::size_t>(),
                    dir.final_path().c_str());
      else
        std::printf("continue %s: %s branch over %s, %zu points (%s) -> %s\n", r["name"].get<std::string>().c_str(),
                    r["start"].get<std::string>().c_str(), run.parameter.c_str(), r["points"].get<std::size_t>(),
                    r["stop"].get<std::string>().c_str(), dir.final_path().c_str());
      for (const auto& b : r["bifurcations"]) {
        const std::string kind = b["kind"].get<std::string>();
        std::printf("  %s at %s = %.10g", kind.c_str(), run.parameter.c_str(), b["parameter"].get<double>());
        if (kind == "hopf") std::printf(" (frequency %.6g rad/s)", b["frequency"].get<double>());
        if (kind == "torus") std::printf(" (multipliers at angle %.6g rad)", b["angle"].get<double>());
        if (kind == "grazing")
          std::printf(" (the orbit's events a period: %ld to %ld%s)", b["events"][0].get<long>(),
                      b["events"][1].get<long>(), b["turns"].get<bool>() ? "; the branch turns back" : "");
        const std::string what = r["start"] == "equilibrium" ? "equilibrium" : "orbit";
        const std::string side = b.value("stable_side", "");
        if (side == "lower" || side == "upper")
          std::printf("; the %s is stable on the %s side", what.c_str(), side.c_str());
        else if (side == "both" || side == "neither")
          std::printf("; the %s is %s on both sides", what.c_str(), side == "both" ? "stable" : "unstable");
        if (b["branches"].size() > 1) std::printf(" (branches %s)", b["branches"].dump().c_str());
        std::printf("\n");
      }
      // every branch's end, and where it stalled at a grazing point the corrector could not cross
      if (r["branches"].size() > 1 || r["branches"].empty() || r["branches"][0].contains("ends_at"))
        for (const auto& b : r["branches"]) {
          std::printf("  branch %ld: %zu points, %s", b["branch"].get<long>(), b["points"].get<std::size_t>(),
                      b["stop"].get<std::string>().c_str());
          const json& e = b.contains("ends_at") ? b["ends_at"] : json();
          if (e.is_object() && e["kind"] == "grazing")
            std::printf(" by a grazing point near %s = %.10g (the orbit's events a period: %ld to %ld)",
                        run.parameter.c_str(), e["parameter"].get<double>(), e["events"][0].get<long>(),
                        e["events"][1].get<long>());
          if (e.is_object() && e["kind"] == "multiplier_one")
            std::printf(" at %s = %.10g, a multiplier at %.6g", run.parameter.c_str(), e["parameter"].get<double>(),
                        e["multiplier"].get<double>());
          if (e.is_object() && e.contains("meets"))
            std::printf(": the orbit meets the period doubling at %.10g of the orbit it doubles",
                        e["meets"]["parameter"].get<double>());
          std::printf("\n");
        }
      if (r.contains("curves"))
        for (const auto& c : r["curves"]["curves"])
          std::printf("  curve %ld: the %s of branch %ld in %s, %zu points over [%.6g, %.6g] (%s)\n",
                      c["curve"].get<long>(), c["kind"].get<std::string>().c_str(), c["branch"].get<long>(),
                      r["curves"]["parameter"].get<std::string>().c_str(), c["points"].get<std::size_t>(),
                      c["reaches"][0].get<double>(), c["reaches"][1].get<double>(),
                      c["stop"].get<std::string>().c_str());
      if (r.contains("curves"))
        for (const auto& c : r["curves"]["curves"]) {
          if (!c.contains("ends_at")) continue;
          const json& e = c["ends_at"];
          const std::string& second = r["curves"]["parameter"].get_ref<const std::string&>();
          std::printf(
              "  curve %ld ends at a codimension-two point, %s, at %s = %.10g, %s = %.10g (the orbit grazes "
              "by %s = %.10g: its events a period %ld to %ld)\n",
              c["curve"].get<long>(), e["kind"].get<std::string>().c_str(), run.parameter.c_str(),
              e[run.parameter].get<double>(), second.c_str(), e[second].get<double>(), second.c_str(),
              e["grazing_near"].get<double>(), e["events"][0].get<long>(), e["events"][1].get<long>());
        }
    }
    return kExitOk;
  });
}

}  // namespace fivsim::cli
