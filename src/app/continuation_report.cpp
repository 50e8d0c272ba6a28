// src/app/continuation_report.cpp — a continuation's branches, bifurcations, orbit points and
// curves as tables, and its summary (docs/SCENARIOS.md lists their columns).
#include "continuation_report.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace fivsim {
namespace {

using Eigen::VectorXd;
using json = nlohmann::json;

// the name of a state's component i in the tables: q0 … then u0 …
std::string state_column(int i, int nq) { return i < nq ? "q" + std::to_string(i) : "u" + std::to_string(i - nq); }

// a bifurcation point once, at its best location, and every branch that passes it (branches
// grown from several starts, or one that turns at folds, pass a point again)
struct LocatedPoint {
  const Bifurcation* point = nullptr;  // its best location
  std::vector<long> branches;
  long branch = 0;  // the branch of that location
  // on which side of the parameter the equilibrium or orbit is stable ("lower", "upper"), or
  // "both", "neither"; empty at a fold or a turning grazing, whose two sides lie on one side
  std::string stable_side;
};

// the side of f's parameter on which the branch's points around it are stable. Where another
// bifurcation lies in the same step, the point beyond says nothing of f: the side before it is
// stable if that point is, the side beyond if that point's only unstable eigenvalues (multipliers)
// are those f moves across (one at a doubling, a pair at a Hopf or torus point)
std::string stable_side(const ContinuationBranch& branch, const Bifurcation& f, bool orbit) {
  const std::size_t i = static_cast<std::size_t>(f.after_point);
  if (f.kind == BifurcationKind::fold || f.turns || i + 1 >= branch.points.size()) return "";
  const ContinuationPoint &before = branch.points[i], &after = branch.points[i + 1];
  const auto side_of = [&](const ContinuationPoint& pt) { return pt.p < f.p ? "lower" : "upper"; };
  const bool shared = std::count_if(branch.bifurcations.begin(), branch.bifurcations.end(),
                                    [&](const Bifurcation& g) { return g.after_point == f.after_point; }) > 1;
  if (!shared) {
    if (before.stable == after.stable) return before.stable ? "both" : "neither";
    return side_of(before.stable ? before : after);
  }
  if (before.stable) return side_of(before);
  if (f.kind == BifurcationKind::grazing) return "";
  int unstable = 0;
  for (Eigen::Index k = 0; k < before.eig.size(); ++k)
    unstable += (orbit ? std::abs(before.eig(k)) > 1.0 : before.eig(k).real() > 0.0) ? 1 : 0;
  const int moved = f.kind == BifurcationKind::period_doubling ? 1 : 2;
  return unstable == moved ? (side_of(before) == std::string("lower") ? "upper" : "lower") : "neither";
}

// how far a located point may lie from the bifurcation: a doubling's or torus point's stated
// error, a grazing point's bracket (its test), else 0
double location_error(const Bifurcation& f) {
  if (f.kind == BifurcationKind::grazing) return std::fabs(f.test);
  return std::isfinite(f.p_error) ? f.p_error : 0.0;
}

// whether f (on a branch of period_n) and g (period_m) are one point: the same kind (and a
// grazing's events on either side), the parameter within its location's error, and where the
// orbit has one crossing (or is an equilibrium) the same state
bool same_point(const Bifurcation& f, int period_n, const Bifurcation& g, int period_m) {
  if (f.kind != g.kind) return false;
  // a period-kN branch may follow a period-1 orbit k times round (a doubled orbit that collapsed
  // onto the orbit it doubled from): its fold or doubling is the period-1 orbit's, at the same state
  const bool rounds = period_n != period_m && std::min(period_n, period_m) == 1 && f.kind != BifurcationKind::grazing;
  if (period_n != period_m && !rounds) return false;
  if (f.kind == BifurcationKind::grazing &&
      std::minmax(f.signature_before, f.signature_after) != std::minmax(g.signature_before, g.signature_after))
    return false;
  const double within = 1e-7 * (1.0 + std::fabs(f.p)) + 3.0 * (location_error(f) + location_error(g));
  if (!(std::fabs(f.p - g.p) <= within)) return false;
  const bool same_state =
      f.x.size() == g.x.size() && (f.x - g.x).cwiseAbs().maxCoeff() <=
                                      1e-5 * (1.0 + std::max(f.x.cwiseAbs().maxCoeff(), g.x.cwiseAbs().maxCoeff()));
  if (rounds) return same_state;
  // a period-N orbit's first crossing may be any of its N; a coarse location's state is as far off
  return period_n > 1 || within > 1e-5 * (1.0 + std::fabs(f.p)) || same_state;
}

// an orbit branch that stalled next to a multiplier +1 (within 2e-3): a fold or a branch point the
// corrector could not pass, its "ends_at"; a period-2N orbit's there meets the period-N orbit it
// doubled from, at that orbit's period doubling within 1 % of the parameter ("meets": its
// parameter and branches). Nothing where no multiplier is near +1
json ends_at_branch_point(const FollowedBranch& fb, const std::vector<FollowedBranch>& followed,
                          const std::vector<LocatedPoint>& located) {
  const ContinuationPoint& last = fb.branch.points.back();
  double nearest = HUGE_VAL, multiplier = 0.0;
  for (Eigen::Index i = 0; i < last.eig.size(); ++i)
    if (std::abs(last.eig(i) - 1.0) < nearest) {
      nearest = std::abs(last.eig(i) - 1.0);
      multiplier = last.eig(i).real();
    }
  if (!(nearest <= 2e-3)) return json::object();
  json at = {{"kind", "multiplier_one"}, {"parameter", last.p}, {"multiplier", multiplier}};
  if (fb.period_n % 2 == 0)
    for (const LocatedPoint& pd : located) {
      const int n = followed[static_cast<std::size_t>(pd.branch)].period_n;
      if (pd.point->kind == BifurcationKind::period_doubling && 2 * n == fb.period_n &&
          std::fabs(pd.point->p - last.p) <= 1e-2 * (1.0 + std::fabs(last.p))) {
        at["meets"] = {{"kind", "period_doubling"}, {"parameter", pd.point->p}, {"branches", pd.branches}};
        break;
      }
    }
  return {{"ends_at", at}};
}

std::vector<LocatedPoint> located_points(const std::vector<FollowedBranch>& followed, bool orbit) {
  std::vector<LocatedPoint> points;
  std::vector<int> period_of;
  for (std::size_t k = 0; k < followed.size(); ++k) {
    const int n = orbit ? followed[k].period_n : 0;
    for (const Bifurcation& f : followed[k].branch.bifurcations) {
      const long branch = static_cast<long>(k);
      auto it = std::find_if(points.begin(), points.end(), [&](const LocatedPoint& at) {
        return same_point(*at.point, period_of[static_cast<std::size_t>(&at - points.data())], f, n);
      });
      if (it == points.end()) {
        points.push_back({&f, {branch}, branch, stable_side(followed[k].branch, f, orbit)});
        period_of.push_back(n);
        continue;
      }
      if (it->branches.back() != branch) it->branches.push_back(branch);
      // the point as its best location gives it
      if (location_error(f) < location_error(*it->point)) {
        it->point = &f;
        it->branch = branch;
        it->stable_side = stable_side(followed[k].branch, f, orbit);
      }
    }
  }
  return points;
}

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

  // bifurcations.csv: each point once (kind, where, the state there), with the branches through it
  const std::vector<LocatedPoint> located = located_points(found.followed, b.orbit);
  const std::size_t nb = located.size();
  std::vector<std::string> kinds(nb), through(nb), sides(nb);
  std::vector<double> bc(nb);
  auto bcolumn = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < nb; ++k) bc[k] = value(*located[k].point);
    run.bifurcations.add(name, bc);
  };
  for (std::size_t k = 0; k < nb; ++k) {
    kinds[k] = bifurcation_name(located[k].point->kind);
    for (const long branch : located[k].branches)
      through[k] += (through[k].empty() ? "" : " ") + std::to_string(branch);
    sides[k] = located[k].stable_side;
  }
  run.bifurcations.add_text("kind", kinds);
  for (std::size_t k = 0; k < nb; ++k) bc[k] = static_cast<double>(located[k].branch);
  run.bifurcations.add("branch", bc);
  run.bifurcations.add_text("branches", through);
  bcolumn("after_point", [](const Bifurcation& f) { return static_cast<double>(f.after_point); });
  bcolumn(b.parameter, [](const Bifurcation& f) { return f.p; });
  run.bifurcations.add_text("stable_side", sides);
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
  for (const LocatedPoint& at : located) {
    const Bifurcation& f = *at.point;
    json j = {{"kind", bifurcation_name(f.kind)}, {"branch", at.branch}, {"branches", at.branches}, {"parameter", f.p},
              {"after_point", f.after_point},     {"test", f.test}};
    if (!at.stable_side.empty()) j["stable_side"] = at.stable_side;
    if (f.kind == BifurcationKind::torus) j["angle"] = f.frequency;
    if (f.kind == BifurcationKind::hopf) j["frequency"] = f.frequency;
    if (std::isfinite(f.p_error)) j["parameter_error"] = f.p_error;
    if (f.kind == BifurcationKind::grazing) {
      j["events"] = {f.signature_before, f.signature_after};
      j["turns"] = f.turns;
    }
    bifs.push_back(j);
  }
  r["bifurcations"] = bifs;
  json branches = json::array();
  for (std::size_t k = 0; k < found.followed.size(); ++k) {
    const FollowedBranch& fb = found.followed[k];
    json j = {{"branch", k}, {"points", fb.branch.points.size()}, {"stop", fb.branch.stop}};
    if (fb.branch.graze_ahead != 0 && !fb.branch.points.empty())
      j["ends_at"] = {{"kind", "grazing"},
                      {"parameter", fb.branch.graze_at},
                      {"events", {fb.branch.points.back().signature, fb.branch.graze_ahead}}};
    else if (b.orbit && fb.branch.stop == "step below ds_min" && !fb.branch.points.empty())
      j.update(ends_at_branch_point(fb, found.followed, located));
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
      json curve = {{"curve", c},
                    {"kind", bifurcation_name(cv->kind)},
                    {"branch", k},
                    {"bifurcation", cv->bifurcation},
                    {"direction", cv->direction > 0 ? "up" : "down"},
                    {"points", cv->points.points.size()},
                    {"stop", cv->points.stop},
                    {"reaches", {lo, hi}}};
      // a curve that stalls where its orbit grazes ends at a codimension-two point
      if (cv->points.graze_ahead != 0 && !cv->points.points.empty()) {
        const ContinuationPoint& end = cv->points.points.back();
        curve["ends_at"] = {{"kind", std::string(bifurcation_name(cv->kind)) + "_meets_grazing"},
                            {b.parameter, end.x(end.x.size() - 1)},
                            {b.second, end.p},
                            {"grazing_near", cv->points.graze_at},
                            {"events", {end.signature, cv->points.graze_ahead}}};
      }
      jc.push_back(curve);
    }
    r["curves"] = {
        {"parameter", b.second}, {"range", {b.curve_settings.p_min, b.curve_settings.p_max}}, {"curves", jc}};
  }
  r["wall_s"] = found.wall_s;
  r["scenario"] = document;
  return run;
}

}  // namespace fivsim
