// src/cli/run_command.cpp — `fivsim run` and `fivsim validate`: one scenario, one simulation,
// timeseries.csv and summary.json (docs/DESIGN.md §5).
#include <chrono>
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "fivsim/analysis/statistics.hpp"
#include "fivsim/integrate/method.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim::cli {
namespace {

const char* contact_kind_name(ContactKind k) {
  switch (k) {
    case ContactKind::rigid: return "rigid";
    case ContactKind::spring: return "spring";
    case ContactKind::given_normal: return "given_normal";
  }
  return "?";
}

json describe_model(const Scenario& sc) {
  json contacts = json::array();
  for (const auto& c : sc.model.contacts) contacts.push_back(contact_kind_name(c.kind));
  return {{"type", sc.model.type},
          {"dof", sc.model.dof()},
          {"contacts", contacts},
          {"lcp_size", sc.model.lcp_size()}};
}

}  // namespace

int validate_command(const ScenarioArgs& args) {
  try {
    const LoadedScenario l = load_scenario(args);
    const Scenario& sc = l.scenario;
    std::printf("ok: %s — %s, %d DoF, %d contact(s), LCP size %d; %s dt=%g to t=%g (%ld steps), lcp_solver=%s\n",
                sc.name.c_str(), sc.model.type.c_str(), sc.model.dof(), sc.model.n_contacts(),
                sc.model.lcp_size(), sc.integrator.method.c_str(), sc.integrator.dt, sc.integrator.t_end,
                sc.integrator.steps, lcp_solver_name(sc.integrator.step.solver));
    return kExitOk;
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim validate: %s\n", e.what());
    return kExitBadInput;
  }
}

int run_command(const RunArgs& args) {
  LoadedScenario loaded;
  try {
    loaded = load_scenario(args);
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim run: %s\n", e.what());
    return kExitBadInput;
  }
  const Scenario& sc = loaded.scenario;
  const Model<HostDims>& m = *loaded.model;
  const int nq = m.n_dof, nc = m.n_contacts;

  try {
    StagedDirectory dir(args.out.empty() ? std::filesystem::path("runs") / sc.name
                                         : std::filesystem::path(args.out));
    const std::vector<std::string> names = series_names(nq, nc);
    std::unique_ptr<CsvWriter> csv;
    auto write_row = [&](const SeriesPoint& p, const std::vector<double>& values) {
      csv->field(p.t);
      for (double v : values) csv->field(v);
      for (int i = 0; i < nc; ++i) csv->field(contact_state_name(p.contact[i]));
      csv->end_row();
    };

    if (sc.output.timeseries) {
      csv = std::make_unique<CsvWriter>(dir.file("timeseries.csv"));
      csv->field("t");
      for (const auto& n : names) csv->field(n.c_str());
      for (int i = 0; i < nc; ++i) csv->field(("state" + std::to_string(i)).c_str());
      csv->end_row();
    }

    std::vector<double> values;
    std::vector<RunningStats> stats(names.size());
    std::vector<std::array<long, 4>> time_in_state(nc, std::array<long, 4>{0, 0, 0, 0});
    ProgressLine progress(!args.quiet, sc.integrator.t_end, "t", " s", "steps/s");
    long index = 0;  // 0 is the start state
    double t_last = 0.0;

    const auto t0 = Clock::now();
    const MethodOutcome outcome = run_method(
        sc.integrator.spec(), sc.model, m, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.integrator.step,
        [&](const SeriesPoint& p) {
          series_values(p, values);
          if (index > 0 && p.t >= sc.analysis.t_transient) {
            for (std::size_t i = 0; i < values.size(); ++i) stats[i].add(values[i]);
            for (int i = 0; i < nc; ++i) ++time_in_state[i][static_cast<int>(p.contact[i])];
          }
          if (csv && index % sc.output.every == 0) write_row(p, values);
          // the clock is read every 1024 steps only
          if (index > 0 && (index & 1023) == 0) progress.update(p.t, static_cast<double>(index));
          t_last = p.t;
          ++index;
        });
    const double wall = seconds_since(t0);
    progress.done();
    if (csv) csv->close();

    const bool complete = outcome.status == Status::ok;
    json summary;
    summary["name"] = sc.name;
    summary["status"] = complete ? "complete" : "incomplete";
    if (!complete) {
      summary["failure"] = {{"status", status_name(outcome.status)},
                            {"t", outcome.failed_at},
                            {"step", outcome.steps + 1},
                            {"message", outcome.message}};
    }
    summary["model"] = describe_model(sc);
    summary["integrator"] = {{"method", sc.integrator.method},
                             {"dt", sc.integrator.dt},
                             {"t_end", sc.integrator.t_end},
                             {"lcp_solver", lcp_solver_name(sc.integrator.step.solver)}};
    const MethodSpec spec = sc.integrator.spec();
    const bool pinn = spec.kind == MethodKind::pinn;
    if (spec.lcp_pinn || (pinn && pinn_uses_lcp_pinn(spec.framework))) summary["integrator"]["lcp_solver"] = "lcp_pinn";
    if (sc.integrator.method == "irk" || (pinn && sc.integrator.method != "pinn_central"))
      summary["integrator"]["order"] = sc.integrator.order;
    if (pinn || spec.lcp_pinn) {
      // the trainings, so that a user sees whether the networks reached their tolerance
      summary["pinn"] = pinn_totals_json(outcome.pinn);
      summary["pinn"]["tol"] = sc.integrator.pinn.optimizer.tol;
    }
    if (sc.integrator.method == "rk4lcp" || sc.integrator.method == "irk")
      summary["integrator"]["stage_forces"] =
          sc.integrator.stage_forces == StageForces::held ? "held" : "interpolated";
    summary["steps"] = outcome.steps;
    summary["t_final"] = t_last;
    summary["wall_s"] = wall;
    summary["steps_per_s"] = wall > 0 ? static_cast<double>(outcome.steps) / wall : 0.0;
    summary["t_transient"] = sc.analysis.t_transient;
    json rms = json::object();
    for (std::size_t i = 0; i < names.size(); ++i) rms[names[i]] = stats[i].rms();
    summary["rms"] = rms;
    json time_fraction = json::array();
    for (int i = 0; i < nc; ++i) {
      const auto& c = time_in_state[i];
      const double total = std::max<long>(1, c[0] + c[1] + c[2] + c[3]);
      json f;
      for (int k = 0; k < 4; ++k) f[contact_state_name(static_cast<ContactState>(k))] = c[k] / total;
      time_fraction.push_back(f);
    }
    summary["time_fraction"] = time_fraction;
    long event_counts[kEventKindCount] = {};
    for (const auto& e : outcome.events) ++event_counts[static_cast<int>(e.kind)];
    json counts = json::object();
    for (int k = 1; k < kEventKindCount; ++k) counts[event_kind_name(static_cast<EventKind>(k))] = event_counts[k];
    summary["event_counts"] = counts;
    json ev = json::array();
    for (const auto& e : outcome.events)
      ev.push_back({{"t", e.t},
                    {"contact", e.contact},
                    {"type", event_kind_name(e.kind)},
                    {"from", contact_state_name(e.from)},
                    {"to", contact_state_name(e.to)},
                    {"q", e.q}});
    summary["events"] = ev;
    if (sc.integrator.spec().kind == MethodKind::event_driven) {
      summary["reference"] = {{"ode_steps", outcome.reference_steps},
                              {"rhs_evaluations", outcome.rhs_evaluations},
                              {"event_tol", EventDrivenOptions{}.event_tol}};
    } else if (sc.integrator.spec().kind == MethodKind::smooth) {
      summary["smooth"] = {{"ode_steps", outcome.reference_steps},
                           {"rhs_evaluations", outcome.rhs_evaluations},
                           {"rel_tol", SmoothOptions{}.rel_tol},
                           {"abs_tol", SmoothOptions{}.abs_tol}};
    } else {
      summary["lcp"] = {{"solver", lcp_solver_name(sc.integrator.step.solver)},
                        {"size", sc.model.lcp_size()},
                        {"max_residual", outcome.max_lcp_residual},
                        {"mean_iterations", outcome.steps > 0 ? double(outcome.lcp_iterations) / outcome.steps : 0.0},
                        {"max_iterations", outcome.max_lcp_iterations}};
    }
    summary["scenario"] = sc.document;
    write_json_file(dir.file("summary.json"), summary);
    dir.commit();

    std::printf("%s %s: %ld steps in %.3g s (%.3g steps/s), %zu events -> %s\n",
                complete ? "run" : "INCOMPLETE run", sc.name.c_str(), outcome.steps, wall,
                wall > 0 ? outcome.steps / wall : 0.0, outcome.events.size(),
                dir.final_path().c_str());
    if (!complete) {
      std::fprintf(stderr, "fivsim run: numerical failure (%s: %s) at t = %g; the time series "
                           "up to there is kept and summary.json is marked incomplete\n",
                   status_name(outcome.status), outcome.message.c_str(), outcome.failed_at);
      return kExitNumerical;
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fivsim run: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace fivsim::cli
