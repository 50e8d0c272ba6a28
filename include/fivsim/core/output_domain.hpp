// fivsim/core/output_domain.hpp — what belongs to a results folder <out>: the folder itself and
// the names fivsim keeps beside it (<out>.partial, <out>.partial-<pid>, <out>.lock, <out>.lock-<pid>,
// <out>.old-<pid>). Paths are compared in one canonical form (absolute, `.` and `..` folded,
// links in the folders above resolved), so that no spelling of an input reaches into the output.
// While a command writes a folder, its domain is registered here and any input read through
// read_input_file from inside it is refused (docs/DESIGN.md §5).
#pragma once

#include <filesystem>
#include <string>

namespace fivsim {

// absolute, `.` and `..` folded as the file system resolves them, links in every folder above
// resolved; the last component kept as named (a link there is judged as a link). Trailing `/` and
// `/.` name the folder itself
std::filesystem::path canonical_path(const std::filesystem::path& p, const std::filesystem::path& cwd);

// where `name` is a name fivsim keeps beside a results folder, that folder's name; else ""
std::string results_folder_of_derived(const std::string& name);

// `inner` is `outer` or lies inside it (both canonical)
bool lies_within(const std::filesystem::path& inner, const std::filesystem::path& outer);

// `path` lies inside `out` or inside one of the names beside it (both canonical)
bool in_output_domain(const std::filesystem::path& path, const std::filesystem::path& out);

// the domain of the canonical `out` as one this process is writing, while the object lives
class ActiveOutput {
 public:
  explicit ActiveOutput(std::filesystem::path out);
  ~ActiveOutput();
  ActiveOutput(const ActiveOutput&) = delete;
  ActiveOutput& operator=(const ActiveOutput&) = delete;

 private:
  std::filesystem::path out_;
};

// whether a test turned one of the output transaction's defences off (FIVSIM_TEST_DISABLE_SAFETY=
// inputs, links or strict, comma-separated): tests/cli/filesystem_adversary.py shows that each one
// stops violations it would otherwise find. Never set outside that test
bool safety_disabled(const char* defence);

// an InputError naming `path` (as given) and the folder, when `path` lies in the domain of a
// folder this process is writing
void refuse_input_in_active_output(const std::string& path);

}  // namespace fivsim
