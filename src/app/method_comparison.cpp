// src/app/method_comparison.cpp — methods against the reference (app/method_comparison.hpp).
#include "fivsim/app/method_comparison.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "fivsim/analysis/compare.hpp"
#include "fivsim/core/limits.hpp"
#include "fivsim/integrate/event_driven.hpp"

namespace fivsim {
namespace {

using nlohmann::json;

struct MethodRun {
  MethodSpec spec;
  double dt = 0.0;
  bool reference = false;
  std::string reference_note;  // how the reference was made
  MethodOutcome outcome;
  double wall = 0.0;
  std::vector<RunningStats> stats;
  std::vector<double> transition_rms;
  std::vector<SpectralPeak> peaks;
  TransitionMatch match;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string fmt(double x, int digits = 4) {
  if (!std::isfinite(x)) return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

std::string dt_tag(double dt) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", dt);
  return buf;
}

// one run of one method, recorded for comparison (its rows to `rows` when kept)
MethodRun run_one(const LoadedScenario& l, const MethodSpec& spec, double dt, const RunRowSink& rows) {
  const Scenario& sc = l.scenario;
  const Model<HostDims>& m = *l.model;
  MethodRun r;
  r.spec = spec;
  r.dt = dt;
  RunRecord rec(m.n_dof, m.n_contacts, sc.analysis.t_transient);
  std::vector<double> values;
  const long steps = std::max(1L, std::lround(sc.integrator.t_end / dt));
  const auto t0 = std::chrono::steady_clock::now();
  r.outcome = run_method(spec, sc.model, m, sc.q0, sc.u0, dt, steps, sc.integrator.step, [&](const SeriesPoint& p) {
    rec.add(p);
    if (rows) {
      series_values(p, values);
      rows(p.t, values, p.contact);
    }
  });
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.stats = rec.stats();
  // a time stepper's brief sticks stand for slip reversals (merge_brief_sticks), not stick-slip
  const std::vector<Event> events =
      spec.kind == MethodKind::event_driven ? r.outcome.events : merge_brief_sticks(r.outcome.events, 2.5 * dt);
  r.transition_rms = transition_displacement_rms(events, sc.model, sc.analysis.t_transient);
  r.peaks = dominant_frequencies(rec.first_displacement(), dt, 3);
  return r;
}

double rel_err(double value, double ref) {
  if (!std::isfinite(value) || !std::isfinite(ref)) return std::numeric_limits<double>::quiet_NaN();
  return ref != 0.0 ? std::abs(value - ref) / std::abs(ref) : std::abs(value - ref);
}

// the series shown in the markdown table: displacements, velocities, the normal force of
// contacts where it is unknown (spring, rigid), and every friction force
std::vector<int> table_series(const std::vector<std::string>& names, const ModelDescription& d) {
  std::vector<int> out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string& n = names[k];
    if (n.rfind("lamN", 0) == 0) {
      const int c = std::stoi(n.substr(4));
      if (d.contacts[c].kind == ContactKind::given_normal) continue;
    }
    out.push_back(static_cast<int>(k));
  }
  return out;
}

}  // namespace

Comparison compare_methods(const LoadedScenario& loaded, const ComparisonOptions& options) {
  std::vector<MethodSpec> methods;
  std::vector<double> dts;
  if (loaded.scenario.integrator.method == "smooth")
    throw InputError("/integrator/method",
                     "compare measures time steppers against the event-driven reference; a "
                     "smooth model (dynamic or smoothed friction) has neither: use fivsim run");
  for (const auto& label : split(options.methods, ',')) {
    try {
      methods.push_back(parse_method_label(label));
      // PINN methods train the networks of the scenario's /integrator/pinn block
      methods.back().pinn = loaded.scenario.integrator.pinn;
      // the scenario's lcp_solver lcp_pinn applies to its classical steppers as to the named ones
      const MethodKind k = methods.back().kind;
      if (loaded.scenario.integrator.lcp_pinn &&
          (k == MethodKind::moreau || k == MethodKind::rk4lcp || k == MethodKind::irk))
        methods.back().lcp_pinn = true;
      std::string why;
      if (methods.back().kind == MethodKind::smooth)
        throw std::invalid_argument("smooth is not compared (it has no event-driven reference); use fivsim run");
      if (methods.back().kind == MethodKind::pinn && methods.back().framework == PinnFramework::central &&
          !pinn_central_supports(loaded.scenario.model, &why))
        throw std::invalid_argument(why);
    } catch (const std::invalid_argument& e) {
      throw InputError("--methods", e.what());
    }
  }
  if (methods.empty()) throw InputError("--methods", "names no method");
  for (const auto& text : split(options.dt, ',')) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || !(v > 0))
      throw InputError("--dt", "'" + text + "' is not a step size > 0");
    dts.push_back(v);
  }
  if (dts.empty()) dts.push_back(loaded.scenario.integrator.dt);
  // each run's series is held in memory: the finest step (and the reference's) within the limit
  for (double dt : dts)
    if (loaded.scenario.integrator.t_end / (dt / 10) > kMaxHeldSamples)
      throw InputError("--dt", "'" + format_double(dt) + "' gives " +
                                   format_double(loaded.scenario.integrator.t_end / dt) +
                                   " steps over t_end = " + format_double(loaded.scenario.integrator.t_end) +
                                   " s, and compare holds at most 1e7 steps per run (1e8 for its reference at a "
                                   "tenth of the step): a larger --dt or a shorter /integrator/t_end");
  if (!(options.window >= 0)) throw InputError("--window", "must be >= 0");
  const Scenario& sc = loaded.scenario;
  const double dt_min = *std::min_element(dts.begin(), dts.end());
  // printf-style lines for the user, when anyone listens
  const auto say = [&](const char* format, auto... values) {
    if (!options.say) return;
    char line[256];
    std::snprintf(line, sizeof line, format, values...);
    options.say(line);
  };
  Comparison out;

  // the reference: event-driven where the model allows it, else Moreau at a tenth of the finest dt
  std::string why;
  MethodSpec ref_spec;
  double ref_dt = dt_min;
  std::string note;
  if (event_driven_supports(sc.model, &why)) {
    ref_spec.kind = MethodKind::event_driven;
    note = "event-driven (switching model / root finding), events to 1e-12 s, sampled every " + fmt(ref_dt) + " s";
  } else {
    ref_spec.kind = MethodKind::moreau;
    ref_dt = dt_min / 10;
    note = "Moreau at dt = " + fmt(ref_dt) + " (no event-driven reference: " + why + ")";
  }
  say("compare %s: reference %s ...", sc.name.c_str(), ref_spec.label().c_str());
  MethodRun ref = run_one(loaded, ref_spec, ref_dt, options.series ? options.series("reference") : RunRowSink());
  ref.reference = true;
  ref.reference_note = note;
  say(" %.3g s, %zu events\n", ref.wall, ref.outcome.events.size());
  if (ref.outcome.status != Status::ok) {
    out.reference_ok = false;
    out.failure = "the reference failed (" + std::string(status_name(ref.outcome.status)) + ": " + ref.outcome.message +
                  ") at t = " + format_double(ref.outcome.failed_at);
    return out;
  }

  std::vector<MethodRun> runs;
  for (const MethodSpec& spec : methods) {
    if (spec.kind == MethodKind::event_driven) continue;  // it is the reference row
    for (double dt : dts) {
      say("  %-14s dt = %-8g ...", spec.label().c_str(), dt);
      const std::string run_name = spec.label() + "_dt" + dt_tag(dt);
      MethodRun r = run_one(loaded, spec, dt, options.series ? options.series(run_name) : RunRowSink());
      r.match = match_transitions(ref.outcome.events, merge_brief_sticks(r.outcome.events, 2.5 * dt), options.window,
                                  sc.analysis.t_transient);
      say(" %.3g s, %s, missed %ld, spurious %ld\n", r.wall, status_name(r.outcome.status), r.match.missed,
          r.match.spurious);
      runs.push_back(std::move(r));
    }
  }

  const auto names = series_names(loaded.model->n_dof, loaded.model->n_contacts);
  const int nc = loaded.model->n_contacts;
  const bool has_stick_slip = [&] {
    for (double v : ref.transition_rms)
      if (std::isfinite(v)) return true;
    return false;
  }();

  // ---- compare.json
  json& j = out.report;
  j["name"] = sc.name;
  j["t_transient"] = sc.analysis.t_transient;
  j["t_end"] = sc.integrator.t_end;
  auto run_json = [&](const MethodRun& r) {
    json o;
    o["method"] = r.reference ? "reference" : r.spec.label();
    o["dt"] = r.dt;
    o["status"] = status_name(r.outcome.status);
    if (r.outcome.status != Status::ok) o["message"] = r.outcome.message;
    o["wall_s"] = r.wall;
    o["steps"] = r.outcome.steps;
    o["steps_per_s"] = r.wall > 0 ? r.outcome.steps / r.wall : 0.0;
    if (!r.reference && (r.spec.kind == MethodKind::pinn || r.spec.lcp_pinn))
      o["pinn"] = pinn_totals_json(r.outcome.pinn);
    json rms = json::object(), err = json::object();
    for (std::size_t k = 0; k < names.size(); ++k) {
      rms[names[k]] = r.stats[k].rms();
      if (!r.reference) err[names[k]] = rel_err(r.stats[k].rms(), ref.stats[k].rms());
    }
    o["rms"] = rms;
    if (!r.reference) o["rel_error"] = err;
    json counts = json::object();
    long c[kEventKindCount] = {};
    for (const auto& e : r.outcome.events)
      if (e.t >= sc.analysis.t_transient) ++c[static_cast<int>(e.kind)];
    for (int k = 1; k < kEventKindCount; ++k) counts[event_kind_name(static_cast<EventKind>(k))] = c[k];
    o["event_counts"] = counts;
    if (!r.reference)
      o["transitions"] = {{"reference", r.match.reference},
                          {"matched", r.match.matched},
                          {"missed", r.match.missed},
                          {"spurious", r.match.spurious},
                          {"worst_timing_s", r.match.worst_timing},
                          {"mean_timing_s", r.match.mean_timing},
                          {"all_found", r.match.missed == 0}};
    json trms = json::array();
    for (double v : r.transition_rms) trms.push_back(std::isfinite(v) ? json(v) : json(nullptr));
    o["transition_displacement_rms"] = trms;
    json peaks = json::array();
    for (const auto& p : r.peaks) peaks.push_back({{"hz", p.frequency}, {"amplitude", p.amplitude}});
    o["q0_peaks"] = peaks;
    return o;
  };
  j["reference"] = run_json(ref);
  j["reference"]["how"] = ref.reference_note;
  j["runs"] = json::array();
  for (const auto& r : runs) j["runs"].push_back(run_json(r));

  // ---- compare.csv: one row per run, the reference first
  {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<const MethodRun*> rows{&ref};
    for (const auto& r : runs) rows.push_back(&r);
    NamedColumns& t = out.table;
    const auto column = [&](const std::string& name, const std::function<double(const MethodRun&)>& value) {
      std::vector<double> v;
      for (const MethodRun* r : rows) v.push_back(value(*r));
      t.add(name, std::move(v));
    };
    std::vector<std::string> method_names, statuses;
    for (const MethodRun* r : rows) {
      method_names.push_back(r->reference ? "reference" : r->spec.label());
      statuses.push_back(status_name(r->outcome.status));
    }
    t.add_text("method", method_names);
    column("dt", [](const MethodRun& r) { return r.dt; });
    t.add_text("status", statuses);
    column("wall_s", [](const MethodRun& r) { return r.wall; });
    column("steps_per_s", [](const MethodRun& r) { return r.wall > 0 ? r.outcome.steps / r.wall : 0.0; });
    for (std::size_t k = 0; k < names.size(); ++k)
      column("rms_" + names[k], [k](const MethodRun& r) { return r.stats[k].rms(); });
    for (std::size_t k = 0; k < names.size(); ++k)
      column("relerr_" + names[k],
             [&, k](const MethodRun& r) { return r.reference ? nan : rel_err(r.stats[k].rms(), ref.stats[k].rms()); });
    column("ref_transitions", [&](const MethodRun& r) {
      return static_cast<double>(r.reference ? ref.outcome.events.size() : r.match.reference);
    });
    column("matched", [nan](const MethodRun& r) { return r.reference ? nan : static_cast<double>(r.match.matched); });
    column("missed", [nan](const MethodRun& r) { return r.reference ? nan : static_cast<double>(r.match.missed); });
    column("spurious", [nan](const MethodRun& r) { return r.reference ? nan : static_cast<double>(r.match.spurious); });
    column("worst_timing_s", [nan](const MethodRun& r) { return r.reference ? nan : r.match.worst_timing; });
    column("mean_timing_s", [nan](const MethodRun& r) { return r.reference ? nan : r.match.mean_timing; });
    for (int i = 0; i < nc; ++i)
      column("transition_rms_c" + std::to_string(i), [i](const MethodRun& r) { return r.transition_rms[i]; });
    const char* const peak_names[3][2] = {{"f1_hz", "a1"}, {"f2_hz", "a2"}, {"f3_hz", "a3"}};
    for (int k = 0; k < 3; ++k) {
      column(peak_names[k][0], [k, nan](const MethodRun& r) {
        return k < static_cast<int>(r.peaks.size()) ? r.peaks[k].frequency : nan;
      });
      column(peak_names[k][1], [k, nan](const MethodRun& r) {
        return k < static_cast<int>(r.peaks.size()) ? r.peaks[k].amplitude : nan;
      });
    }
  }

  // ---- compare.md: the seed's table layout, value (relative error) per cell
  {
    const std::vector<int> cols = table_series(names, sc.model);
    std::ostringstream md;
    md << "# " << sc.name << ": methods against the reference\n\n";
    md << "Reference: " << ref.reference_note << ". RMS over t ≥ " << fmt(sc.analysis.t_transient) << " s to "
       << fmt(sc.integrator.t_end) << " s; in brackets the relative error against the reference. "
       << "× marks a run that misses a transition of the reference (seed 000 Table 3); transitions are paired "
       << "by contact and kind (a stick of at most two steps between opposite slips counts as the slip "
       << "reversal it resolves) within ";
    md << (options.window > 0 ? fmt(options.window) + " s"
                              : std::string("a quarter of the shortest spacing of the reference's transitions of that "
                                            "contact and kind"))
       << ".\n\n";
    md << "| method | dt |";
    for (int k : cols) md << " " << names[k] << " |";
    md << " transitions (missed / spurious) | worst timing (s) |";
    if (has_stick_slip)
      for (int i = 0; i < nc; ++i) md << " x at stick-slip, c" << i << " |";
    md << " f1, f2, f3 (Hz) of q0 | wall (s) | steps/s |\n|---|---|";
    for (std::size_t k = 0; k < cols.size() + 5 + (has_stick_slip ? nc : 0); ++k) md << "---|";
    md << "\n";
    auto peaks_text = [](const MethodRun& r) {
      std::string s;
      for (const auto& p : r.peaks) s += (s.empty() ? "" : ", ") + fmt(p.frequency, 4);
      return s.empty() ? std::string("–") : s;
    };
    auto line = [&](const MethodRun& r) {
      const bool missed = !r.reference && r.match.missed > 0;
      const bool failed = r.outcome.status != Status::ok;
      md << "| " << (r.reference ? "reference (" + r.spec.label() + ")" : r.spec.label()) << " | " << fmt(r.dt) << " |";
      for (int k : cols) {
        const double v = r.stats[k].rms();
        md << " " << (missed ? "× " : "") << fmt(v);
        if (!r.reference) md << " (" << fmt(100 * rel_err(v, ref.stats[k].rms()), 3) << "%)";
        md << " |";
      }
      if (r.reference) {
        md << " " << ref.outcome.events.size() << " events | – |";
      } else {
        md << " " << (failed ? std::string("failed: ") + status_name(r.outcome.status) + ", " : "")
           << (missed ? "× " : "✓ ") << r.match.missed << " / " << r.match.spurious << " | "
           << fmt(r.match.worst_timing, 3) << " |";
      }
      if (has_stick_slip) {
        for (int i = 0; i < nc; ++i) {
          md << " " << fmt(r.transition_rms[i]);
          if (!r.reference && std::isfinite(ref.transition_rms[i]))
            md << " (" << fmt(100 * rel_err(r.transition_rms[i], ref.transition_rms[i]), 3) << "%)";
          md << " |";
        }
      }
      md << " " << peaks_text(r) << " | " << fmt(r.wall, 3) << " | "
         << fmt(r.wall > 0 ? r.outcome.steps / r.wall : 0.0, 3) << " |\n";
    };
    line(ref);
    for (const auto& r : runs) line(r);
    out.markdown = md.str();
  }
  return out;
}

}  // namespace fivsim
