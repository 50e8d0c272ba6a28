// tests/cli/output_folder_command_test.cpp — what every command does with --out, end to end: it
// refuses (exit 2, one line, nothing touched) a file, a folder it did not write, the current
// folder and those above it, the folder of its input; it replaces its own results; parallel runs
// into one folder are refused by the lock instead of losing results; an interrupted run leaves
// nothing behind. Only temporary folders are used (the refusal of `/` and device nodes is tested on
// the path check itself, output_test.cpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace {

using namespace fivsim_test;
using nlohmann::json;

const std::string kRun =
    FIVSIM_SOURCE_DIR "/scenarios/model1_slow_stribeck.json -q --set /integrator/t_end=1 --set /analysis/t_transient=0";

// the names in a folder (what a refused command must have left as it was)
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.push_back(fs::relative(e.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

// a folder holding a user's own files
fs::path users_folder(const fs::path& base) {
  const fs::path mine = base / "mine";
  fs::create_directories(mine / "data");
  std::ofstream(mine / "notes.txt") << "my notes";
  std::ofstream(mine / "data" / "measured.csv") << "t,x\n0,1\n";
  return mine;
}

void expect_refused(const Result& r, const std::string& verb, const std::string& why) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("fivsim " + verb + ": --out: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(OutputFolderCommand, RunRefusesFilesAndFoldersItDidNotWrite) {
  const fs::path base = fresh_dir("fivsim_out_refuse");
  const fs::path mine = users_folder(base);
  const std::vector<std::string> before = listing(base);
  expect_refused(run_fivsim("run " + kRun + " --out " + (mine / "notes.txt").string()), "run",
                 "is a file, not a results folder");
  expect_refused(run_fivsim("run " + kRun + " --out " + mine.string()), "run", "is a folder fivsim did not write");
  expect_refused(run_fivsim("run " + kRun + " --out " + mine.string() + "/"), "run",
                 "is a folder fivsim did not write");
  fs::create_directory_symlink(mine, base / "link");
  expect_refused(run_fivsim("run " + kRun + " --out " + (base / "link").string()), "run", "is a symbolic link");
  fs::remove(base / "link");
  // `.` and `..` from inside the user's folder: neither the folder nor the one above is touched
  for (const char* out : {".", "..", "./", "data/.."}) {
    const Result r = run_command_line("cd " + mine.string() + " && ", "run " + kRun + " --out " + out);
    expect_refused(r, "run", std::string(out) == ".." ? "holds the current folder" : "is the current folder");
  }
  EXPECT_EQ(listing(base), before);
  EXPECT_EQ(slurp(mine / "notes.txt"), "my notes");
  fs::remove_all(base);
}

// the folder a scenario is read from is never replaced, even where fivsim wrote it
TEST(OutputFolderCommand, TheInputsFolderIsRefused) {
  const fs::path base = fresh_dir("fivsim_out_input");
  ASSERT_EQ(run_fivsim("run " + kRun + " --out " + (base / "r").string()).code, 0);
  fs::copy_file(kScenarios + "model1_slow_stribeck.json", base / "r" / "scenario.json");
  const Result r =
      run_fivsim("run " + (base / "r" / "scenario.json").string() +
                 " -q --set /integrator/t_end=1 --set /analysis/t_transient=0 --out " + (base / "r").string());
  expect_refused(r, "run", "an input of this command");
  EXPECT_TRUE(fs::exists(base / "r" / "scenario.json"));
  fs::remove_all(base);
}

// every command that writes a folder refuses before its work: a user's folder stays as it was
TEST(OutputFolderCommand, EveryCommandRefusesAFolderItDidNotWrite) {
  const fs::path base = fresh_dir("fivsim_out_every");
  const fs::path mine = users_folder(base);
  const std::vector<std::string> before = listing(base);
  const std::string out = " --out " + mine.string();
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"run", "run " + kRun + out},
      {"sweep", "sweep " + kScenarios + "chain2_load_sweep.json --device cpu -q" + out},
      {"compare", "compare " + kScenarios + "model2_example2.json --methods moreau --dt 1e-3 -q" + out},
      {"stability", "stability " + kScenarios + "model2_example1.json --param /friction/mu --linspace 0 1.5 5" + out},
      {"continue", "continue " + kScenarios +
                       R"(bstab_friction.json --set '/continuation={"parameter":"/model/v0","range":[1,2]}')" + out},
      {"friction", "friction " + kScenarios + "torsion_pendulum_lugre.json" + out},
      {"identify", "identify " + kScenarios + "identify/sdof_continuous_sindy.json" + out},
      {"identify", "identify " + kScenarios + "identify/sdof_regimes_batch.json" + out},
  };
  for (const auto& [verb, line] : commands) expect_refused(run_fivsim(line), verb, "is a folder fivsim did not write");
  EXPECT_EQ(listing(base), before);
  fs::remove_all(base);
}

// merge reads the shards: --out may name none of them
TEST(OutputFolderCommand, MergeRefusesToWriteOverAShard) {
  const fs::path base = fresh_dir("fivsim_out_merge");
  const std::string sweep = "sweep " + kScenarios +
                            "chain2_load_sweep.json --device cpu -q --set /integrator/t_end=2 "
                            "--set /analysis/t_transient=1 --set /sweep/parameters/0/linspace=[1,30,8]";
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(
        run_fivsim(sweep + " --shard " + std::to_string(i) + "/2 --out " + (base / std::to_string(i)).string()).code,
        0);
  const std::string shards = (base / "0").string() + " " + (base / "1").string();
  expect_refused(run_fivsim("merge " + shards + " --out " + (base / "0").string()), "merge",
                 "an input of this command");
  expect_refused(run_fivsim("merge " + shards + " --out " + base.string()), "merge", "an input of this command");
  ASSERT_EQ(run_fivsim("merge " + shards + " --out " + (base / "all").string()).code, 0);
  EXPECT_TRUE(fs::exists(base / "0" / "cases.csv"));
  fs::remove_all(base);
}

// fivsim's own results are replaced whole: the old files go, the marker stays
TEST(OutputFolderCommand, ResultsFolderIsReplacedWhole) {
  const fs::path base = fresh_dir("fivsim_out_replace");
  ASSERT_EQ(run_fivsim("run " + kRun + " --out " + (base / "r").string()).code, 0);
  EXPECT_TRUE(fs::is_regular_file(base / "r" / ".fivsim-output"));
  std::ofstream(base / "r" / "left_by_an_older_run.csv") << "x";
  const Result again = run_fivsim("run " + kRun + " --set /output/timeseries=false --out " + (base / "r").string());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(listing(base / "r"), (std::vector<std::string>{".fivsim-output", "summary.json"}));
  // an empty folder (made for the results) is taken too
  fs::create_directories(base / "empty");
  ASSERT_EQ(run_fivsim("run " + kRun + " --out " + (base / "empty").string()).code, 0);
  EXPECT_TRUE(fs::exists(base / "empty" / "summary.json"));
  EXPECT_EQ(listing(base),
            (std::vector<std::string>{"empty", "empty/.fivsim-output", "empty/summary.json", "empty/timeseries.csv",
                                      "r", "r/.fivsim-output", "r/summary.json"}));
  fs::remove_all(base);
}

// six runs into one folder at once: each either writes it or is refused by the lock, none fails
// half way, and the folder holds one whole result
TEST(OutputFolderCommand, ParallelRunsAreRefusedByTheLockNotLost) {
  const fs::path base = fresh_dir("fivsim_out_parallel");
  fs::create_directories(base);
  std::string script = "(";
  for (int i = 0; i < 6; ++i)
    script += "(" + std::string(FIVSIM_BINARY) + " run " + kRun + " --out " + (base / "r").string() + " 2>" +
              (base / ("err" + std::to_string(i))).string() + "; echo $? >" +
              (base / ("rc" + std::to_string(i))).string() + ") & ";
  script += "wait)";
  ASSERT_EQ(std::system(script.c_str()), 0);
  int written = 0;
  for (int i = 0; i < 6; ++i) {
    const int rc = std::stoi(slurp(base / ("rc" + std::to_string(i))));
    const std::string err = slurp(base / ("err" + std::to_string(i)));
    if (rc == 0) {
      ++written;
    } else {
      EXPECT_EQ(rc, 1) << err;
      EXPECT_NE(err.find("is being written by another fivsim command (pid "), std::string::npos) << err;
    }
  }
  EXPECT_GE(written, 1);
  EXPECT_EQ(listing(base / "r"), (std::vector<std::string>{".fivsim-output", "summary.json", "timeseries.csv"}));
  EXPECT_EQ(json::parse(slurp(base / "r" / "summary.json"))["status"], "complete");
  for (const auto& e : fs::directory_iterator(base))
    EXPECT_EQ(e.path().filename().string().find("r."), std::string::npos) << e.path();  // no r.partial-*, r.lock
  fs::remove_all(base);
}

// a run into a folder a sweep is writing (its lock held) is refused before it starts
TEST(OutputFolderCommand, RunIsRefusedWhereASweepWrites) {
  const fs::path base = fresh_dir("fivsim_out_locked");
  fs::create_directories(base);
  const int fd = hold_lock_as_another_fivsim(base / "r.lock", "pid 4242 on node17");
  ASSERT_GE(fd, 0);
  const Result r = run_fivsim("run " + kRun + " --out " + (base / "r").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find((base / "r").string() + " is being written by another fivsim command (pid 4242 on node17)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(base / "r"));
  ::close(fd);
  fs::remove_all(base);
}

// SIGINT or SIGTERM in the middle of a run: it ends by the signal and leaves neither its staging
// folder nor its lock
TEST(OutputFolderCommand, AnInterruptedRunLeavesNothing) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path base = fresh_dir("fivsim_out_signal");
    fs::create_directories(base);
    const std::string out = (base / "r").string();
    ChildProcess run([&] {
      ::execl(FIVSIM_BINARY, FIVSIM_BINARY, "run", (kScenarios + "model1_slow_stribeck.json").c_str(), "-q", "--set",
              "/integrator/t_end=1e6", "--out", out.c_str(), static_cast<char*>(nullptr));
      return 126;
    });
    const fs::path staging = out + ".partial-" + std::to_string(run.pid);
    // it is running once its staging folder holds the first rows
    for (int i = 0; i < 400 && !fs::exists(staging / "timeseries.csv"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    ASSERT_TRUE(fs::exists(staging / "timeseries.csv"));
    ::kill(run.pid, sig);
    EXPECT_EQ(run.wait(), 128 + sig);
    EXPECT_EQ(listing(base), std::vector<std::string>{}) << sig;
    fs::remove_all(base);
  }
}

}  // namespace
