// tests/cli/friction_command_test.cpp — `fivsim friction` and `fivsim run` with the smooth method on
// the bundled torsion pendulum: files, defaults and refusals.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace {

using namespace fivsim_test;
using nlohmann::json;

const std::string kTorsion = FIVSIM_SOURCE_DIR "/scenarios/torsion_pendulum_lugre.json";

TEST(FrictionCommand, DrivesTheLawWithTheScenariosInput) {
  const fs::path out = fresh_dir("friction_lugre");
  const Result r = run_fivsim("friction " + kTorsion + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(slurp(out / "friction.json"));
  EXPECT_EQ(j["law"], "lugre");
  EXPECT_EQ(j["input"]["amplitude"], 0.02);
  EXPECT_EQ(j["samples"], 4001);  // two periods of 10 s at a 2000th of a period
  // the Stribeck hump: above Fc + σ2·0.02 = 0.13, below Fs + σ2·vs·(a few) ≈ 0.16
  EXPECT_GT(j["max_force"].get<double>(), 0.15);
  EXPECT_LT(j["max_force"].get<double>(), 0.165);
  EXPECT_EQ(slurp(out / "friction.csv").substr(0, 13), "t,v,mu,F,z\n0,");
  fs::remove_all(out);
}

TEST(FrictionCommand, NamesWhatIsMissing) {
  const Result r = run_fivsim("friction " + kScenarios + "chain2_F15.json --out " + fresh_dir("friction_x").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--amplitude: is required"), std::string::npos) << r.err;
  const Result c = run_fivsim("friction " + kTorsion + " --contact 3");
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("--contact"), std::string::npos) << c.err;
}

TEST(SmoothRun, TorsionPendulumRunsAndMethodsAreChecked) {
  const fs::path out = fresh_dir("smooth_run");
  const Result r = run_fivsim("run " + kTorsion + " -q --set /integrator/t_end=2 --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["steps"], 2000);
  EXPECT_GT(s["smooth"]["ode_steps"].get<long>(), 0);  // Rosenbrock steps, not LCP data
  fs::remove_all(out);
  // a dynamic law under an LCP method, compare and sweep: refused by pointer
  const Result m = run_fivsim("run " + kTorsion + " --set /integrator/method='\"moreau\"'");
  EXPECT_EQ(m.code, 2);
  EXPECT_NE(m.err.find("/integrator/method: dynamic friction laws"), std::string::npos) << m.err;
  const Result c = run_fivsim("compare " + kTorsion);
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("/integrator/method: compare measures time steppers"), std::string::npos) << c.err;
  const Result st = run_fivsim("stability " + kTorsion + " --param /model/k2");
  EXPECT_EQ(st.code, 2);
  EXPECT_NE(st.err.find("/friction/law: stability linearises static friction laws"), std::string::npos) << st.err;
}

}  // namespace
