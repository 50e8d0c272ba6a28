// src/io/output_lock.cpp — one writer per output folder (io/output_lock.hpp).
#include "fivsim/io/output_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "fivsim/core/input_error.hpp"
#include "fivsim/io/output_cleanup.hpp"

namespace fivsim {

namespace fs = std::filesystem;

fs::path OutputLock::path_for(const fs::path& out_dir) {
  fs::path lock = folder_named(out_dir);
  lock += ".lock";
  return lock;
}

namespace {
std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "this host";
  return name;
}

bool has_signature(const std::string& text) { return text.rfind(kLockSignature, 0) == 0; }

// the holder's note, for the message of a refused command
std::string holder_of(int fd) {
  char note[256] = {};
  const ssize_t got = ::pread(fd, note, sizeof note - 1, 0);
  const std::string text = got > 0 ? std::string(note, static_cast<std::size_t>(got)) : "";
  return has_signature(text) ? text.substr(std::strlen(kLockSignature)) : text;
}

// a new lock file, made whole and locked beside `path` ("<path>-<pid>") and linked into place: its
// descriptor; -1 where `path` exists (errno EEXIST); throws where the file system has no record
// locks (errno kept in `lock_err`)
int make_lock_file(const fs::path& path, const std::string& note, int& lock_err) {
  lock_err = 0;
  fs::path aside;
  int fd = -1;
  for (int n = 0; n < 100 && fd < 0; ++n) {
    aside = path.string() + "-" + std::to_string(::getpid()) + (n ? "-" + std::to_string(n) : "");
    fd = ::open(aside.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      throw std::runtime_error("cannot create " + aside.string() + ": " + std::strerror(errno));
  }
  if (fd < 0) throw std::runtime_error("cannot create a lock file beside " + path.string());
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  if (::pwrite(fd, note.data(), note.size(), 0) != static_cast<ssize_t>(note.size())) {
    const int err = errno;
    ::close(fd);
    ::unlink(aside.c_str());
    throw std::runtime_error("cannot write " + aside.string() + ": " + std::strerror(err));
  }
  if (::fcntl(fd, F_SETLK, &whole) != 0) lock_err = errno;
  const int linked = lock_err == 0 ? ::link(aside.c_str(), path.c_str()) : -1;
  const int link_err = errno;
  ::unlink(aside.c_str());
  if (lock_err != 0 || linked != 0) {
    ::close(fd);
    if (lock_err == 0 && link_err != EEXIST)
      throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(link_err));
    errno = EEXIST;
    return -1;
  }
  return fd;
}
}  // namespace

OutputLock::OutputLock(const fs::path& out_dir, const std::string& host) : path_(path_for(out_dir)) {
  if (path_.has_parent_path()) fs::create_directories(path_.parent_path());
  const std::string note =
      std::string(kLockSignature) + "pid " + std::to_string(::getpid()) + " on " + (host.empty() ? this_host() : host);
  // another command holds the lock (or locking failed otherwise): refused, naming the holder
  const auto refused_by = [&](int err, const std::string& holder) {
    if (err != EACCES && err != EAGAIN)
      throw std::runtime_error("cannot lock " + path_.string() + ": " + std::strerror(err));
    throw std::runtime_error(folder_named(out_dir).string() + " is being written by another fivsim command (" +
                             (holder.empty() ? "its lock: " + path_.string() : holder) +
                             "); two commands cannot share an output folder. Give each sweep shard its own --out; "
                             "under Slurm, start the ranks as one MPI sweep (srun --mpi=pmix)");
  };
  const auto unguarded_by = [&](int err) {
    unguarded_ = "cannot lock " + path_.string() + " (" + std::strerror(err) +
                 "): nothing keeps a second command out of " + folder_named(out_dir).string();
  };
  // a command that finishes removes its lock file: one opened just before that is locked in vain,
  // so the lock counts only if the file at the path is still the one locked
  for (int attempt = 0; attempt < 8; ++attempt) {
    int lock_err = 0;
    fd_ = make_lock_file(path_, note, lock_err);
    if (fd_ >= 0) {
      slot_ = claim_cleanup_slot(path_, CleanupKind::unlink);
      return;
    }
    // a file system without record locks (Lustre mounted without flock, NFS without its lock
    // daemon) runs the command unguarded rather than not at all
    if (lock_err == ENOLCK || lock_err == ENOSYS || lock_err == EOPNOTSUPP) {
      unguarded_by(lock_err);
      return;
    }
    if (lock_err != 0) refused_by(lock_err, "");
    // the name is taken: a lock of fivsim's (held, or left by a killed command) or a user's file
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd_ < 0 && errno == ENOENT) continue;  // removed by its command in between
    if (fd_ < 0 && errno == ELOOP)
      throw InputError("--out", path_.string() +
                                    " is a symbolic link, not fivsim's lock file; fivsim keeps a lock "
                                    "file beside its results folder: name another --out");
    if (fd_ < 0) throw std::runtime_error("cannot open " + path_.string() + ": " + std::strerror(errno));
    struct stat st {};
    char head[32] = {};
    const std::size_t sig = std::strlen(kLockSignature);
    const ssize_t got = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) ? ::pread(fd_, head, sig, 0) : -1;
    if (got < 0 || !has_signature(std::string(head, static_cast<std::size_t>(got)))) {
      ::close(fd_);
      fd_ = -1;
      throw InputError("--out", path_.string() +
                                    " exists and is not a fivsim lock file; fivsim keeps a lock file "
                                    "beside its results folder: name another --out, or move that file");
    }
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    if (::fcntl(fd_, F_SETLK, &whole) != 0) {
      const int err = errno;
      // a lock file it did not make may be the lock of a command on a host that has locks (NFS's
      // are per client): that stays, and this command runs unguarded
      if (err == ENOLCK || err == ENOSYS || err == EOPNOTSUPP) {
        ::close(fd_);
        fd_ = -1;
        unguarded_by(err);
        return;
      }
      const std::string holder = holder_of(fd_);
      ::close(fd_);
      fd_ = -1;
      refused_by(err, holder);
    }
    // a killed command's lock, now this one's, if it is still the file at the path
    struct stat locked {
    }, at_path{};
    if (::fstat(fd_, &locked) == 0 && ::lstat(path_.c_str(), &at_path) == 0 && locked.st_dev == at_path.st_dev &&
        locked.st_ino == at_path.st_ino) {
      if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, note.data(), note.size(), 0);
      slot_ = claim_cleanup_slot(path_, CleanupKind::unlink);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw std::runtime_error("cannot lock " + path_.string() + ": the file keeps being replaced");
}

OutputLock::~OutputLock() {
  release_cleanup_slot(slot_);
  if (fd_ < 0) return;
  // removed while still locked, so that no one locks a file that is on its way out unnoticed
  struct stat mine {
  }, at_path{};
  if (::fstat(fd_, &mine) == 0 && ::lstat(path_.c_str(), &at_path) == 0 && mine.st_dev == at_path.st_dev &&
      mine.st_ino == at_path.st_ino)
    ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace fivsim
