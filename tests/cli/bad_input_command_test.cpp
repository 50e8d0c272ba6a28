// tests/cli/bad_input_command_test.cpp — inputs that once crashed fivsim or passed as nonsense, end to
// end: each is now refused with exit 2 and one line naming the pointer, the option or the file,
// and nothing is left behind (no results folder, staging folder or lock).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace {

using namespace fivsim_test;
using nlohmann::json;

// (from the macro, not kScenarios: clang orders an inline variable's initialization after this one)
const std::string kScenario = FIVSIM_SOURCE_DIR "/scenarios/model1_slow_stribeck.json";

// the scenario's text with `from` replaced by `to`, in a file of its own
fs::path edited_scenario(const fs::path& dir, const std::string& from, const std::string& to) {
  fs::create_directories(dir);
  std::string text = slurp(kScenario);
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(dir / "scenario.json") << text;
  return dir / "scenario.json";
}

bool nothing_left(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "scenario.json" && e.path().filename() != "config.json") return false;
  return true;
}

TEST(BadInputCommand, NumbersBeyondADoubleAreRefusedWithTheirPointer) {
  const fs::path dir = fresh_dir("fivsim_bad_overflow");
  const fs::path sc = edited_scenario(dir, "\"v0\": 0.5", "\"v0\": 1e400");
  expect_bad_input(run_fivsim("validate " + sc.string()), "validate",
                   "/model/v0: the number 1e400 is beyond a double's range");
  expect_bad_input(run_fivsim("run " + sc.string() + " -q --out " + (dir / "r").string()), "run",
                   "/model/v0: the number 1e400");
  expect_bad_input(run_fivsim("validate " + kScenario + " --set /model/v0=1e400"), "validate",
                   "/model/v0: the number 1e400");
  expect_bad_input(run_fivsim("validate " + kScenario + " --set /model/v0=[1,-2e999]"), "validate",
                   "/model/v0/1: the number -2e999");
  // an identification config too
  std::string config = slurp(kScenarios + "identify/sdof_continuous_sindy.json");
  config.replace(config.find("0.03"), 4, "1e999");
  std::ofstream(dir / "config.json") << config;
  expect_bad_input(run_fivsim("identify " + (dir / "config.json").string()), "identify",
                   "/options/threshold: the number 1e999");
  EXPECT_TRUE(nothing_left(dir));
  fs::remove_all(dir);
}

TEST(BadInputCommand, DeepNestingIsRefusedAtTheStatedDepth) {
  const fs::path dir = fresh_dir("fivsim_bad_nesting");
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "scenario.json");
    f << "{\"name\": ";
    for (int i = 0; i < 150000; ++i) f << '[';
    for (int i = 0; i < 150000; ++i) f << ']';
    f << "}";
  }
  expect_bad_input(run_fivsim("validate " + (dir / "scenario.json").string()), "validate",
                   "nests deeper than 64 levels of arrays and objects");
  fs::remove_all(dir);
}

TEST(BadInputCommand, AKeyGivenTwiceIsRefused) {
  const fs::path dir = fresh_dir("fivsim_bad_duplicate");
  const fs::path sc = edited_scenario(dir, "\"Fn\": 10.0", "\"Fn\": 10.0, \"Fn\": 20.0");
  expect_bad_input(run_fivsim("validate " + sc.string()), "validate", "/model/Fn: is given twice in the same object");
  fs::remove_all(dir);
}

// a folder, a pipe (as /dev/zero would be, a device) and a missing file: refused at once, with why
TEST(BadInputCommand, OnlyARegularFileIsReadAsAScenario) {
  const fs::path dir = fresh_dir("fivsim_bad_files");
  fs::create_directories(dir / "folder.json");
  ASSERT_EQ(::mkfifo((dir / "pipe.json").c_str(), 0644), 0);
  expect_bad_input(run_fivsim("validate " + (dir / "folder.json").string()), "validate",
                   "is a folder, not a JSON file");
  expect_bad_input(run_fivsim("run " + (dir / "pipe.json").string()), "run", "is not a regular file");
  expect_bad_input(run_fivsim("validate " + (dir / "missing.json").string()), "validate",
                   "missing.json: cannot be opened: No such file or directory (looked for in " + dir.string() + ")");
  expect_bad_input(run_fivsim("validate " + (dir / "nowhere" / "missing.json").string()), "validate",
                   "(the folder " + (dir / "nowhere").string() + " does not exist)");
  fs::remove_all(dir);
}

TEST(BadInputCommand, ThreadsAndChunkOutsideTheirRangesAreRefusedInFivsimsWords) {
  const fs::path dir = fresh_dir("fivsim_bad_threads");
  fs::create_directories(dir);
  const std::string sweep =
      "sweep " + kScenarios + "chain2_load_sweep.json --device cpu -q --out " + (dir / "s").string();
  for (const char* threads : {"0", "40000", "65535", "-3", "two"})
    expect_bad_input(run_fivsim(sweep + " --threads " + threads), "sweep",
                     "--threads: must be an integer in [1, 1024], got '" + std::string(threads) + "'");
  expect_bad_input(run_fivsim(sweep + " --chunk 0"), "sweep", "--chunk: must be an integer in [1, 2097152], got '0'");
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

// a load of 1e308 N ran to "complete" with null RMS values (their squares overflow): refused by the
// rule that bounds a scenario's numbers
TEST(BadInputCommand, ValuesWhoseResultsOverflowAreRefusedWithTheRule) {
  for (const char* value : {"1e308", "-2e100"})
    expect_bad_input(run_fivsim("validate " + kScenario + " --set /model/Fn=" + value), "validate",
                     "/model/Fn: must be within ±1e100 (beyond, the squares a run's statistics sum overflow)");
  EXPECT_EQ(run_fivsim("validate " + kScenario + " --set /model/Fn=1e100").code, 0);
}

TEST(BadInputCommand, AStepLongerThanTheRunIsRefused) {
  expect_bad_input(run_fivsim("validate " + kScenario + " --set /integrator/dt=50"), "validate",
                   "/integrator/dt: must not exceed /integrator/t_end (40 s), got 50 s");
}

// a scenario's name with an escape sequence and a newline: the message stays one line
TEST(BadInputCommand, ControlCharactersAreEscapedInMessages) {
  const Result r = run_fivsim("validate " + kScenario + " --set '/name=\"a\\u001b[31mb\\nc\"'");
  expect_bad_input(r, "validate", "a\\x1b[31mb\\nc");
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

// a misspelled key is named as the cause, with the key it should be
TEST(BadInputCommand, AMisspelledKeyIsReportedBeforeTheMissingOne) {
  const fs::path dir = fresh_dir("fivsim_bad_typo");
  const fs::path typo = edited_scenario(dir, "\"mu_s\"", "\"mu_S\"");
  expect_bad_input(run_fivsim("validate " + typo.string()), "validate",
                   "/friction/mu_S: unknown key: did you mean 'mu_s'? (/friction/mu_s is required)");
  const fs::path typo2 = edited_scenario(dir / "b", "\"integrator\"", "\"integrater\"");
  expect_bad_input(run_fivsim("validate " + typo2.string()), "validate",
                   "/integrater: unknown key: did you mean 'integrator'?");
  // an optional key misspelled: finish() names the nearest allowed one
  expect_bad_input(run_fivsim("validate " + kScenario + " --set /analysis/t_transeint=1"), "validate",
                   "/analysis/t_transeint: unknown key (did you mean 't_transient'? allowed here:");
  fs::remove_all(dir);
}

// a shard cut short (its cases.csv truncated inside a row) or changed is refused by name
TEST(BadInputCommand, MergeRefusesADamagedShard) {
  const fs::path base = fresh_dir("fivsim_bad_merge");
  const std::string sweep = "sweep " + kScenarios +
                            "chain2_load_sweep.json --device cpu -q --set /integrator/t_end=2 "
                            "--set /analysis/t_transient=1 --set /sweep/parameters/0/linspace=[1,30,200]";
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(
        run_fivsim(sweep + " --shard " + std::to_string(i) + "/2 --out " + (base / std::to_string(i)).string()).code,
        0);
  const json summary = json::parse(slurp(base / "1" / "summary.json"));
  ASSERT_TRUE(summary["checksums"].contains("cases.csv"));
  EXPECT_EQ(summary["checksums"]["cases.csv"]["lines"], 101);
  const std::string shards = (base / "0").string() + " " + (base / "1").string() + " --out " + (base / "all").string();
  const std::string whole = slurp(base / "1" / "cases.csv");
  fs::resize_file(base / "1" / "cases.csv", whole.size() / 2);
  expect_bad_input(run_fivsim("merge " + shards), "merge",
                   (base / "1" / "cases.csv").string() + " is damaged: " + std::to_string(whole.size() / 2) +
                       " bytes where the sweep wrote " + std::to_string(whole.size()));
  EXPECT_FALSE(fs::exists(base / "all"));
  // the same length, one digit changed
  std::string changed = whole;
  changed[changed.size() - 5] = changed[changed.size() - 5] == '1' ? '2' : '1';
  std::ofstream(base / "1" / "cases.csv", std::ios::binary | std::ios::trunc) << changed;
  expect_bad_input(run_fivsim("merge " + shards), "merge", "its bytes differ from what the sweep wrote");
  // a shard without checksums cannot be verified: refused, even with its files whole
  std::ofstream(base / "1" / "cases.csv", std::ios::binary | std::ios::trunc) << whole;
  json old = summary;
  old.erase("checksums");
  std::ofstream(base / "1" / "summary.json", std::ios::trunc) << old.dump();
  expect_bad_input(run_fivsim("merge " + shards), "merge",
                   (base / "1" / "summary.json").string() + " has no \"checksums\": its files cannot be verified");
  EXPECT_FALSE(fs::exists(base / "all"));
  // a count that is no integer (a float beyond any integer type, as a fuzzer wrote it) is refused by name
  json floated = summary;
  floated["shard"]["index"] = 1.11111e23;
  std::ofstream(base / "1" / "summary.json", std::ios::trunc) << floated.dump();
  expect_bad_input(run_fivsim("merge " + shards), "merge",
                   (base / "1" / "summary.json").string() + " is damaged: \"shard/index\" is 1.11111e+23, not a count");
  EXPECT_FALSE(fs::exists(base / "all"));
  std::ofstream(base / "1" / "summary.json", std::ios::trunc) << summary.dump();
  const Result ok = run_fivsim("merge " + shards);
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(json::parse(slurp(base / "all" / "summary.json"))["checksums"]["cases.csv"]["lines"], 201);
  fs::remove_all(base);
}

}  // namespace
