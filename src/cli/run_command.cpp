// src/cli/run_command.cpp — `fivsim run` and `fivsim validate`: one scenario, one simulation
// (app/scenario_run.hpp), written to timeseries.csv and summary.json (docs/DESIGN.md §5).
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/app/scenario_run.hpp"

namespace fivsim::cli {

int validate_command(const ScenarioArgs& args) {
  return exit_code_of("validate", [&] {
    json doc = load_json_file(args.scenario);
    for (const auto& s : args.set) apply_override(doc, s);
    const LoadedScenario l = validate_document(doc);
    const Scenario& sc = l.scenario;
    std::printf("ok: %s — %s, %d DoF, %d contact(s), LCP size %d; %s dt=%g to t=%g (%ld steps), lcp_solver=%s\n",
                sc.name.c_str(), sc.model.type.c_str(), sc.model.dof(), sc.model.n_contacts(), sc.model.lcp_size(),
                sc.integrator.method.c_str(), sc.integrator.dt, sc.integrator.t_end, sc.integrator.steps,
                lcp_solver_name(sc.integrator.step.solver));
    return kExitOk;
  });
}

int run_command(const RunArgs& args) {
  return exit_code_of("run", [&] {
    const LoadedScenario loaded = load_scenario(args);
    const Scenario& sc = loaded.scenario;
    StagedDirectory dir(output_folder(args.out, sc.name), {args.scenario});
    std::unique_ptr<TimeseriesCsv> csv;
    if (sc.output.timeseries)
      csv = std::make_unique<TimeseriesCsv>(dir.file("timeseries.csv"), loaded.model->n_dof, loaded.model->n_contacts);
    ProgressLine progress(!args.quiet, sc.integrator.t_end, "t", " s", "steps/s");
    const ScenarioRunResult result = run_scenario(loaded, csv ? csv->sink() : RunRowSink(), [&](double t, long steps) {
      progress.update(t, static_cast<double>(steps));
    });
    progress.done();
    if (csv) csv->close();
    write_json_file(dir.file("summary.json"), result.summary);
    dir.commit();

    const json& s = result.summary;
    const double wall = s["wall_s"].get<double>();
    std::printf("%s %s: %ld steps in %.3g s (%.3g steps/s), %zu events -> %s\n",
                result.complete ? "run" : "INCOMPLETE run", sc.name.c_str(), s["steps"].get<long>(), wall,
                s["steps_per_s"].get<double>(), s["events"].size(), dir.final_path().c_str());
    if (!result.complete) {
      std::fprintf(stderr,
                   "fivsim run: numerical failure (%s); the time series up to there is kept and "
                   "summary.json is marked incomplete\n",
                   result.failure.c_str());
      return kExitNumerical;
    }
    return kExitOk;
  });
}

}  // namespace fivsim::cli
