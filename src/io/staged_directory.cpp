// src/io/staged_directory.cpp — the output transaction: --out checked against the inputs, then
// staged, pinned and swapped into place (io/staged_directory.hpp).
#include "fivsim/io/staged_directory.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/io/output_cleanup.hpp"

namespace fivsim {

namespace fs = std::filesystem;

fs::path folder_named(fs::path out_dir) {
  while (out_dir.has_relative_path() && out_dir.filename().empty()) out_dir = out_dir.parent_path();
  return out_dir;
}

bool is_file_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 200) return false;
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.')) return false;
  return true;
}

fs::path output_folder(const std::string& out, const std::string& default_name) {
  if (!out.empty()) return fs::path(out);
  if (!is_file_name(default_name))
    throw InputError("/name", "must be a file-name-safe word (letters, digits, _ - .) to name runs/<name>, got '" +
                                  default_name + "'");
  return fs::path("runs") / default_name;
}

// --- which paths --out may name ------------------------------------------------------------------

namespace {

const char* kOnlyOwnFolders =
    "fivsim replaces only a results folder it wrote (one holding .fivsim-output) or an empty folder";

// "" when the existing `dir` is a folder fivsim may replace: one holding the marker, or empty
std::string folder_refusal(const fs::path& dir) {
  std::error_code ec;
  if (fs::symlink_status(dir / kOutputMarker, ec).type() == fs::file_type::regular) return "";
  fs::directory_iterator it(dir, ec);
  if (ec) return "cannot be read (" + ec.message() + "); " + kOnlyOwnFolders;
  if (it == fs::directory_iterator()) return "";
  return std::string("is a folder fivsim did not write (no .fivsim-output in it); ") + kOnlyOwnFolders +
         ": name a new folder, or remove this one yourself";
}

// "" when `dir` may be replaced by a results folder as it is now: absent, an empty folder or
// fivsim's, and reachable through folders
std::string existing_refusal(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  switch (st.type()) {
    case fs::file_type::not_found: {
      // where it would be made: the nearest existing path above must be a folder
      for (fs::path up = dir.parent_path(); !up.empty(); up = up.parent_path()) {
        const fs::file_status s = fs::status(up, ec);
        if (s.type() == fs::file_type::not_found) {
          if (up == up.parent_path()) break;
          continue;
        }
        if (s.type() != fs::file_type::directory) return "cannot be made: " + up.string() + " is not a folder";
        break;
      }
      return "";
    }
    case fs::file_type::directory: {
      std::string why = folder_refusal(dir);
      if (why.empty()) {
        const std::string mount = mount_point_inside(dir);
        if (!mount.empty())
          why = "holds " + mount +
                ", a mount point (another file system): fivsim replaces only what it wrote; unmount it or name another "
                "folder";
      }
      return why;
    }
    case fs::file_type::symlink:
      return std::string("is a symbolic link; ") + kOnlyOwnFolders + ": name the folder itself or a new one";
    case fs::file_type::regular:
      return std::string("is a file, not a results folder; ") + kOnlyOwnFolders;
    case fs::file_type::none:
      return "cannot be looked at (" + ec.message() + ")";
    default:
      return std::string("is a special file (a device, pipe or socket); ") + kOnlyOwnFolders;
  }
}

// an input's canonical forms: the path as named (a link is an entry of its folder) and what it
// resolves to (the file that is read)
std::vector<fs::path> input_forms(const fs::path& input, const fs::path& cwd) {
  std::vector<fs::path> forms{canonical_path(input, cwd)};
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(input.is_absolute() ? input : cwd / input, ec);
  if (!ec && target != forms.front()) forms.push_back(target);
  return forms;
}

}  // namespace

std::string output_refusal(const fs::path& out, const fs::path& cwd, const std::vector<fs::path>& inputs) {
  if (out.empty()) return "is empty: name the results folder";
  const fs::path at = canonical_path(out, cwd);
  if (at.relative_path().empty()) return std::string("is the root folder /; ") + kOnlyOwnFolders;
  const bool unchecked = safety_disabled("inputs");
  const std::string owner = results_folder_of_derived(at.filename().string());
  if (!owner.empty() && !unchecked)
    return "is a name fivsim keeps beside the results folder " + (at.parent_path() / owner).string() +
           " (its staging folder or lock file); name another folder";
  std::error_code ec;
  const fs::path here = fs::weakly_canonical(cwd, ec);
  if (lies_within(ec ? cwd : here, at))
    return (at == (ec ? cwd : here) ? std::string("is the current folder; ")
                                    : "holds the current folder " + (ec ? cwd : here).string() + "; ") +
           kOnlyOwnFolders;
  for (const fs::path& input : inputs) {
    if (input.empty() || unchecked) continue;
    for (const fs::path& in : input_forms(input, cwd)) {
      if (in_output_domain(in, at))
        return (in == at ? "is an input of this command (" + input.string() + ")"
                         : "holds " + input.string() + ", an input of this command") +
               std::string("; name another folder");
      if (lies_within(at, in))
        return "lies inside " + input.string() + ", an input of this command; name a folder outside it";
    }
  }
  return existing_refusal(at);
}

void require_safe_output(const fs::path& out, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) cwd = "/";
  const std::string why = output_refusal(out, cwd, inputs);
  if (!why.empty()) throw InputError("--out", folder_named(out).string() + " " + why);
}

// --- staging and the swap -----------------------------------------------------------------------

namespace {

// the canonical results folder, once refused where it may not be written
fs::path checked(const fs::path& dir, const std::vector<fs::path>& inputs) {
  require_safe_output(dir, inputs);
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) cwd = "/";
  return canonical_path(folder_named(dir), cwd);
}

void write_marker(const fs::path& dir) { write_new_file(dir / kOutputMarker, "{\"written_by\": \"fivsim\"}\n"); }

// makes the folder `dir`; false where something of that name exists
bool make_folder(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0) {
    if (errno == EEXIST) return false;
    throw std::runtime_error("cannot create " + dir.string() + ": " + std::strerror(errno));
  }
  return true;
}

bool is_real_folder(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::directory;
}

// a resumable staging folder's entries: regular files (or folders of them) that fivsim writes
// there, all on the folder's own file system; else an InputError naming the first that is not
void check_staging_entries(const fs::path& staging, const std::vector<std::string>& names) {
  struct stat top {};
  if (safety_disabled("links") || ::lstat(staging.c_str(), &top) != 0) return;
  const auto refuse = [&](const fs::path& p, const std::string& what) {
    throw InputError("--out", p.string() + " is " + what +
                                  ", not a file fivsim writes there; fivsim resumes only from "
                                  "its own files: move it, or remove " +
                                  staging.string() + " to start again");
  };
  std::error_code ec;
  for (fs::recursive_directory_iterator it(staging, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const fs::path rel = p.lexically_relative(staging);
    const std::string first = rel.begin()->string();
    if (first != kOutputMarker && std::find(names.begin(), names.end(), first) == names.end())
      refuse(p, "an entry fivsim does not write (" + first + ")");
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) refuse(p, "a symbolic link");
    if (S_ISDIR(st.st_mode)) {
      if (on_another_file_system(p, top.st_dev)) refuse(p, "a mount point");
      continue;
    }
    if (!S_ISREG(st.st_mode)) refuse(p, "a special file (a device, pipe or socket)");
    if (st.st_nlink > 1) refuse(p, "a file with another name elsewhere (a hard link)");
  }
}

// a removal that left something: said on stderr, since the command's results are in place
void say_left(const std::vector<std::string>& left, const fs::path& what) {
  if (left.empty()) return;
  std::string list;
  for (std::size_t i = 0; i < left.size() && i < 5; ++i) list += (i ? ", " : "") + printable(left[i]);
  if (left.size() > 5) list += ", …";
  std::fprintf(stderr,
               "fivsim: warning: left %s in %s (not fivsim's to remove: a mount point or a file it cannot remove)\n",
               list.c_str(), printable(what.string()).c_str());
}

}  // namespace

StagedDirectory::MadeFolders::MadeFolders(const fs::path& below) {
  std::vector<fs::path> missing;
  for (fs::path up = below.parent_path(); !up.empty() && up != up.parent_path(); up = up.parent_path()) {
    std::error_code ec;
    if (fs::symlink_status(up, ec).type() != fs::file_type::not_found) break;
    missing.push_back(up);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
      throw std::runtime_error("cannot create " + it->string() + ": " + std::strerror(errno));
    made_.push_back(*it);
  }
}

StagedDirectory::MadeFolders::~MadeFolders() {
  // innermost first; a folder something else was put into meanwhile stays
  for (auto it = made_.rbegin(); it != made_.rend(); ++it)
    if (::rmdir(it->c_str()) != 0) break;
}

void StagedDirectory::open_parent() {
  parent_.reset(::open(final_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent_.get() < 0) throw std::runtime_error(cannot_write(final_.parent_path(), errno));
}

void StagedDirectory::Pinned::pin(const fs::path& d) {
  unpin();
  folder.reset(::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat opened {
  }, named{};
  if (folder.get() < 0 || ::fstat(folder.get(), &opened) != 0 || ::lstat(d.c_str(), &named) != 0 ||
      opened.st_ino != named.st_ino || opened.st_dev != named.st_dev)
    throw std::runtime_error("cannot open " + d.string() + ": it was replaced as it was made");
  dir = d;
  pin_output_folder(dir, folder.get());
}

void StagedDirectory::Pinned::unpin() {
  if (!dir.empty()) unpin_output_folder(dir);
  dir.clear();
  folder.reset();
}

void StagedDirectory::make_staging(bool made) {
  try {
    pinned_.pin(staging_);
    if (made) write_marker(staging_);
  } catch (...) {
    pinned_.unpin();
    if (made) remove_output_tree(staging_);
    release_cleanup_slot(slot_);
    slot_ = -1;
    throw;
  }
}

StagedDirectory::StagedDirectory(fs::path final_dir, std::vector<fs::path> inputs, const std::string& host)
    : final_(checked(final_dir, inputs)), made_(final_), lock_(final_, host), active_(final_) {
  open_parent();
  const std::string base = final_.string() + ".partial-" + std::to_string(::getpid());
  // a leftover of an earlier process with this pid is fivsim's to remove; anything else is passed by
  for (int n = 0;; ++n) {
    staging_ = n == 0 ? fs::path(base) : fs::path(base + "-" + std::to_string(n));
    if (make_folder(staging_)) break;
    if (is_real_folder(staging_) && folder_refusal(staging_).empty() && mount_point_inside(staging_).empty()) {
      say_left(remove_output_tree(staging_), staging_);
      if (make_folder(staging_)) break;
    }
    if (n > 100) throw std::runtime_error("cannot create a staging folder beside " + final_.string());
  }
  slot_ = claim_cleanup_slot(staging_, CleanupKind::remove);
  make_staging(true);
}

fs::path StagedDirectory::resumable_staging(fs::path final_dir) {
  final_dir = folder_named(std::move(final_dir));
  final_dir += ".partial";
  return final_dir;
}

StagedDirectory::StagedDirectory(fs::path final_dir, Resumable resumable, std::vector<fs::path> inputs,
                                 const std::string& host)
    : final_(checked(final_dir, inputs)), made_(final_), lock_(final_, host), active_(final_) {
  open_parent();
  staging_ = resumable_staging(final_);
  const bool made = make_folder(staging_);
  if (!made) {
    // an unfinished sweep's folder (its manifest, from before the marker too) or fivsim's own
    std::error_code ec;
    const bool ours = is_real_folder(staging_) &&
                      (folder_refusal(staging_).empty() ||
                       fs::symlink_status(staging_ / "manifest.json", ec).type() == fs::file_type::regular);
    if (!ours)
      throw InputError("--out", staging_.string() +
                                    " exists and was not written by fivsim (fivsim stages a sweep "
                                    "there); name another --out, or move it");
    check_staging_entries(staging_, resumable.names);
    keep_ = true;
  }
  slot_ = claim_cleanup_slot(staging_, keep_ ? CleanupKind::keep : CleanupKind::remove);
  make_staging(made);
}

void StagedDirectory::set_keep(bool keep) {
  keep_ = keep;
  if (keep) made_.keep();
  set_cleanup_slot(slot_, keep ? CleanupKind::keep : CleanupKind::remove);
}

void StagedDirectory::keep_on_failure() { set_keep(true); }

void StagedDirectory::restart() {
  pinned_.unpin();
  const std::vector<std::string> left = remove_output_tree(staging_);
  if (!left.empty()) throw std::runtime_error("cannot empty " + staging_.string() + ": " + left.front() + " stays");
  if (!make_folder(staging_)) throw std::runtime_error("cannot create " + staging_.string());
  pinned_.pin(staging_);
  write_marker(staging_);
  set_keep(false);
}

StagedDirectory::~StagedDirectory() {
  release_cleanup_slot(slot_);
  pinned_.unpin();
  if (!committed_ && !keep_) say_left(remove_output_tree(staging_), staging_);
}

void StagedDirectory::commit() {
  // the folder may have changed while the work ran: what is there now is replaced only if fivsim's
  const std::string why = existing_refusal(final_);
  if (!why.empty()) {
    set_keep(true);
    throw std::runtime_error(final_.string() + " " + why + " (it changed while fivsim ran); the results are in " +
                             staging_.string());
  }
  write_marker(staging_);
  pinned_.unpin();
  // within the folder opened when the command began: a folder above swapped meanwhile moves nothing
  const std::string from = staging_.filename().string(), to = final_.filename().string();
  if (::renameat2(parent_.get(), from.c_str(), parent_.get(), to.c_str(), RENAME_NOREPLACE) == 0) {
    committed_ = true;
  } else if (errno == EEXIST) {
    // an earlier results folder: the two swap places in one step, then the old one goes
    if (::renameat2(parent_.get(), from.c_str(), parent_.get(), to.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      say_left(remove_output_tree(staging_), staging_);
    }
  }
  if (!committed_) {
    if (errno != EINVAL && errno != ENOSYS && errno != EEXIST)
      throw std::runtime_error("cannot move " + staging_.string() + " to " + final_.string() + ": " +
                               std::strerror(errno));
    // a file system without renameat2's flags: the old folder moved aside, the new one renamed in
    fs::path aside = final_;
    aside += ".old-" + std::to_string(::getpid());
    const bool had_old = fs::exists(fs::symlink_status(final_));
    if (had_old) fs::rename(final_, aside);
    fs::rename(staging_, final_);
    committed_ = true;
    if (had_old) say_left(remove_output_tree(aside), aside);
  }
  made_.keep();
  release_cleanup_slot(slot_);
  slot_ = -1;
}

}  // namespace fivsim
