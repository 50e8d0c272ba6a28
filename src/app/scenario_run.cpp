// src/app/scenario_run.cpp — one scenario's simulation and its summary (app/scenario_run.hpp).
#include "fivsim/app/scenario_run.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "fivsim/analysis/statistics.hpp"
#include "fivsim/app/continuation.hpp"
#include "fivsim/sweep/sweep_spec.hpp"
#include "fivsim/integrate/method.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim {
namespace {

using nlohmann::json;

const char* contact_kind_name(ContactKind k) {
  switch (k) {
    case ContactKind::rigid:
      return "rigid";
    case ContactKind::spring:
      return "spring";
    case ContactKind::given_normal:
      return "given_normal";
  }
  return "?";
}

json describe_model(const Scenario& sc) {
  json contacts = json::array();
  for (const auto& c : sc.model.contacts) contacts.push_back(contact_kind_name(c.kind));
  return {{"type", sc.model.type}, {"dof", sc.model.dof()}, {"contacts", contacts}, {"lcp_size", sc.model.lcp_size()}};
}

}  // namespace

ScenarioRunResult run_scenario(const LoadedScenario& loaded, const RunRowSink& rows, const RunProgress& progress) {
  const Scenario& sc = loaded.scenario;
  const Model<HostDims>& m = *loaded.model;
  const int nc = m.n_contacts;
  const std::vector<std::string> names = series_names(m.n_dof, nc);
  const bool keep_rows = sc.output.timeseries && rows;

  std::vector<double> values;
  std::vector<RunningStats> stats(names.size());
  std::vector<std::array<long, 4>> time_in_state(nc, std::array<long, 4>{0, 0, 0, 0});
  long index = 0;  // 0 is the start state
  double t_last = 0.0;

  const auto t0 = std::chrono::steady_clock::now();
  const MethodSpec spec = sc.integrator.spec();
  const MethodOutcome outcome = run_method(spec, sc.model, m, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps,
                                           sc.integrator.step, [&](const SeriesPoint& p) {
                                             series_values(p, values);
                                             if (index > 0 && p.t >= sc.analysis.t_transient) {
                                               for (std::size_t i = 0; i < values.size(); ++i) stats[i].add(values[i]);
                                               for (int i = 0; i < nc; ++i)
                                                 ++time_in_state[i][static_cast<int>(p.contact[i])];
                                             }
                                             if (keep_rows && index % sc.output.every == 0)
                                               rows(p.t, values, p.contact);
                                             // the clock and the caller are asked every 1024 steps only
                                             if (progress && index > 0 && (index & 1023) == 0) progress(p.t, index);
                                             t_last = p.t;
                                             ++index;
                                           });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ScenarioRunResult result;
  result.complete = outcome.status == Status::ok;
  json& summary = result.summary;
  summary["name"] = sc.name;
  summary["status"] = result.complete ? "complete" : "incomplete";
  if (!result.complete) {
    summary["failure"] = {{"status", status_name(outcome.status)},
                          {"t", outcome.failed_at},
                          {"step", outcome.steps + 1},
                          {"message", outcome.message}};
    result.failure = std::string(status_name(outcome.status)) + ": " + outcome.message +
                     " at t = " + format_double(outcome.failed_at);
  }
  summary["model"] = describe_model(sc);
  summary["integrator"] = {{"method", sc.integrator.method},
                           {"dt", sc.integrator.dt},
                           {"t_end", sc.integrator.t_end},
                           {"lcp_solver", lcp_solver_name(sc.integrator.step.solver)}};
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
    summary["integrator"]["stage_forces"] = sc.integrator.stage_forces == StageForces::held ? "held" : "interpolated";
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
    const double total = static_cast<double>(std::max<long>(1, c[0] + c[1] + c[2] + c[3]));
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
  if (spec.kind == MethodKind::event_driven) {
    summary["reference"] = {{"ode_steps", outcome.reference_steps},
                            {"rhs_evaluations", outcome.rhs_evaluations},
                            {"event_tol", EventDrivenOptions{}.event_tol}};
  } else if (spec.kind == MethodKind::smooth) {
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
  return result;
}

LoadedScenario validate_document(const nlohmann::json& document) {
  LoadedScenario loaded = build_scenario(document);
  if (document.contains("sweep")) (void)parse_sweep(document);
  if (document.contains("continuation")) (void)continuation_inputs(document);
  return loaded;
}

}  // namespace fivsim
