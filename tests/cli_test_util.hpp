// tests/cli_test_util.hpp — running the fivsim tool from a test: exit code, stdout and stderr of
// one command, file contents, fresh output folders.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

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

// a shell command line (prefix + the fivsim binary + args), its exit code and output. ctest runs
// every test in its own process, several at once: the capture files carry the pid
inline Result run_command_line(const std::string& prefix, const std::string& args) {
  const fs::path dir = fs::temp_directory_path();
  const std::string tag = std::to_string(::getpid());
  const fs::path out = dir / ("fivsim_cli_stdout_" + tag + ".txt"), err = dir / ("fivsim_cli_stderr_" + tag + ".txt");
  const std::string cmd = prefix + std::string(FIVSIM_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  Result r{WEXITSTATUS(raw), slurp(out), slurp(err)};
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
  return run_command_line("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                          "OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" " +
                              std::string(FIVSIM_MPIEXEC) + " --oversubscribe -np " + std::to_string(ranks) + " ",
                          args);
}
#endif

inline fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

inline const std::string kScenarios = FIVSIM_SOURCE_DIR "/scenarios/";

}  // namespace fivsim_test
