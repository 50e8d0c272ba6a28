// tests/cli/sweep_command_test.cpp — `fivsim sweep` end to end on the CPU backend: files that do not
// depend on chunk size or thread count, a one-case sweep equal to `fivsim run`, decimated
// trajectories, and one clear error (exit 2, nothing written) for each kind of bad sweep; shards
// and merge, kill and resume, MPI ranks (one of them slowed down), the refusal of a folder another
// sweep is writing, and a file system without locks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "fivsim/sweep/results_h5.hpp"
#include "fivsim/sweep/sweep.hpp"

namespace {

// pinn_single4 vs irk4 sweep metrics, relative: measured 1.0e-10 (training tolerance 1e-24 on the
// squared residual), so 10x margin
constexpr double kPinnVsIrk = 1e-9;

using namespace fivsim_test;
using nlohmann::json;

// a short load sweep of the 2-DoF chain: 24 loads, 30 s
const std::string kShort =
    " --set /integrator/t_end=30 --set /analysis/t_transient=10 --set '/sweep/parameters/0/linspace=[1,30,24]' -q";

// summary.json says where the host's time went, stage by stage, within the command's wall time
// (the kernel's time is the backend's own, as compute_s); -v prints the same line
TEST(SweepCommand, TheStagesTimesAreInTheSummaryAndInTheVerboseLine) {
  const fs::path out = fresh_dir("fivsim_sweep_stages");
  const Result r =
      run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 2 --chunk 5 -v --out " +
                 out.string() + kShort);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  const json& st = s["stages"];
  double sum = 0.0;
  for (const char* key : {"prepare_s", "launch_s", "wait_s", "columns_s", "write_s"}) {
    ASSERT_TRUE(st.contains(key)) << key;
    EXPECT_GE(st[key].get<double>(), 0.0) << key;
    sum += st[key].get<double>();
  }
  EXPECT_EQ(st["kernel_s"], s["compute_s"]);
  // on the CPU the stepping is within the launches; the stages are parts of the wall time
  EXPECT_GT(st["launch_s"].get<double>(), 0.0);
  EXPECT_LE(sum, s["wall_s"].get<double>() * 1.01);
  EXPECT_NE(r.out.find("  stages: prepare "), std::string::npos) << r.out;
  fs::remove_all(out);
}

TEST(SweepCommand, FilesDoNotDependOnChunksOrThreads) {
  const fs::path one = fresh_dir("fivsim_sweep_one"), chunked = fresh_dir("fivsim_sweep_chunked");
  const Result a = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1 --out " +
                              one.string() + kShort);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b =
      run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 2 --chunk 5 --out " +
                 chunked.string() + kShort);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(slurp(one / "cases.csv"), slurp(chunked / "cases.csv"));
  EXPECT_EQ(slurp(one / "points.csv"), slurp(chunked / "points.csv"));
  const json s = json::parse(slurp(chunked / "summary.json"));
  EXPECT_EQ(s["cases"], 24);
  EXPECT_EQ(s["chunks"], 5);
  EXPECT_EQ(s["backend"], "cpu");
  EXPECT_EQ(s["case_steps"].get<double>(), 24.0 * 30000);
  // the memory one case of a chunk takes: its result (the exact 2-DoF instantiation), its swept
  // value and its rings of 32 points of each kind; the load reaches the one model as it is, so the
  // case has no setup of its own
  using D = fivsim::SweepDimsExact2<double>;
  EXPECT_EQ(s["case_bytes"].get<double>(), sizeof(fivsim::CaseResult<D>) + 8.0 * (1 + fivsim::case_rings_size(2, 32)));
  const std::string cases = slurp(one / "cases.csv");
  EXPECT_EQ(cases.substr(0, cases.find('\n')).substr(0, 97),
            "case,/model/Fn,class,period_n,period,samples,recurrence,settled_at,n_transitions,n_section,rms_q0");
  EXPECT_EQ(std::count(cases.begin(), cases.end(), '\n'), 25);
}

// three shards, merged in any order, give the single run's cases.csv, points.csv and trajectories
// byte for byte
TEST(SweepCommand, ShardsMergeIntoTheSingleRunsFiles) {
  const std::string traj = " --set '/output/trajectories=[3,20]'";
  const fs::path one = fresh_dir("fivsim_sweep_whole"), merged = fresh_dir("fivsim_sweep_merged");
  const Result a =
      run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --out " + one.string() + kShort + traj);
  ASSERT_EQ(a.code, 0) << a.err;
  std::vector<fs::path> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(fresh_dir("fivsim_sweep_shard" + std::to_string(i)));
    const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --shard " +
                                std::to_string(i) + "/3 --out " + parts.back().string() + kShort + traj);
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
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu" + kShort;
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

// a sweep ended after k recorded chunks the way kill -9 ends it (FIVSIM_SWEEP_EXIT_AFTER_CHUNKS:
// _Exit, no destructors, no flush), then `--resume`d
Result run_killed_after(const std::string& args, int chunks) {
  ::setenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS", std::to_string(chunks).c_str(), 1);
  const Result r = run_fivsim(args);
  ::unsetenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS");
  return r;
}

TEST(SweepCommand, KilledSweepResumesToTheSameFiles) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShort;
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
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShort;
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
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShort;
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
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 5" + kShort;
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
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1" + kShort +
                            " --set '/output/trajectories=[3,20]'";
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
      "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1 --chunk 4" + kShort;
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
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu --chunk 10" + kShort;
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

TEST(SweepCommand, PipelinedLoopRunsAChunkBeyondTheDevicesPartsInParts) {
  const std::string sweep = chunked_load_sweep(600);
  const fs::path whole = fresh_dir("fivsim_pipelined_whole"), out = fresh_dir("fivsim_pipelined_parts");
  ASSERT_EQ(run_fivsim(sweep + " --out " + whole.string()).code, 0);
  ::setenv("FIVSIM_SWEEP_DEVICE_CASES", "70", 1);
  ::setenv("FIVSIM_SWEEP_PREPARE_AHEAD", "1", 1);
  const Result r = run_fivsim(sweep + " --out " + out.string());
  ::unsetenv("FIVSIM_SWEEP_DEVICE_CASES");
  ::unsetenv("FIVSIM_SWEEP_PREPARE_AHEAD");
  ASSERT_EQ(r.code, 0) << r.err;
  // (compared whole, reported briefly: the files are a hundred kilobytes)
  EXPECT_TRUE(slurp(whole / "cases.csv") == slurp(out / "cases.csv")) << "cases.csv differs";
  EXPECT_TRUE(slurp(whole / "points.csv") == slurp(out / "points.csv")) << "points.csv differs";
  // 200 → 100 → 50 in the first chunk; the later chunks run in parts of 50 from the start
  EXPECT_EQ(json::parse(slurp(out / "summary.json"))["memory_halvings"], 2);
  fs::remove_all(whole);
  fs::remove_all(out);
}

// `initial` is optional (the scenario starts at rest): a sweep may vary /initial/q/0 of a scenario
// that leaves it out, with the rows of the same sweep given the zeros explicitly
TEST(SweepCommand, AScenarioWithoutInitialMaySweepItsStart) {
  const fs::path dir = fresh_dir("fivsim_sweep_no_initial");
  fs::create_directories(dir);
  json doc = json::parse(slurp(kScenarios + "chain2_load_sweep.json"));
  doc["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/initial/q/0"}, {"values", {0.1, 0.4}}}}}};
  doc["initial"] = {{"q", {0.0, 0.0}}, {"u", {0.0, 0.0}}};
  std::ofstream(dir / "explicit.json") << doc.dump();
  doc.erase("initial");
  std::ofstream(dir / "implicit.json") << doc.dump();
  for (const char* name : {"explicit", "implicit"}) {
    const Result r = run_fivsim("sweep " + (dir / (std::string(name) + ".json")).string() +
                                " --device cpu -q --set /integrator/t_end=30 --set /analysis/t_transient=10 --out " +
                                (dir / name).string());
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_EQ(slurp(dir / "implicit" / "cases.csv"), slurp(dir / "explicit" / "cases.csv"));
  fs::remove_all(dir);
}

// an unstable case (negative stiffness) overflows to Inf/NaN: its row says nonfinite with the
// time and number of the failing step, as `fivsim run` of that case reports them, and NaN for its
// statistics (they cover only the steps before it failed) in cases.csv and results.h5 alike; the
// others finish. No row here is periodic: its period is NaN, not 0
TEST(SweepCommand, NonFiniteCasesAreFlaggedWithTheirStep) {
  const fs::path dir = fresh_dir("fivsim_sweep_blowup");
  fs::create_directories(dir);
  const std::string model = R"("model": {"type": "linear_multibody", "M": [[1]], "K": [[-1e6]], "contacts": []},
    "initial": {"q": [1e-3]}, "integrator": {"dt": 0.1, "t_end": 100})";
  std::ofstream(dir / "run.json") << R"({"name": "blowup", )" << model << "}";
  std::ofstream(dir / "sweep.json")
      << R"({"name": "blowup_sweep", )" << model
      << R"(, "sweep": {"mode": "grid", "parameters": [{"path": "/model/K/0/0", "values": [4, -1e6, 9]}]}})";
  const Result run = run_fivsim("run " + (dir / "run.json").string() + " -q --out " + (dir / "run").string());
  ASSERT_EQ(run.code, 3) << run.err;
  const json rs = json::parse(slurp(dir / "run" / "summary.json"));
  const Result sw = run_fivsim("sweep " + (dir / "sweep.json").string() + " --device cpu -q --format both --out " +
                               (dir / "sweep").string());
  ASSERT_EQ(sw.code, 0) << sw.err;
  std::ifstream csv(dir / "sweep" / "cases.csv");
  std::string header, line;
  std::getline(csv, header);
  const auto column = [&](const std::string& row, const std::string& name) {
    std::vector<std::string> h, v;
    std::stringstream hs(header), vs(row);
    for (std::string c; std::getline(hs, c, ',');) h.push_back(c);
    for (std::string c; std::getline(vs, c, ',');) v.push_back(c);
    return v.at(static_cast<std::size_t>(std::find(h.begin(), h.end(), name) - h.begin()));
  };
  std::vector<std::string> rows;
  while (std::getline(csv, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(column(rows[1], "status"), "nonfinite");
  EXPECT_EQ(column(rows[1], "class"), "diverged");
  const long steps = rs["steps"].get<long>();
  EXPECT_EQ(std::stol(column(rows[1], "steps")), steps);
  EXPECT_EQ(std::stol(column(rows[1], "failed_step")), steps + 1);
  EXPECT_NEAR(std::stod(column(rows[1], "failed_at")), rs["failure"]["t"].get<double>(), 1e-12);
  for (const int ok : {0, 2}) {
    EXPECT_EQ(column(rows[static_cast<std::size_t>(ok)], "status"), "ok");
    EXPECT_EQ(column(rows[static_cast<std::size_t>(ok)], "failed_step"), "0");
    EXPECT_GT(std::stod(column(rows[static_cast<std::size_t>(ok)], "rms_q0")), 0.0);
    EXPECT_EQ(column(rows[static_cast<std::size_t>(ok)], "class"), "no-stick-slip");
  }
  for (const char* stat : {"rms_q0", "rms_u0", "min_q0", "max_u0", "frac_free"})
    EXPECT_EQ(column(rows[1], stat), "nan") << stat;
  for (const std::string& row : rows) EXPECT_EQ(column(row, "period"), "nan");
  const fivsim::sweep::H5TableData h5 = fivsim::sweep::read_results_h5(dir / "sweep" / "results.h5", "cases");
  const int rms = h5.schema.column("rms_q0"), period = h5.schema.column("period");
  EXPECT_TRUE(std::isnan(h5.rows.column(rms)[1]));
  EXPECT_DOUBLE_EQ(h5.rows.column(rms)[0], std::stod(column(rows[0], "rms_q0")));
  for (long r = 0; r < 3; ++r) EXPECT_TRUE(std::isnan(h5.rows.column(period)[r]));
  const json s = json::parse(slurp(dir / "sweep" / "summary.json"));
  EXPECT_EQ(s["status"]["nonfinite"], 1);
  EXPECT_EQ(s["status"]["ok"], 2);
  fs::remove_all(dir);
}

// Moreau, and Gauss IRK-LCP with 4 stages and interpolated stage forces
class OneCase : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(SweepCommand, OneCase,
                         ::testing::Values("",
                                           " --set /integrator/method='\"irk\"' --set /integrator/order=4"
                                           " --set /integrator/stage_forces='\"interpolated\"'"));

// the rows of a sweep's cases.csv (the header first), split into fields
std::vector<std::vector<std::string>> case_rows(const fs::path& dir) {
  std::istringstream text(slurp(dir / "cases.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string line, field; std::getline(text, line);) {
    rows.emplace_back();
    for (std::istringstream f(line); std::getline(f, field, ',');) rows.back().push_back(field);
  }
  return rows;
}

// the header and first data row of a cases.csv
std::pair<std::vector<std::string>, std::vector<std::string>> first_case(const fs::path& dir) {
  const auto rows = case_rows(dir);
  EXPECT_GE(rows.size(), 2u);
  return rows.size() >= 2 ? std::make_pair(rows[0], rows[1])
                          : std::make_pair(std::vector<std::string>(), std::vector<std::string>());
}

// the rms_ columns of a one-case sweep against the rms block of `fivsim run`'s summary.json;
// returns how many were compared
int expect_rms_as_run(const fs::path& sweep, const fs::path& run, double rel_tol) {
  const json summary = json::parse(slurp(run / "summary.json"));
  const auto [names, values] = first_case(sweep);
  EXPECT_EQ(names.size(), values.size());
  int compared = 0;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (names[i].rfind("rms_", 0) != 0) continue;
    const double want = summary["rms"][names[i].substr(4)].get<double>();
    EXPECT_NEAR(std::stod(values[i]), want, rel_tol * (1 + std::abs(want))) << names[i];
    ++compared;
  }
  return compared;
}

TEST_P(OneCase, EqualsRun) {
  const fs::path sweep = fresh_dir("fivsim_sweep_single"), run = fresh_dir("fivsim_sweep_run");
  const std::string common = " --set /integrator/t_end=60 --set /analysis/t_transient=20 -q" + GetParam();
  const Result a =
      run_fivsim("sweep " + kScenarios +
                 "chain2_load_sweep.json --device cpu"
                 " --set '/sweep={\"mode\":\"grid\",\"parameters\":[{\"path\":\"/model/Fn\",\"values\":[15]}]}'"
                 " --out " +
                 sweep.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b =
      run_fivsim("run " + kScenarios + "chain2_load_sweep.json --set /model/Fn=15 --out " + run.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(expect_rms_as_run(sweep, run, 1e-12), 8);
  const json summary = json::parse(slurp(run / "summary.json"));
  const auto [names, values] = first_case(sweep);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != "frac_stick") continue;
    EXPECT_NEAR(
        std::stod(values[i]),
        (summary["time_fraction"][0]["stick"].get<double>() + summary["time_fraction"][1]["stick"].get<double>()) / 2,
        1e-12);
  }
}

// a PINN sweep trains each case's networks from the scenario's seed: a one-case sweep is the run
TEST(SweepCommand, PinnCaseEqualsRun) {
  const fs::path sweep = fresh_dir("fivsim_sweep_pinn_one"), run = fresh_dir("fivsim_sweep_pinn_run");
  const std::string common = " --set /integrator/t_end=12 --set /analysis/t_transient=4 -q";
  const Result a = run_fivsim("sweep " + kScenarios +
                              "model1_pinn_v0_sweep.json --set '/sweep/parameters/0/linspace=[0.7,0.7,1]'"
                              " --out " +
                              sweep.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b =
      run_fivsim("run " + kScenarios + "model1_pinn_v0_sweep.json --set /model/v0=0.7 --out " + run.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(expect_rms_as_run(sweep, run, 1e-12), 4);
  const auto [names, values] = first_case(sweep);
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[names.size() - 4], "pinn_iterations");
  const json summary = json::parse(slurp(run / "summary.json"));
  EXPECT_EQ(std::stol(values[values.size() - 4]), summary["pinn"]["dynamic_iterations"].get<long>());
  EXPECT_EQ(std::stol(values[values.size() - 1]), 0);  // no unconverged step
}

// with the classical LCP and its trainings converged, pinn_single4 is the Gauss IRK-LCP step with
// 4 stages (pinn_step.hpp): its sweep gives the IRK sweep's metrics case by case
TEST(SweepCommand, PinnSweepMatchesIrkSweep) {
  const fs::path pinn = fresh_dir("fivsim_sweep_pinn"), irk = fresh_dir("fivsim_sweep_irk");
  const std::string common = " --set '/sweep/parameters/0/linspace=[0.3,1.1,3]' --set /analysis/t_transient=6 -q";
  const Result a = run_fivsim("sweep " + kScenarios +
                              "model1_pinn_v0_sweep.json --set /integrator/method=\\\"pinn_single\\\""
                              " --set /integrator/t_end=20 --out " +
                              pinn.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b = run_fivsim("sweep " + kScenarios +
                              "model1_pinn_v0_sweep.json"
                              " --set '/integrator={\"method\":\"irk\",\"order\":4,\"dt\":0.01,\"t_end\":20}' --out " +
                              irk.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  const auto p = case_rows(pinn), q = case_rows(irk);
  ASSERT_EQ(p.size(), 4u);  // header and 3 cases
  ASSERT_EQ(q.size(), 4u);
  const std::vector<std::string>& names = q[0];
  for (std::size_t c = 1; c < q.size(); ++c)
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "class" || names[i] == "status") {
        EXPECT_EQ(p[c][i], q[c][i]) << "case " << c - 1 << " " << names[i];
      } else if (names[i].rfind("rms_", 0) == 0 || names[i] == "n_transitions") {
        const double want = std::stod(q[c][i]);
        EXPECT_NEAR(std::stod(p[c][i]), want, kPinnVsIrk * (1 + std::abs(want))) << "case " << c - 1 << " " << names[i];
      }
    }
}

TEST(SweepCommand, WritesDecimatedTrajectories) {
  const fs::path out = fresh_dir("fivsim_sweep_traj");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_load_sweep.json --device cpu --set '/output/trajectories=[3]'"
                              " --set /output/every=100 --out " +
                              out.string() + kShort);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string ts = slurp(out / "trajectories" / "case_3.csv");
  EXPECT_EQ(ts.substr(0, ts.find('\n')), "t,q0,q1,u0,u1,lamN0,lamN1,lamT0,lamT1,state0,state1");
  EXPECT_EQ(std::count(ts.begin(), ts.end(), '\n'), 1 + 301);  // header, t = 0, 0.1, …, 30
}

TEST(SweepCommand, LyapunovColumnWhenAsked) {
  const fs::path out = fresh_dir("fivsim_sweep_lyap");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_load_sweep.json --device cpu --set '/analysis/lyapunov={\"every\":10}'"
                              " --out " +
                              out.string() + kShort);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream rows(slurp(out / "cases.csv"));
  std::string header, row;
  std::getline(rows, header);
  EXPECT_NE(header.find(",frac_slip_pos,lyapunov,lyapunov_err,max_lcp_residual,"), std::string::npos) << header;
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["lyapunov"]["every"], 10);
}

// the columns of a cases.csv by header name
std::map<std::string, std::vector<std::string>> columns_of(const fs::path& dir) {
  const auto rows = case_rows(dir);
  std::map<std::string, std::vector<std::string>> cols;
  for (std::size_t r = 1; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[0].size(); ++c) cols[rows[0][c]].push_back(rows[r][c]);
  return cols;
}

// the observers choose the columns; what a leaner set keeps is what the full set computes, on the
// belt runner (the chain) and the general one (Model II)
TEST(SweepCommand, ObserversChooseTheColumnsAndKeepTheirValues) {
  const std::pair<std::string, std::string> sweeps[] = {
      {"chain2_load_sweep.json", kShort},
      {"model2_mu_scan.json", " --set '/sweep/parameters/0/linspace=[0.9,1.3,9]' --set /integrator/t_end=12 -q"}};
  for (const auto& [file, cut] : sweeps) {
    const fs::path full = fresh_dir("fivsim_obs_full");
    ASSERT_EQ(run_fivsim("sweep " + kScenarios + file + " --device cpu --out " + full.string() + cut).code, 0);
    const auto all = columns_of(full);
    for (const auto& [observers, header] :
         {std::pair{std::string("\"lean\""), std::string("rms_q0")},
          std::pair{std::string("\"statistics\""), std::string("rms_q0")},
          std::pair{
              std::string("[\"transitions\",\"poincare\",\"min_max\"]"),
              std::string("class,period_n,period,samples,recurrence,settled_at,n_transitions,n_section,rms_q0")}}) {
      const fs::path out = fresh_dir("fivsim_obs_some");
      const Result r =
          run_fivsim("sweep " + kScenarios + file + " --device cpu --set '/analysis/observers=" + observers +
                     "' --out " + out.string() + cut);
      ASSERT_EQ(r.code, 0) << r.err;
      const std::string cases = slurp(out / "cases.csv");
      const std::string head = cases.substr(0, cases.find('\n'));
      EXPECT_NE(head.find("," + header + ","), std::string::npos) << observers << ": " << head;
      const auto some = columns_of(out);
      for (const auto& [name, values] : some) {
        ASSERT_TRUE(all.count(name)) << name;
        EXPECT_EQ(values, all.at(name)) << file << " " << observers << " " << name;
      }
      const bool extremes = observers != "\"lean\"";
      EXPECT_EQ(some.count("min_u1"), extremes ? 1u : 0u) << observers;
      EXPECT_EQ(some.count("frac_stick"), 0u) << observers;
      EXPECT_EQ(some.count("max_lcp_residual"), 0u) << observers;
      EXPECT_EQ(fs::exists(out / "points.csv"), observers.find("transitions") != std::string::npos) << observers;
      fs::remove_all(out);
    }
    fs::remove_all(full);
  }
}

// a results.h5 table rendered as the CSV writer renders its rows: equal text means equal values
std::string h5_as_csv(const fs::path& file, const std::string& group) {
  const fivsim::sweep::H5TableData d = fivsim::sweep::read_results_h5(file, group);
  std::string text = fivsim::sweep::csv_header(d.schema);
  fivsim::sweep::csv_rows(d.schema, d.rows, text);
  return text;
}

// results.h5 holds the values of cases.csv and points.csv (rendered back, byte for byte), and a
// sweep written as results.h5 alone holds the same whether it ran whole, in shards merged, killed
// and resumed, or on two MPI ranks
TEST(SweepCommand, ResultsH5HoldsTheCsvValuesInEveryWayOfRunning) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu" + kShort;
  const fs::path both = fresh_dir("fivsim_h5_both");
  ASSERT_EQ(run_fivsim(sweep + " --format both --out " + both.string()).code, 0);
  const std::string cases = slurp(both / "cases.csv"), points = slurp(both / "points.csv");
  EXPECT_EQ(h5_as_csv(both / "results.h5", "cases"), cases);
  EXPECT_EQ(h5_as_csv(both / "results.h5", "points"), points);
  const json s = json::parse(slurp(both / "summary.json"));
  EXPECT_EQ(s["files"], json({"cases.csv", "points.csv", "results.h5"}));
  // summary.json adds the checksums of the files, results.h5 among them
  json without_checksums = s;
  without_checksums.erase("checksums");
  EXPECT_EQ(fivsim::sweep::results_h5_summary(both / "results.h5"), without_checksums);
  EXPECT_EQ(s["checksums"]["cases.csv"]["bytes"].get<std::size_t>(), cases.size());
  EXPECT_EQ(s["checksums"]["results.h5"]["bytes"].get<std::uintmax_t>(), fs::file_size(both / "results.h5"));
  // whole, as results.h5 alone (the default from 10^6 cases): no CSV, no spill left
  const fs::path h5 = fresh_dir("fivsim_h5_only");
  ASSERT_EQ(run_fivsim(sweep + " --format h5 --out " + h5.string()).code, 0);
  EXPECT_FALSE(fs::exists(h5 / "cases.csv"));
  EXPECT_FALSE(fs::exists(h5 / "cases.bin"));
  EXPECT_EQ(h5_as_csv(h5 / "results.h5", "cases"), cases);
  // shards, merged
  std::vector<fs::path> parts;
  std::string dirs;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(fresh_dir("fivsim_h5_shard" + std::to_string(i)));
    ASSERT_EQ(
        run_fivsim(sweep + " --format h5 --shard " + std::to_string(i) + "/3 --out " + parts.back().string()).code, 0);
    dirs += " " + parts.back().string();
  }
  const fs::path merged = fresh_dir("fivsim_h5_merged");
  const Result m = run_fivsim("merge" + dirs + " --out " + merged.string());
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(h5_as_csv(merged / "results.h5", "cases"), cases);
  EXPECT_EQ(h5_as_csv(merged / "results.h5", "points"), points);
  EXPECT_EQ(fivsim::sweep::results_h5_summary(merged / "results.h5")["cases"], 24);
  // killed after two chunks, then resumed
  const fs::path resumed = fresh_dir("fivsim_h5_resumed");
  fs::remove_all(resumed.string() + ".partial");
  EXPECT_EQ(run_killed_after(sweep + " --format h5 --chunk 5 --out " + resumed.string(), 2).code, 137);
  std::ofstream(resumed.string() + ".partial/cases.bin", std::ios::app) << "half a block";
  const Result r = run_fivsim(sweep + " --format h5 --chunk 5 --resume --out " + resumed.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(h5_as_csv(resumed / "results.h5", "cases"), cases);
  EXPECT_EQ(h5_as_csv(resumed / "results.h5", "points"), points);
  // two MPI ranks
  if (FIVSIM_TEST_MPI) {
    const fs::path ranks = fresh_dir("fivsim_h5_ranks");
    const Result mr = run_fivsim_ranks(2, sweep + " --threads 1 --format h5 --chunk 3 --out " + ranks.string());
    ASSERT_EQ(mr.code, 0) << mr.err;
    EXPECT_EQ(h5_as_csv(ranks / "results.h5", "cases"), cases);
    fs::remove_all(ranks);
  }
  for (const auto& d : parts) fs::remove_all(d);
  for (const auto& d : {both, h5, merged, resumed}) fs::remove_all(d);
}

// counts are integers in the files a notebook reads: cases.csv's steps of a 3·10^5-step case is
// 300000 (not 3e+05), summary.json's case_steps an integer
TEST(SweepCommand, CountsAreWrittenAsIntegers) {
  const fs::path out = fresh_dir("fivsim_integers");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_load_sweep.json --device cpu -q --set "
                              "'/sweep/parameters/0/linspace=[1,30,2]' --set /integrator/t_end=300 --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream csv(slurp(out / "cases.csv"));
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  const auto field = [](const std::string& line, long k) {
    std::istringstream in(line);
    std::string f;
    for (long i = 0; i <= k; ++i) std::getline(in, f, ',');
    return f;
  };
  long steps_col = -1;
  for (long k = 0; !field(header, k).empty() && steps_col < 0; ++k)
    if (field(header, k) == "steps") steps_col = k;
  ASSERT_GE(steps_col, 0) << header;
  EXPECT_EQ(field(row, steps_col), "300000");
  EXPECT_EQ(field(row, 0), "0");
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_TRUE(s["case_steps"].is_number_integer()) << s["case_steps"];
  EXPECT_EQ(s["case_steps"], 600000);
  fs::remove_all(out);
}

// bSTAB's friction oscillator (scenarios/bstab_friction.json): over 4000 random starts the share
// that settles on steady sliding is bSTAB's published basin stability, 0.3165 ± 0.0074 (MATLAB
// ode45, 4000 samples), within three standard errors; summary.json states each class's share with
// its standard error √(p(1 − p)/n), and only for a sweep over initial conditions
TEST(SweepCommand, BasinStabilityOfBstabsFrictionOscillator) {
  const fs::path out = fresh_dir("fivsim_bstab");
  const Result r = run_fivsim("sweep " + kScenarios + "bstab_friction.json --device cpu -q --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  ASSERT_TRUE(s.contains("basin_stability")) << s.dump(1);
  const json& b = s["basin_stability"];
  ASSERT_TRUE(b.contains("no-stick-slip")) << b.dump(1);
  ASSERT_TRUE(b.contains("periodic-1")) << b.dump(1);
  const double p = b["no-stick-slip"]["fraction"].get<double>(), se = b["no-stick-slip"]["standard_error"];
  std::printf("steady sliding %.4f ± %.4f, stick-slip %.4f (bSTAB: 0.3165 ± 0.0074)\n", p, se,
              b["periodic-1"]["fraction"].get<double>());
  EXPECT_NEAR(se, std::sqrt(p * (1 - p) / 4000), 1e-12);
  EXPECT_NEAR(p, 0.3165, 3 * 0.0074);
  EXPECT_NEAR(p + b["periodic-1"]["fraction"].get<double>(), 1.0, 1e-12);
  // its two attractors, told apart by their extremes and period: steady sliding and one stick-slip
  // cycle, each class one attractor whose share is the class's (basins.csv, attractors.csv)
  ASSERT_TRUE(s.contains("basins")) << s.dump(1);
  const json& groups = s["basins"]["groups"];
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0]["attractors"].size(), 2u) << groups.dump(1);
  for (const json& a : groups[0]["attractors"])
    EXPECT_NEAR(a["fraction"].get<double>(), b[a["class"].get<std::string>()]["fraction"].get<double>(), 1e-12);
  const std::string labels = slurp(out / "attractors.csv");
  EXPECT_EQ(std::count(labels.begin(), labels.end(), '\n'), 4001);
  EXPECT_NE(slurp(out / "basins.csv").find("attractor,class,period_n,period,cases,fraction,standard_error"),
            std::string::npos);
  // a load sweep is no basin
  const fs::path loads = fresh_dir("fivsim_no_basin");
  ASSERT_EQ(run_fivsim("sweep " + kScenarios +
                       "chain2_load_sweep.json --device cpu -q --set "
                       "'/sweep/parameters/0/linspace=[1,30,2]' --set /integrator/t_end=120 --out " +
                       loads.string())
                .code,
            0);
  EXPECT_FALSE(json::parse(slurp(loads / "summary.json")).contains("basin_stability"));
  EXPECT_FALSE(json::parse(slurp(loads / "summary.json")).contains("basins"));
  EXPECT_FALSE(fs::exists(loads / "basins.csv"));
  fs::remove_all(out);
  fs::remove_all(loads);
}

// starts that share no group: a random load beside random initial positions makes every start a
// group of its own, where an attractor's share is 1 by construction — no basins, and the summary
// says why instead of listing a group per case
TEST(SweepCommand, StartsThatShareNoGroupHaveNoBasins) {
  const fs::path out = fresh_dir("fivsim_no_shared_group");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_bench_random.json --device cpu -q --format csv --set /sweep/samples=40 "
                              "--set /integrator/t_end=20 --set /analysis/t_transient=10 --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_FALSE(s.contains("basins")) << s.dump(1);
  ASSERT_TRUE(s.contains("basins_skipped")) << s.dump(1);
  EXPECT_NE(s["basins_skipped"].get<std::string>().find("/model/Fn"), std::string::npos);
  EXPECT_FALSE(fs::exists(out / "basins.csv"));
  EXPECT_FALSE(fs::exists(out / "attractors.csv"));
  const std::string cases = slurp(out / "cases.csv");
  EXPECT_EQ(cases.substr(0, cases.find('\n')).find("attractor"), std::string::npos);
  fs::remove_all(out);
}

// basins at each value of a parameter (scenarios/bstab_friction_belt.json: bSTAB's oscillator at
// nine belt speeds, here 200 random starts at each, one scenario): at every speed each class is one
// attractor (the equilibrium of steady sliding and one stick-slip cycle are unique there, so a
// split would be the labels' error) and the shares add up to one; steady sliding has no basin
// below the speed where it turns stable, ln(10)/2 = 1.151 (damping 0.1 against the law's slope
// e^(−2v) at the belt speed), and one above it; at bSTAB's speed 1.5 its share is bSTAB's basin
// stability 0.3165 within three of the 200 starts' standard errors
TEST(SweepCommand, BasinStabilityAtEachBeltSpeed) {
  const fs::path out = fresh_dir("fivsim_bstab_belt");
  const Result r =
      run_fivsim("sweep " + kScenarios + "bstab_friction_belt.json --device cpu -q --set /sweep/samples=200 --out " +
                 out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  ASSERT_TRUE(s.contains("basins")) << s.dump(1);
  EXPECT_FALSE(s.contains("basin_stability"));  // classes over several speeds are no one basin
  const json& groups = s["basins"]["groups"];
  ASSERT_EQ(groups.size(), 9u);
  std::vector<double> sliding;
  for (const json& g : groups) {
    EXPECT_EQ(g["cases"], 200);
    double total = static_cast<double>(g["unlabelled"].get<long>()) / 200.0, steady = 0.0;
    std::map<std::string, int> per_class;
    for (const json& a : g["attractors"]) {
      total += a["fraction"].get<double>();
      ++per_class[a["class"].get<std::string>()];
      if (a["class"] == "no-stick-slip") steady = a["fraction"].get<double>();
    }
    EXPECT_NEAR(total, 1.0, 1e-12) << g.dump();
    for (const auto& [klass, count] : per_class) EXPECT_EQ(count, 1) << klass << " at " << g["values"].dump();
    sliding.push_back(steady);
    std::printf("belt %.2f: steady sliding %.4f\n", g["values"][0].get<double>(), steady);
    if (std::abs(g["values"][0].get<double>() - 1.5) < 1e-12) {
      EXPECT_NEAR(steady, 0.3165, 3.0 * std::sqrt(0.3165 * (1 - 0.3165) / 200.0));
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g]["values"][0].get<double>() < 0.5 * std::log(10.0))
      EXPECT_EQ(sliding[g], 0.0) << groups[g]["values"];
    else
      EXPECT_GT(sliding[g], 0.0) << groups[g]["values"];
  }
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
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/method=\\\"switching\\\" --precision float",
             "--precision: the switching method runs in double precision only");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/rel_tol=1e-9",
             "/integrator/rel_tol: applies to the event-driven methods (switching, root_shooting) only");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/output/trajectories=[10000]'",
             "/output/trajectories: case 10000 does not exist");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /analysis/poincare/section=\\\"sideways\\\"",
             "/analysis/poincare/section");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/lyapunov={\"every\":0}'",
             "/analysis/lyapunov/every");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/observers=[\"rms\",\"rainbow\"]'",
             "/analysis/observers/1: unknown observer 'rainbow' (one of: rms, min_max, transitions, poincare, "
             "contact_fractions, lcp_residual, output_error, orbit)");
  // the orbit observer shoots from break-away samples with the switching model
  expect_bad(kScenarios +
                 "chain2_load_sweep.json --set /analysis/orbit=true --set '/analysis/poincare={\"section\": "
                 "\"velocity\", \"dof\": 0, \"value\": 0}'",
             "/analysis/orbit: the orbit observer shoots from break-away samples");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/observers=[\"rms\",\"orbit\"]'",
             "/analysis/observers: the orbit observer shoots from break-away samples");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /analysis/observers=\\\"skinny\\\"",
             "/analysis/observers: unknown value 'skinny'");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/sweep/parameters/0/path=\"/analysis/points\"'",
             "/sweep/parameters/0/path: '/analysis/points' cannot be swept");
}

TEST(SweepCommand, PinnSweepsSayWhatTheyNeed) {
  expect_bad(kScenarios + "model1_pinn_v0_sweep.json --precision float",
             "--precision: the PINN methods run in double precision only, not float");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/lcp_solver=\\\"lcp_pinn\\\"",
             "/integrator/lcp_solver: sweeps solve the contact LCPs of moreau, rk4lcp and irk");
}

// a GPU whose compute capability the build has no kernel image for (stubbed: an RTX A6000, 8.6,
// which neither this build nor the old Hopper-only default can run): --device auto says so in one
// line and runs on the CPU (the files of --device cpu, summary.json's device_fallback); --device
// cuda is bad input naming the GPU, its capability and what to rebuild with
TEST(SweepCommand, AutoRunsOnTheCpuBesideAGpuItCannotUse) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json -q" + kShort;
  const fs::path cpu = fresh_dir("fivsim_stub_cpu"), fallback = fresh_dir("fivsim_stub_auto");
  ASSERT_EQ(run_fivsim(sweep + " --device cpu --out " + cpu.string()).code, 0);
  const std::string stub = "FIVSIM_SWEEP_STUB_GPU='NVIDIA RTX A6000:8.6' ";
  const std::string why =
      "no usable CUDA device: NVIDIA RTX A6000 (compute capability 8.6) cannot run this build's "
      "kernels (built for ";
  const Result r = run_command_line(stub, sweep + " --device auto --out " + fallback.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("fivsim sweep: warning: running on the CPU: " + why, 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(slurp(cpu / "cases.csv"), slurp(fallback / "cases.csv"));
  const json s = json::parse(slurp(fallback / "summary.json"));
  EXPECT_EQ(s["device"], "cpu");
  EXPECT_EQ(s["device_fallback"].get<std::string>().rfind(why, 0), 0u);
  const fs::path refused = fresh_dir("fivsim_stub_cuda");
  const Result c = run_command_line(stub, sweep + " --device cuda --out " + refused.string());
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err.rfind("fivsim sweep: --device: cuda, but there is " + why, 0), 0u) << c.err;
  EXPECT_NE(c.err.find("rebuild with -DCMAKE_CUDA_ARCHITECTURES=86 (or native)"), std::string::npos) << c.err;
  EXPECT_FALSE(fs::exists(refused));
  fs::remove_all(cpu);
  fs::remove_all(fallback);
}

// bad input, one line: that there is no device and what to run instead, nothing written
TEST(SweepCommand, CudaWithoutADeviceSaysSo) {
  if (fivsim::cuda_device_info().available) GTEST_SKIP() << "a CUDA device is present";
  const fs::path out = fresh_dir("fivsim_sweep_nocuda");
  const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cuda -q --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("fivsim sweep: --device: cuda, but there is no CUDA device", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("; --device cpu (or auto) runs the sweep on the CPU cores\n"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
  EXPECT_FALSE(fs::exists(out.string() + ".lock"));
}

}  // namespace
