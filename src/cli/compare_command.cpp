// src/cli/compare_command.cpp — `fivsim compare`: the comparison of app/method_comparison.hpp
// (every method × dt against the event-driven reference, seed 000 Tables 2–3, seed 001 Tables 1–2)
// written to compare.md, compare.csv and compare.json, and with --series the time series of every
// run (docs/DESIGN.md §5).
#include <cstdio>
#include <map>
#include <memory>

#include "cli_common.hpp"
#include "fivsim/app/method_comparison.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {

int compare_command(const CompareArgs& args) {
  return exit_code_of("compare", [&] {
    const LoadedScenario loaded = load_scenario(args);
    const Scenario& sc = loaded.scenario;
    StagedDirectory dir(output_folder(args.out, sc.name + "_compare"), {args.scenario});
    ComparisonOptions options;
    options.methods = args.methods;
    options.dt = args.dt;
    options.window = args.window;
    if (!args.quiet) options.say = [](const std::string& text) { std::fprintf(stderr, "%s", text.c_str()); };
    // --series: series/<run>.csv, every step
    std::map<std::string, std::unique_ptr<TimeseriesCsv>> series;
    if (args.series) {
      make_output_folder(dir.path() / "series");
      options.series = [&](const std::string& run) {
        auto& csv = series[run] = std::make_unique<TimeseriesCsv>(dir.path() / "series" / (run + ".csv"),
                                                                  loaded.model->n_dof, loaded.model->n_contacts);
        return csv->sink();
      };
    }
    const Comparison result = compare_methods(loaded, options);
    if (!result.reference_ok) {
      std::fprintf(stderr, "fivsim compare: %s\n", result.failure.c_str());
      return kExitNumerical;
    }
    for (auto& [run, csv] : series) csv->close();
    write_json_file(dir.file("compare.json"), result.report);
    write_columns(result.table, dir.file("compare.csv"));
    write_new_file(dir.file("compare.md"), result.markdown);
    dir.commit();
    std::printf("compare %s: %zu runs against the reference -> %s\n", sc.name.c_str(), result.report["runs"].size(),
                dir.final_path().c_str());
    return kExitOk;
  });
}

}  // namespace fivsim::cli
