// fivsim/io/output_lock.hpp — one writer per output folder: the lock file beside it, made whole
// with fivsim's signature, and held by a POSIX record lock while a command writes the folder.
#pragma once

#include <filesystem>
#include <string>

namespace fivsim {

// one writer per output folder: an exclusive POSIX record lock (fcntl) on "<out>.lock", held while
// a command writes the folder, so that a second command into it (a job started twice, or srun
// starting every task as a process of its own) refuses instead of mixing its files with the
// first's. The lock file is made whole aside ("<out>.lock-<pid>", locked, then linked into place),
// so it always starts with fivsim's signature; a file of that name without it is a user's and is
// never truncated or removed. The kernel drops the lock of a killed process, so a resume after
// kill -9 takes it.
class OutputLock {
 public:
  // throws std::runtime_error, naming the holder, when another process holds the lock, and
  // InputError("--out") when "<out>.lock" is something fivsim did not write; `host` (this
  // machine's name, gethostname where empty) goes into the note a refused command reads. Where the
  // file system has no record locks, holds none and says so in unguarded()
  explicit OutputLock(const std::filesystem::path& out_dir, const std::string& host = "");
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  static std::filesystem::path path_for(const std::filesystem::path& out_dir);
  // "" while the lock is held, or why there is none (for a warning)
  const std::string& unguarded() const { return unguarded_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  int slot_ = -1;
  std::string unguarded_;
};

// the text a lock file of fivsim's starts with ("fivsim lock: pid N on HOST")
inline constexpr const char* kLockSignature = "fivsim lock: ";

}  // namespace fivsim
