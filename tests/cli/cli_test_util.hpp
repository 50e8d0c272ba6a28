// tests/cli/cli_test_util.hpp — running the fivsim tool from a test: exit code, stdout and stderr of
// one command, file contents and CSV rows, fresh output folders; forked children, and one on a file
// system without locks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace fivsim_test {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// a wait status as a shell reports it: the exit code, or 128 + the signal that ended the process
inline int exit_code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1);
}

// a shell command line (prefix + the fivsim binary + args), its exit code and output. ctest runs
// every test in its own process, several at once: the capture files carry the pid
inline Result run_command_line(const std::string& prefix, const std::string& args) {
  const fs::path dir = fs::temp_directory_path();
  const std::string tag = std::to_string(::getpid());
  const fs::path out = dir / ("fivsim_cli_stdout_" + tag + ".txt"), err = dir / ("fivsim_cli_stderr_" + tag + ".txt");
  const std::string cmd = prefix + std::string(FIVSIM_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  // a command killed by a signal reads as 128 + the signal, not as 0
  Result r{exit_code_of(raw), slurp(out), slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

inline Result run_fivsim(const std::string& args) { return run_command_line("", args); }

#ifdef FIVSIM_MPIEXEC
// fivsim under mpirun on this machine: more ranks than cores allowed, as root where CI is root, and
// without the shared-memory single copy (CMA), which containers often forbid. In the sanitizer
// build, LeakSanitizer stays off under mpirun: OpenMPI's plugins keep memory to the end and are
// unloaded before the leak check, so their allocations cannot be told apart or suppressed by name
inline Result run_fivsim_ranks(int ranks, const std::string& args) {
  return run_command_line(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" " +
          std::string(FIVSIM_MPIEXEC) + " --oversubscribe -np " + std::to_string(ranks) + " ",
      args);
}
#endif

// bad input as every verb reports it: exit 2, one line that starts "fivsim <verb>: " and holds `part`
inline void expect_bad_input(const Result& r, const std::string& verb, const std::string& part) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("fivsim " + verb + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// the rows of a CSV file as maps from column name to value
inline std::vector<std::map<std::string, double>> csv_rows(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream hs(line);
  for (std::string cell; std::getline(hs, cell, ',');) names.push_back(cell);
  std::vector<std::map<std::string, double>> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::map<std::string, double> row;
    std::size_t k = 0;
    for (std::string cell; std::getline(ss, cell, ',') && k < names.size(); ++k) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      row[names[k]] = end != cell.c_str() ? v : std::nan("");
    }
    rows.push_back(row);
  }
  return rows;
}

// column `name` of a CSV file as text, row by row
inline std::vector<std::string> csv_text_column(const fs::path& file, const std::string& name) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  std::stringstream hs(line);
  long col = -1, k = 0;
  for (std::string cell; std::getline(hs, cell, ','); ++k)
    if (cell == name) col = k;
  std::vector<std::string> out;
  while (col >= 0 && std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    for (long j = 0; j <= col; ++j) std::getline(ss, cell, ',');
    out.push_back(cell);
  }
  return out;
}

inline fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

inline const std::string kScenarios = FIVSIM_SOURCE_DIR "/scenarios/";

// a command's summary.json in folder `out`
inline nlohmann::json summary_of(const fs::path& out) { return nlohmann::json::parse(slurp(out / "summary.json")); }

// the lines of a text file
inline long lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  long n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

// `lock_file` locked as another fivsim's (a plain POSIX record lock, holding fivsim's signature and
// `note`): its open descriptor, which keeps the lock until closed, or -1
inline int hold_lock_as_another_fivsim(const fs::path& lock_file, const std::string& holder) {
  const std::string note = "fivsim lock: " + holder;
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0) return -1;
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  if (::write(fd, note.data(), note.size()) != static_cast<ssize_t>(note.size()) || ::fcntl(fd, F_SETLK, &whole) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// a pipe whose ends close with it
struct Pipe {
  int out = -1, in = -1;  // read end, write end
  Pipe() {
    int fds[2];
    if (::pipe(fds) == 0) {
      out = fds[0];
      in = fds[1];
    }
  }
  ~Pipe() {
    close_out();
    close_in();
  }
  void close_out() {
    if (out >= 0) ::close(out);
    out = -1;
  }
  void close_in() {
    if (in >= 0) ::close(in);
    in = -1;
  }
};

// a forked child running body() to its exit code (125 should body throw: the child never goes
// back into the test); killed and reaped however the test ends, so that a failed assertion never
// leaves it holding ctest's output open
struct ChildProcess {
  pid_t pid = -1;
  template <class Body>
  explicit ChildProcess(Body&& body) : pid(::fork()) {
    if (pid != 0) return;
    int code = 125;
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  ~ChildProcess() { kill(); }
  // its exit code, or 128 + the signal that ended it
  int wait() {
    int status = 0;
    if (pid <= 0 || ::waitpid(pid, &status, 0) != pid) return -1;
    pid = -1;
    return exit_code_of(status);
  }
  void kill() {
    if (pid > 0) ::kill(pid, SIGKILL);
    wait();
  }
};

// runs `body` in a child process in which every POSIX record lock request (fcntl F_SETLK) fails
// with `err`, as on a file system without locks (Lustre mounted without flock, NFS without its
// lock daemon), by a seccomp filter that the child's own children inherit. The child's exit code
// (body's return value; 128 + the signal that killed it), or -1 where the kernel refuses the
// filter or the machine is not one it is written for (64-bit little-endian: x86_64, aarch64).
template <class Body>
int in_process_without_record_locks(int err, Body&& body) {
#if defined(__x86_64__) || defined(__aarch64__)
  // the child says over a pipe whether its filter is in place
  Pipe installed;
  ChildProcess child([&] {
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 3),
        // the command, fcntl's second argument (its low half on a little-endian machine)
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[1])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETLK, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(err) & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    const sock_fprog program{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
    const char ok =
        ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
    (void)!::write(installed.in, &ok, 1);
    installed.close_in();
    return ok ? body() : 0;
  });
  installed.close_in();
  char ok = 0;
  const bool said = ::read(installed.out, &ok, 1) == 1;
  const int code = child.wait();
  return said && ok ? code : -1;
#else
  (void)err;
  (void)body;
  return -1;
#endif
}

}  // namespace fivsim_test
