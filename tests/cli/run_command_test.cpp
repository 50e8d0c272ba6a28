// tests/cli/run_command_test.cpp — the fivsim tool end to end: outputs of `run`, exit codes, one-line
// errors, nothing written on bad input, and a partial series kept on numerical failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace {

using namespace fivsim_test;

TEST(RunCommand, WritesTimeseriesAndSummary) {
  const fs::path out = fresh_dir("fivsim_cli_run");
  const Result r = run_fivsim("run " + kScenarios + "model1_slow_stribeck.json --quiet --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream ts(out / "timeseries.csv");
  std::string header;
  std::getline(ts, header);
  EXPECT_EQ(header, "t,q0,u0,lamN0,lamT0,state0");
  long rows = 0;
  std::string line;
  while (std::getline(ts, line)) ++rows;
  EXPECT_EQ(rows, 4001);  // t = 0 and 4000 steps
  const auto summary = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(summary["status"], "complete");
  EXPECT_EQ(summary["steps"], 4000);
  EXPECT_GT(summary["rms"]["q0"].get<double>(), 0.0);
  EXPECT_GT(summary["events"].size(), 4u);
  EXPECT_EQ(summary["scenario"]["name"], "model1_slow_stribeck");
  for (const auto& e : summary["events"]) {
    EXPECT_TRUE(e.contains("t") && e.contains("contact") && e.contains("from") && e.contains("to") && e.contains("q"));
  }
  EXPECT_FALSE(fs::exists(out.string() + ".partial-" + std::to_string(0)));
}

TEST(RunCommand, SetOverridesAndDecimation) {
  const fs::path out = fresh_dir("fivsim_cli_set");
  const Result r = run_fivsim("run " + kScenarios + "model1_slow_stribeck.json -q --out " + out.string() +
                              " --set /integrator/t_end=1 --set /analysis/t_transient=0 --set /output/every=10");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(summary["steps"], 100);
  EXPECT_DOUBLE_EQ(summary["scenario"]["integrator"]["t_end"].get<double>(), 1.0);
  std::ifstream ts(out / "timeseries.csv");
  long rows = 0;
  std::string line;
  while (std::getline(ts, line)) ++rows;
  EXPECT_EQ(rows, 1 + 1 + 10);
}

TEST(RunCommand, PinnMethodReportsItsTrainingAndAgreesWithIrk) {
  // pinn_dual with 4 stages over 2 s of Model I against irk (4 stages): the trained PINN is the
  // Gauss step up to its training tolerance (docs/METHODS.md)
  const std::string base = "run " + kScenarios +
                           "model1_slow_stribeck.json -q --set /integrator/t_end=2 "
                           "--set /analysis/t_transient=0 --set /integrator/order=4";
  const fs::path pinn = fresh_dir("fivsim_cli_pinn"), irk = fresh_dir("fivsim_cli_pinn_irk");
  const Result r = run_fivsim(base + " --set /integrator/method='\"pinn_dual\"' --out " + pinn.string());
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(run_fivsim(base + " --set /integrator/method='\"irk\"' --out " + irk.string()).code, 0);
  const auto s = nlohmann::json::parse(slurp(pinn / "summary.json"));
  const auto t = nlohmann::json::parse(slurp(irk / "summary.json"));
  EXPECT_EQ(s["integrator"]["order"], 4);
  EXPECT_GT(s["pinn"]["dynamic_iterations"].get<long>(), 0);
  EXPECT_GT(s["pinn"]["lcp_iterations"].get<long>(), 0);
  EXPECT_EQ(s["pinn"]["unconverged_steps"], 0);
  EXPECT_LE(s["pinn"]["max_dynamic_loss"].get<double>(), s["pinn"]["tol"].get<double>());
  EXPECT_NEAR(s["rms"]["q0"].get<double>(), t["rms"]["q0"].get<double>(), 1e-9);
  EXPECT_NEAR(s["rms"]["lamT0"].get<double>(), t["rms"]["lamT0"].get<double>(), 1e-8);
}

TEST(RunCommand, BadInputExitsTwoWithOneLineAndWritesNothing) {
  const fs::path out = fresh_dir("fivsim_cli_bad");
  const Result r =
      run_fivsim("run " + kScenarios + "model1_slow_stribeck.json --out " + out.string() + " --set /integrator/dt=-1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/integrator/dt: must be > 0"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_EQ(e.path().filename().string().find("fivsim_cli_bad.partial"), std::string::npos);
}

TEST(RunCommand, MissingFileIsBadInput) {
  const Result r = run_fivsim("validate /nonexistent/scenario.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot be opened"), std::string::npos) << r.err;
}

TEST(RunCommand, ValidateDescribesTheScenario) {
  const Result r = run_fivsim("validate " + kScenarios + "chain5_F15.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5 DoF"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("LCP size 10"), std::string::npos) << r.out;
}

TEST(RunCommand, HelpOnEachVerb) {
  for (const char* verb : {"run", "validate", "compare", "stability"}) {
    const Result r = run_fivsim(std::string(verb) + " --help");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("--set"), std::string::npos) << verb;
  }
  // compare's help names every method its own error message lists (CLI11 wraps long lines: words
  // are looked for one at a time)
  const Result help = run_fivsim("compare --help");
  for (const char* method : {"root_shooting", "smooth", "pinn_singleQ", "pinn_dualQ", "pinn_adv_singleQ",
                             "pinn_adv_dualQ", "pinn_central", "+lcp_pinn", "-interp"})
    EXPECT_NE(help.out.find(method), std::string::npos) << method;
}

// negative stiffness makes the state grow without bound until it overflows
TEST(RunCommand, NonFiniteStateExitsThreeAndKeepsThePartialSeries) {
  const fs::path dir = fresh_dir("fivsim_cli_blowup");
  fs::create_directories(dir);
  std::ofstream(dir / "s.json") << R"({"name": "blowup",
    "model": {"type": "linear_multibody", "M": [[1]], "K": [[-1e6]], "contacts": []},
    "initial": {"q": [1e-3]},
    "integrator": {"dt": 0.1, "t_end": 100}})";
  const fs::path out = dir / "out";
  const Result r = run_fivsim("run " + (dir / "s.json").string() + " -q --out " + out.string());
  EXPECT_EQ(r.code, 3) << r.err;
  const auto summary = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(summary["status"], "incomplete");
  EXPECT_EQ(summary["failure"]["status"], "nonfinite");
  const long steps = summary["steps"].get<long>();
  EXPECT_GT(steps, 10);
  EXPECT_LT(steps, 1000);
  std::ifstream ts(out / "timeseries.csv");
  long rows = 0;
  std::string line;
  while (std::getline(ts, line)) ++rows;
  EXPECT_EQ(rows, 1 + 1 + steps);
}

TEST(CompareCommand, WritesTheTablesAndPairsTransitions) {
  const fs::path out = fresh_dir("fivsim_cli_compare");
  const Result r = run_fivsim("compare " + kScenarios +
                              "model1_sharp_short_stick.json --quiet --methods moreau,irk4 "
                              "--dt 0.01,1e-3 --series --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"compare.md", "compare.csv", "compare.json", "series/reference.csv", "series/moreau_dt0.01.csv",
                        "series/irk4_dt0.001.csv"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  const auto j = nlohmann::json::parse(slurp(out / "compare.json"));
  ASSERT_EQ(j["runs"].size(), 4u);
  EXPECT_EQ(j["runs"][0]["method"], "moreau");
  EXPECT_EQ(j["runs"][0]["dt"], 0.01);
  EXPECT_FALSE(j["runs"][0]["transitions"]["all_found"].get<bool>());
  EXPECT_TRUE(j["runs"][1]["transitions"]["all_found"].get<bool>());
  EXPECT_NE(slurp(out / "compare.md").find("× "), std::string::npos);
  // one CSV row per run after the header, the reference first
  std::ifstream csv(out / "compare.csv");
  std::string line;
  long rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 1 + 1 + 4);
}

TEST(CompareCommand, BadMethodsAndStepsAreBadInput) {
  const fs::path out = fresh_dir("fivsim_cli_compare_bad");
  Result r =
      run_fivsim("compare " + kScenarios + "model1_slow_stribeck.json --methods moreau,euler --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--methods"), std::string::npos) << r.err;
  r = run_fivsim("compare " + kScenarios + "model1_slow_stribeck.json --dt 1e-3,-1 --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--dt"), std::string::npos) << r.err;
  r = run_fivsim("compare " + kScenarios + "model1_slow_stribeck.json --set /model/m=0 --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/model/m"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(StabilityCommand, ModelIICriticalFriction) {
  const fs::path out = fresh_dir("fivsim_cli_stability");
  const Result r = run_fivsim("stability " + kScenarios +
                              "model2_example1.json --param /friction/mu --linspace 0 1.5 151 "
                              "--out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1.016666667"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(out / "stability.json"));
  EXPECT_NEAR(j["critical"].get<double>(), 61.0 / 60.0, 1e-9);
  std::ifstream csv(out / "stability.csv");
  std::string line;
  long rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 152);
}

TEST(StabilityCommand, BadParameterIsBadInput) {
  const fs::path out = fresh_dir("fivsim_cli_stability_bad");
  Result r = run_fivsim("stability " + kScenarios + "model2_example2.json --param /friction/mu --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--param"), std::string::npos) << r.err;
  r = run_fivsim("stability " + kScenarios + "model2_example1.json --linspace 1 0 5 --out " + out.string());
  EXPECT_EQ(r.code, 2);
  r = run_fivsim("stability " + kScenarios + "model2_example1.json --param /model/m --linspace -1 1 5 --out " +
                 out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/model/m"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
