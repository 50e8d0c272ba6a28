// tests/cli/identify_command_test.cpp — `fivsim identify` end to end: a bundled config, a CSV record
// next to its config, a batch (a sweep block) against single runs of its cases, and bad configs
// that exit 2 naming the JSON pointer and leave no output.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace {

using namespace fivsim_test;
using nlohmann::json;

const std::string kContinuous = FIVSIM_SOURCE_DIR "/scenarios/identify/sdof_continuous_sindy.json";

// each (overrides, message): exit 2, the message on stderr, nothing written
template <std::size_t N>
void expect_rejected(const std::string& config, const std::pair<std::string, std::string> (&cases)[N],
                     const fs::path& out) {
  for (const auto& [args, message] : cases) {
    const Result r = run_fivsim("identify " + config + " " + args + " --out " + out.string());
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find("fivsim identify: " + message), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

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
    for (int i = 0; i <= 4000; ++i)
      csv << i * 1e-3 << "," << std::cos(5e-3 * i) << "," << -5 * std::sin(5e-3 * i) << "\n";
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
  // the kept term's 95 % interval, and only its
  const json& by_term = j["joint_terms"]["coefficient_interval_95"];
  ASSERT_EQ(by_term.size(), 1u);
  EXPECT_LE(by_term["sgn(x2)"][0].get<double>(), -0.0856);
  EXPECT_GE(by_term["sgn(x2)"][1].get<double>(), -0.0856);
  EXPECT_NE(r.out.find("95% intervals: sgn(x2) ["), std::string::npos) << r.out;
  EXPECT_EQ(slurp(out / "response.csv").substr(0, 18), "t,x,x_joint_terms\n");
  fs::remove_all(out);
}

TEST(IdentifyCommand, PinnFindsTheLuGreTorqueOfTheTorsionPendulum) {
  // the bundled config, shortened: 10 s, two hidden layers, 1500 Adam + 1000 L-BFGS iterations.
  // The record's friction column is the smooth LuGre simulation's own torque, so it is an
  // independent reference for N2 (the full config reaches 2.7%; docs/REPRODUCTION.md)
  const fs::path out = fresh_dir("identify_pinn");
  const Result r = run_fivsim("identify " + kScenarios +
                              "identify/torsion_pendulum_pinn.json --set /data/t_end=10 --set /options/hidden=[20,20] "
                              "--set /options/adam_iter=1500 --set /options/max_iter=1000 --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(slurp(out / "identified.json"));
  EXPECT_EQ(j["record"]["source"], "smooth simulation");
  EXPECT_EQ(j["pinn"]["training_samples"], 201);
  EXPECT_EQ(j["pinn"]["coefficients"]["J1"].get<double>(), -2.17e-4);
  EXPECT_TRUE(j["pinn"]["trained"].empty());
  EXPECT_LT(j["pinn"]["torque_error_percent"].get<double>(), 6.0);
  // N1 within 1% of the response's amplitude (3e-6 rad) at every sample, trained on every fifth
  EXPECT_LT(j["pinn"]["rmse"].get<double>(), 3e-8);
  EXPECT_EQ(slurp(out / "response.csv").substr(0, 29), "t,x,x_pinn,tau_pinn,friction\n");
  EXPECT_EQ(slurp(out / "record.csv").substr(0, 20), "t,x,v,u,du,friction\n");
  fs::remove_all(out);
}

TEST(IdentifyCommand, BadPinnConfigsExitTwoNamingThePointer) {
  const fs::path out = fresh_dir("identify_bad_pinn");
  const std::string config = kScenarios + "identify/torsion_pendulum_pinn.json";
  const std::pair<std::string, std::string> cases[] = {
      {"--set /coefficients/J2/value=-1", "/coefficients/J2/value: must be > 0"},
      {"--set /coefficients/J1/bounds=[1,2]", "/coefficients/J1: give either value (fixed) or bounds (trained)"},
      {"--set '/coefficients/k={\"bounds\":[0.5,0.6],\"initial\":0.7}'",
       "/coefficients/k/initial: must lie within the bounds"},
      {"--set /coefficients/J2/value=nan", "/coefficients/J2/value"},
      {"--set /options/hidden=[20,0]", "/options/hidden"},
      {"--set /options/threshold=0.1", "/options/threshold: unknown key"},
      {"--set '/truth={\"k\":1,\"c\":1,\"F\":1}'", "/truth: does not apply to pinn"},
      {"--set /data/t_end=0.5 --set /options/train_every=20",
       "/options/train_every: pinn identification: fewer than 5 training samples"},
  };
  expect_rejected(config, cases, out);
}

TEST(IdentifyCommand, BadConfigsExitTwoNamingThePointer) {
  const fs::path out = fresh_dir("identify_bad");
  const std::pair<std::string, std::string> cases[] = {
      {"--set /options/colour=1", "/options/colour: unknown key"},
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
  expect_rejected(kContinuous, cases, out);
  // found by the fuzzer (tests/fuzz/regressions/): an override whose pointer ends in an empty token
  // escaped as a raw JSON exception (exit 1); one with a huge array index ran out of memory
  const std::pair<std::string, std::string> greybox[] = {
      {"--set '/model/set/~1mdeolk~1=300'", "/model/scenario: '"},
      {"--set '/model/set/~1initial~1q~110386527119=1'", "/model/set/~1initial~1q~110386527119: '10386527119' in"},
  };
  expect_rejected(kScenarios + "identify/sdof_two_stop_greybox.json", greybox, out);
}

// the header and rows of a CSV written by fivsim (a quoted last field may hold commas)
std::vector<std::vector<std::string>> csv_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(file));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"')
        quoted = !quoted;
      else if (ch == ',' && !quoted) {
        row.push_back(cell);
        cell.clear();
      } else
        cell += ch;
    }
    row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

// a config with a sweep block: one identification per case, each row the same numbers as the
// single run of that case's config, a case that fails at run time flagged in its row
TEST(IdentifyCommand, BatchRowsEqualSingleRuns) {
  const fs::path out = fresh_dir("identify_batch");
  const std::string sweep =
      " --set '/sweep={\"mode\": \"grid\", \"parameters\": [{\"path\": \"/data/t_end\", "
      "\"values\": [4, 0.001, 6]}]}'";
  const Result r = run_fivsim("identify " + kContinuous + sweep + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 identifications"), std::string::npos) << r.out;
  const auto rows = csv_rows(out / "identifications.csv");
  ASSERT_EQ(rows.size(), 4u);
  const auto& head = rows[0];
  const auto column = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    EXPECT_NE(it, head.end()) << name;
    return static_cast<std::size_t>(it - head.begin());
  };
  // t_end = 0.001 s leaves 6 samples, fewer than the derivative window: flagged, the others run
  EXPECT_EQ(rows[2][column("status")], "failed");
  EXPECT_NE(rows[2][column("message")].find("/options/window: is larger than the record (35 of 6 samples)"),
            std::string::npos);
  EXPECT_EQ(rows[2][column("sindy_k")], "nan");
  for (int i : {1, 3}) {
    const std::string t_end = rows[i][column("/data/t_end")];
    EXPECT_EQ(rows[i][column("status")], "ok");
    const fs::path single = fresh_dir("identify_batch_single");
    const Result s =
        run_fivsim("identify " + kContinuous + " --set /data/t_end=" + t_end + " --out " + single.string());
    ASSERT_EQ(s.code, 0) << s.err;
    const json j = json::parse(slurp(single / "identified.json"));
    EXPECT_EQ(std::stol(rows[i][column("samples")]), j["record"]["samples"].get<long>());
    for (const char* p : {"k", "c", "F"}) {
      EXPECT_EQ(std::stod(rows[i][column(std::string("sindy_") + p)]), j["sindy"]["parameters"][p].get<double>()) << p;
      EXPECT_EQ(std::stod(rows[i][column(std::string("sindy_error_") + p + "_percent")]),
                j["sindy"]["errors_percent"][p].get<double>())
          << p;
    }
    EXPECT_EQ(std::stod(rows[i][column("sindy_rmse")]), j["sindy"]["rmse"].get<double>());
    fs::remove_all(single);
  }
  const json summary = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(summary["status"]["ok"], 2);
  EXPECT_EQ(summary["status"]["failed"], 1);
  fs::remove_all(out);
}

TEST(IdentifyCommand, BadBatchesExitTwoNamingTheCase) {
  const fs::path out = fresh_dir("identify_batch_bad");
  const std::pair<std::string, std::string> cases[] = {
      {"--set '/sweep={\"mode\": \"grid\", \"parameters\": [{\"path\": \"/data/colour\", \"values\": [1]}]}'",
       "/sweep/parameters/0/path: must point to a number"},
      {"--set '/sweep={\"mode\": \"grid\", \"parameters\": [{\"path\": \"/data/t_end\", \"values\": [10, -1]}]}'",
       "/data/t_end: (sweep case 1) must be > 0"},
  };
  expect_rejected(kContinuous, cases, out);
}

}  // namespace
