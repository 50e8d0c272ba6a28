// tests/io/output_test.cpp — results folders (io/output.hpp) called directly: which paths --out may
// name (the refusal of system paths only looked at, never written), the lock that keeps a second
// process out, the swap that replaces an earlier results folder without a moment of none, and
// the staging folders removed when a signal ends the process.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.hpp"
#include "fivsim/core/input_error.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/io/output.hpp"

namespace {

using fivsim::InputError;
using fivsim::kOutputMarker;
using fivsim::output_refusal;
using fivsim::OutputLock;
using fivsim::StagedDirectory;
using namespace fivsim_test;

bool refused_with(const std::string& why, const std::string& part) { return why.find(part) != std::string::npos; }

// a results folder as fivsim leaves it: its files and the marker
void make_results(const fs::path& dir, const std::string& summary) {
  fs::create_directories(dir);
  std::ofstream(dir / kOutputMarker) << "{}";
  std::ofstream(dir / "summary.json") << summary;
}

// system paths are only looked at: `/`, a device node, a system folder and a path below a device
TEST(OutputRefusal, RefusesTheRootDevicesAndFoldersFivsimDidNotWrite) {
  const fs::path cwd = fresh_dir("fivsim_out_cwd");
  fs::create_directories(cwd);
  EXPECT_TRUE(refused_with(output_refusal("/", cwd, {}), "is the root folder /")) << output_refusal("/", cwd, {});
  EXPECT_TRUE(refused_with(output_refusal("//", cwd, {}), "is the root folder /"));
  EXPECT_TRUE(refused_with(output_refusal("/dev/null", cwd, {}), "is a special file"))
      << output_refusal("/dev/null", cwd, {});
  EXPECT_TRUE(refused_with(output_refusal("/etc", cwd, {}), "is a folder fivsim did not write"));
  EXPECT_TRUE(refused_with(output_refusal("/etc/", cwd, {}), "is a folder fivsim did not write"));
  EXPECT_TRUE(refused_with(output_refusal("/dev/null/x", cwd, {}), "cannot be made: /dev/null is not a folder"))
      << output_refusal("/dev/null/x", cwd, {});
  EXPECT_TRUE(refused_with(output_refusal("", cwd, {}), "is empty"));
  fs::remove_all(cwd);
}

// the current folder, the folders above it and the folder of an input, however they are written
TEST(OutputRefusal, RefusesTheCurrentFolderItsAncestorsAndTheInputsFolders) {
  const fs::path base = fresh_dir("fivsim_out_here");
  const fs::path cwd = base / "work" / "here";
  fs::create_directories(cwd);
  for (const std::string& out :
       std::vector<std::string>{".", "./", "./.", cwd.string(), cwd.string() + "/", "sub/..", "../here"})
    EXPECT_TRUE(refused_with(output_refusal(out, cwd, {}), "is the current folder")) << out;
  for (const std::string& out :
       std::vector<std::string>{"..", "../", "../..", base.string(), "../../../" + base.filename().string()})
    EXPECT_TRUE(refused_with(output_refusal(out, cwd, {}), "holds the current folder " + cwd.string())) << out;
  // a link above the current folder leads to the same place
  fs::create_directory_symlink(base / "work", base / "link");
  EXPECT_TRUE(
      refused_with(output_refusal(base / "link" / "here", base / "link" / "here", {}), "is the current folder"));
  const fs::path scenario = base / "inputs" / "s.json";
  fs::create_directories(scenario.parent_path());
  std::ofstream(scenario) << "{}";
  EXPECT_TRUE(refused_with(output_refusal(base / "inputs", cwd, {scenario}), "holds " + scenario.string()));
  EXPECT_TRUE(refused_with(output_refusal(scenario, cwd, {scenario}), "is an input of this command"));
  // an input inside an earlier results folder: replacing the folder would delete it
  make_results(base / "old", "{}");
  std::ofstream(base / "old" / "s.json") << "{}";
  EXPECT_TRUE(refused_with(output_refusal(base / "old", cwd, {base / "old" / "s.json"}), "an input of this command"));
  EXPECT_EQ(output_refusal(base / "old", cwd, {scenario}), "");
  fs::remove_all(base);
}

TEST(OutputRefusal, TakesANewPathAnEmptyFolderOrFivsimsOwnAndNothingElse) {
  const fs::path base = fresh_dir("fivsim_out_kinds");
  fs::create_directories(base / "empty");
  make_results(base / "results", "{}");
  fs::create_directories(base / "mine");
  std::ofstream(base / "mine" / "notes.txt") << "mine";
  std::ofstream(base / "notes.txt") << "mine";
  fs::create_directory_symlink(base / "results", base / "link");
  ::mkfifo((base / "fifo").c_str(), 0644);
  EXPECT_EQ(output_refusal(base / "new" / "deeper", base, {}), "");
  EXPECT_EQ(output_refusal(base / "empty", base, {}), "");
  EXPECT_EQ(output_refusal(base / "results", base, {}), "");
  EXPECT_EQ(output_refusal(base / "results/", base, {}), "");
  EXPECT_TRUE(refused_with(output_refusal(base / "mine", base, {}), "is a folder fivsim did not write"));
  EXPECT_TRUE(refused_with(output_refusal(base / "notes.txt", base, {}), "is a file, not a results folder"));
  EXPECT_TRUE(refused_with(output_refusal(base / "link", base, {}), "is a symbolic link"));
  EXPECT_TRUE(refused_with(output_refusal(base / "fifo", base, {}), "is a special file"));
  EXPECT_TRUE(refused_with(output_refusal(base / "notes.txt" / "x", base, {}), "cannot be made: "));
  // a marker that is not a plain file does not make a folder fivsim's
  fs::create_directories(base / "fake" / kOutputMarker);
  EXPECT_TRUE(refused_with(output_refusal(base / "fake", base, {}), "is a folder fivsim did not write"));
  fs::remove_all(base);
}

// the refusal comes before anything is made: no lock file, no staging folder, the user's files
// as they were
TEST(StagedDirectory, RefusesBeforeTouchingAnything) {
  const fs::path base = fresh_dir("fivsim_staged_refused");
  fs::create_directories(base / "mine");
  std::ofstream(base / "mine" / "notes.txt") << "mine";
  try {
    StagedDirectory dir(base / "mine");
    ADD_FAILURE() << "a folder fivsim did not write was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer, "--out");
    EXPECT_NE(std::string(e.what()).find((base / "mine").string() + " is a folder fivsim did not write"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(base / "mine" / "notes.txt"), "mine");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(base)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(base);
}

// an earlier results folder is replaced as a whole; without commit nothing is left
TEST(StagedDirectory, ReplacesAnEarlierResultsFolderAndLeavesNothingOnFailure) {
  const fs::path base = fresh_dir("fivsim_staged_replace");
  make_results(base / "r", "old");
  std::ofstream(base / "r" / "old_only.csv") << "1";
  {
    StagedDirectory dir(base / "r");
    EXPECT_TRUE(fs::exists(dir.file(kOutputMarker)));
    std::ofstream(dir.file("summary.json")) << "new";
    dir.commit();
  }
  EXPECT_EQ(slurp(base / "r" / "summary.json"), "new");
  EXPECT_FALSE(fs::exists(base / "r" / "old_only.csv"));
  EXPECT_TRUE(fs::is_regular_file(base / "r" / kOutputMarker));
  {
    StagedDirectory dir(base / "r");
    std::ofstream(dir.file("summary.json")) << "failed";
  }
  EXPECT_EQ(slurp(base / "r" / "summary.json"), "new");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(base)) ++entries;
  EXPECT_EQ(entries, 1);  // r alone: no staging folder, no lock file
  fs::remove_all(base);
}

// the staging folder swapped for a link to another folder while the command writes: its files and
// folders still go into the folder it made (pinned by a descriptor), never into the link's target
TEST(StagedDirectory, WritesStayInTheFolderItMadeWhenItsPathIsSwapped) {
  const fs::path base = fresh_dir("fivsim_staged_pinned");
  fs::create_directories(base / "victim");
  {
    StagedDirectory dir(base / "r");
    const fs::path staging = dir.path();
    fs::rename(staging, base / "moved");
    fs::create_directory_symlink(base / "victim", staging);
    fivsim::write_new_file(dir.file("summary.json"), "new");
    fivsim::make_output_folder(dir.file("trajectories"));
    fivsim::write_new_file(dir.file("trajectories") / "case_0.csv", "t\n");
    EXPECT_EQ(slurp(base / "moved" / "summary.json"), "new");
    EXPECT_EQ(slurp(base / "moved" / "trajectories" / "case_0.csv"), "t\n");
  }
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(base / "victim")) ++entries;
  EXPECT_EQ(entries, 0);
  EXPECT_FALSE(fs::exists(fs::symlink_status(base / ("r.partial-" + std::to_string(::getpid())))));
  fs::remove_all(base);
}

// a folder that became someone else's while the command ran is left alone, and the results stay
// in the staging folder the message names
TEST(StagedDirectory, KeepsAFolderThatChangedOwnersWhileItRan) {
  const fs::path base = fresh_dir("fivsim_staged_changed");
  make_results(base / "r", "old");
  StagedDirectory dir(base / "r");
  std::ofstream(dir.file("summary.json")) << "new";
  fs::remove(base / "r" / kOutputMarker);
  std::ofstream(base / "r" / "notes.txt") << "mine";
  try {
    dir.commit();
    ADD_FAILURE() << "a folder that is no longer fivsim's was replaced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the results are in " + dir.path().string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(base / "r" / "notes.txt"), "mine");
  EXPECT_EQ(slurp(dir.file("summary.json")), "new");
  fs::remove_all(base);
}

// a reader polling the folder while it is replaced again and again always finds it whole
TEST(StagedDirectory, AReaderNeverSeesTheFolderMissing) {
  const fs::path base = fresh_dir("fivsim_staged_swap");
  make_results(base / "r", "0");
  std::atomic<bool> done{false};
  std::atomic<long> looks{0}, missing{0};
  std::thread reader([&] {
    while (!done.load()) {
      struct stat st {};
      if (::stat((base / "r" / "summary.json").c_str(), &st) != 0) missing.fetch_add(1);
      looks.fetch_add(1);
    }
  });
  for (int i = 1; i <= 300; ++i) {
    StagedDirectory dir(base / "r");
    std::ofstream(dir.file("summary.json")) << i;
    dir.commit();
  }
  done = true;
  reader.join();
  EXPECT_GT(looks.load(), 300);
  EXPECT_EQ(missing.load(), 0);
  EXPECT_EQ(slurp(base / "r" / "summary.json"), "300");
  fs::remove_all(base);
}

// SIGTERM or SIGINT while a command writes: its staging folder and lock file go, a resumable
// folder with recorded work stays for --resume, and the process still ends by the signal
TEST(StagedDirectory, ASignalRemovesTheStagingFolderAndTheLock) {
  for (const int sig : {SIGTERM, SIGINT}) {
    for (const bool resumable : {false, true}) {
      const fs::path base = fresh_dir("fivsim_staged_signal");
      fs::create_directories(base);
      Pipe ready;
      ChildProcess child([&] {
        fivsim::remove_staging_on_signals();
        std::optional<StagedDirectory> dir;
        if (resumable) {
          dir.emplace(base / "r", StagedDirectory::Resumable{});
          dir->keep_on_failure();
        } else {
          dir.emplace(base / "r");
        }
        fs::create_directories(dir->file("trajectories"));
        std::ofstream(dir->file("trajectories") / "case_0.csv") << "t,q0\n";
        std::ofstream(dir->file("cases.csv")) << "case\n";
        char c = 'R';
        (void)!::write(ready.in, &c, 1);
        for (;;) ::pause();
        return 0;
      });
      ready.close_in();
      char c = 0;
      ASSERT_EQ(::read(ready.out, &c, 1), 1);
      const fs::path staging = resumable ? base / "r.partial" : base / ("r.partial-" + std::to_string(child.pid));
      ASSERT_TRUE(fs::exists(staging / "cases.csv"));
      ASSERT_TRUE(fs::exists(OutputLock::path_for(base / "r")));
      ::kill(child.pid, sig);
      EXPECT_EQ(child.wait(), 128 + sig);
      EXPECT_EQ(fs::exists(staging / "cases.csv"), resumable) << sig;
      EXPECT_FALSE(fs::exists(OutputLock::path_for(base / "r")));
      EXPECT_FALSE(fs::exists(base / "r"));
      fs::remove_all(base);
    }
  }
}

// "<out>.lock" that is a user's file, or a link, is refused and left as it was
TEST(OutputLock, LeavesAFileItDidNotWriteAlone) {
  const fs::path base = fresh_dir("fivsim_lock_theirs");
  fs::create_directories(base);
  std::ofstream(base / "r.lock") << "my notes";
  EXPECT_THROW(OutputLock(base / "r"), InputError);
  EXPECT_EQ(slurp(base / "r.lock"), "my notes");
  std::ofstream(base / "target") << "kept";
  fs::create_symlink(base / "target", base / "s.lock");
  EXPECT_THROW(OutputLock(base / "s"), InputError);
  EXPECT_EQ(slurp(base / "target"), "kept");
  EXPECT_TRUE(fs::is_symlink(base / "s.lock"));
  fs::remove_all(base);
}

// the lock is per process (POSIX record locks): a forked child holds it while this process tries
TEST(OutputLock, ASecondProcessIsRefusedUntilTheFirstLetsGo) {
  const fs::path out = fresh_dir("fivsim_lock_out");
  const fs::path lock_file = OutputLock::path_for(out);
  EXPECT_EQ(lock_file, OutputLock::path_for(fs::path(out.string() + "/")));
  EXPECT_EQ(lock_file.string(), out.string() + ".lock");

  Pipe locked, release;
  ChildProcess holder([&] {
    // takes the lock, says so, and holds it until told to let go (or until the test ends)
    try {
      const OutputLock held(out, "node17");
      char c = 'L';
      if (::write(locked.in, &c, 1) != 1) return 3;
      if (::read(release.out, &c, 1) != 1) return 4;
      return 0;
    } catch (...) {
      return 5;
    }
  });
  locked.close_in();
  release.close_out();
  char c = 0;
  ASSERT_EQ(::read(locked.out, &c, 1), 1);
  try {
    const OutputLock second(out, "here");
    ADD_FAILURE() << "a second process took the lock";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(out.string() + " is being written by another fivsim command (pid " +
                        std::to_string(holder.pid) + " on node17)"),
              std::string::npos)
        << what;
  }
  // the refusal left the holder's lock file as it was
  EXPECT_TRUE(fs::exists(lock_file));
  ASSERT_EQ(::write(release.in, "x", 1), 1);
  EXPECT_EQ(holder.wait(), 0);
  // the holder removed its file when done; now this process takes the lock, and gives it back
  EXPECT_FALSE(fs::exists(lock_file));
  {
    const OutputLock mine(out, "here");
    EXPECT_EQ(slurp(lock_file), "fivsim lock: pid " + std::to_string(::getpid()) + " on here");
  }
  EXPECT_FALSE(fs::exists(lock_file));
}

// a holder killed with the lock held (kill -9 leaves its file behind): the kernel released the
// lock, so the next sweep takes it
TEST(OutputLock, AKilledHoldersLeftoverFileIsTakenOver) {
  const fs::path out = fresh_dir("fivsim_lock_killed");
  Pipe locked;
  ChildProcess holder([&] {
    const OutputLock held(out, "node17");
    char c = 'L';
    (void)!::write(locked.in, &c, 1);
    ::pause();
    return 0;
  });
  locked.close_in();
  char c = 0;
  ASSERT_EQ(::read(locked.out, &c, 1), 1);
  holder.kill();
  ASSERT_TRUE(fs::exists(OutputLock::path_for(out)));
  {
    const OutputLock mine(out, "here");
    EXPECT_EQ(slurp(OutputLock::path_for(out)), "fivsim lock: pid " + std::to_string(::getpid()) + " on here");
  }
  EXPECT_FALSE(fs::exists(OutputLock::path_for(out)));
}

// a file system without record locks: the sweep is not refused, the lock says it holds none and
// why, and leaves no file behind; any other failure to lock (a holder's EAGAIN) still refuses
TEST(OutputLock, WithoutRecordLocksItHoldsNoneAndSaysWhy) {
  const fs::path out = fresh_dir("fivsim_lock_unsupported");
  const fs::path lock_file = OutputLock::path_for(out);
  for (const int err : {ENOLCK, ENOSYS, EOPNOTSUPP, EAGAIN}) {
    const int code = in_process_without_record_locks(err, [&] {
      try {
        const OutputLock lock(out, "here");
        if (lock.unguarded().find("cannot lock " + lock_file.string() + " (" + std::strerror(err) +
                                  "): nothing keeps a second command out of " + out.string()) != 0)
          return 2;
        return fs::exists(lock_file) ? 3 : 0;
      } catch (const std::runtime_error& e) {
        return std::string(e.what()).find("is being written by another fivsim command") != std::string::npos ? 10 : 11;
      }
    });
    if (code == -1) GTEST_SKIP() << "the kernel refuses seccomp filters here";
    EXPECT_EQ(code, err == EAGAIN ? 10 : 0) << std::strerror(err);
  }
  // a lock file it did not make (another host's, where NFS locks are per client) stays
  std::ofstream(lock_file) << "pid 99 on nfs-client";
  EXPECT_EQ(in_process_without_record_locks(ENOLCK,
                                            [&] {
                                              const OutputLock lock(out, "here");
                                              return lock.unguarded().empty() ? 1 : 0;
                                            }),
            0);
  EXPECT_EQ(slurp(lock_file), "pid 99 on nfs-client");
  fs::remove(lock_file);
  const OutputLock held(out, "here");
  EXPECT_EQ(held.unguarded(), "");
}

}  // namespace
