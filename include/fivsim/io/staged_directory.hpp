// fivsim/io/staged_directory.hpp — every command's output transaction: the folder it writes,
// checked against every path it reads before any work, locked, staged beside it and put in place
// whole (docs/DESIGN.md §5; README "What --out may name").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fivsim/core/output_domain.hpp"
#include "fivsim/core/unique_fd.hpp"
#include "fivsim/io/output_cleanup.hpp"
#include "fivsim/io/output_lock.hpp"

namespace fivsim {

// the file that marks a folder as a results folder fivsim wrote: --out replaces only such a
// folder (or an empty one), never anything else that exists
inline constexpr const char* kOutputMarker = ".fivsim-output";

// why `out` may not be (re)placed by a results folder, or "" where it may. Paths are compared in
// canonical form (core/output_domain.hpp). `out` must not exist, or be an empty folder, or a
// folder holding the marker and no mount point; never a file, a link, a device, `/`, the current
// folder `cwd` or a folder above it, a name fivsim keeps beside another results folder
// (<x>.partial, <x>.lock, …), a folder holding an input or its derived names, nor a folder inside
// an input folder (a sweep read by continue, a shard). Only looks (stat, read), so that the
// refusal of real system paths can be tested
std::string output_refusal(const std::filesystem::path& out, const std::filesystem::path& cwd,
                           const std::vector<std::filesystem::path>& inputs);
// throws InputError("--out", ...) where output_refusal refuses, from the current folder
void require_safe_output(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs);

// "runs/x/" names the folder runs/x
std::filesystem::path folder_named(std::filesystem::path out_dir);

// the folder a command writes: `out`, or runs/<default_name> where none is given; a default name
// that is not one file name (a merged shard's "name": "/abs/dir") is an InputError at /name
std::filesystem::path output_folder(const std::string& out, const std::string& default_name);

// whether `name` may name a file: letters, digits, _ - . and not "." or ".."
bool is_file_name(const std::string& name);

// Files are written into a sibling "<dir>.partial-<pid>" (marked as fivsim's from the start)
// that commit() puts in place of <dir>: where <dir> is an earlier results folder, the two are
// swapped in one rename (renameat2 RENAME_EXCHANGE; moved aside and renamed where the file system
// cannot) and the old one removed, so a reader sees the old folder or the new one, never none or
// a mix. Without commit() the staging folder is removed, so a failed command leaves nothing
// half-written. The constructor resolves <dir> canonically, refuses it where output_refusal does
// (every input the command reads declared in `inputs`), locks it (OutputLock) and, while alive,
// refuses any input read from its domain (core/output_domain.hpp) — all before any work starts.
class StagedDirectory {
 public:
  explicit StagedDirectory(std::filesystem::path final_dir, std::vector<std::filesystem::path> inputs = {},
                           const std::string& host = "");
  // a resumable staging folder: "<dir>.partial" (no pid), kept as it is when it exists, so that a
  // sweep killed mid-run can go on from what it holds (`fivsim sweep --resume`); one that existed
  // is kept on failure until restart() or keep_on_failure() says otherwise. Where it exists, every
  // entry must be a regular file (or a folder of them) named in `names`, else an InputError
  struct Resumable {
    std::vector<std::string> names;
  };
  StagedDirectory(std::filesystem::path final_dir, Resumable resumable, std::vector<std::filesystem::path> inputs = {},
                  const std::string& host = "");
  static std::filesystem::path resumable_staging(std::filesystem::path final_dir);
  // empties the staging folder (what an earlier attempt left), which is removed again on failure
  void restart();
  // from now on a failure leaves the staging folder for a resume instead of removing it
  void keep_on_failure();
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& final_path() const { return final_; }
  std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  // "" while the folder is locked, or why it is not (OutputLock::unguarded)
  const std::string& unguarded() const { return lock_.unguarded(); }
  void commit();

 private:
  void set_keep(bool keep);
  // the staging folder made and pinned with its marker; what was made is removed again on failure
  void make_staging(bool made);
  // the folder of <dir> opened, for the swap within it
  void open_parent();
  // the folders above <dir> this command made, removed again (where still empty) when it leaves
  // nothing behind: a refusal touches nothing
  class MadeFolders {
   public:
    explicit MadeFolders(const std::filesystem::path& below);
    ~MadeFolders();
    MadeFolders(const MadeFolders&) = delete;
    MadeFolders& operator=(const MadeFolders&) = delete;
    void keep() { made_.clear(); }

   private:
    std::vector<std::filesystem::path> made_;  // outermost first
  };
  std::filesystem::path final_;
  MadeFolders made_;
  OutputLock lock_;
  ActiveOutput active_;
  // the staging folder pinned (core/output_file.hpp): every file under it reached from its
  // descriptor, until unpinned
  struct Pinned {
    std::filesystem::path dir;
    UniqueFd folder;
    void pin(const std::filesystem::path& d);
    void unpin();
    ~Pinned() { unpin(); }
  };
  UniqueFd parent_;  // the folder of <dir> and its staging folder, opened once
  std::filesystem::path staging_;
  Pinned pinned_;
  int slot_ = -1;
  bool committed_ = false;
  bool keep_ = false;
};

}  // namespace fivsim
