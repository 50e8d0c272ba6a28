// tests/cli/continue_command_test.cpp — `fivsim continue` on equilibria against closed forms: the
// Hopf point of steady sliding on a slider with a decreasing friction law, where the viscous damping
// equals the law's negative slope times the load (c = −Fn μ'(v0)), in the belt speed and in the load;
// the flutter point of Model II (seed 000), which `fivsim stability` finds from its own
// linearisation; and bad input.
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace fivsim_test {
namespace {

nlohmann::json summary_of(const fs::path& out) { return nlohmann::json::parse(slurp(out / "summary.json")); }

long lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  long n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

// bSTAB's friction oscillator, x'' + 0.1 x' + x = Fn μ(v0 − x'), μ(v) = 0.5 + 0.5 e^{−2v}: the
// linearised damping 0.1 + Fn μ'(v0) = 0.1 − Fn e^{−2 v0} vanishes at v0 = ln(10 Fn)/2 (Fn = 1:
// where steady sliding turns stable, the basin stability's onset) and at Fn = 0.1 e^{2 v0}
TEST(ContinueCommand, HopfPointsOfSteadySlidingAreTheClosedForm) {
  struct Case {
    std::string block;
    double expected;
    const char* becomes;
  };
  for (const Case& c : {Case{R"({"parameter":"/model/v0","range":[1,2]})", 0.5 * std::log(10.0), "stable"},
                        Case{R"({"parameter":"/model/Fn","range":[1,3]})", 0.1 * std::exp(3.0), "unstable"}}) {
    const fs::path out = fresh_dir("fivsim_cli_continue");
    const Result r = run_fivsim("continue " + kScenarios + "bstab_friction.json --set '/continuation=" + c.block +
                                "' --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    const auto s = summary_of(out);
    EXPECT_EQ(s["stop"], "p_max reached");
    EXPECT_EQ(s["modes"], nlohmann::json::array({"slip-"}));
    ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
    const auto& h = s["bifurcations"][0];
    EXPECT_EQ(h["kind"], "hopf");
    EXPECT_NEAR(h["parameter"].get<double>(), c.expected, 1e-8) << c.block;
    EXPECT_NEAR(h["frequency"].get<double>(), 1.0, 1e-6);  // √(k/m) where the damping vanishes
    EXPECT_EQ(h["becomes"], c.becomes);
    EXPECT_EQ(lines_of(out / "branches.csv"), s["points"].get<long>() + 1);
    EXPECT_EQ(lines_of(out / "bifurcations.csv"), 2);
    fs::remove_all(out);
  }
}

// Model II (seed 000 §4.3, mode coupling through a spring contact, undamped): the two pairs collide
// at μ = 61/60, where `fivsim stability` puts the critical friction (tests: StabilityCommand)
TEST(ContinueCommand, ModelIIFlutterPointIsTheStabilityScans) {
  const fs::path out = fresh_dir("fivsim_cli_continue_model2");
  const Result r =
      run_fivsim("continue " + kScenarios +
                 R"(model2_example1.json --set '/continuation={"parameter":"/friction/mu","range":[0,1.5]}' --out )" +
                 out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = summary_of(out);
  ASSERT_EQ(s["bifurcations"].size(), 1u) << s["bifurcations"].dump();
  EXPECT_EQ(s["bifurcations"][0]["kind"], "hopf");
  EXPECT_NEAR(s["bifurcations"][0]["parameter"].get<double>(), 61.0 / 60.0, 1e-8);
  EXPECT_NE(r.out.find("hopf at /friction/mu = 1.016666667"), std::string::npos) << r.out;
  fs::remove_all(out);
}

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
    EXPECT_EQ(pd["becomes"], "unstable");
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

TEST(ContinueCommand, BadBlocksAreBadInputAndWriteNothing) {
  const fs::path out = fresh_dir("fivsim_cli_continue_bad");
  const std::string base = "continue " + kScenarios + "bstab_friction.json --out " + out.string() + " ";
  const std::pair<std::string, std::string> cases[] = {
      {"", "/continuation"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[2,1]}')", "/continuation/range"},
      {R"(--set '/continuation={"parameter":"/integrator/dt","range":[1,2]}')", "/continuation/parameter"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"sped":1}')", "/continuation"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"step":{"initial":1,"max":0.1}}')",
       "/continuation/step"},
      {R"(--set '/continuation={"parameter":"/model/m","range":[-1,2]}')", "/model/m"},
  };
  for (const auto& [args, pointer] : cases) {
    const Result r = run_fivsim(base + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(pointer), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace
}  // namespace fivsim_test
