// src/app/continuation_report.cpp — a continuation's branches, bifurcations, orbit points and
// curves as tables, and its summary (docs/SCENARIOS.md lists their columns).
#include "continuation_report.hpp"

#include <cmath>
#include <string>
#include <tuple>

namespace fivsim {
namespace {

using Eigen::VectorXd;
using json = nlohmann::json;

// the name of a state's component i in the tables: q0 … then u0 …
std::string state_column(int i, int nq) { return i < nq ? "q" + std::to_string(i) : "u" + std::to_string(i - nq); }

}  // namespace

ContinuationRun continuation_run(const json& document, const Scenario& sc, const ContinuationBlock& b,
                                 const ContinuationFound& found, ShotDevice device, int threads) {
  const int nq = sc.model.dof(), ny = 2 * nq;
  ContinuationRun run;
  run.parameter = b.parameter;
  // branches.csv: the point, its parameter and state, stability, the eigenvalues; branch after branch
  std::vector<std::pair<long, const ContinuationPoint*>> rows;
  std::vector<double> index;
  for (std::size_t k = 0; k < found.followed.size(); ++k)
    for (std::size_t i = 0; i < found.followed[k].branch.points.size(); ++i) {
      rows.emplace_back(static_cast<long>(k), &found.followed[k].branch.points[i]);
      index.push_back(static_cast<double>(i));
    }
  const std::size_t np = rows.size();
  std::vector<double> col(np);
  auto column = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < np; ++k) col[k] = value(*rows[k].second);
    run.branches.add(name, col);
  };
  for (std::size_t k = 0; k < np; ++k) col[k] = static_cast<double>(rows[k].first);
  run.branches.add("branch", col);
  run.branches.add("point", index);
  run.branches.add_text("kind", std::vector<std::string>(np, b.orbit ? "orbit" : "equilibrium"));
  column(b.parameter, [](const ContinuationPoint& p) { return p.p; });
  column("stable", [](const ContinuationPoint& p) { return p.stable ? 1.0 : 0.0; });
  if (b.orbit) {
    for (std::size_t k = 0; k < np; ++k)
      col[k] = static_cast<double>(found.followed[static_cast<std::size_t>(rows[k].first)].period_n);
    run.branches.add("period_n", col);
    column("period", [](const ContinuationPoint& p) { return p.period; });
    column("max_modulus", [](const ContinuationPoint& p) { return p.max_real; });
  } else {
    column("max_real", [](const ContinuationPoint& p) { return p.max_real; });
  }
  for (int i = 0; i < ny; ++i) column(state_column(i, nq), [i](const ContinuationPoint& p) { return p.x(i); });
  // the eigenvalues (an orbit: its multipliers, two fewer than the state's size on the section)
  for (int i = 0; i < ny - found.conditions; ++i) {
    const auto part = [i](const ContinuationPoint& p, bool re) {
      return i < p.eig.size() ? (re ? p.eig(i).real() : p.eig(i).imag()) : nan("");
    };
    column("re" + std::to_string(i), [&part](const ContinuationPoint& p) { return part(p, true); });
    column("im" + std::to_string(i), [&part](const ContinuationPoint& p) { return part(p, false); });
  }
  column("arclength", [](const ContinuationPoint& p) { return p.s; });
  column("newton", [](const ContinuationPoint& p) { return static_cast<double>(p.newton); });

  // bifurcations.csv: kind, where, the state there
  std::vector<std::pair<long, const Bifurcation*>> located;
  for (std::size_t k = 0; k < found.followed.size(); ++k)
    for (const Bifurcation& f : found.followed[k].branch.bifurcations) located.emplace_back(static_cast<long>(k), &f);
  const std::size_t nb = located.size();
  std::vector<std::string> kinds(nb);
  std::vector<double> bc(nb);
  auto bcolumn = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < nb; ++k) bc[k] = value(*located[k].second);
    run.bifurcations.add(name, bc);
  };
  for (std::size_t k = 0; k < nb; ++k) kinds[k] = bifurcation_name(located[k].second->kind);
  run.bifurcations.add_text("kind", kinds);
  for (std::size_t k = 0; k < nb; ++k) bc[k] = static_cast<double>(located[k].first);
  run.bifurcations.add("branch", bc);
  bcolumn("after_point", [](const Bifurcation& f) { return static_cast<double>(f.after_point); });
  bcolumn(b.parameter, [](const Bifurcation& f) { return f.p; });
  bcolumn("test", [](const Bifurcation& f) { return f.test; });
  bcolumn("p_error", [](const Bifurcation& f) { return f.p_error; });
  bcolumn("frequency", [](const Bifurcation& f) { return f.frequency; });
  for (int i = 0; i < ny; ++i) bcolumn(state_column(i, nq), [i](const Bifurcation& f) { return f.x(i); });

  // curves.csv: each fold's, doubling's and Hopf point's curve in the second parameter, a row per point
  std::vector<std::tuple<long, const BifurcationCurve*>> curves;
  for (std::size_t k = 0; k < found.followed.size(); ++k)
    for (const BifurcationCurve& c : found.followed[k].curves) curves.emplace_back(static_cast<long>(k), &c);
  if (!b.second.empty()) {
    std::vector<std::vector<double>> cols(static_cast<std::size_t>(7 + ny));
    std::vector<std::string> kinds_of_rows;
    for (std::size_t c = 0; c < curves.size(); ++c) {
      const auto& [k, cv] = curves[c];
      for (std::size_t i = 0; i < cv->points.points.size(); ++i) {
        const ContinuationPoint& pt = cv->points.points[i];
        const double head[7] = {static_cast<double>(c),
                                static_cast<double>(i),
                                static_cast<double>(k),
                                static_cast<double>(cv->bifurcation),
                                pt.x(pt.x.size() - 1),
                                pt.p,
                                pt.period};
        for (int j = 0; j < 7; ++j) cols[static_cast<std::size_t>(j)].push_back(head[j]);
        for (int j = 0; j < ny; ++j) cols[static_cast<std::size_t>(7 + j)].push_back(pt.x(j));
        kinds_of_rows.push_back(bifurcation_name(cv->kind));
      }
    }
    const std::string heads[7] = {"curve", "point", "branch", "bifurcation", b.parameter, b.second, "period"};
    for (int j = 0; j < 7 + ny; ++j) {
      if (j == 2) run.curves.add_text("kind", kinds_of_rows);
      run.curves.add(j < 7 ? heads[j] : state_column(j - 7, nq), cols[static_cast<std::size_t>(j)]);
    }
  }

  // orbit_points.csv: every section crossing of each orbit of the branches (crossing 0 is the branch's point)
  if (b.orbit) {
    std::vector<std::vector<double>> cols(static_cast<std::size_t>(4 + ny));
    for (std::size_t k = 0; k < found.followed.size(); ++k)
      for (std::size_t i = 0; i < found.followed[k].branch.points.size(); ++i)
        for (int c = 0; c < found.followed[k].period_n; ++c) {
          const ContinuationPoint& pt = found.followed[k].branch.points[i];
          const VectorXd& y = c == 0 ? pt.x : found.followed[k].later[i][static_cast<std::size_t>(c - 1)];
          const double head[4] = {static_cast<double>(k), static_cast<double>(i), static_cast<double>(c), pt.p};
          for (int j = 0; j < 4; ++j) cols[static_cast<std::size_t>(j)].push_back(head[j]);
          for (int j = 0; j < ny; ++j) cols[static_cast<std::size_t>(4 + j)].push_back(y(j));
        }
    const std::string heads[4] = {"branch", "point", "crossing", b.parameter};
    for (int j = 0; j < 4 + ny; ++j) {
      run.orbit_points.add(j < 4 ? heads[j] : state_column(j - 4, nq), cols[static_cast<std::size_t>(j)]);
    }
  }

  json& r = run.report;
  r["name"] = sc.name;
  r["parameter"] = b.parameter;
  r["range"] = {b.lo, b.hi};
  r["direction"] = b.direction > 0 ? "up" : "down";
  r["start"] = b.from.empty() ? (b.orbit ? "orbit" : "equilibrium") : "sweep";
  if (b.orbit && b.from.empty()) r["period_n"] = b.period_n;
  if (!b.from.empty()) {
    // each family's start and the branches grown from it, down then up
    json js = json::array();
    for (std::size_t i = 0; i < found.starts.size(); ++i) {
      json grown = json::array();
      for (std::size_t k = 0; k < found.followed.size(); ++k)
        if (found.followed[k].start == static_cast<long>(i)) grown.push_back(k);
      js.push_back({{"case", found.starts[i].case_id},
                    {"parameter", found.starts[i].p},
                    {"period_n", found.starts[i].period_n},
                    {"family_cases", found.starts[i].cases},
                    {"branches", grown}});
    }
    r["from"] = b.from;
    r["starts"] = js;
    r["at_once"] = b.at_once;
  }
  if (b.orbit) {
    // the corrector's shots and the batches they ran in, on the device (CPU: `threads` threads)
    r["device"] = device == ShotDevice::cuda ? "cuda" : "cpu";
    r["threads"] = threads;
    r["shots"] = found.counts.shots;
    r["shot_batches"] = found.counts.batches;
  }
  json modes = json::array();
  for (ContactState m : found.modes) modes.push_back(contact_state_name(m));
  if (!b.orbit) r["modes"] = modes;
  r["points"] = np;
  r["stop"] = found.followed.empty() ? std::string() : found.followed[0].branch.stop;
  r["settings"] = {
      {"ds", b.settings.ds},   {"ds_min", b.settings.ds_min},         {"ds_max", b.settings.ds_max},
      {"tol", b.settings.tol}, {"max_points", b.settings.max_points}, {"locate_tol", b.settings.locate_tol}};
  json bifs = json::array();
  for (const auto& [k, fp] : located) {
    const Bifurcation& f = *fp;
    const ContinuationBranch& branch = found.followed[static_cast<std::size_t>(k)].branch;
    json j = {{"kind", bifurcation_name(f.kind)},
              {"branch", k},
              {"parameter", f.p},
              {"after_point", f.after_point},
              {"test", f.test}};
    if (f.kind == BifurcationKind::torus) j["angle"] = f.frequency;
    if (std::isfinite(f.p_error)) j["parameter_error"] = f.p_error;
    if (f.kind == BifurcationKind::grazing) {
      j["events"] = {f.signature_before, f.signature_after};
      j["turns"] = f.turns;
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      const ContinuationPoint& after = branch.points[static_cast<std::size_t>(f.after_point) + 1];
      if (before.stable != after.stable) j["becomes"] = after.stable ? "stable" : "unstable";
    }
    if (f.kind == BifurcationKind::period_doubling || f.kind == BifurcationKind::torus) {
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      j["becomes"] = before.stable ? "unstable" : "stable";
    }
    if (f.kind == BifurcationKind::hopf) {
      j["frequency"] = f.frequency;
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      j["becomes"] = before.hopf_test < 0.0 ? "unstable" : "stable";
    }
    bifs.push_back(j);
  }
  r["bifurcations"] = bifs;
  json branches = json::array();
  for (std::size_t k = 0; k < found.followed.size(); ++k) {
    const FollowedBranch& fb = found.followed[k];
    json j = {{"branch", k}, {"points", fb.branch.points.size()}, {"stop", fb.branch.stop}};
    if (b.orbit) j["period_n"] = fb.period_n;
    if (fb.from_branch >= 0) j["from"] = {{"branch", fb.from_branch}, {"bifurcation", fb.from_bifurcation}};
    if (fb.start >= 0) j["start"] = fb.start;
    if (fb.from_branch < 0 && b.orbit) j["wall_s"] = fb.wall_s;
    branches.push_back(j);
  }
  r["branches"] = branches;
  if (!b.second.empty()) {
    json jc = json::array();
    for (std::size_t c = 0; c < curves.size(); ++c) {
      const auto& [k, cv] = curves[c];
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (const ContinuationPoint& pt : cv->points.points) {
        lo = std::min(lo, pt.p);
        hi = std::max(hi, pt.p);
      }
      jc.push_back({{"curve", c},
                    {"kind", bifurcation_name(cv->kind)},
                    {"branch", k},
                    {"bifurcation", cv->bifurcation},
                    {"direction", cv->direction > 0 ? "up" : "down"},
                    {"points", cv->points.points.size()},
                    {"stop", cv->points.stop},
                    {"reaches", {lo, hi}}});
    }
    r["curves"] = {
        {"parameter", b.second}, {"range", {b.curve_settings.p_min, b.curve_settings.p_max}}, {"curves", jc}};
  }
  r["wall_s"] = found.wall_s;
  r["scenario"] = document;
  return run;
}

}  // namespace fivsim
