// tests/cli/continue_grazing_test.cpp — `fivsim continue` at grazings of the demo chain's orbits:
// a grazing on the break-away section against the same orbits on a velocity section and against
// plain runs either side; a period doubling one step short of a grazing, located on its near side;
// the doubling's curve in a second parameter next to a grazing point against the branches'.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace continue_grazing_test {
namespace {

using namespace fivsim_test;

// a grazing-sliding of the demo chain's period-1 orbit on the break-away section (the sweeps'
// default): at v0 0.27326 the orbit's multiplier nears −1 as the load falls from 5.8 N and passes
// it (a doubling) 0.3 mN before contact 0's short stick phase after contact 1's break-away
// vanishes, where the multiplier jumps past −1.5. The break-away map counts the mode changes of a
// period, so the branch locates the point where that count drops by two. Against the same orbits
// on another section (u1 = 0.1 upwards, another map and other unknowns, its start the branch's
// first section point): the same loads to 1e-8 N; and against plain runs of one period from the
// points either side: their events between the two break-aways are the counts either side,
// contact 0 sticking once more above
TEST(ContinueCommand, GrazingOnTheBreakAwaySectionIsTheVelocitySectionsGrazing) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_breakaway_grazing");
  const std::string scenario = kScenarios + "chain2_bifurcation.json";
  const std::string at = " --set /model/v0=0.27326 --set /model/Fn=5.8";
  const std::string block = R"( --set '/continuation={"parameter":"/model/Fn","range":[5.7,5.8],"start":"orbit",)"
                            R"("direction":"down","doublings":0}')";
  const Result r = run_fivsim("continue " + scenario + " -q" + at + block + " --out " + (dir / "breakaway").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = summary_of(dir / "breakaway");
  ASSERT_EQ(s["bifurcations"].size(), 2u) << s["bifurcations"].dump();
  const auto& pd = s["bifurcations"][0];
  EXPECT_EQ(pd["kind"], "period_doubling");
  EXPECT_EQ(pd["stable_side"], "lower");
  const auto& g = s["bifurcations"][1];
  EXPECT_EQ(g["kind"], "grazing");
  EXPECT_EQ(g["events"], nlohmann::json::array({7, 5}));
  EXPECT_FALSE(g["turns"].get<bool>());
  const double load = g["parameter"].get<double>();
  const auto rows = csv_rows(dir / "breakaway" / "branches.csv");
  const std::size_t after = g["after_point"].get<std::size_t>();
  ASSERT_LT(after + 2, rows.size());
  EXPECT_GT(std::abs(rows[after + 2].at("re0")), 1.5);
  EXPECT_LT(std::abs(rows[after].at("re0")), 1.05);

  std::ostringstream start;
  start.precision(17);
  start << " --set /analysis/orbit=false --set /analysis/t_transient=0 --set '/initial/q=[" << rows[0].at("q0") << ","
        << rows[0].at("q1") << "]' --set '/initial/u=[" << rows[0].at("u0") << "," << rows[0].at("u1") << "]'"
        << R"( --set '/analysis/poincare={"section":"velocity","dof":1,"value":0.1,"direction":"up"}')";
  const Result rv =
      run_fivsim("continue " + scenario + " -q" + at + start.str() + block + " --out " + (dir / "velocity").string());
  ASSERT_EQ(rv.code, 0) << rv.err;
  const auto sv = summary_of(dir / "velocity");
  ASSERT_EQ(sv["bifurcations"].size(), 2u) << sv["bifurcations"].dump();
  EXPECT_EQ(sv["bifurcations"][0]["kind"], "period_doubling");
  EXPECT_NEAR(sv["bifurcations"][0]["parameter"].get<double>(), pd["parameter"].get<double>(), 1e-8);
  EXPECT_EQ(sv["bifurcations"][1]["kind"], "grazing");
  EXPECT_NEAR(sv["bifurcations"][1]["parameter"].get<double>(), load, 1e-8);

  // one period of a plain run from the last point above and the first past the grazing point
  for (const auto& [row, events, sticks] : {std::tuple{after, 7, 3}, std::tuple{after + 2, 5, 2}}) {
    const auto& pt = rows[row];
    std::ostringstream run;
    run.precision(17);
    run << "run " << scenario << " -q --set /model/v0=0.27326 --set /model/Fn=" << pt.at("/model/Fn")
        << " --set '/initial/q=[" << pt.at("q0") << "," << pt.at("q1") << "]' --set '/initial/u=[" << pt.at("u0") << ","
        << pt.at("u1") << "]' --set /integrator/t_end=" << pt.at("period") << " --set /analysis/t_transient=0 --out "
        << (dir / ("run" + std::to_string(row))).string();
    const Result rr = run_fivsim(run.str());
    ASSERT_EQ(rr.code, 0) << rr.err;
    int inside = 0, contact0_sticks = 0;
    const auto summary = summary_of(dir / ("run" + std::to_string(row)));
    for (const auto& e : summary["events"]) {
      const double t = e["t"].get<double>();
      if (t <= 1e-9 || t >= pt.at("period") - 1e-6) continue;
      ++inside;
      if (e["contact"] == 0 && e["to"] == "stick") ++contact0_sticks;
    }
    EXPECT_EQ(inside, events) << pt.at("/model/Fn");
    EXPECT_EQ(contact0_sticks, sticks) << pt.at("/model/Fn");
  }
  fs::remove_all(dir);
}

// near that grazing point a doubling lies 0.57 mN above it (v0 0.2736): from 5.8 N down the
// default steps take both in one step, across which the multiplier jumps past −1.5. The doubling
// is located between the last point and the grazing point's near side (where the multiplier
// passes −1), as a branch from 5.74 N whose steps take the two apart locates it
TEST(ContinueCommand, ADoublingShortOfAGrazingInOneStepIsLocatedOnTheGrazingsNearSide) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_doubling_by_grazing");
  std::map<std::string, nlohmann::json> found;
  for (const std::string from : {"5.8", "5.74"}) {
    const Result r =
        run_fivsim("continue " + kScenarios + "chain2_bifurcation.json -q --set /model/v0=0.2736" +
                   " --set /model/Fn=" + from + R"( --set '/continuation={"parameter":"/model/Fn","range":[5.73,)" +
                   from + R"(],"start":"orbit","direction":"down","doublings":0}' --out )" + (dir / from).string());
    ASSERT_EQ(r.code, 0) << r.err;
    found[from] = summary_of(dir / from)["bifurcations"];
    ASSERT_EQ(found[from].size(), 2u) << found[from].dump();
    EXPECT_EQ(found[from][0]["kind"], "period_doubling");
    EXPECT_EQ(found[from][0]["stable_side"], "lower");
    EXPECT_EQ(found[from][1]["kind"], "grazing");
  }
  // one step from 5.8, two from 5.74
  EXPECT_EQ(found["5.8"][0]["after_point"], found["5.8"][1]["after_point"]);
  EXPECT_LT(found["5.74"][0]["after_point"].get<long>(), found["5.74"][1]["after_point"].get<long>());
  for (const int k : {0, 1})
    EXPECT_NEAR(found["5.8"][k]["parameter"].get<double>(), found["5.74"][k]["parameter"].get<double>(), 1e-8) << k;
  EXPECT_NEAR(found["5.8"][0]["parameter"].get<double>() - found["5.8"][1]["parameter"].get<double>(), 5.7e-4, 1e-5);
  fs::remove_all(dir);
}

// the doubling's curve in the belt speed 0.06 to 0.13 mN above the grazing point: the curve's g
// is differenced by 1e-5 of each unknown, and a difference that crosses the grazing point (the
// return map's Jacobian jumps there) is taken on the other side. From v0 0.2729 down to 0.2727 the
// curve's end is the doubling of the one-parameter branch at 0.2727 (Newton on another system) to
// 1e-7 N, with the grazing point still below it
TEST(ContinueCommand, DoublingCurveNextToAGrazingPointIsTheBranchesDoubling) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_doubling_curve_by_grazing");
  const std::string scenario = kScenarios + "chain2_bifurcation.json";
  const std::string block = R"( --set /model/Fn=5.8 --set '/continuation={"parameter":"/model/Fn","range":[5.7,5.8],)"
                            R"("start":"orbit","direction":"down","doublings":0)";
  const Result rb = run_fivsim("continue " + scenario + " -q --set /model/v0=0.2727" + block + "}' --out " +
                               (dir / "branch").string());
  ASSERT_EQ(rb.code, 0) << rb.err;
  const auto branch = summary_of(dir / "branch")["bifurcations"];
  ASSERT_EQ(branch.size(), 2u) << branch.dump();
  ASSERT_EQ(branch[0]["kind"], "period_doubling");
  ASSERT_EQ(branch[1]["kind"], "grazing");
  const double doubling = branch[0]["parameter"].get<double>(), grazing = branch[1]["parameter"].get<double>();
  EXPECT_LT(doubling - grazing, 1e-4);
  const Result rc =
      run_fivsim("continue " + scenario + " -q --set /model/v0=0.2729" + block +
                 R"(,"curves":{"parameter":"/model/v0","range":[0.2727,0.2729]}}' --out )" + (dir / "curve").string());
  ASSERT_EQ(rc.code, 0) << rc.err;
  const auto s = summary_of(dir / "curve");
  ASSERT_EQ(s["curves"]["curves"].size(), 2u) << s["curves"].dump();
  EXPECT_EQ(s["curves"]["curves"][0]["stop"], "p_min reached");
  std::map<std::string, double> end;
  for (const auto& row : csv_rows(dir / "curve" / "curves.csv"))
    if (row.at("curve") == 0.0) end = row;
  ASSERT_FALSE(end.empty());
  EXPECT_EQ(end.at("/model/v0"), 0.2727);
  EXPECT_NEAR(end.at("/model/Fn"), doubling, 1e-7);
  EXPECT_GT(end.at("/model/Fn"), grazing);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace continue_grazing_test
