// tests/identify_command_test.cpp — `fivsim identify` end to end: a bundled config, a CSV record
// next to its config, and bad configs that exit 2 naming the JSON pointer and leave no output.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace {

using namespace fivsim_test;
using nlohmann::json;

const std::string kContinuous = kScenarios + "identify/sdof_continuous_sindy.json";

TEST(IdentifyCommand, RunsTheBundledContinuousCase) {
  const fs::path out = fresh_dir("identify_continuous");
  const Result r = run_fivsim("identify " + kContinuous + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("dx1 = 1 x2"), std::string::npos) << r.out;
  const json j = json::parse(slurp(out / "identified.json"));
  EXPECT_EQ(j["record"]["samples"], 100001);
  // the truth comes from the scenario: seed 003 Table 1
  EXPECT_DOUBLE_EQ(j["truth"]["k"].get<double>(), 358.706);
  EXPECT_LT(j["sindy"]["errors_percent"]["k"].get<double>(), 1.0);
  EXPECT_TRUE(fs::exists(out / "record.csv"));
  EXPECT_EQ(slurp(out / "response.csv").substr(0, 13), "t,x,x_sindy\n0");
  fs::remove_all(out);
}

TEST(IdentifyCommand, ReadsACsvRecordNextToItsConfig) {
  const fs::path dir = fresh_dir("identify_csv");
  fs::create_directories(dir);
  // a frictionless oscillator ẍ = −25 x, free from x = 1: x = cos 5t, v = −5 sin 5t
  {
    std::ofstream csv(dir / "rec.csv");
    csv << "time,pos,vel\n";
    for (int i = 0; i <= 4000; ++i) csv << i * 1e-3 << "," << std::cos(5e-3 * i) << "," << -5 * std::sin(5e-3 * i) << "\n";
  }
  std::ofstream(dir / "id.json")
      << R"({"name": "free", "method": "sindy", "data": {"path": "rec.csv", "t": "time", "x": "pos", "v": "vel"},
            "library": {"input": false, "sign": false}})";
  const Result r = run_fivsim("identify " + (dir / "id.json").string() + " --out " + (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(slurp(dir / "out" / "identified.json"));
  EXPECT_NEAR(j["sindy"]["parameters"]["k"].get<double>(), 25.0, 25.0 * 1e-6);  // Savitzky–Golay error
  EXPECT_EQ(j["sindy"]["parameters"]["c"].get<double>(), 0.0);
  EXPECT_LT(j["sindy"]["rmse"].get<double>(), 1e-5);
  fs::remove_all(dir);
}

TEST(IdentifyCommand, GreyboxAndJointTermsWriteTheirBlocks) {
  const fs::path out = fresh_dir("identify_greybox");
  Result r = run_fivsim("identify " + kScenarios + "identify/sdof_two_stop_least_squares.json --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(slurp(out / "identified.json"));
  EXPECT_EQ(j["greybox"]["optimizer"], "least_squares");
  EXPECT_LT(j["greybox"]["errors_percent"]["F"].get<double>(), 1e-2);  // percent
  EXPECT_EQ(slurp(out / "response.csv").substr(0, 14), "t,x,x_greybox\n");
  r = run_fivsim("identify " + kScenarios + "identify/sdof_joint_terms.json --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  j = json::parse(slurp(out / "identified.json"));
  EXPECT_EQ(j["joint_terms"]["equations"][2], "f_u = -0.0856 sgn(x2)");
  EXPECT_EQ(slurp(out / "response.csv").substr(0, 18), "t,x,x_joint_terms\n");
  fs::remove_all(out);
}

TEST(IdentifyCommand, BadConfigsExitTwoNamingThePointer) {
  const fs::path out = fresh_dir("identify_bad");
  const std::pair<std::string, std::string> cases[] = {
      {"--set /options/colour=1", "/options/colour: unknown key"},
      {"--set /method=pinn", "/method: 'pinn' is not built yet"},
      {"--set /method=fft", "/method: unknown value 'fft'"},
      {"--set /options/window=34", "/options/window: must be odd"},
      {"--set /options/v_stop=1e-7", "/options/v_stop: unknown key"},  // sindy has no stop samples
      {"--set /data/path=x.csv", "/data: give either path (a CSV record) or scenario"},
      {"--set /data/sample_dt=-1", "/data/sample_dt: must be > 0"},
      {"--set /data/set/~1model~1k=-5", "/data/scenario: '"},
      {"--set /noise/snr_db=40 --set /noise/std=1e-6", "/noise: give either snr_db or std"},
      {"--set /library/terms/0=x9", "/library/terms/0: unknown variable 'x9'"},
      {"--set /library/terms/0=x1", "/library/terms/0: 'x1' is already in the library"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run_fivsim("identify " + kContinuous + " " + args + " --out " + out.string());
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find("fivsim identify: " + message), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace
