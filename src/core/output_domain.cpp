// src/core/output_domain.cpp — canonical paths and the folders this process writes (output_domain.hpp).
#include "fivsim/core/output_domain.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "fivsim/core/input_error.hpp"

namespace fivsim {

namespace fs = std::filesystem;

fs::path canonical_path(const fs::path& p, const fs::path& cwd) {
  fs::path given = p.is_absolute() ? p : cwd / p;
  // "D/" and "D/." name D
  while (given.has_relative_path() && (given.filename().empty() || given.filename() == "."))
    given = given.parent_path();
  std::error_code ec;
  const fs::path name = given.filename();
  // ".." is folded by the file system, not by text (a link's ".." is its target's parent); a path
  // ending in ".." names a real folder and is resolved whole
  fs::path folded;
  if (name.empty() || name == "..") {
    const fs::path c = fs::weakly_canonical(given, ec);
    folded = ec ? given.lexically_normal() : c;
  } else {
    const fs::path parent = fs::weakly_canonical(given.parent_path(), ec);
    folded = (ec ? given.parent_path().lexically_normal() : parent) / name;
  }
  // "a/b/.." folds to "a/": the folder a
  while (folded.has_relative_path() && folded.filename().empty()) folded = folded.parent_path();
  return folded;
}

std::string results_folder_of_derived(const std::string& name) {
  for (const char* suffix : {".partial", ".lock"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0)
      return name.substr(0, name.size() - s.size());
  }
  for (const char* infix : {".partial-", ".lock-", ".old-"}) {
    const std::size_t at = name.rfind(infix);
    if (at != std::string::npos && at > 0) return name.substr(0, at);
  }
  return "";
}

namespace {
std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> parts;
  for (const fs::path& c : p)
    if (!c.empty() && c != "/" && c != ".") parts.push_back(c.string());
  return parts;
}
}  // namespace

bool lies_within(const fs::path& inner, const fs::path& outer) {
  const std::vector<std::string> a = components(inner), b = components(outer);
  return a.size() >= b.size() && std::equal(b.begin(), b.end(), a.begin());
}

bool in_output_domain(const fs::path& path, const fs::path& out) {
  if (lies_within(path, out)) return true;
  const std::vector<std::string> a = components(path), b = components(out);
  if (b.empty() || a.size() < b.size() || !std::equal(b.begin(), b.end() - 1, a.begin())) return false;
  // the entry beside `out` that `path` goes through: one of out's derived names?
  const std::string& beside = a[b.size() - 1];
  return results_folder_of_derived(beside) == b.back();
}

namespace {
std::mutex g_active_mutex;
std::vector<fs::path>& active_outputs() {
  static std::vector<fs::path> outs;
  return outs;
}
}  // namespace

ActiveOutput::ActiveOutput(fs::path out) : out_(std::move(out)) {
  const std::lock_guard<std::mutex> hold(g_active_mutex);
  active_outputs().push_back(out_);
}

ActiveOutput::~ActiveOutput() {
  const std::lock_guard<std::mutex> hold(g_active_mutex);
  auto& outs = active_outputs();
  const auto it = std::find(outs.begin(), outs.end(), out_);
  if (it != outs.end()) outs.erase(it);
}

bool safety_disabled(const char* defence) {
  static const std::string off = [] {
    const char* v = std::getenv("FIVSIM_TEST_DISABLE_SAFETY");
    return v ? "," + std::string(v) + "," : std::string();
  }();
  return !off.empty() && off.find("," + std::string(defence) + ",") != std::string::npos;
}

void refuse_input_in_active_output(const std::string& path) {
  if (safety_disabled("inputs")) return;
  std::vector<fs::path> outs;
  {
    const std::lock_guard<std::mutex> hold(g_active_mutex);
    outs = active_outputs();
  }
  if (outs.empty()) return;
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) cwd = "/";
  const fs::path at = canonical_path(path, cwd);
  for (const fs::path& out : outs)
    if (in_output_domain(at, out))
      throw InputError::in_file(path, "lies in " + out.string() +
                                          ", the folder this command writes; an input is never an output: name "
                                          "another --out");
}

}  // namespace fivsim
