// tests/cli/continue_report_test.cpp — what `fivsim continue` reports: each bifurcation point once
// however many branches pass it, the side of the parameter where the orbit is stable read off the
// branch's own points, and why a branch or a bifurcation's curve ends.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace continue_report_test {
namespace {

using namespace fivsim_test;
using nlohmann::json;

// the demo chain swept over 12 loads from 5.8 to 8 N, a branch each way from each of its five
// families of stable orbits (ten branches, 295 points): the period-1 orbit's three doublings
// (6.0537, 6.6592, 7.5752 N; seed 001's cascade) are passed by three or four branches each and
// reported once, each with every branch through it; on the side stable_side names, the branch's
// own points next to the doubling are stable and on the other side not. The period-2 branches
// that run into those doublings stall where their orbit collapses onto the period-1 orbit (a
// multiplier at +1) and say so
TEST(ContinueReport, EachBifurcationOnceWithTheSideWhereTheOrbitIsStable) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_report");
  const std::string scenario = kScenarios + "chain2_bifurcation.json";
  ASSERT_EQ(run_fivsim("sweep " + scenario + " -q --device cpu --set '/sweep/parameters/0/linspace=[5.8,8,12]' --out " +
                       (dir / "sweep").string())
                .code,
            0);
  const Result r =
      run_fivsim("continue " + scenario +
                 R"( --set '/continuation={"parameter":"/model/Fn","range":[5.8,8],"start":"sweep","from":")" +
                 (dir / "sweep").string() + R"("}' --out )" + (dir / "branches").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = summary_of(dir / "branches");
  // no two reported points of one kind at one load
  const json& bifs = s["bifurcations"];
  for (std::size_t i = 0; i < bifs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(bifs[i]["kind"] == bifs[j]["kind"] &&
                   std::abs(bifs[i]["parameter"].get<double>() - bifs[j]["parameter"].get<double>()) < 1e-6)
          << bifs[i].dump() << " again as " << bifs[j].dump();
  const auto rows = csv_rows(dir / "branches" / "branches.csv");
  const std::map<double, std::string> doublings = {{6.05369, "lower"}, {6.65924, "lower"}, {7.57523, "upper"}};
  for (const auto& [load, side] : doublings) {
    const json* pd = nullptr;
    for (const json& b : bifs)
      if (b["kind"] == "period_doubling" && std::abs(b["parameter"].get<double>() - load) < 1e-5) pd = &b;
    ASSERT_NE(pd, nullptr) << load << " in " << bifs.dump();
    EXPECT_GE((*pd)["branches"].size(), 3u) << pd->dump();
    EXPECT_EQ((*pd)["stable_side"], side) << load;
    // the reporting branch's nearest points either side
    const double at = (*pd)["parameter"].get<double>();
    const std::map<std::string, double>*below = nullptr, *above = nullptr;
    for (const auto& row : rows) {
      if (row.at("branch") != (*pd)["branch"].get<double>()) continue;
      const double p = row.at("/model/Fn");
      if (p < at && (!below || p > below->at("/model/Fn"))) below = &row;
      if (p > at && (!above || p < above->at("/model/Fn"))) above = &row;
    }
    ASSERT_TRUE(below && above) << load;
    EXPECT_EQ(below->at("stable"), side == "lower" ? 1.0 : 0.0) << load << ": " << below->at("/model/Fn");
    EXPECT_EQ(above->at("stable"), side == "upper" ? 1.0 : 0.0) << load << ": " << above->at("/model/Fn");
  }
  // the period-2 branches that stalled, each at the doubling it collapses onto
  int collapsed = 0;
  for (const json& b : s["branches"]) {
    if (b["stop"] != "step below ds_min") continue;
    ASSERT_TRUE(b.contains("ends_at")) << b.dump();
    const json& e = b["ends_at"];
    if (e["kind"] != "multiplier_one") continue;
    EXPECT_NEAR(e["multiplier"].get<double>(), 1.0, 2e-3);
    ASSERT_TRUE(e.contains("meets")) << b.dump();
    EXPECT_NEAR(e["meets"]["parameter"].get<double>(), e["parameter"].get<double>(), 0.01);
    ++collapsed;
  }
  EXPECT_EQ(collapsed, 2);
  EXPECT_NE(r.out.find("the orbit meets the period doubling at 6.659"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// the doubling at v0 0.2729 (5.7222 N, 0.13 mN above the grazing point of its orbit) followed down
// in the belt speed: the doubling and the grazing close in, and the curve stalls where the return
// map's differences reach across the grazing point — a codimension-two point, a doubling meeting a
// grazing. The report names it with both parameters; against one-parameter branches at the two
// ends' belt speeds, the doubling and the grazing are less than a quarter as far apart at the end
TEST(ContinueReport, ADoublingCurveEndsWhereTheDoublingMeetsAGrazing) {
  const fs::path dir = fresh_dir("fivsim_cli_continue_codim2");
  const std::string scenario = kScenarios + "chain2_bifurcation.json --set /model/Fn=5.8";
  const std::string branch =
      R"("parameter":"/model/Fn","range":[5.7,5.8],"start":"orbit","direction":"down","doublings":0)";
  const Result r =
      run_fivsim("continue " + scenario + " --set /model/v0=0.2729 --set '/continuation={" + branch +
                 R"(,"curves":{"parameter":"/model/v0","range":[0.26,0.2729]}}' --out )" + (dir / "curve").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = summary_of(dir / "curve");
  const json& down = s["curves"]["curves"][0];
  ASSERT_EQ(down["direction"], "down");
  EXPECT_EQ(down["stop"], "step below ds_min");
  ASSERT_TRUE(down.contains("ends_at")) << down.dump();
  const json& e = down["ends_at"];
  EXPECT_EQ(e["kind"], "period_doubling_meets_grazing");
  EXPECT_EQ(e["events"], json::array({7, 5}));
  const double v_end = e["/model/v0"].get<double>();
  EXPECT_GT(v_end, 0.26);
  EXPECT_NEAR(e["grazing_near"].get<double>(), v_end, 1e-3 * v_end);
  EXPECT_NE(r.out.find("period_doubling_meets_grazing"), std::string::npos) << r.out;
  // the gap between the doubling and the grazing at a belt speed
  const auto gap = [&](double v0, const std::string& name) {
    const Result b = run_fivsim("continue " + scenario + " -q --set /model/v0=" + std::to_string(v0) +
                                " --set '/continuation={" + branch + "}' --out " + (dir / name).string());
    EXPECT_EQ(b.code, 0) << b.err;
    double pd = NAN, graze = NAN;
    const json found = summary_of(dir / name);
    for (const json& f : found["bifurcations"]) {
      if (f["kind"] == "period_doubling") pd = f["parameter"].get<double>();
      if (f["kind"] == "grazing") graze = f["parameter"].get<double>();
    }
    return pd - graze;
  };
  const double start = gap(0.2729, "start"), end = gap(v_end, "end");
  std::printf("doubling above the grazing: %.3g N at v0 0.2729, %.3g N at the curve's end %.7f\n", start, end, v_end);
  EXPECT_GT(end, 0.0);
  EXPECT_LT(end, 0.25 * start);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace continue_report_test
