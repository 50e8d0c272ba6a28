// tests/cli/sweep_basins_test.cpp — a sweep over initial conditions: its basins against bSTAB's
// published basin stability (the friction oscillator, at one belt speed and at nine), and no
// basins where the starts share no group.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
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

// basins at each value of a parameter (scenarios/bstab_friction_belt.json: bSTAB's oscillator at
// nine belt speeds, here 200 random starts at each, one scenario): at every speed each class is one
// attractor (the equilibrium of steady sliding and one stick-slip cycle are unique there, so a
// split would be the labels' error) and the shares add up to one; steady sliding has no basin
// below the speed where it turns stable, ln(10)/2 = 1.151 (damping 0.1 against the law's slope
// e^(−2v) at the belt speed), and one above it; at bSTAB's speed 1.5 its share is bSTAB's basin
// stability 0.3165 within three of the 200 starts' standard errors
TEST(SweepCommand, BasinStabilityAtEachBeltSpeed) {
  const fs::path out = fresh_dir("fivsim_bstab_belt");
  const Result r =
      run_fivsim("sweep " + kScenarios + "bstab_friction_belt.json --device cpu -q --set /sweep/samples=200 --out " +
                 out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  ASSERT_TRUE(s.contains("basins")) << s.dump(1);
  EXPECT_FALSE(s.contains("basin_stability"));  // classes over several speeds are no one basin
  const json& groups = s["basins"]["groups"];
  ASSERT_EQ(groups.size(), 9u);
  std::vector<double> sliding;
  for (const json& g : groups) {
    EXPECT_EQ(g["cases"], 200);
    double total = static_cast<double>(g["unlabelled"].get<long>()) / 200.0, steady = 0.0;
    std::map<std::string, int> per_class;
    for (const json& a : g["attractors"]) {
      total += a["fraction"].get<double>();
      ++per_class[a["class"].get<std::string>()];
      if (a["class"] == "no-stick-slip") steady = a["fraction"].get<double>();
    }
    EXPECT_NEAR(total, 1.0, 1e-12) << g.dump();
    for (const auto& [klass, count] : per_class) EXPECT_EQ(count, 1) << klass << " at " << g["values"].dump();
    sliding.push_back(steady);
    std::printf("belt %.2f: steady sliding %.4f\n", g["values"][0].get<double>(), steady);
    if (std::abs(g["values"][0].get<double>() - 1.5) < 1e-12) {
      EXPECT_NEAR(steady, 0.3165, 3.0 * std::sqrt(0.3165 * (1 - 0.3165) / 200.0));
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g]["values"][0].get<double>() < 0.5 * std::log(10.0))
      EXPECT_EQ(sliding[g], 0.0) << groups[g]["values"];
    else
      EXPECT_GT(sliding[g], 0.0) << groups[g]["values"];
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace sweep_basins_test
