// tests/cli/continue_command_test.cpp — `fivsim continue` on equilibria against closed forms: the
// Hopf point of steady sliding on a slider with a decreasing friction law, where the viscous damping
// equals the law's negative slope times the load (c = −Fn μ'(v0)), in the belt speed and in the load;
// the flutter point of Model II (seed 000), which `fivsim stability` finds from its own
// linearisation; and bad input. Its branches of orbits: continue_orbits_test.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <tuple>
#include <map>
#include <sstream>
#include <vector>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace fivsim_test {
namespace {

// bSTAB's friction oscillator, x'' + 0.1 x' + x = Fn μ(v0 − x'), μ(v) = 0.5 + 0.5 e^{−2v}: the
// linearised damping 0.1 + Fn μ'(v0) = 0.1 − Fn e^{−2 v0} vanishes at v0 = ln(10 Fn)/2 (Fn = 1:
// where steady sliding turns stable, the basin stability's onset) and at Fn = 0.1 e^{2 v0}
TEST(ContinueCommand, HopfPointsOfSteadySlidingAreTheClosedForm) {
  struct Case {
    std::string block;
    double expected;
    const char* stable_side;  // steady sliding's: faster belts damp it, heavier loads excite it
  };
  for (const Case& c : {Case{R"({"parameter":"/model/v0","range":[1,2]})", 0.5 * std::log(10.0), "upper"},
                        Case{R"({"parameter":"/model/Fn","range":[1,3]})", 0.1 * std::exp(3.0), "lower"}}) {
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
    EXPECT_EQ(h["stable_side"], c.stable_side);
    EXPECT_EQ(lines_of(out / "branches.csv"), s["points"].get<long>() + 1);
    EXPECT_EQ(lines_of(out / "bifurcations.csv"), 2);
    fs::remove_all(out);
  }
}

// the Hopf point followed in the load: the curve where the linearised damping 0.1 − Fn e^{−2 v0}
// vanishes, v0 = ln(10 Fn)/2, with steady sliding at q = Fn μ(v0) = 0.5 Fn + 0.05 on it; both ways
// from the scenario's Fn = 1 to the ends of the load's range
TEST(ContinueCommand, HopfCurveOfSteadySlidingIsTheClosedForm) {
  const fs::path out = fresh_dir("fivsim_cli_continue_hopf_curve");
  const Result r = run_fivsim("continue " + kScenarios +
                              R"(bstab_friction.json --set '/continuation={"parameter":"/model/v0","range":[1,2],)"
                              R"("curves":{"parameter":"/model/Fn","range":[0.5,3]}}' --out )" +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = summary_of(out);
  ASSERT_EQ(s["curves"]["curves"].size(), 2u) << s["curves"].dump();
  EXPECT_EQ(s["curves"]["curves"][0]["kind"], "hopf");
  EXPECT_EQ(s["curves"]["curves"][0]["stop"], "p_min reached");
  EXPECT_EQ(s["curves"]["curves"][1]["stop"], "p_max reached");
  std::ifstream in(out / "curves.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "curve,point,kind,branch,bifurcation,/model/v0,/model/Fn,period,q0,u0");
  int rows = 0;
  double lo = 1.0, hi = 1.0;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::vector<std::string> c;
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    ASSERT_EQ(c.size(), 10u) << line;
    EXPECT_EQ(c[2], "hopf");
    const double v0 = std::stod(c[5]), fn = std::stod(c[6]);
    EXPECT_NEAR(v0, 0.5 * std::log(10.0 * fn), 1e-9) << line;
    EXPECT_NEAR(std::stod(c[8]), 0.5 * fn + 0.05, 1e-9) << line;
    lo = std::min(lo, fn);
    hi = std::max(hi, fn);
    ++rows;
  }
  EXPECT_GE(rows, 10);
  EXPECT_DOUBLE_EQ(lo, 0.5);
  EXPECT_DOUBLE_EQ(hi, 3.0);
  fs::remove_all(out);
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

TEST(ContinueCommand, BadBlocksAreBadInputAndWriteNothing) {
  const fs::path out = fresh_dir("fivsim_cli_continue_bad");
  const fs::path empty = fresh_dir("fivsim_cli_continue_bad_empty"), other = fresh_dir("fivsim_cli_continue_bad_other");
  fs::create_directories(empty);
  const Result rs = run_fivsim("sweep " + kScenarios +
                               "bstab_friction.json -q --device cpu --set /sweep/samples=4 --out " + other.string());
  ASSERT_EQ(rs.code, 0) << rs.err;
  const std::string base = "continue " + kScenarios + "bstab_friction.json --out " + out.string() + " ";
  const std::pair<std::string, std::string> cases[] = {
      {"", "/continuation"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[2,1]}')", "/continuation/range"},
      {R"(--set '/continuation={"parameter":"/integrator/dt","range":[1,2]}')", "/continuation/parameter"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"sped":1}')", "/continuation"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"step":{"initial":1,"max":0.1}}')",
       "/continuation/step"},
      {R"(--set '/continuation={"parameter":"/model/m","range":[-1,2]}')", "/model/m"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"sweep"}')", "/continuation/from"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"orbit","from":"x"}')",
       "/continuation/from"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"orbit","at_once":4}')",
       "/continuation/at_once"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"sweep","from":")" + other.string() +
           R"(","at_once":-1}')",
       "/continuation/at_once"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"shooting":"multiple"}')",
       "/continuation/shooting"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"orbit","shooting":"double"}')",
       "/continuation/shooting"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"sweep","from":")" +
           (out.parent_path() / "fivsim_no_such_sweep_folder").string() + R"("}')",
       "/continuation/from"},
      // curves: in another parameter, over a range that holds the scenario's value
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"curves":{"parameter":"/model/Fn","range":[2,3]}}')",
       "/continuation/curves/range"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"orbit","curves":{"parameter":"/model/v0","range":[0,3]}}')",
       "/continuation/curves/parameter"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"orbit","curves":{"parameter":"/model/c","range":[0.2,1]}}')",
       "/continuation/curves/range"},
      // a folder without a sweep's cases, and one whose sweep does not vary the parameter
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"sweep","from":")" + empty.string() +
           R"("}')",
       "/continuation/from"},
      {R"(--set '/continuation={"parameter":"/model/v0","range":[1,2],"start":"sweep","from":")" + other.string() +
           R"("}')",
       "/continuation/from"},
  };
  for (const auto& [args, pointer] : cases) {
    const Result r = run_fivsim(base + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(pointer), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
  fs::remove_all(empty);
  fs::remove_all(other);
}

}  // namespace
}  // namespace fivsim_test
