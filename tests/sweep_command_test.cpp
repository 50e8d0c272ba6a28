// tests/sweep_command_test.cpp — `fivsim sweep` end to end on the CPU backend: files that do not
// depend on chunk size or thread count, a one-case sweep equal to `fivsim run`, decimated
// trajectories, and one clear error (exit 2, nothing written) for each kind of bad sweep.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"
#include "fivsim/batch/sweep.hpp"

namespace {

using namespace fivsim_test;
using nlohmann::json;

// a short load sweep of the 2-DoF chain: 24 loads, 30 s
const std::string kShort =
    " --set /integrator/t_end=30 --set /analysis/t_transient=10 --set '/sweep/parameters/0/linspace=[1,30,24]' -q";

TEST(SweepCommand, FilesDoNotDependOnChunksOrThreads) {
  const fs::path one = fresh_dir("fivsim_sweep_one"), chunked = fresh_dir("fivsim_sweep_chunked");
  const Result a = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1 --out " +
                          one.string() + kShort);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 2 --chunk 5 --out " +
                          chunked.string() + kShort);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(slurp(one / "cases.csv"), slurp(chunked / "cases.csv"));
  EXPECT_EQ(slurp(one / "points.csv"), slurp(chunked / "points.csv"));
  const json s = json::parse(slurp(chunked / "summary.json"));
  EXPECT_EQ(s["cases"], 24);
  EXPECT_EQ(s["chunks"], 5);
  EXPECT_EQ(s["backend"], "cpu");
  EXPECT_EQ(s["case_steps"].get<double>(), 24.0 * 30000);
  const std::string cases = slurp(one / "cases.csv");
  EXPECT_EQ(cases.substr(0, cases.find('\n')).substr(0, 60),
            "case,/model/Fn,class,period_n,period,n_transitions,n_section");
  EXPECT_EQ(std::count(cases.begin(), cases.end(), '\n'), 25);
}

// Moreau, and Gauss IRK-LCP with 4 stages and interpolated stage forces
class OneCase : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(SweepCommand, OneCase,
                         ::testing::Values("", " --set /integrator/method='\"irk\"' --set /integrator/order=4"
                                               " --set /integrator/stage_forces='\"interpolated\"'"));

TEST_P(OneCase, EqualsRun) {
  const fs::path sweep = fresh_dir("fivsim_sweep_single"), run = fresh_dir("fivsim_sweep_run");
  const std::string common = " --set /integrator/t_end=60 --set /analysis/t_transient=20 -q" + GetParam();
  const Result a = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu"
                          " --set '/sweep={\"mode\":\"grid\",\"parameters\":[{\"path\":\"/model/Fn\",\"values\":[15]}]}'"
                          " --out " + sweep.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b = run_fivsim("run " + kScenarios + "chain2_load_sweep.json --set /model/Fn=15 --out " + run.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  const json summary = json::parse(slurp(run / "summary.json"));
  std::istringstream rows(slurp(sweep / "cases.csv"));
  std::string header, row, field;
  std::getline(rows, header);
  std::getline(rows, row);
  std::vector<std::string> names, values;
  for (std::istringstream h(header); std::getline(h, field, ',');) names.push_back(field);
  for (std::istringstream v(row); std::getline(v, field, ',');) values.push_back(field);
  ASSERT_EQ(names.size(), values.size());
  int compared = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].rfind("rms_", 0) != 0) continue;
    const double want = summary["rms"][names[i].substr(4)].get<double>();
    EXPECT_NEAR(std::stod(values[i]), want, 1e-12 * (1 + std::abs(want))) << names[i];
    ++compared;
  }
  EXPECT_EQ(compared, 8);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != "frac_stick") continue;
    EXPECT_NEAR(std::stod(values[i]),
                  (summary["time_fraction"][0]["stick"].get<double>() + summary["time_fraction"][1]["stick"].get<double>()) / 2,
                  1e-12);
  }
}

TEST(SweepCommand, WritesDecimatedTrajectories) {
  const fs::path out = fresh_dir("fivsim_sweep_traj");
  const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --set '/output/trajectories=[3]'"
                          " --set /output/every=100 --out " + out.string() + kShort);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string ts = slurp(out / "trajectories" / "case_3.csv");
  EXPECT_EQ(ts.substr(0, ts.find('\n')), "t,q0,q1,u0,u1,lamN0,lamN1,lamT0,lamT1,state0,state1");
  EXPECT_EQ(std::count(ts.begin(), ts.end(), '\n'), 1 + 301);  // header, t = 0, 0.1, …, 30
}

TEST(SweepCommand, LyapunovColumnWhenAsked) {
  const fs::path out = fresh_dir("fivsim_sweep_lyap");
  const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --set '/analysis/lyapunov={\"every\":10}'"
                              " --out " + out.string() + kShort);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream rows(slurp(out / "cases.csv"));
  std::string header, row;
  std::getline(rows, header);
  EXPECT_NE(header.find(",frac_slip_pos,lyapunov,max_lcp_residual,"), std::string::npos) << header;
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["lyapunov"]["every"], 10);
}

void expect_bad(const std::string& args, const std::string& message) {
  const fs::path out = fresh_dir("fivsim_sweep_bad");
  const Result r = run_fivsim("sweep " + args + " -q --out " + out.string());
  EXPECT_EQ(r.code, 2) << args;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SweepCommand, BadSweepsAreRejectedByPointer) {
  expect_bad(kScenarios + "chain2_F15.json", "/sweep: is required by `fivsim sweep`");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/sweep/parameters/0/linspace=[-1,30,5]'",
             "/model/Fn: must be >= 0, got -1 in case 0 (/model/Fn = -1)");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /sweep/parameters/0/path=/model/nope",
             "/sweep/parameters/0/path: must point to a number");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /sweep/extra=1", "/sweep/extra: unknown key");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/method=\\\"switching\\\"",
             "/integrator/method: sweeps run the time steppers");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/output/trajectories=[10000]'",
             "/output/trajectories: case 10000 does not exist");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /analysis/poincare/section=\\\"sideways\\\"",
             "/analysis/poincare/section");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/lyapunov={\"every\":0}'",
             "/analysis/lyapunov/every");
}

TEST(SweepCommand, CudaWithoutADeviceSaysSo) {
  if (fivsim::batch::cuda_device_info().available) GTEST_SKIP() << "a CUDA device is present";
  const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cuda -q --out " +
                          fresh_dir("fivsim_sweep_nocuda").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("fivsim sweep: --device cuda:"), std::string::npos) << r.err;
}

}  // namespace
