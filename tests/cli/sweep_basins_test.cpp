// tests/cli/sweep_basins_test.cpp — a sweep over initial conditions: its basins against bSTAB's
// published basin stability (the friction oscillator, at one belt speed and along the speed), the
// chain's coexisting cycles, and no basins where the starts share no group.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace sweep_basins_test {
namespace {

using namespace fivsim_test;
using nlohmann::json;

// bSTAB's friction oscillator (scenarios/bstab_friction.json): over 4000 random starts the share
// that settles on steady sliding is bSTAB's published basin stability, 0.3165 ± 0.0074 (MATLAB
// ode45, 4000 samples), within three standard errors; summary.json states each class's share with
// its standard error √(p(1 − p)/n), and only for a sweep over initial conditions
TEST(SweepCommand, BasinStabilityOfBstabsFrictionOscillator) {
  const fs::path out = fresh_dir("fivsim_bstab");
  const Result r = run_fivsim("sweep " + kScenarios + "bstab_friction.json --device cpu -q --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  ASSERT_TRUE(s.contains("basin_stability")) << s.dump(1);
  const json& b = s["basin_stability"];
  ASSERT_TRUE(b.contains("no-stick-slip")) << b.dump(1);
  ASSERT_TRUE(b.contains("periodic-1")) << b.dump(1);
  const double p = b["no-stick-slip"]["fraction"].get<double>(), se = b["no-stick-slip"]["standard_error"];
  std::printf("steady sliding %.4f ± %.4f, stick-slip %.4f (bSTAB: 0.3165 ± 0.0074)\n", p, se,
              b["periodic-1"]["fraction"].get<double>());
  EXPECT_NEAR(se, std::sqrt(p * (1 - p) / 4000), 1e-12);
  EXPECT_NEAR(p, 0.3165, 3 * 0.0074);
  EXPECT_NEAR(p + b["periodic-1"]["fraction"].get<double>(), 1.0, 1e-12);
  // its two attractors, told apart by their extremes and period: steady sliding and one stick-slip
  // cycle, each class one attractor whose share is the class's (basins.csv, attractors.csv)
  ASSERT_TRUE(s.contains("basins")) << s.dump(1);
  const json& groups = s["basins"]["groups"];
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0]["attractors"].size(), 2u) << groups.dump(1);
  for (const json& a : groups[0]["attractors"])
    EXPECT_NEAR(a["fraction"].get<double>(), b[a["class"].get<std::string>()]["fraction"].get<double>(), 1e-12);
  const std::string labels = slurp(out / "attractors.csv");
  EXPECT_EQ(std::count(labels.begin(), labels.end(), '\n'), 4001);
  EXPECT_NE(slurp(out / "basins.csv").find("attractor,class,period_n,period,cases,fraction,standard_error"),
            std::string::npos);
  // a load sweep is no basin
  const fs::path loads = fresh_dir("fivsim_no_basin");
  ASSERT_EQ(run_fivsim("sweep " + kScenarios +
                       "chain2_load_sweep.json --device cpu -q --set "
                       "'/sweep/parameters/0/linspace=[1,30,2]' --set /integrator/t_end=120 --out " +
                       loads.string())
                .code,
            0);
  EXPECT_FALSE(json::parse(slurp(loads / "summary.json")).contains("basin_stability"));
  EXPECT_FALSE(json::parse(slurp(loads / "summary.json")).contains("basins"));
  EXPECT_FALSE(fs::exists(loads / "basins.csv"));
  fs::remove_all(out);
  fs::remove_all(loads);
}

// starts that share no group: a random load beside random initial positions makes every start a
// group of its own, where an attractor's share is 1 by construction — no basins, and the summary
// says why instead of listing a group per case
TEST(SweepCommand, StartsThatShareNoGroupHaveNoBasins) {
  const fs::path out = fresh_dir("fivsim_no_shared_group");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_bench_random.json --device cpu -q --format csv --set /sweep/samples=40 "
                              "--set /integrator/t_end=20 --set /analysis/t_transient=10 --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_FALSE(s.contains("basins")) << s.dump(1);
  ASSERT_TRUE(s.contains("basins_skipped")) << s.dump(1);
  EXPECT_NE(s["basins_skipped"].get<std::string>().find("/model/Fn"), std::string::npos);
  EXPECT_FALSE(fs::exists(out / "basins.csv"));
  EXPECT_FALSE(fs::exists(out / "attractors.csv"));
  const std::string cases = slurp(out / "cases.csv");
  EXPECT_EQ(cases.substr(0, cases.find('\n')).find("attractor"), std::string::npos);
  fs::remove_all(out);
}

// basins along a parameter (scenarios/bstab_friction_belt.json: bSTAB's oscillator, here at 21
// belt speeds from 1 to 2 with 200 random starts at each): steady sliding is one attractor with one
// number at every speed where it is stable — above the Hopf point ln(10)/2 = 1.1513 (damping 0.1
// against the law's slope e^(−2v)), none below it; at 1.15 its growth, 1.5e-4/s, is too slow for
// any run to tell, so the test leaves that speed out — and the stick-slip cycle one attractor with
// one number wherever it exists, up to the fold where it meets the unstable cycle that bounds the
// basin (1.8366, ContinueCommand.BstabsStickSlipCycleEnds…), where the table says it dies; the
// shares add up to one and at bSTAB's speed 1.5 steady sliding's is bSTAB's basin stability 0.3165
// within three of the 200 starts' standard errors
TEST(SweepCommand, BasinStabilityAtEachBeltSpeed) {
  const fs::path out = fresh_dir("fivsim_bstab_belt");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "bstab_friction_belt.json --device cpu -q --set /sweep/samples=200 --set "
                              "'/sweep/parameters/0={\"path\":\"/model/v0\",\"linspace\":[1,2,21]}' --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  ASSERT_TRUE(s.contains("basins")) << s.dump(1);
  EXPECT_FALSE(s.contains("basin_stability"));  // classes over several speeds are no one basin
  const json& groups = s["basins"]["groups"];
  ASSERT_EQ(groups.size(), 21u);
  const double hopf = 0.5 * std::log(10.0), fold = 1.8366;
  std::map<std::string, std::set<int>> numbers;  // per class, the attractors' numbers
  for (const json& g : groups) {
    const double v = g["values"][0].get<double>();
    EXPECT_EQ(g["cases"], 200);
    double total = static_cast<double>(g["unlabelled"].get<long>()) / 200.0, steady = 0.0;
    std::map<std::string, int> per_class;
    for (const json& a : g["attractors"]) {
      total += a["fraction"].get<double>();
      ++per_class[a["class"].get<std::string>()];
      numbers[a["class"].get<std::string>()].insert(a["attractor"].get<int>());
      if (a["class"] == "no-stick-slip") steady = a["fraction"].get<double>();
      // the cycle dies at the last speed before its fold
      if (a["class"] == "periodic-1") {
        EXPECT_EQ(a["change"] == "dies", v < fold && v + 0.05 > fold) << v;
      }
    }
    EXPECT_NEAR(total, 1.0, 1e-12) << g.dump();
    std::printf("belt %.2f: steady sliding %.4f ± %.4f\n", v, steady, std::sqrt(steady * (1 - steady) / 200));
    if (std::abs(v - hopf) > 0.01) {
      EXPECT_EQ(per_class["no-stick-slip"], v > hopf ? 1 : 0) << v;
    }
    EXPECT_EQ(per_class["periodic-1"], v < fold ? 1 : 0) << v;
    for (const auto& [klass, count] : per_class)
      EXPECT_TRUE(klass == "no-stick-slip" || klass == "periodic-1") << klass << " at " << v;
    if (std::abs(v - 1.5) < 1e-12) {
      EXPECT_NEAR(steady, 0.3165, 3.0 * std::sqrt(0.3165 * (1 - 0.3165) / 200.0));
    }
  }
  // one number each along the whole speed range
  EXPECT_EQ(numbers["no-stick-slip"].size(), 1u);
  EXPECT_EQ(numbers["periodic-1"].size(), 1u);
  EXPECT_EQ(s["basins"]["attractors"].size(), 2u) << s["basins"]["attractors"].dump();
  // basins.csv says the same
  const std::string csv = slurp(out / "basins.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "/model/v0,attractor,class,period_n,period,cases,fraction,standard_error,first_case,change");
  fs::remove_all(out);
}

// the chain's orbits known by their exact orbits (scenarios/chain2_bifurcation.json at Fn = 20,
// 100 starts on a grid of q0 and q1 at two belt speeds): at 0.2 every start settles on one
// periodic-2 orbit (the window statistics of the slow ones still hold transient, which once split
// it seven ways); at 0.3 two period-1 orbits coexist, 28.46 s and 31.05 s long, each an attractor
// of its own with its basin stability, the shares adding up to one
TEST(SweepCommand, TheChainsCoexistingOrbitsAreAttractorsOfTheirOwn) {
  const fs::path out = fresh_dir("fivsim_chain_basins");
  const Result r = run_fivsim(
      "sweep " + kScenarios +
      "chain2_bifurcation.json --device cpu -q --set /model/Fn=20 --set "
      "'/sweep={\"mode\":\"grid\",\"samples\":100,\"parameters\":[{\"path\":\"/model/v0\",\"values\":[0.2,0.3]},"
      "{\"path\":\"/initial/q/0\",\"range\":[-2,8]},{\"path\":\"/initial/q/1\",\"range\":[-2,12]}]}' --out " +
      out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  const json& groups = s["basins"]["groups"];
  ASSERT_EQ(groups.size(), 2u);
  ASSERT_EQ(groups[0]["attractors"].size(), 1u) << groups[0].dump(1);
  EXPECT_EQ(groups[0]["attractors"][0]["class"], "periodic-2");
  EXPECT_EQ(groups[0]["attractors"][0]["cases"], 100);
  const json& two = groups[1]["attractors"];
  ASSERT_EQ(two.size(), 2u) << groups[1].dump(1);
  std::vector<double> periods;
  double shares = 0.0;
  for (const json& a : two) {
    EXPECT_EQ(a["class"], "periodic-1");
    periods.push_back(a["period"].get<double>());
    const double p = a["fraction"].get<double>();
    shares += p;
    EXPECT_GT(p, 3.0 * a["standard_error"].get<double>()) << a.dump();
  }
  std::sort(periods.begin(), periods.end());
  EXPECT_NEAR(periods[0], 28.46, 0.01);
  EXPECT_NEAR(periods[1], 31.05, 0.01);
  EXPECT_NEAR(shares + static_cast<double>(groups[1]["unlabelled"].get<long>()) / 100.0, 1.0, 1e-12);
  fs::remove_all(out);
}

}  // namespace
}  // namespace sweep_basins_test
