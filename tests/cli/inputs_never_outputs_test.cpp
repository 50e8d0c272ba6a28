// tests/cli/inputs_never_outputs_test.cpp — the output transaction end to end, one test per way an
// attack of about 345 inputs once lost data, crashed fivsim or reported nonsense as success: an
// output that is (or holds) an input, links planted where a resume writes, names beside a results
// folder, mount points, a user's lock file, a merged shard's name, a full disk, deep nesting, and
// limits that no command or `validate` passes. Each ends with exit 2 and nothing touched, or exit 1
// with one message and nothing lost. Temporary folders only; mounts where the test runs as root.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

// a namespace of its own: the cli tests compile in unity batches
namespace inputs_never_outputs {

using namespace fivsim_test;
using nlohmann::json;

// (from the macro, not kScenarios: clang orders an inline variable's initialization after this one)
const std::string kScenarioDir = FIVSIM_SOURCE_DIR "/scenarios/";
const std::string kShort = " -q --set /integrator/t_end=1 --set /analysis/t_transient=0";

// every entry under `dir` with what it holds: a file's bytes, a link's target, "folder"
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> s;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), dir).string();
    if (it->is_symlink())
      s[rel] = "link to " + fs::read_symlink(it->path()).string();
    else if (it->is_directory())
      s[rel] = "folder";
    else if (it->is_regular_file())
      s[rel] = slurp(it->path());
    else
      s[rel] = "special";
  }
  return s;
}

// the entries of `after` that differ from `before` (added, removed or changed), by name alone
std::vector<std::string> changed(const std::map<std::string, std::string>& before,
                                 const std::map<std::string, std::string>& after) {
  std::vector<std::string> names;
  for (const auto& [name, what] : before)
    if (!after.count(name) || after.at(name) != what) names.push_back(name);
  for (const auto& [name, what] : after)
    if (!before.count(name)) names.push_back(name);
  return names;
}

// a fresh folder holding a copy of the scenarios the tests edit
fs::path arena(const std::string& name) {
  const fs::path base = fresh_dir(name);
  fs::create_directories(base);
  fs::copy_file(kScenarioDir + "model1_slow_stribeck.json", base / "s.json");
  return base;
}

std::string sweep_of_loads(int cases, int t_end) {
  return "sweep " + kScenarioDir +
         "chain2_load_sweep.json --device cpu -q --set /integrator/t_end=" + std::to_string(t_end) +
         " --set /analysis/t_transient=1 --set /sweep/parameters/0/linspace=[1,30," + std::to_string(cases) + "]";
}

// an unfinished sweep as kill -9 leaves it after one chunk of 64 cases: <out>.partial (its lock
// file, which the next command would take over, removed)
void unfinished_sweep(const std::string& sweep, const fs::path& out) {
  ::setenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS", "1", 1);
  const Result r = run_fivsim(sweep + " --chunk 64 --out " + out.string());
  ::unsetenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS");
  ASSERT_EQ(r.code, 137) << r.err;
  ASSERT_TRUE(fs::exists(out.string() + ".partial/manifest.json"));
  fs::remove(out.string() + ".lock");
}

bool running_as_root() { return ::geteuid() == 0; }

// a tmpfs of `size` mounted at `at`, unmounted when the test ends
struct Tmpfs {
  fs::path at;
  bool mounted = false;
  Tmpfs(const fs::path& where, const std::string& size) : at(where) {
    fs::create_directories(at);
    mounted = ::mount("tmpfs", at.c_str(), "tmpfs", 0, ("size=" + size).c_str()) == 0;
  }
  ~Tmpfs() {
    if (mounted) ::umount2(at.c_str(), MNT_DETACH);
  }
};

// 1: continue reads the sweep it starts from: --out may be neither that folder nor inside it
TEST(InputsNeverOutputs, ContinueNeverReplacesTheSweepItReads) {
  const fs::path base = arena("fivsim_inout_continue");
  const std::string sweep = "sweep " + kScenarioDir +
                            "chain2_bifurcation.json -q --device cpu --set /sweep/parameters/0/linspace=[10,12,8] "
                            "--set /integrator/t_end=600 --out " +
                            (base / "S").string();
  ASSERT_EQ(run_fivsim(sweep).code, 0);
  const auto before = snapshot(base);
  const std::string block =
      R"( --set '/continuation={"parameter":"/model/Fn","range":[10,12],"start":"sweep","from":")" +
      (base / "S").string() + R"("}')";
  const std::string cont = "continue " + kScenarioDir + "chain2_bifurcation.json -q" + block;
  expect_bad_input(run_fivsim(cont + " --out " + (base / "S").string()), "continue", "an input of this command");
  expect_bad_input(run_fivsim(cont + " --out " + (base / "S" / "sub").string()), "continue",
                   "lies inside " + (base / "S").string() + ", an input of this command");
  EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{});
  EXPECT_EQ(run_fivsim(cont + " --out " + (base / "C").string()).code, 0);
  fs::remove_all(base);
}

// 2: every scenario an identification config names is an input
TEST(InputsNeverOutputs, IdentifyNeverReplacesAFolderHoldingItsScenario) {
  const fs::path base = arena("fivsim_inout_identify");
  ASSERT_EQ(run_fivsim("run " + (base / "s.json").string() + kShort + " --out " + (base / "R").string()).code, 0);
  fs::copy_file(kScenarioDir + "sdof_base_two_stop.json", base / "R" / "model.json");
  std::ofstream(base / "id.json") << R"({"name": "id", "method": "sindy",
      "data": {"scenario": "R/model.json", "t_end": 2, "sample_dt": 2e-3}})";
  const auto before = snapshot(base);
  expect_bad_input(run_fivsim("identify " + (base / "id.json").string() + " --out " + (base / "R").string()),
                   "identify", "holds " + (base / "R" / "model.json").string() + ", an input of this command");
  EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{});
  fs::remove_all(base);
}

// 3: what a resume writes is never a link planted in <out>.partial, whatever its name
TEST(InputsNeverOutputs, ResumeNeverWritesThroughAPlantedLink) {
  const fs::path base = arena("fivsim_inout_resume_links");
  const std::string sweep = sweep_of_loads(400, 4);
  const fs::path out = base / "X", partial = base / "X.partial";
  unfinished_sweep(sweep, out);
  std::ofstream(base / "victim.txt") << "victim";
  fs::create_directories(base / "victims");
  for (const char* name : {"manifest.json.tmp", "summary.json", "results.h5", "basins.csv", "trajectories"}) {
    const bool folder = std::string(name) == "trajectories";
    fs::remove(partial / name);  // results.h5 is there already: the link takes its place
    fs::create_symlink(folder ? base / "victims" : base / "victim.txt", partial / name);
    const auto before = snapshot(base);
    expect_bad_input(run_fivsim(sweep + " --chunk 64 --resume --set /output/trajectories=[0] --out " + out.string()),
                     "sweep", (partial / name).string() + " is a symbolic link, not a file fivsim writes there");
    EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{}) << name;
    fs::remove(partial / name);
  }
  EXPECT_EQ(slurp(base / "victim.txt"), "victim");
  // a hard link to a file outside is refused too: writing it would change the outside file
  fs::remove(partial / "cases.csv");
  fs::create_hard_link(base / "victim.txt", partial / "cases.csv");
  expect_bad_input(run_fivsim(sweep + " --chunk 64 --resume --out " + out.string()), "sweep", "(a hard link)");
  EXPECT_EQ(slurp(base / "victim.txt"), "victim");
  fs::remove_all(base);
}

// 4: the names beside a results folder are its own: --out may not name them, even while a sweep
// stages there
TEST(InputsNeverOutputs, NamesBesideAResultsFolderAreNeverAnOutput) {
  const fs::path base = arena("fivsim_inout_derived");
  unfinished_sweep(sweep_of_loads(400, 4), base / "X");
  const int held = hold_lock_as_another_fivsim(base / "X.lock", "pid 4242 on node17");
  ASSERT_GE(held, 0);
  const auto before = snapshot(base);
  for (const char* name : {"X.partial", "X.partial-123", "X.lock", "X.lock-7", "X.old-9"})
    expect_bad_input(run_fivsim("run " + (base / "s.json").string() + kShort + " --out " + (base / name).string()),
                     "run", "is a name fivsim keeps beside the results folder " + (base / "X").string());
  EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{});
  ::close(held);
  fs::remove_all(base);
}

// 5: replacing a result never enters a file system mounted inside it
TEST(InputsNeverOutputs, AMountPointInsideAResultIsNeverEntered) {
  if (!running_as_root()) GTEST_SKIP() << "mounting needs root";
  const fs::path base = arena("fivsim_inout_mount");
  ASSERT_EQ(run_fivsim("run " + (base / "s.json").string() + kShort + " --out " + (base / "R").string()).code, 0);
  {
    Tmpfs mnt(base / "R" / "mnt", "1m");
    if (!mnt.mounted) GTEST_SKIP() << "mount refused here";
    std::ofstream(base / "R" / "mnt" / "data.txt") << "precious";
    const auto before = snapshot(base);
    expect_bad_input(run_fivsim("run " + (base / "s.json").string() + kShort + " --out " + (base / "R").string()),
                     "run", "holds " + (base / "R" / "mnt").string() + ", a mount point");
    EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{});
  }
  fs::remove_all(base);
}

// 6: a lock file is fivsim's only with fivsim's signature: a user's file of that name stays
TEST(InputsNeverOutputs, AUsersLockFileIsNeverDeleted) {
  const fs::path base = arena("fivsim_inout_lock");
  for (const std::string text : {"", "pid 12 on x", "my notes"}) {
    std::ofstream(base / "L.lock") << text;
    const auto before = snapshot(base);
    expect_bad_input(run_fivsim("run " + (base / "s.json").string() + kShort + " --out " + (base / "L").string()),
                     "run", "exists and is not a fivsim lock file");
    EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{}) << text;
  }
  fs::remove_all(base);
}

// two shards of a small sweep in base/0 and base/1 (with the first case's trajectory)
void make_shards(const fs::path& base) {
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(run_fivsim(sweep_of_loads(40, 2) + " --set /output/trajectories=[0,39] --shard " + std::to_string(i) +
                         "/2 --out " + (base / std::to_string(i)).string())
                  .code,
              0);
}

void edit_summary(const fs::path& shard, const std::function<void(json&)>& edit) {
  json s = json::parse(slurp(shard / "summary.json"));
  edit(s);
  std::ofstream(shard / "summary.json", std::ios::trunc) << s.dump();
}

// 7: without --out, merge names its folder by the shards' "name": a file name, never a path
TEST(InputsNeverOutputs, MergeTakesOnlyAFileNameFromTheShards) {
  const fs::path base = arena("fivsim_inout_merge_name");
  make_shards(base);
  for (int i = 0; i < 2; ++i)
    edit_summary(base / std::to_string(i), [&](json& s) { s["name"] = (base / "elsewhere").string(); });
  const auto before = snapshot(base);
  const Result r = run_command_line("cd " + base.string() + " && ", "merge 0 1");
  expect_bad_input(r, "merge", "is not a file name");
  EXPECT_EQ(changed(before, snapshot(base)), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(base / "elsewhere"));
  fs::remove_all(base);
}

// 8, 17: a full disk, wherever the write fails (the spills, the CSVs, results.h5 as HDF5 writes
// it, merge's joins), ends with exit 1 and one line saying so; never a crash, never exit 2
TEST(InputsNeverOutputs, AFullDiskEndsWithOneMessage) {
  if (!running_as_root()) GTEST_SKIP() << "mounting needs root";
  const fs::path base = arena("fivsim_inout_full");
  make_shards(base);
  int ran = 0;
  for (const char* size : {"64k", "700k", "5200k", "6800k", "7200k", "7600k"}) {
    Tmpfs full(base / "full", size);
    if (!full.mounted) GTEST_SKIP() << "mount refused here";
    const Result r =
        run_fivsim(sweep_of_loads(20000, 2) + " --chunk 100000 --format h5 --out " + (base / "full" / "S").string());
    ++ran;
    EXPECT_EQ(r.code, 1) << size << ": " << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << size << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    // what is left is the sweep's own, for --resume
    for (const auto& e : fs::directory_iterator(base / "full")) EXPECT_EQ(e.path().filename(), "S.partial") << size;
    if (std::string(size) == "64k") {
      const Result m = run_fivsim("merge " + (base / "0").string() + " " + (base / "1").string() + " --out " +
                                  (base / "full" / "M").string());
      EXPECT_EQ(m.code, 1) << m.err;
      EXPECT_NE(m.err.find("No space left on device"), std::string::npos) << m.err;
    }
  }
  EXPECT_EQ(ran, 6);
  fs::remove_all(base);
}

// 9: the files merge and --resume read are read strictly: a document nested past the limit is
// refused, not walked until the stack runs out
TEST(InputsNeverOutputs, DeepNestingInShardAndManifestFilesIsRefused) {
  const fs::path base = arena("fivsim_inout_deep");
  make_shards(base);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::ofstream(base / "1" / "summary.json", std::ios::trunc) << deep;
  expect_bad_input(
      run_fivsim("merge " + (base / "0").string() + " " + (base / "1").string() + " --out " + (base / "M").string()),
      "merge", "nests deeper than 64 levels");
  const std::string sweep = sweep_of_loads(400, 4);
  unfinished_sweep(sweep, base / "X");
  std::ofstream(base / "X.partial" / "manifest.json", std::ios::trunc) << deep;
  expect_bad_input(run_fivsim(sweep + " --chunk 64 --resume --out " + (base / "X").string()), "sweep",
                   "nests deeper than 64 levels");
  fs::remove_all(base);
}

// 10, 13, 16, 18, 19: limits every command and `validate` hold to (core/limits.hpp)
TEST(InputsNeverOutputs, NoCommandAllocatesPastItsLimits) {
  const fs::path base = arena("fivsim_inout_limits");
  const std::string out = " --out " + (base / "out").string();
  expect_bad_input(
      run_fivsim(
          "continue " + kScenarioDir +
          R"(chain2_bifurcation.json -q --set '/continuation={"parameter":"/model/Fn","range":[10,12],"max_points":2000000000}')" +
          out),
      "continue", "/continuation/max_points: must be <= 1e6");
  const std::string lugre = "friction " + kScenarioDir + "torsion_pendulum_lugre.json";
  expect_bad_input(run_fivsim(lugre + " --amplitude 1e10" + out), "friction", "--amplitude: ");
  expect_bad_input(run_fivsim(lugre + " --t-end inf" + out), "friction", "--t-end: ");
  expect_bad_input(run_fivsim(lugre + " --dt 1e-300" + out), "friction", "--dt: ");
  expect_bad_input(run_fivsim(lugre + " --t-end 1e12" + out), "friction", "at most 1e8");
  expect_bad_input(run_fivsim("compare " + kScenarioDir + "model2_example2.json --methods moreau --dt 1e-12 -q" + out),
                   "compare", "--dt: ");
  // validate refuses what sweep refuses
  const std::string samples = kScenarioDir + "chain2_load_sweep.json --set /sweep/samples=2000000000";
  expect_bad_input(run_fivsim("validate " + samples), "validate", "/sweep/samples: must be <= 1e8");
  expect_bad_input(run_fivsim("sweep " + samples + " -q" + out), "sweep", "/sweep/samples: must be <= 1e8");
  EXPECT_FALSE(fs::exists(base / "out"));
  fs::remove_all(base);
}

// 11: a damaged shard whose summary.json has no checksums is refused, not merged with fresh ones
TEST(InputsNeverOutputs, MergeRefusesShardsItCannotVerify) {
  const fs::path base = arena("fivsim_inout_merge_checks");
  make_shards(base);
  std::string points = slurp(base / "1" / "points.csv");
  points.erase(points.rfind('\n', points.size() - 2) + 1);  // cut at a line
  std::ofstream(base / "1" / "points.csv", std::ios::trunc) << points;
  std::string cases = slurp(base / "1" / "cases.csv");
  cases[cases.size() - 3] = cases[cases.size() - 3] == '1' ? '2' : '1';
  std::ofstream(base / "1" / "cases.csv", std::ios::trunc) << cases;
  edit_summary(base / "1", [](json& s) { s.erase("checksums"); });
  expect_bad_input(
      run_fivsim("merge " + (base / "0").string() + " " + (base / "1").string() + " --out " + (base / "M").string()),
      "merge", "has no \"checksums\": its files cannot be verified");
  EXPECT_FALSE(fs::exists(base / "M"));
  fs::remove_all(base);
}

// 12: a resume checks the header bytes too: a renamed column makes it run every case again
TEST(InputsNeverOutputs, ResumeChecksTheHeaders) {
  const fs::path base = arena("fivsim_inout_header");
  const std::string sweep = sweep_of_loads(400, 4);
  ASSERT_EQ(run_fivsim(sweep + " --out " + (base / "whole").string()).code, 0);
  unfinished_sweep(sweep, base / "X");
  std::string cases = slurp(base / "X.partial" / "cases.csv");
  const std::size_t at = cases.find("rms_q0");
  ASSERT_NE(at, std::string::npos);
  cases.replace(at, 6, "RMS_Q0");
  std::ofstream(base / "X.partial" / "cases.csv", std::ios::trunc) << cases;
  const Result r = run_fivsim(sweep + " --chunk 64 --resume --out " + (base / "X").string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(base / "X" / "cases.csv"), slurp(base / "whole" / "cases.csv"));
  EXPECT_FALSE(json::parse(slurp(base / "X" / "summary.json")).contains("resumed"));
  fs::remove_all(base);
}

// 14: `.` and `..` in --out are folded before any check: D/. is D, with D's lock and staging
TEST(InputsNeverOutputs, DotsInOutNameTheFolderTheyResolveTo) {
  const fs::path base = arena("fivsim_inout_dots");
  fs::create_directories(base / "D");
  const std::string run = "run " + (base / "s.json").string() + kShort + " --out ";
  for (const std::string out : {"D/.", "D/x/..", "D/./"}) {
    const Result r = run_fivsim(run + (base / out).string());
    ASSERT_EQ(r.code, 0) << out << ": " << r.err;
    EXPECT_TRUE(fs::exists(base / "D" / "summary.json")) << out;
    for (const auto& e : fs::directory_iterator(base))
      EXPECT_EQ(e.path().filename().string().find("D."), std::string::npos) << e.path();
  }
  // D is locked under its own name, whatever the spelling
  const int held = hold_lock_as_another_fivsim(base / "D.lock", "pid 4242 on node17");
  const Result locked = run_fivsim(run + (base / "D/.").string());
  EXPECT_EQ(locked.code, 1) << locked.err;
  EXPECT_NE(locked.err.find("is being written by another fivsim command (pid 4242 on node17)"), std::string::npos);
  ::close(held);
  fs::create_directory_symlink(base / "D", base / "link");
  expect_bad_input(run_fivsim(run + (base / "link/.").string()), "run", "is a symbolic link");
  fs::remove_all(base);
}

// 15, 20: a continuation's parameter the scenario lacks, and --device cuda without a device, are
// bad input (exit 2) named by their pointer or option
TEST(InputsNeverOutputs, ContinueNamesWhatIsWrongWithItsInput) {
  const fs::path base = arena("fivsim_inout_continue_input");
  const std::string cont = "continue " + kScenarioDir + "chain2_bifurcation.json -q --out " + (base / "C").string();
  expect_bad_input(run_fivsim(cont + R"( --set '/continuation={"parameter":"/model/zeta","range":[10,12]}')"),
                   "continue", "/continuation/parameter: '/model/zeta' is not a number of the scenario");
  const Result r = run_fivsim(
      cont + R"( --device cuda --set '/continuation={"parameter":"/model/Fn","range":[10,12],"start":"orbit"}')");
  if (r.err.find("--device: cuda, but there is") != std::string::npos)
    expect_bad_input(r, "continue", "--device: cuda, but there is");
  EXPECT_NE(r.code, 1) << r.err;
  fs::remove_all(base);
}

// 17: merge never waits on a pipe or reads a device as a shard's file
TEST(InputsNeverOutputs, MergeReadsOnlyRegularFiles) {
  const fs::path base = arena("fivsim_inout_merge_special");
  make_shards(base);
  fs::rename(base / "1" / "summary.json", base / "summary.saved");
  ASSERT_EQ(::mkfifo((base / "1" / "summary.json").c_str(), 0644), 0);
  // (a merge that waited on the pipe would be ended by timeout, exit 124)
  Result r = run_command_line("timeout 60 ", "merge " + (base / "0").string() + " " + (base / "1").string() +
                                                 " --out " + (base / "M").string());
  expect_bad_input(r, "merge", "is not a regular file");
  fs::remove(base / "1" / "summary.json");
  fs::create_symlink("/dev/zero", base / "1" / "summary.json");
  r = run_fivsim("merge " + (base / "0").string() + " " + (base / "1").string() + " --out " + (base / "M").string());
  expect_bad_input(r, "merge", "is not a regular file");
  EXPECT_FALSE(fs::exists(base / "M"));
  fs::remove_all(base);
}

// 21: a shard's trajectory that is a link is refused, never copied through
TEST(InputsNeverOutputs, MergeNeverCopiesThroughLinks) {
  const fs::path base = arena("fivsim_inout_merge_links");
  make_shards(base);
  std::ofstream(base / "victim.txt") << "secret";
  const fs::path traj = base / "1" / "trajectories" / "case_39.csv";
  ASSERT_TRUE(fs::exists(traj));
  fs::remove(traj);
  fs::create_symlink(base / "victim.txt", traj);
  expect_bad_input(
      run_fivsim("merge " + (base / "0").string() + " " + (base / "1").string() + " --out " + (base / "M").string()),
      "merge", traj.string() + " is not a regular file");
  EXPECT_FALSE(fs::exists(base / "M"));
  EXPECT_EQ(slurp(base / "victim.txt"), "secret");
  fs::remove_all(base);
}

// 22: --out "" is refused by every verb (it does not silently mean runs/<name>), and a record's
// UTF-8 byte-order mark is not part of its first column's name
TEST(InputsNeverOutputs, AnEmptyOutIsRefusedAndARecordsByteOrderMarkIsRead) {
  const fs::path base = arena("fivsim_inout_empty");
  for (const std::string verb : {"run", "friction", "stability", "compare", "continue", "identify", "sweep"}) {
    const Result r = run_command_line("cd " + base.string() + " && ", verb + " s.json --out ''");
    EXPECT_EQ(r.code, 2) << verb << ": " << r.err;
    EXPECT_NE(r.err.find("--out: is empty"), std::string::npos) << verb << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(base / "runs"));
  {
    std::ofstream csv(base / "rec.csv");
    csv << "\xEF\xBB\xBFt,x\n";
    for (int i = 0; i <= 4000; ++i) csv << i * 1e-3 << "," << std::cos(5e-3 * i) << "\n";
  }
  std::ofstream(base / "id.json") << R"({"name": "bom", "method": "sindy", "data": {"path": "rec.csv"},
            "library": {"input": false, "sign": false}})";
  const Result r = run_fivsim("identify " + (base / "id.json").string() + " --out " + (base / "out").string());
  EXPECT_EQ(r.code, 0) << r.err;
  fs::remove_all(base);
}

}  // namespace inputs_never_outputs
