// tests/cli/sweep_processes_test.cpp — `fivsim sweep` across processes and failures: shards and
// merge, kill and resume, the refusal of a folder another sweep is writing, a file system without
// locks, MPI ranks (one of them slowed down, one failing), and device memory running out (halved
// parts, injected allocation failures), each leaving the files one undisturbed run writes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "cli/sweep_test_util.hpp"

namespace sweep_processes_test {
namespace {

using namespace fivsim_test;
using nlohmann::json;

// three shards, merged in any order, give the single run's cases.csv, points.csv and trajectories
// byte for byte
TEST(SweepCommand, ShardsMergeIntoTheSingleRunsFiles) {
  const std::string traj = " --set '/output/trajectories=[3,20]'";
  const fs::path one = fresh_dir("fivsim_sweep_whole"), merged = fresh_dir("fivsim_sweep_merged");
  const Result a = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --out " + one.string() +
                              kShortLoadSweep + traj);
  ASSERT_EQ(a.code, 0) << a.err;
  std::vector<fs::path> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(fresh_dir("fivsim_sweep_shard" + std::to_string(i)));
    const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --shard " +
                                std::to_string(i) + "/3 --out " + parts.back().string() + kShortLoadSweep + traj);
    ASSERT_EQ(r.code, 0) << r.err;
    const json s = json::parse(slurp(parts.back() / "summary.json"));
    EXPECT_EQ(s["cases"], 8);  // 24 cases: [0, 8), [8, 16), [16, 24)
    EXPECT_EQ(s["shard"]["first_case"], 8 * i);
  }
  const Result m = run_fivsim("merge " + parts[2].string() + " " + parts[0].string() + " " + parts[1].string() +
                              " --out " + merged.string());
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(slurp(one / "cases.csv"), slurp(merged / "cases.csv"));
  EXPECT_EQ(slurp(one / "points.csv"), slurp(merged / "points.csv"));
  for (const char* t : {"case_3.csv", "case_20.csv"})
    EXPECT_EQ(slurp(one / "trajectories" / t), slurp(merged / "trajectories" / t)) << t;
  const json whole = json::parse(slurp(one / "summary.json")), joined = json::parse(slurp(merged / "summary.json"));
  EXPECT_EQ(joined["cases"], 24);
  EXPECT_EQ(joined["case_steps"], whole["case_steps"]);
  EXPECT_EQ(joined["classes"], whole["classes"]);
  EXPECT_EQ(joined["status"], whole["status"]);
  EXPECT_EQ(joined["shards"].size(), 3u);
  EXPECT_FALSE(joined.contains("shard"));
  // each shard's process, tagged; the shards' stepping rates add up
  ASSERT_EQ(joined["ranks"].size(), 3u);
  double rate = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(joined["ranks"][i]["shard"], i);
    rate += json::parse(slurp(parts[static_cast<std::size_t>(i)] / "summary.json"))["case_steps_per_s"].get<double>();
  }
  EXPECT_DOUBLE_EQ(joined["case_steps_per_s"].get<double>(), rate);
  for (const auto& d : parts) fs::remove_all(d);
  fs::remove_all(one);
  fs::remove_all(merged);
}

TEST(SweepCommand, MergeRefusesIncompleteOrMixedShards) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu" + kShortLoadSweep;
  const fs::path s0 = fresh_dir("fivsim_merge_s0"), s2 = fresh_dir("fivsim_merge_s2"),
                 other = fresh_dir("fivsim_merge_other"), whole = fresh_dir("fivsim_merge_whole"),
                 out = fresh_dir("fivsim_merge_out");
  ASSERT_EQ(run_fivsim(sweep + " --shard 0/3 --out " + s0.string()).code, 0);
  ASSERT_EQ(run_fivsim(sweep + " --shard 2/3 --out " + s2.string()).code, 0);
  ASSERT_EQ(run_fivsim(sweep + " --shard 1/3 --set /model/Fn=3 --out " + other.string()).code, 0);
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  const std::pair<std::string, std::string> cases[] = {
      {s0.string() + " " + s2.string(), "shard 1 of 3 is missing"},
      {s0.string() + " " + other.string() + " " + s2.string(), "ran another scenario"},
      {s0.string() + " " + s0.string(), "are both shard 0"},
      {whole.string(), "is not a shard"},
  };
  for (const auto& [dirs, message] : cases) {
    const Result r = run_fivsim("merge " + dirs + " --out " + out.string());
    EXPECT_EQ(r.code, 2) << dirs;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  for (const char* bad : {"3/3", "1/0", "x", "1/2/3", "0/25"}) {
    const Result r = run_fivsim(sweep + " --shard " + bad + " --out " + out.string());
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--shard: must be i/N"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  for (const auto& d : {s0, s2, other, whole}) fs::remove_all(d);
}

TEST(SweepCommand, KilledSweepResumesToTheSameFiles) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShortLoadSweep;
  const fs::path whole = fresh_dir("fivsim_resume_whole"), out = fresh_dir("fivsim_resume_out");
  const fs::path partial = out.string() + ".partial";
  fs::remove_all(partial);
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);

  // killed after 2 of 5 chunks, with half a row written after them (as a kill mid-write leaves)
  EXPECT_EQ(run_killed_after(sweep + " --out " + out.string(), 2).code, 137);
  EXPECT_FALSE(fs::exists(out));
  ASSERT_TRUE(fs::exists(partial / "manifest.json"));
  std::ofstream(partial / "cases.csv", std::ios::app) << "11,12.34,perio";
  // a plain rerun does not overwrite it
  const Result refused = run_fivsim(sweep + " --out " + out.string());
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("holds an unfinished sweep: --resume continues it"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(partial / "manifest.json"));
  // resumed from case 10: no case lost or written twice
  const Result resumed = run_fivsim(sweep + " --resume --out " + out.string());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(slurp(whole / "cases.csv"), slurp(out / "cases.csv"));
  EXPECT_EQ(slurp(whole / "points.csv"), slurp(out / "points.csv"));
  json s = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["resumed"]["cases"], 10);
  EXPECT_EQ(s["chunks"], 5);
  EXPECT_EQ(s["classes"], json::parse(slurp(whole / "summary.json"))["classes"]);
  EXPECT_FALSE(fs::exists(partial));
  EXPECT_FALSE(fs::exists(out / "manifest.json"));
  // the killed run's lock file was left behind unlocked (the kernel drops a dead process's lock):
  // the resume took it, and removed it when done
  EXPECT_FALSE(fs::exists(out.string() + ".lock"));

  // killed after 3 chunks, then a byte of the second chunk's rows changed: its checksum fails, so
  // the resume keeps the first chunk only and runs the second again
  fs::remove_all(out);
  EXPECT_EQ(run_killed_after(sweep + " --out " + out.string(), 3).code, 137);
  const json m = json::parse(slurp(partial / "manifest.json"));
  std::string text = slurp(partial / "cases.csv");
  const long at = m["chunks"][1]["files"]["cases.csv"]["end"].get<long>() - 3;
  text[static_cast<std::size_t>(at)] = text[static_cast<std::size_t>(at)] == '1' ? '2' : '1';
  std::ofstream(partial / "cases.csv", std::ios::binary | std::ios::trunc) << text;
  ASSERT_EQ(run_fivsim(sweep + " --resume --out " + out.string()).code, 0);
  EXPECT_EQ(slurp(whole / "cases.csv"), slurp(out / "cases.csv"));
  s = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["resumed"]["cases"], 5);

  // another sweep's leftovers are not continued; --resume without leftovers simply runs
  fs::remove_all(out);
  EXPECT_EQ(run_killed_after(sweep + " --out " + out.string(), 1).code, 137);
  const Result other = run_fivsim(sweep + " --set /model/Fn=3 --resume --out " + out.string());
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("it holds another sweep"), std::string::npos) << other.err;
  fs::remove_all(partial);
  ASSERT_EQ(run_fivsim(sweep + " --resume --out " + out.string()).code, 0);
  EXPECT_EQ(slurp(whole / "cases.csv"), slurp(out / "cases.csv"));
  EXPECT_FALSE(json::parse(slurp(out / "summary.json")).contains("resumed"));
  fs::remove_all(whole);
  fs::remove_all(out);
}

// a manifest edited by hand (a count no whole number, chunks that skip cases) is refused by its
// reason, exit 2, and the folder is kept for a person to look at
TEST(SweepCommand, ResumeRefusesAManifestThatCannotBeRead) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShortLoadSweep;
  const fs::path out = fresh_dir("fivsim_resume_edited");
  const fs::path partial = out.string() + ".partial";
  fs::remove_all(partial);
  ASSERT_EQ(run_killed_after(sweep + " --out " + out.string(), 3).code, 137);
  const std::string manifest = slurp(partial / "manifest.json");
  json fractional = json::parse(manifest), skipping = fractional;
  fractional["chunks"][1]["counts"]["status"]["ok"] = 4.5;
  skipping["chunks"][2]["first"] = 15;
  for (const auto& [edited, reason] : {std::pair{fractional, std::string("the counts of the chunk at case 5")},
                                       std::pair{skipping, std::string("a chunk of 5 cases at case 15 where case "
                                                                       "10 comes next, of 24")}}) {
    std::ofstream(partial / "manifest.json", std::ios::trunc) << edited.dump();
    const Result r = run_fivsim(sweep + " --resume --out " + out.string());
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("fivsim sweep: --resume: cannot continue " + partial.string() +
                         ": its manifest.json cannot be read (" + reason + "); remove that folder to start again"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::exists(partial / "cases.csv"));
    EXPECT_FALSE(fs::exists(out));
  }
  fs::remove_all(partial);
}

// a folder that another process is writing (its lock on <out>.lock, taken here with a plain POSIX
// record lock as a second fivsim would) is refused before anything is touched, --resume or not;
// once the lock is released the same command runs
TEST(SweepCommand, RefusesAFolderAnotherSweepIsWriting) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShortLoadSweep;
  const fs::path out = fresh_dir("fivsim_locked_out");
  const fs::path partial = out.string() + ".partial", lock = out.string() + ".lock";
  fs::remove_all(partial);
  const int fd = hold_lock_as_another_fivsim(lock, "pid 4242 on node17");
  ASSERT_GE(fd, 0);
  // (the second time with the folder written "out/": the same folder, the same lock)
  for (const std::string& resume_and_out : {" --out " + out.string(), " --resume --out " + out.string() + "/"}) {
    const Result r = run_fivsim(sweep + resume_and_out);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find(out.string() + " is being written by another fivsim command (pid 4242 on node17)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(partial));
  }
  ::close(fd);
  const Result r = run_fivsim(sweep + " --resume --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "cases.csv"));
  EXPECT_FALSE(fs::exists(lock));
  fs::remove_all(out);
}

// on a file system without record locks (Lustre without flock, say) the sweep runs, with one
// warning that nothing guards its folder, and writes the same files
TEST(SweepCommand, RunsWithAWarningWhereTheFileSystemHasNoLocks) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShortLoadSweep;
  const fs::path whole = fresh_dir("fivsim_nolock_whole"), out = fresh_dir("fivsim_nolock_out");
  const fs::path err_file = fresh_dir("fivsim_nolock_stderr");
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  const int code = in_process_without_record_locks(ENOLCK, [&] {
    const Result r = run_fivsim(sweep + " --out " + out.string());
    std::ofstream(err_file) << r.err;
    return r.code;
  });
  if (code == -1) GTEST_SKIP() << "the kernel refuses seccomp filters here";
  EXPECT_EQ(code, 0);
  const std::string err = slurp(err_file);
  EXPECT_EQ(err, "fivsim sweep: warning: cannot lock " + out.string() +
                     ".lock (No locks available): nothing keeps a second command out of " + out.string() + "\n");
  EXPECT_EQ(slurp(whole / "cases.csv"), slurp(out / "cases.csv"));
  EXPECT_EQ(slurp(whole / "points.csv"), slurp(out / "points.csv"));
  EXPECT_FALSE(fs::exists(out.string() + ".lock"));
  fs::remove(err_file);
  fs::remove_all(whole);
  fs::remove_all(out);
}

// MPI: one rank and two ranks (chunks handed out as ranks ask) write the single process's files
// byte for byte, trajectories included; summary.json counts each rank's share
TEST(SweepCommand, MpiRanksWriteTheSingleRunsFiles) {
  if (!FIVSIM_TEST_MPI) GTEST_SKIP() << "built without MPI (FIVSIM_MPI)";
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1" +
                            kShortLoadSweep + " --set '/output/trajectories=[3,20]'";
  const fs::path one = fresh_dir("fivsim_mpi_single");
  ASSERT_EQ(run_fivsim(sweep + " --out " + one.string()).code, 0);
  for (const int ranks : {1, 2}) {
    const fs::path out = fresh_dir("fivsim_mpi_ranks" + std::to_string(ranks));
    const Result r = run_fivsim_ranks(ranks, sweep + " --chunk 3 --out " + out.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(one / "cases.csv"), slurp(out / "cases.csv")) << ranks;
    EXPECT_EQ(slurp(one / "points.csv"), slurp(out / "points.csv")) << ranks;
    for (const char* t : {"case_3.csv", "case_20.csv"})
      EXPECT_EQ(slurp(one / "trajectories" / t), slurp(out / "trajectories" / t)) << t;
    const json s = json::parse(slurp(out / "summary.json"));
    ASSERT_EQ(s["ranks"].size(), static_cast<std::size_t>(ranks));
    long cases = 0, chunks = 0;
    for (int k = 0; k < ranks; ++k) {
      EXPECT_EQ(s["ranks"][k]["rank"], k);
      cases += s["ranks"][k]["cases"].get<long>();
      chunks += s["ranks"][k]["chunks"].get<long>();
    }
    EXPECT_EQ(cases, 24);
    EXPECT_EQ(chunks, 8);
    EXPECT_EQ(s["chunks"], 8);
    EXPECT_NE(r.out.find(ranks > 1 ? ", 2 ranks in" : "(double) in"), std::string::npos) << r.out;
    fs::remove_all(out);
  }
  // the CUDA backend's loop (each rank asks for its next range before running the current one, and
  // must not ask again after "stop"), taken by the CPU backend through its test hook. Where no GPU
  // is present, --device auto also takes the ranks through the device look-up and its collective
  // count of the ranks per device before they fall back to the CPU
  const fs::path ahead = fresh_dir("fivsim_mpi_ahead");
  std::string ahead_sweep = sweep;
  if (!fivsim::cuda_device_info().available) ahead_sweep.replace(ahead_sweep.find("--device cpu"), 12, "--device auto");
  ::setenv("FIVSIM_SWEEP_PREPARE_AHEAD", "1", 1);
  const Result r = run_fivsim_ranks(2, ahead_sweep + " --chunk 3 --out " + ahead.string());
  ::unsetenv("FIVSIM_SWEEP_PREPARE_AHEAD");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(one / "cases.csv"), slurp(ahead / "cases.csv"));
  EXPECT_EQ(slurp(one / "points.csv"), slurp(ahead / "points.csv"));
  fs::remove_all(ahead);
  fs::remove_all(one);
}

// MPI: a rank slowed down (the hook FIVSIM_SWEEP_SLOW_RANK adds 4 s to each of rank 1's chunks)
// holds up nobody: rank 0 runs the chunks rank 1 would have had under a fixed split (6 of 12), the
// sweep ends about when rank 1's first chunk does, and the files are the single process's
TEST(SweepCommand, MpiSlowRankHoldsUpNobody) {
  if (!FIVSIM_TEST_MPI) GTEST_SKIP() << "built without MPI (FIVSIM_MPI)";
  const std::string sweep = "sweep " + kScenarios +
                            "chain2_load_sweep.json --device cpu --threads 1 --chunk 2 -q "
                            "--set /integrator/t_end=5 --set /analysis/t_transient=1 "
                            "--set '/sweep/parameters/0/linspace=[1,30,24]'";
  const fs::path one = fresh_dir("fivsim_slow_single"), out = fresh_dir("fivsim_slow_ranks");
  ASSERT_EQ(run_fivsim(sweep + " --out " + one.string()).code, 0);
  ::setenv("FIVSIM_SWEEP_SLOW_RANK", "1:4000", 1);
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run_fivsim_ranks(2, sweep + " --out " + out.string());
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::unsetenv("FIVSIM_SWEEP_SLOW_RANK");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(one / "cases.csv"), slurp(out / "cases.csv"));
  EXPECT_EQ(slurp(one / "points.csv"), slurp(out / "points.csv"));
  const json s = json::parse(slurp(out / "summary.json"));
  ASSERT_EQ(s["ranks"].size(), 2u);
  std::printf("slowed rank 1: rank 0 ran %ld chunks, rank 1 %ld; the sweep took %.2f s\n",
              s["ranks"][0]["chunks"].get<long>(), s["ranks"][1]["chunks"].get<long>(), wall_s);
  // rank 1 takes one chunk, two should rank 0 need over 4 s for the other eleven (it needs 0.02 s
  // alone, well under a second under the sanitizers)
  EXPECT_LE(s["ranks"][1]["chunks"].get<long>(), 2) << s["ranks"].dump();
  EXPECT_EQ(s["ranks"][0]["chunks"].get<long>() + s["ranks"][1]["chunks"].get<long>(), 12);
  // a fixed split would take six of rank 1's chunks, 24 s; one or two take 4 or 8 s
  EXPECT_LT(wall_s, 12.0);
  fs::remove_all(one);
  fs::remove_all(out);
}

// MPI: rank 0 killed after 3 recorded chunks takes the job down; `mpirun ... --resume` finishes it
// to the same files. A case with a bad value fails the sweep once, by its JSON path, exit 2.
TEST(SweepCommand, MpiSweepResumesAndReportsARanksFailureOnce) {
  if (!FIVSIM_TEST_MPI) GTEST_SKIP() << "built without MPI (FIVSIM_MPI)";
  const std::string sweep =
      "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1 --chunk 4" + kShortLoadSweep;
  const fs::path whole = fresh_dir("fivsim_mpi_whole"), out = fresh_dir("fivsim_mpi_resume");
  const fs::path partial = out.string() + ".partial";
  fs::remove_all(partial);
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  ::setenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS", "3", 1);
  const Result killed = run_fivsim_ranks(2, sweep + " --out " + out.string());
  ::unsetenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS");
  EXPECT_NE(killed.code, 0);
  ASSERT_TRUE(fs::exists(partial / "manifest.json"));
  const Result resumed = run_fivsim_ranks(2, sweep + " --resume --out " + out.string());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(slurp(whole / "cases.csv"), slurp(out / "cases.csv"));
  EXPECT_EQ(slurp(whole / "points.csv"), slurp(out / "points.csv"));
  EXPECT_EQ(json::parse(slurp(out / "summary.json"))["resumed"]["cases"], 12);

  // a negative load in the last case: whichever rank prepares it fails, rank 0 reports it
  const fs::path bad = fresh_dir("fivsim_mpi_bad");
  const Result r = run_fivsim_ranks(2, "sweep " + kScenarios +
                                           "chain2_load_sweep.json --device cpu --threads 1 "
                                           "--chunk 2 -q --set /integrator/t_end=5 --set /analysis/t_transient=1 "
                                           "--set '/sweep/parameters/0/linspace=[30,-1,24]' --out " +
                                           bad.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("fivsim sweep: /model/Fn"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("fivsim sweep:"), r.err.rfind("fivsim sweep:")) << r.err;
  EXPECT_FALSE(fs::exists(bad));
  fs::remove_all(bad.string() + ".partial");
  fs::remove_all(whole);
  fs::remove_all(out);
}

// a backend call that runs out of device memory is halved and retried: the files stay those of an
// unhindered run. The hook FIVSIM_SWEEP_DEVICE_CASES=3 fails every part above 3 cases as the
// device would (the CUDA path reports cudaErrorMemoryAllocation the same way).
TEST(SweepCommand, OutOfMemoryHalvesThePartAndRetries) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 10" + kShortLoadSweep;
  const fs::path whole = fresh_dir("fivsim_oom_whole"), out = fresh_dir("fivsim_oom_out");
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  ::setenv("FIVSIM_SWEEP_DEVICE_CASES", "3", 1);
  const Result r = run_fivsim(sweep + " --out " + out.string());
  ::unsetenv("FIVSIM_SWEEP_DEVICE_CASES");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(whole / "cases.csv"), slurp(out / "cases.csv"));
  EXPECT_EQ(slurp(whole / "points.csv"), slurp(out / "points.csv"));
  const json s = json::parse(slurp(out / "summary.json"));
  // 10 → 5 → 2 in the first chunk; later chunks start at 2 cases per part
  EXPECT_EQ(s["memory_halvings"], 2);
  EXPECT_FALSE(json::parse(slurp(whole / "summary.json")).contains("memory_halvings"));
  fs::remove_all(whole);
  fs::remove_all(out);
}

// the pipelined loop (the CUDA backend's, taken on the CPU by FIVSIM_SWEEP_PREPARE_AHEAD): a chunk
// larger than the parts the device held so far runs alone, part after part, and its rows are its
// own — once marked queued without a launch, the slot's reused buffers (zeros, or an older chunk's
// rows) were written as its results with status ok
// the load sweep of `loads` short cases in chunks of 200: several chunks, both slots of the pipeline
std::string chunked_load_sweep(int loads) {
  return "sweep " + kScenarios + "chain2_load_sweep.json --device cpu -q --chunk 200 " +
         "--set '/sweep/parameters/0/linspace=[1,30," + std::to_string(loads) + "]' --set /integrator/t_end=2 " +
         "--set /analysis/t_transient=1";
}

// the command run on the CPU backend in the device's order with parts of at most 70 cases
Result run_as_a_small_device(const std::string& command) {
  ::setenv("FIVSIM_SWEEP_DEVICE_CASES", "70", 1);
  ::setenv("FIVSIM_SWEEP_PREPARE_AHEAD", "1", 1);
  const Result r = run_fivsim(command);
  ::unsetenv("FIVSIM_SWEEP_DEVICE_CASES");
  ::unsetenv("FIVSIM_SWEEP_PREPARE_AHEAD");
  return r;
}

TEST(SweepCommand, PipelinedLoopRunsAChunkBeyondTheDevicesPartsInParts) {
  const std::string sweep = chunked_load_sweep(600);
  const fs::path whole = fresh_dir("fivsim_pipelined_whole"), out = fresh_dir("fivsim_pipelined_parts");
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  const Result r = run_as_a_small_device(sweep + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  // (compared whole, reported briefly: the files are a hundred kilobytes)
  EXPECT_TRUE(slurp(whole / "cases.csv") == slurp(out / "cases.csv")) << "cases.csv differs";
  EXPECT_TRUE(slurp(whole / "points.csv") == slurp(out / "points.csv")) << "points.csv differs";
  // 200 → 100 → 50 in the first chunk; the later chunks run in parts of 50 from the start
  EXPECT_EQ(json::parse(slurp(out / "summary.json"))["memory_halvings"], 2);
  fs::remove_all(whole);
  fs::remove_all(out);
}

// the case table made where the cases ran (the device's path, taken by the CPU backend standing in
// for it: sweep/sweep_backend.hpp DeviceTable) where no points are written: in parts of a halved
// chunk, its cases.csv, results.h5 and the summary's classes, statuses and steps are the host's
TEST(SweepCommand, TheCaseTableMadeWhereTheCasesRanIsTheHosts) {
  const std::string sweep = chunked_load_sweep(600) + " --set /output/points=false --format both";
  const fs::path whole = fresh_dir("fivsim_table_whole"), out = fresh_dir("fivsim_table_backend");
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  const Result r = run_as_a_small_device(sweep + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "points.csv"));
  EXPECT_TRUE(slurp(whole / "cases.csv") == slurp(out / "cases.csv")) << "cases.csv differs";
  EXPECT_TRUE(h5_as_csv(whole / "results.h5", "cases") == h5_as_csv(out / "results.h5", "cases"))
      << "results.h5's cases differ";
  const json a = json::parse(slurp(whole / "summary.json")), b = json::parse(slurp(out / "summary.json"));
  for (const char* key : {"classes", "status", "steps", "cases"}) EXPECT_EQ(a[key], b[key]) << key;
  EXPECT_EQ(b["memory_halvings"], 2);
  fs::remove_all(whole);
  fs::remove_all(out);
}

// one chunk loop drives every backend: allocation failures injected at each point a launch meets
// on a device (slot 0's or slot 1's device buffers, the pinned host buffers, the kernel launch;
// FIVSIM_SWEEP_FAIL) send a chunk to run alone, halve its parts and reuse the slots, on the
// asynchronous loop (FIVSIM_SWEEP_PREPARE_AHEAD, the device's order) and the synchronous one, and
// every file holds what an unconstrained run's does: cases.csv and points.csv byte for byte,
// results.h5's tables rendered back, the summary's classes and statuses
TEST(SweepCommand, InjectedAllocationFailuresLeaveEveryFileAsAnUnconstrainedRunsFiles) {
  const std::string sweep = chunked_load_sweep(700);
  const fs::path whole = fresh_dir("fivsim_inject_whole"), out = fresh_dir("fivsim_inject_out");
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  const json expected = json::parse(slurp(whole / "summary.json"));
  struct Injection {
    const char* points;
    long halvings;  // in the asynchronous loop
  };
  // four chunks (200, 200, 200, 100 cases) on slots 0, 1, 0, 1
  const Injection injections[] = {
      {"slot0:1", 0},                            // the first launch: the chunk runs alone, whole
      {"slot1:1", 0},                            // the second chunk's, while the first is queued
      {"pinned:2", 0},                           // the pinned buffers of the second launch
      {"launch:3", 0},                           // the third chunk's kernel launch
      {"launch:1,launch:2,slot1:2", 2},          // 200 -> 100 -> 50: later chunks alone in parts of 50
      {"slot0:1,pinned:2,launch:4,slot1:2", 2},  // retries that fail again: 200 -> 100, then 50
  };
  for (const bool ahead : {true, false}) {
    for (const Injection& inj : injections) {
      const std::string label = std::string(inj.points) + (ahead ? " (asynchronous loop)" : " (synchronous loop)");
      ::setenv("FIVSIM_SWEEP_FAIL", inj.points, 1);
      if (ahead) ::setenv("FIVSIM_SWEEP_PREPARE_AHEAD", "1", 1);
      const Result r = run_fivsim(sweep + " --out " + out.string());
      ::unsetenv("FIVSIM_SWEEP_FAIL");
      ::unsetenv("FIVSIM_SWEEP_PREPARE_AHEAD");
      ASSERT_EQ(r.code, 0) << label << ": " << r.err;
      EXPECT_TRUE(slurp(whole / "cases.csv") == slurp(out / "cases.csv")) << label << ": cases.csv differs";
      EXPECT_TRUE(slurp(whole / "points.csv") == slurp(out / "points.csv")) << label << ": points.csv differs";
      EXPECT_TRUE(h5_as_csv(whole / "results.h5", "cases") == h5_as_csv(out / "results.h5", "cases")) << label;
      EXPECT_TRUE(h5_as_csv(whole / "results.h5", "points") == h5_as_csv(out / "results.h5", "points")) << label;
      const json s = json::parse(slurp(out / "summary.json"));
      EXPECT_EQ(s["classes"], expected["classes"]) << label;
      EXPECT_EQ(s["status"], expected["status"]) << label;
      if (ahead) {
        EXPECT_EQ(s.value("memory_halvings", 0L), inj.halvings) << label;
      }
    }
  }
  // a point the hook does not know is refused before anything runs
  ::setenv("FIVSIM_SWEEP_FAIL", "slot2:1", 1);
  const Result bad = run_fivsim(sweep + " --out " + out.string());
  ::unsetenv("FIVSIM_SWEEP_FAIL");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("failure point 'slot2:1'"), std::string::npos) << bad.err;
  fs::remove_all(whole);
  fs::remove_all(out);
}

}  // namespace
}  // namespace sweep_processes_test
