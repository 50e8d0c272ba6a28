// tests/cli/continue_orbits_test.cpp — `fivsim continue` on periodic orbits: the Coulomb slider's
// stick-slip cycle and its period against the closed form; the demo chain's period doublings, by
// single shooting and by multiple shooting, and the curves they trace in a second parameter; bSTAB's
// stick-slip cycle, its grazing point and the basin it bounds, and a smooth fold of cycles, against
// SciPy; branches started from a sweep's families of orbits; a torus point against plain runs. At
// the chain's grazings: continue_grazing_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace continue_orbits_test {
namespace {

using namespace fivsim_test;

// the demo chain's period-1 orbit followed in the load by shooting on its break-away section: a
// multiplier leaves the unit circle through −1 once between 7.5 and 8 N and once between 25 and
// 28 N, where 2·10⁴ s runs turn from period-2 to period-1 and back (BENCHMARKS.md)
TEST(ContinueCommand, TheDemoChainsPeriodDoublings) {
  struct Case {
    std::string block;
    double lo, hi;
  };
  for (const Case& c : {Case{R"({"parameter":"/model/Fn","range":[7,9],"direction":"down","start":"orbit"})", 7.5, 8.0},
                        Case{R"({"parameter":"/model/Fn","range":[24,29],"start":"orbit"})", 25.0, 28.0}}) {
    const fs::path out = fresh_dir("fivsim_cli_continue_orbit");
    const Result r = run_fivsim("continue " + kScenarios + "chain2_bifurcation.json --set '/continuation=" + c.block +
                                "' --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = summary_of(out);
    EXPECT_EQ(s["start"], "orbit");
    ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
    const auto& pd = s["bifurcations"][0];
    EXPECT_EQ(pd["kind"], "period_doubling");
    EXPECT_GT(pd["parameter"].get<double>(), c.lo);
    EXPECT_LT(pd["parameter"].get<double>(), c.hi);
    // the multiplier there is −1 to the variational equations' accuracy
    EXPECT_LT(std::abs(pd["test"].get<double>()), 1e-6);
    // the period-1 orbit is stable between the two doublings, whichever way the branch runs
    EXPECT_EQ(pd["stable_side"], c.lo < 10 ? "upper" : "lower");
    EXPECT_EQ(s["stop"], c.lo < 10 ? "p_min reached" : "p_max reached");
    // the doubled orbit's branch, switched onto there: stable, to the range's end, its period
    // twice the single orbit's where it is born
    ASSERT_EQ(s["branches"].size(), 2u) << s["branches"].dump();
    EXPECT_EQ(s["branches"][1]["period_n"], 2);
    EXPECT_EQ(s["branches"][1]["stop"], c.lo < 10 ? "p_min reached" : "p_max reached");
    std::ifstream csv(out / "branches.csv");
    std::string line;
    std::getline(csv, line);
    ASSERT_EQ(line.rfind("branch,point,kind,/model/Fn,stable,period_n,period,", 0), 0u) << line;
    double single_period = 0.0, doubled_first = 0.0;
    long doubled_rows = 0, doubled_stable = 0;
    while (std::getline(csv, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
      if (f[0] == "0" && std::abs(std::stod(f[3]) - pd["parameter"].get<double>()) < 0.05)
        single_period = std::stod(f[6]);
      if (f[0] != "1") continue;
      if (doubled_rows++ == 0) doubled_first = std::stod(f[6]);
      doubled_stable += f[4] == "1";
    }
    EXPECT_EQ(doubled_stable, doubled_rows);
    EXPECT_NEAR(doubled_first, 2.0 * single_period, 0.01 * doubled_first);
    fs::remove_all(out);
  }
}

// a Coulomb slider with static friction above kinetic (m = k = 1, undamped, load 1, μ_s 0.6, μ_k
// 0.4, d = μ_s − μ_k): it sticks to the belt until the spring pulls μ_s, slips at μ_k about
// x_k = μ_k with amplitude A = √(d² + v0²) until its speed is the belt's again, there at x_k − d,
// and sticks back to μ_s: T(v0) = π + 2 atan2(v0, d) + 2d/v0. On the break-away section the orbit's
// point is (μ_s, v0), on the section u = 0 (downwards) it is (x_k + A, 0), and the stick forgets
// every perturbation (multiplier 0)
TEST(ContinueCommand, CoulombSlidersStickSlipCycleIsTheClosedForm) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_coulomb");
  fs::create_directories(dir);
  const fs::path scenario = dir / "coulomb_slider.json";
  std::ofstream(scenario) << R"({"name": "coulomb_slider",
    "model": {"type": "slider_belt", "m": 1, "k": 1, "c": 0, "v0": 0.5, "Fn": 1},
    "friction": {"law": "coulomb_static", "mu_s": 0.6, "mu_k": 0.4},
    "initial": {"q": [0], "u": [0]},
    "integrator": {"method": "switching", "dt": 0.01, "t_end": 100},
    "analysis": {"t_transient": 20}})";
  const double d = 0.2, xk = 0.4;
  for (const std::string shooting : {"single", "multiple"})
    for (const std::string section : {R"({"section":"stick_to_slip","contact":0})",
                                      R"({"section":"velocity","dof":0,"value":0,"direction":"down"})"}) {
      SCOPED_TRACE(shooting + " shooting, section " + section);
      const bool breakaway = section.find("stick_to_slip") != std::string::npos;
      const fs::path out = dir / (shooting + (breakaway ? "_breakaway" : "_velocity"));
      const Result r =
          run_fivsim("continue " + scenario.string() + " --set '/analysis/poincare=" + section +
                     R"(' --set '/continuation={"parameter":"/model/v0","range":[0.2,1.5],"start":"orbit",)" +
                     R"("shooting":")" + shooting + R"("}' --out )" + out.string());
      ASSERT_EQ(r.code, 0) << r.err;
      const auto s = summary_of(out);
      EXPECT_EQ(s["stop"], "p_max reached");
      EXPECT_EQ(s["bifurcations"].size(), 0u) << s["bifurcations"].dump();
      const auto rows = csv_rows(out / "branches.csv");
      ASSERT_GE(rows.size(), 10u);
      EXPECT_DOUBLE_EQ(rows.back().at("/model/v0"), 1.5);
      for (const auto& row : rows) {
        const double v0 = row.at("/model/v0");
        const double period = M_PI + 2.0 * std::atan2(v0, d) + 2.0 * d / v0;
        EXPECT_NEAR(row.at("period"), period, 1e-8 * period) << "v0 = " << v0;
        EXPECT_EQ(row.at("stable"), 1.0);
        EXPECT_NEAR(row.at("q0"), breakaway ? 0.6 : xk + std::hypot(d, v0), 1e-9) << "v0 = " << v0;
        EXPECT_NEAR(row.at("u0"), breakaway ? v0 : 0.0, 1e-9) << "v0 = " << v0;
        if (!breakaway) {
          EXPECT_LT(row.at("max_modulus"), 1e-9) << "v0 = " << v0;
        }
      }
    }
  fs::remove_all(dir);
}

// multiple shooting (a segment per mode between events) against single shooting on the demo
// chain's first period doubling: the same orbit (section point, period, multipliers at the first
// point to the variational equations' accuracy), the doubling at the same load to 3e-8 N (each
// locates its multiplier's −1 to the integrator's tolerance), and the doubled branch switched onto
TEST(ContinueCommand, MultipleShootingFindsSingleShootingsOrbitsAndDoubling) {
  std::map<std::string, nlohmann::json> summary;
  std::map<std::string, std::vector<std::map<std::string, double>>> rows;
  for (const std::string shooting : {"single", "multiple"}) {
    const fs::path out = fresh_dir("fivsim_cli_continue_" + shooting);
    const Result r = run_fivsim("continue " + kScenarios + "chain2_bifurcation.json" +
                                R"( --set '/continuation={"parameter":"/model/Fn","range":[7,9],"direction":"down",)" +
                                R"("start":"orbit","shooting":")" + shooting + R"("}' --out )" + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    summary[shooting] = summary_of(out);
    rows[shooting] = csv_rows(out / "branches.csv");
    fs::remove_all(out);
  }
  const auto& one = summary["single"];
  const auto& many = summary["multiple"];
  ASSERT_EQ(many["bifurcations"].size(), 1u) << many["bifurcations"].dump();
  EXPECT_EQ(many["bifurcations"][0]["kind"], "period_doubling");
  EXPECT_NEAR(many["bifurcations"][0]["parameter"].get<double>(), one["bifurcations"][0]["parameter"].get<double>(),
              3e-8);
  ASSERT_EQ(many["branches"].size(), 2u) << many["branches"].dump();
  EXPECT_EQ(many["branches"][1]["period_n"], 2);
  EXPECT_EQ(many["branches"][1]["stop"], "p_min reached");
  const auto& a = rows["single"].front();
  const auto& b = rows["multiple"].front();
  for (const std::string col : {"q0", "q1", "u0", "u1", "period", "re0", "re1"})
    EXPECT_NEAR(b.at(col), a.at(col), 1e-8 * (1.0 + std::abs(a.at(col)))) << col;
  // the doubled branch's first orbit: twice the period-1 orbit's where it is born
  const double pd = many["bifurcations"][0]["parameter"].get<double>();
  const std::map<std::string, double>* near = nullptr;
  for (const auto& row : rows["multiple"])
    if (row.at("branch") == 0.0 && (!near || std::abs(row.at("/model/Fn") - pd) < std::abs(near->at("/model/Fn") - pd)))
      near = &row;
  ASSERT_NE(near, nullptr);
  for (const auto& row : rows["multiple"])
    if (row.at("branch") == 1.0) {
      EXPECT_NEAR(row.at("period"), 2.0 * near->at("period"), 0.01 * row.at("period"));
      break;
    }
}

// the three nearest rows of `rows` (one branch, in order) to p, a quadratic through them at p:
// column `name`'s value there
double quadratic_at(const std::vector<std::map<std::string, double>>& rows, const std::string& param,
                    const std::string& name, double p) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (std::abs(rows[i].at(param) - p) < std::abs(rows[k].at(param) - p)) k = i;
  k = std::clamp<std::size_t>(k, 1, rows.size() - 2);
  double value = 0.0;
  for (std::size_t i = k - 1; i <= k + 1; ++i) {
    double w = 1.0;
    for (std::size_t j = k - 1; j <= k + 1; ++j)
      if (j != i) w *= (p - rows[j].at(param)) / (rows[i].at(param) - rows[j].at(param));
    value += w * rows[i].at(name);
  }
  return value;
}

// bSTAB's friction oscillator in the belt speed, orbits on the section u = 0 (downwards): the
// stick-slip cycle from 1, stable (its stick forgets every perturbation: multiplier 0), until its
// stick phase shrinks to nothing at the grazing point where it meets the unstable pure-slip cycle and
// both end (a nonsmooth fold: the branch turns back); that cycle followed down to the Hopf point of
// steady sliding, ln(10)/2, where it shrinks onto the equilibrium with the period 2π of the
// undamped oscillator. Against SciPy's DOP853 on the smooth slip equations
// (scripts/compare/bstab_slip_cycle.py): the grazing point 1.8366009722 and the slip cycle at 1.5
// and 1.7 (section point, period, multiplier). The unstable cycle bounds the basin of steady
// sliding: at 1.5, starts 0.02 inside its section point slide, 0.02 outside stick and slip; above
// the grazing point every start slides
TEST(ContinueCommand, BstabsStickSlipCycleEndsWhereItMeetsTheUnstableCycleThatBoundsTheBasin) {
  const fs::path out = fresh_dir("fivsim_cli_continue_bstab_orbit");
  const std::string scenario = kScenarios + "bstab_friction.json";
  const std::string v0 = "/model/v0";
  double edge = 0.0;
  // multiple shooting's stick segment vanishes at the grazing point: the orbit without it goes on
  for (const std::string shooting : {"single", "multiple"}) {
    SCOPED_TRACE(shooting + " shooting");
    const Result r =
        run_fivsim("continue " + scenario +
                   R"( --set '/analysis/poincare={"section":"velocity","dof":0,"value":0,"direction":"down"}')" +
                   R"( --set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"orbit","shooting":")" +
                   shooting + R"("}' --out )" + (out / shooting).string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = summary_of(out / shooting);
    ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
    const auto& g = s["bifurcations"][0];
    EXPECT_EQ(g["kind"], "grazing");
    EXPECT_NEAR(g["parameter"].get<double>(), 1.8366009722, 1e-7);
    EXPECT_EQ(g["events"], nlohmann::json::array({2, 0}));
    EXPECT_TRUE(g["turns"].get<bool>());
    // two orbits meet there, both below it: no side is stable
    EXPECT_FALSE(g.contains("stable_side"));
    const auto rows = csv_rows(out / shooting / "branches.csv");
    const long at = g["after_point"].get<long>();
    std::vector<std::map<std::string, double>> slip(rows.begin() + at + 1, rows.end());
    for (long i = 0; i <= at; ++i) {
      EXPECT_EQ(rows[static_cast<std::size_t>(i)].at("stable"), 1.0) << i;
      EXPECT_LT(rows[static_cast<std::size_t>(i)].at("max_modulus"), 1e-9) << i;
    }
    for (const auto& row : slip) {
      EXPECT_EQ(row.at("stable"), 0.0) << row.at(v0);
      EXPECT_GT(row.at("max_modulus"), 1.0) << row.at(v0);
    }
    ASSERT_FALSE(slip.empty());
    // the slip cycle where it grazes, and at two speeds inside the branch
    EXPECT_NEAR(slip.front().at("q0"), 2.4940384524, 1e-6);
    EXPECT_NEAR(slip.front().at("period"), 6.3040137311, 1e-7);
    EXPECT_NEAR(slip.front().at("max_modulus"), 2.095782, 1e-4);
    for (const auto& [speed, point, period, multiplier] : {std::tuple{1.5, 1.8551484902, 6.2953347935, 1.492750},
                                                           std::tuple{1.7, 2.2496962068, 6.3007442028, 1.833357}}) {
      EXPECT_NEAR(quadratic_at(slip, v0, "q0", speed), point, 1e-5) << speed;
      EXPECT_NEAR(quadratic_at(slip, v0, "period", speed), period, 1e-6) << speed;
      EXPECT_NEAR(quadratic_at(slip, v0, "max_modulus", speed), multiplier, 1e-4) << speed;
    }
    // its end: the Hopf point, the cycle shrunk onto steady sliding x = 0.5 + 0.5 e^(−2 v0)
    EXPECT_EQ(s["stop"], "step below ds_min");
    const double hopf = 0.5 * std::log(10.0);
    EXPECT_NEAR(slip.back().at(v0), hopf, 1e-5);
    EXPECT_NEAR(slip.back().at("period"), 2.0 * M_PI, 1e-5);
    EXPECT_NEAR(slip.back().at("q0"), 0.55, 1e-3);
    edge = quadratic_at(slip, v0, "q0", 1.5);
  }

  // the basins it bounds: two starts on the section either side of the unstable cycle at 1.5
  const fs::path sides = fresh_dir("fivsim_cli_continue_bstab_sides");
  std::ostringstream sweep;
  sweep << "sweep " << scenario << " --device cpu -q --set /model/v0=1.5 --set "
        << R"('/sweep={"mode":"zip","parameters":[{"path":"/initial/q/0","values":[)" << edge - 0.02 << ","
        << edge + 0.02 << R"(]}]}' --out )" << sides.string();
  const Result rs = run_fivsim(sweep.str());
  ASSERT_EQ(rs.code, 0) << rs.err;
  const auto cases = csv_text_column(sides / "cases.csv", "class");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0], "no-stick-slip");
  EXPECT_EQ(cases[1], "periodic-1");
  // past the grazing point steady sliding has every start (the random starts of the scenario)
  const fs::path above = fresh_dir("fivsim_cli_continue_bstab_above");
  const Result ra = run_fivsim(
      "sweep " + scenario + " --device cpu -q --set /model/v0=1.85 --set /sweep/samples=200 --out " + above.string());
  ASSERT_EQ(ra.code, 0) << ra.err;
  const auto classes = csv_text_column(above / "cases.csv", "class");
  ASSERT_EQ(classes.size(), 200u);
  for (const std::string& c : classes) EXPECT_EQ(c, "no-stick-slip");
  fs::remove_all(out);
  fs::remove_all(sides);
  fs::remove_all(above);
}

// a smooth fold of cycles: the slider on a belt at 1.5 with the Gaussian Stribeck law
// μ(w) = 0.5 + 0.5 e^(−w²) + 0.1 w, the viscous damping c the parameter. From c = 0.05 the stable
// cycle sticks; its stick phase vanishes at a grazing point (no turn: the pure-slip cycle goes on
// stable), the pure-slip cycle meets the unstable cycle at a fold of cycles (multiplier +1) and
// that cycle shrinks onto steady sliding at its subcritical Hopf point c = −μ'(1.5) =
// 1.5 e^(−2.25) − 0.1. Against SciPy's DOP853 on the slip equations
// (scripts/compare/smooth_fold_cycle.py): the fold 0.090934114606, the grazing point
// 0.079272591489 with section point 2.3646368757, and the fold's curve in the belt speed
TEST(ContinueCommand, SmoothFoldOfCyclesIsSciPys) {
  const fs::path out = fresh_dir("fivsim_cli_continue_smooth_fold");
  const Result r = run_fivsim(
      "continue " + kScenarios + "bstab_friction.json" +
      R"( --set '/friction={"law":"stribeck","mu_s":1,"mu_c":0.5,"v_s":1,"alpha":2,"mu_v":0.1}' --set /initial/q/0=2.1)" +
      R"( --set '/analysis/poincare={"section":"velocity","dof":0,"value":0,"direction":"down"}')" +
      R"( --set '/continuation={"parameter":"/model/c","range":[0.05,0.1],"start":"orbit",)" +
      R"("curves":{"parameter":"/model/v0","range":[1.45,1.55]}}' --out )" + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = summary_of(out);
  ASSERT_EQ(s["bifurcations"].size(), 2u) << s["bifurcations"].dump();
  const auto& graze = s["bifurcations"][0];
  EXPECT_EQ(graze["kind"], "grazing");
  EXPECT_NEAR(graze["parameter"].get<double>(), 0.079272591489, 1e-9);
  EXPECT_EQ(graze["events"], nlohmann::json::array({2, 0}));
  EXPECT_FALSE(graze["turns"].get<bool>());
  const auto& fold = s["bifurcations"][1];
  EXPECT_EQ(fold["kind"], "fold");
  EXPECT_NEAR(fold["parameter"].get<double>(), 0.090934114606, 1e-9);
  const auto rows = csv_rows(out / "branches.csv");
  const long grazed = graze["after_point"].get<long>(), folded = fold["after_point"].get<long>();
  ASSERT_LT(grazed + 1, folded);
  EXPECT_NEAR(rows[static_cast<std::size_t>(grazed + 1)].at("q0"), 2.3646368757, 1e-8);
  // stable up to the fold, unstable past it
  for (std::size_t i = 0; i < rows.size(); ++i)
    EXPECT_EQ(rows[i].at("stable"), i <= static_cast<std::size_t>(folded) ? 1.0 : 0.0) << i;
  EXPECT_EQ(s["stop"], "step below ds_min");
  EXPECT_NEAR(rows.back().at("/model/c"), 1.5 * std::exp(-2.25) - 0.1, 1e-6);
  EXPECT_NEAR(rows.back().at("period"), 2.0 * M_PI, 1e-4);
  // the fold followed in the belt speed: its curve's ends on the range's bounds are SciPy's folds
  // there (c 0.101700142422 at 1.45, 0.081312766234 at 1.55)
  ASSERT_EQ(s["curves"]["curves"].size(), 2u) << s["curves"].dump();
  std::map<double, std::map<std::string, double>> ends;
  for (const auto& row : csv_rows(out / "curves.csv")) {
    if (row.at("point") == 0.0) {  // both start on the branch's fold: SciPy's period there
      EXPECT_EQ(row.at("/model/v0"), 1.5);
      EXPECT_NEAR(row.at("period"), 6.3061413130, 1e-8);
    }
    ends[row.at("curve")] = row;  // each curve's last point
  }
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0.0].at("/model/v0"), 1.45);
  EXPECT_NEAR(ends[0.0].at("/model/c"), 0.101700142422, 1e-9);
  EXPECT_NEAR(ends[0.0].at("q0"), 1.8347973235, 1e-8);
  EXPECT_EQ(ends[1.0].at("/model/v0"), 1.55);
  EXPECT_NEAR(ends[1.0].at("/model/c"), 0.081312766234, 1e-9);
  EXPECT_NEAR(ends[1.0].at("q0"), 2.0539686490, 1e-8);
  fs::remove_all(out);
}

// a period doubling located on a test of the multipliers, which carry the variational equations'
// error, is moved to the zero of the test on the orbit solved at a hundredth of the tolerances, and
// states the move (summary.json's parameter_error, bifurcations.csv's p_error). At the scenario's
// rel_tol 1e-10 the move is above 1e-8 N and the moved doubling lies within 1e-8 N (and a third of
// the move) of the one located with the integrator at 1e-12, whose own move is below 1e-8
TEST(ContinueCommand, PeriodDoublingsStatedErrorIsItsDistanceToTheFinerOrbitsDoubling) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_pd_error");
  std::map<std::string, nlohmann::json> pd;
  for (const std::string tol : {"1e-10", "1e-12"}) {
    const Result r = run_fivsim(
        "continue " + kScenarios + "chain2_bifurcation.json -q --set /integrator/rel_tol=" + tol +
        R"( --set '/continuation={"parameter":"/model/Fn","range":[7,8.3],"direction":"down","start":"orbit","doublings":0}' --out )" +
        (dir / tol).string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = summary_of(dir / tol);
    ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
    pd[tol] = s["bifurcations"][0];
    ASSERT_EQ(pd[tol]["kind"], "period_doubling");
    ASSERT_TRUE(pd[tol].contains("parameter_error")) << pd[tol].dump();
    const auto rows = csv_rows(dir / tol / "bifurcations.csv");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_DOUBLE_EQ(rows[0].at("p_error"), pd[tol]["parameter_error"].get<double>());
  }
  EXPECT_LT(pd["1e-12"]["parameter_error"].get<double>(), 1e-8);
  const double moved = pd["1e-10"]["parameter_error"].get<double>();
  const double off = std::abs(pd["1e-10"]["parameter"].get<double>() - pd["1e-12"]["parameter"].get<double>());
  EXPECT_GT(moved, 1e-8);  // the scenario's tolerance alone leaves the doubling this far off
  EXPECT_LT(off, 1e-8);
  EXPECT_LT(off, moved / 3.0);
  fs::remove_all(dir);
}

// branches from a sweep's results: ten loads of the demo chain across its first period doubling,
// 7.4–7.5 N periodic-2 and 7.6–8.3 N periodic-1 by their orbits; a branch down and up from the
// middle case of each family. The period-1 branch down meets the doubling where
// ContinueCommand.TheDemoChainsPeriodDoublings puts it (7.5752337 N); the period-2 orbit's period
// there is twice the period-1 orbit's. One thread or two, the four branches' shots batched together
// or a branch at a time: the same branches, byte for byte
TEST(ContinueCommand, SweepStartsABranchEachWayFromEveryFamilyOfOrbits) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_sweep_starts");
  const std::string scenario = kScenarios + "chain2_bifurcation.json";
  const Result rs =
      run_fivsim("sweep " + scenario + " -q --device cpu --set '/sweep/parameters/0/linspace=[7.4,8.3,10]'" +
                 " --out " + (dir / "sweep").string());
  ASSERT_EQ(rs.code, 0) << rs.err;
  const std::string block =
      R"({"parameter":"/model/Fn","range":[7.4,8.3],"start":"sweep","from":")" + (dir / "sweep").string() + R"("})";
  for (const int threads : {1, 2}) {
    const Result r =
        run_fivsim("continue " + scenario + " -q --threads " + std::to_string(threads) +
                   " --set '/continuation=" + block + "' --out " + (dir / std::to_string(threads)).string());
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const Result alone = run_fivsim("continue " + scenario + " -q --threads 2 --set '/continuation=" + block +
                                  "' --set /continuation/at_once=1 --out " + (dir / "alone").string());
  ASSERT_EQ(alone.code, 0) << alone.err;
  EXPECT_EQ(slurp(dir / "1" / "branches.csv"), slurp(dir / "2" / "branches.csv"));
  EXPECT_EQ(slurp(dir / "1" / "branches.csv"), slurp(dir / "alone" / "branches.csv"));
  const auto s = summary_of(dir / "1");
  // four branches in lockstep make fewer, larger batches than one branch at a time
  const auto one_at_a_time = summary_of(dir / "alone");
  EXPECT_EQ(s["shots"], one_at_a_time["shots"]);
  EXPECT_LT(s["shot_batches"].get<double>(), 0.75 * one_at_a_time["shot_batches"].get<double>());
  EXPECT_EQ(s["start"], "sweep");
  ASSERT_EQ(s["starts"].size(), 2u) << s["starts"].dump();
  const auto& two = s["starts"][0];
  const auto& one = s["starts"][1];
  EXPECT_EQ(two["period_n"], 2);
  EXPECT_EQ(two["family_cases"], 2);
  EXPECT_EQ(two["case"], 1);
  EXPECT_EQ(one["period_n"], 1);
  EXPECT_EQ(one["family_cases"], 8);
  EXPECT_EQ(one["case"], 6);
  EXPECT_EQ(two["branches"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(one["branches"], nlohmann::json::array({2, 3}));
  ASSERT_EQ(s["branches"].size(), 4u);
  EXPECT_EQ(s["branches"][0]["stop"], "p_min reached");
  EXPECT_EQ(s["branches"][3]["stop"], "p_max reached");
  // the doubling, on the period-1 branch down from 8 N
  ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
  const auto& pd = s["bifurcations"][0];
  EXPECT_EQ(pd["kind"], "period_doubling");
  EXPECT_EQ(pd["branch"], 2);
  EXPECT_NEAR(pd["parameter"].get<double>(), 7.5752337, 1e-6);
  const auto rows = csv_rows(dir / "1" / "branches.csv");
  std::vector<std::map<std::string, double>> single, doubled;
  for (const auto& row : rows) {
    if (row.at("branch") == 2.0) single.push_back(row);
    if (row.at("branch") == 1.0) doubled.push_back(row);
  }
  ASSERT_GE(single.size(), 3u);
  ASSERT_GE(doubled.size(), 3u);
  const double at = pd["parameter"].get<double>();
  const double period_one = quadratic_at(single, "/model/Fn", "period", at);
  // the doubled branch runs up towards the doubling: its last points lie next to it
  EXPECT_NEAR(doubled.back().at("/model/Fn"), at, 1e-3);
  EXPECT_NEAR(doubled.back().at("period"), 2.0 * period_one, 1e-3 * period_one);
  for (const auto& row : single)
    EXPECT_EQ(row.at("stable"), row.at("/model/Fn") > at ? 1.0 : 0.0) << row.at("/model/Fn");
  fs::remove_all(dir);
}

// a torus (Neimark–Sacker) point of the demo chain at v0 0.2: the period-1 orbit of 4.2 s from
// 2.6 N up has a complex pair of multipliers whose modulus passes one near 2.82 N. Located by
// single shooting on the break-away section and by multiple shooting (a segment per mode, other
// unknowns and other Jacobians): the same load to 1e-8 N. Against plain runs of 60 periods from
// the orbit's section point moved by 1e-5: the distance of their break-aways from it shrinks below
// the torus point and grows above it, by the pair's modulus a period (a least-squares fit of its
// logarithm) to 1 %
TEST(ContinueCommand, TorusPointIsWherePlainRunsTurnFromDecayToGrowth) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_torus");
  const std::string scenario = kScenarios + "chain2_bifurcation.json";
  std::map<std::string, double> torus;
  for (const std::string shooting : {"single", "multiple"}) {
    const Result r = run_fivsim("continue " + scenario + " -q --set /model/v0=0.2 --set /model/Fn=2.6" +
                                R"( --set '/continuation={"parameter":"/model/Fn","range":[2.5,2.9],"start":"orbit",)" +
                                R"("direction":"up","doublings":0,"shooting":")" + shooting + R"("}' --out )" +
                                (dir / shooting).string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = summary_of(dir / shooting);
    ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
    const auto& t = s["bifurcations"][0];
    EXPECT_EQ(t["kind"], "torus");
    EXPECT_EQ(t["stable_side"], "lower");
    EXPECT_GT(t["angle"].get<double>(), 0.0);
    EXPECT_LT(t["angle"].get<double>(), M_PI);
    torus[shooting] = t["parameter"].get<double>();
  }
  EXPECT_NEAR(torus["single"], torus["multiple"], 1e-8);
  const auto rows = csv_rows(dir / "single" / "branches.csv");
  for (const double load : {2.72, 2.9}) {
    std::size_t i = 0;
    while (i + 1 < rows.size() && rows[i].at("/model/Fn") < load - 1e-9) ++i;
    const auto& pt = rows[i];
    const double modulus = pt.at("max_modulus");
    EXPECT_EQ(modulus < 1.0, pt.at("/model/Fn") < torus["single"]) << pt.at("/model/Fn");
    std::ostringstream run;
    run.precision(17);
    run << "run " << scenario << " -q --set /model/v0=0.2 --set /model/Fn=" << pt.at("/model/Fn")
        << " --set '/initial/q=[" << pt.at("q0") + 1e-5 << "," << pt.at("q1") << "]' --set '/initial/u=[" << pt.at("u0")
        << "," << pt.at("u1") << "]' --set /integrator/t_end=" << 60.0 * pt.at("period")
        << " --set /analysis/t_transient=0 --out " << (dir / ("run" + std::to_string(i))).string();
    const Result rr = run_fivsim(run.str());
    ASSERT_EQ(rr.code, 0) << rr.err;
    const auto summary = summary_of(dir / ("run" + std::to_string(i)));
    std::vector<double> logs;
    for (const auto& e : summary["events"])
      if (e["contact"] == 1 && e["type"] == "stick_to_slip" && e["t"].get<double>() > 1e-6)
        logs.push_back(
            std::log(std::hypot(e["q"][0].get<double>() - pt.at("q0"), e["q"][1].get<double>() - pt.at("q1"))));
    ASSERT_GE(logs.size(), 50u);
    // the slope of log distance against the break-away's count
    const double n = static_cast<double>(logs.size()), mean_k = 0.5 * (n - 1.0);
    double mean_log = 0.0, sxy = 0.0, sxx = 0.0;
    for (const double l : logs) mean_log += l / n;
    for (std::size_t k = 0; k < logs.size(); ++k) {
      sxy += (static_cast<double>(k) - mean_k) * (logs[k] - mean_log);
      sxx += (static_cast<double>(k) - mean_k) * (static_cast<double>(k) - mean_k);
    }
    const double measured = std::exp(sxy / sxx);
    std::printf("%.6g N: plain runs' growth a period %.5f, the pair's modulus %.5f\n", pt.at("/model/Fn"), measured,
                modulus);
    EXPECT_NEAR(measured, modulus, 0.01 * modulus) << pt.at("/model/Fn");
    EXPECT_EQ(measured < 1.0, modulus < 1.0) << pt.at("/model/Fn");
  }
  fs::remove_all(dir);
}

// the demo chain's first period doubling followed in the belt speed (a `curves` block: the
// minimally augmented system), against the one-parameter branches at fixed belt speeds: at the
// curve's end on the range's bound, 0.29, and at one of its inner points, the load where the
// period-1 branch in the load doubles is the curve's to 1e-7 N (two methods: a test function
// located on a branch, Newton on the augmented system). The orbits are integrated to 1e-12: at the
// scenario's 1e-10 the variational equations' error leaves the multipliers a noise of 5e-9, which
// the test function's slope (0.08 per N) makes 7e-8 N in the located load
TEST(ContinueCommand, PeriodDoublingCurveMeetsTheBranchesAtFixedBeltSpeeds) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_curves");
  const std::string scenario = kScenarios + "chain2_bifurcation.json --set /integrator/rel_tol=1e-12";
  const std::string branch = R"("parameter":"/model/Fn","range":[7,8.3],"start":"orbit","direction":"down")";
  const Result r =
      run_fivsim("continue " + scenario + " -q --set '/continuation={" + branch +
                 R"(,"curves":{"parameter":"/model/v0","range":[0.29,0.3]}}' --out )" + (dir / "curves").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = summary_of(dir / "curves");
  ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
  const double at = s["bifurcations"][0]["parameter"].get<double>();
  ASSERT_EQ(s["curves"]["curves"].size(), 2u) << s["curves"].dump();
  const auto& down = s["curves"]["curves"][0];
  EXPECT_EQ(down["kind"], "period_doubling");
  EXPECT_EQ(down["direction"], "down");
  EXPECT_EQ(down["stop"], "p_min reached");
  EXPECT_EQ(s["curves"]["curves"][1]["stop"], "p_max reached");  // the scenario's 0.3 is the range's top
  std::vector<std::map<std::string, double>> curve;
  for (const auto& row : csv_rows(dir / "curves" / "curves.csv"))
    if (row.at("curve") == 0.0) curve.push_back(row);
  ASSERT_GE(curve.size(), 5u);
  // it starts on the branch's doubling and runs to the range's bound
  EXPECT_NEAR(curve.front().at("/model/Fn"), at, 1e-8);
  EXPECT_EQ(curve.front().at("/model/v0"), 0.3);
  EXPECT_EQ(curve.back().at("/model/v0"), 0.29);
  for (const std::size_t i : {curve.size() / 2, curve.size() - 1}) {
    const double v0 = curve[i].at("/model/v0"), load = curve[i].at("/model/Fn");
    std::ostringstream set;
    set.precision(17);
    set << " --set /model/v0=" << v0;
    const fs::path out = dir / ("branch" + std::to_string(i));
    const Result rb = run_fivsim("continue " + scenario + " -q" + set.str() + " --set '/continuation={" + branch +
                                 "}' --out " + out.string());
    ASSERT_EQ(rb.code, 0) << rb.err;
    const auto sb = summary_of(out);
    ASSERT_EQ(sb["bifurcations"].size(), 1u) << v0;
    EXPECT_EQ(sb["bifurcations"][0]["kind"], "period_doubling");
    EXPECT_NEAR(sb["bifurcations"][0]["parameter"].get<double>(), load, 1e-7) << "v0 = " << v0;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace continue_orbits_test
