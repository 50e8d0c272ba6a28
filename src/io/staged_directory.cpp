// src/io/staged_directory.cpp — the output transaction: --out checked against the inputs, the
// lock, staging, the swap and removal that stays on one file system (io/staged_directory.hpp).
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

// --- removal that stays on one file system: system calls only, so that a signal handler may use it

namespace {

struct LinuxDirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

constexpr std::size_t kWalkPath = 4096;

// a removal under way: the file system it stays on, the path so far (for what is left), and where
// to list what is left (none in a signal handler, which may not allocate)
struct Removal {
  dev_t dev = 0;
  char path[kWalkPath] = {};
  std::size_t len = 0;
  std::vector<std::string>* left = nullptr;
};

void note_left(Removal& r) {
  if (r.left) r.left->emplace_back(r.path, r.len);
}

// the entry `name` under `dir_fd` without following a link: its mode, and whether it is the root
// of a mount or on another file system than `dev`; false where it cannot be looked at
bool look_at(int dir_fd, const char* name, dev_t dev, mode_t& mode, bool& other_mount) {
  struct statx sx {};
  if (::statx(dir_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) != 0) return false;
  mode = sx.stx_mode;
  other_mount = makedev(sx.stx_dev_major, sx.stx_dev_minor) != dev ||
                ((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT));
  return true;
}

// removes `name` under the folder `parent_fd` and everything in it; true when it is gone
bool remove_entry_at(int parent_fd, const char* name, Removal& r, int depth) {
  const std::size_t len0 = r.len, nlen = std::strlen(name);
  if (r.len + nlen + 2 < kWalkPath) {
    r.path[r.len++] = '/';
    std::memcpy(r.path + r.len, name, nlen);
    r.len += nlen;
  }
  mode_t mode = 0;
  bool other = false, gone = false;
  if (!look_at(parent_fd, name, r.dev, mode, other)) {
    gone = errno == ENOENT;
  } else if (!S_ISDIR(mode)) {
    gone = ::unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT;
  } else if (!other && depth <= 32) {
    const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      alignas(8) char buf[2048];
      // entries removed while listing may hide others: list again while removals happen
      for (bool removed = true; removed;) {
        removed = false;
        if (::lseek(fd, 0, SEEK_SET) != 0) break;
        for (;;) {
          const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
          if (n <= 0) break;
          for (long off = 0; off < n;) {
            const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + off);
            off += d->d_reclen;
            if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
            if (remove_entry_at(fd, d->d_name, r, depth + 1)) removed = true;
          }
        }
      }
      ::close(fd);
      gone = ::unlinkat(parent_fd, name, AT_REMOVEDIR) == 0;
    }
  } else {
    // a mount point (or a tree too deep): left, with what is on it
    note_left(r);
  }
  if (!gone && !S_ISDIR(mode)) note_left(r);
  r.len = len0;
  return gone;
}

// removes the tree at `path` (absolute) without allocating; `left` lists what stays, when given.
// The top itself must be on its folder's file system and no mount point
void remove_tree(const char* path, std::vector<std::string>* left) {
  const std::size_t n = std::strlen(path);
  if (n == 0 || n >= kWalkPath || path[0] != '/') return;
  Removal r;
  r.left = left;
  std::memcpy(r.path, path, n + 1);
  char* slash = std::strrchr(r.path, '/');
  const char* name = path + (slash - r.path) + 1;
  r.len = static_cast<std::size_t>(slash - r.path);
  *slash = '\0';
  const int dir_fd = ::open(r.len == 0 ? "/" : r.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return;
  struct stat above {};
  mode_t mode = 0;
  bool other = false;
  if (::fstat(dir_fd, &above) == 0 && look_at(dir_fd, name, above.st_dev, mode, other)) {
    if (other) {
      if (left) left->emplace_back(path);
    } else {
      r.dev = above.st_dev;
      (void)remove_entry_at(dir_fd, name, r, 0);
    }
  }
  ::close(dir_fd);
}

// the first folder inside `dir` that is a mount point, or ""
std::string mount_point_inside(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    mode_t mode = 0;
    bool other = false;
    if (look_at(AT_FDCWD, it->path().c_str(), st.st_dev, mode, other) && other) return it->path().string();
  }
  return "";
}

}  // namespace

std::vector<std::string> remove_output_tree(const fs::path& path) {
  std::vector<std::string> left;
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  remove_tree((ec ? path : abs).c_str(), &left);
  // a folder listed again after removals names what stays once more
  std::sort(left.begin(), left.end());
  left.erase(std::unique(left.begin(), left.end()), left.end());
  return left;
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

// --- cleanup on a signal: fixed slots a handler can read without allocating ---------------------

namespace {

constexpr int kCleanupSlots = 32;
// 0 free, 1 being written, 2 a staging folder to remove, 3 one to keep, 4 a lock file to unlink
struct CleanupSlot {
  std::atomic<int> state{0};
  char path[kWalkPath] = {};
};
CleanupSlot g_cleanup[kCleanupSlots];
enum : int { kSlotFree = 0, kSlotWriting = 1, kSlotRemove = 2, kSlotKeep = 3, kSlotUnlink = 4 };

int claim_slot(const fs::path& p, int state) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  const std::string text = (ec ? p : abs).string();
  if (text.size() >= kWalkPath) return -1;
  for (int i = 0; i < kCleanupSlots; ++i) {
    int expected = kSlotFree;
    if (g_cleanup[i].state.compare_exchange_strong(expected, kSlotWriting)) {
      std::memcpy(g_cleanup[i].path, text.c_str(), text.size() + 1);
      g_cleanup[i].state.store(state);
      return i;
    }
  }
  return -1;
}

void release_slot(int slot) {
  if (slot >= 0) g_cleanup[slot].state.store(kSlotFree);
}

void set_slot(int slot, int state) {
  if (slot >= 0) g_cleanup[slot].state.store(state);
}

extern "C" void remove_staging_and_end(int sig) {
  for (CleanupSlot& s : g_cleanup) {
    const int state = s.state.load();
    if (state == kSlotRemove) remove_tree(s.path, nullptr);
    if (state == kSlotUnlink) ::unlink(s.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void remove_staging_on_signals() {
  struct sigaction act {};
  act.sa_handler = remove_staging_and_end;
  sigemptyset(&act.sa_mask);
  // one cleanup at a time: the other signals wait until the first has ended the process
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&act.sa_mask, s);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // a signal the caller ignores (nohup) stays ignored
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(s, &act, nullptr);
  }
}

// --- the lock -----------------------------------------------------------------------------------

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
      slot_ = claim_slot(path_, kSlotUnlink);
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
      slot_ = claim_slot(path_, kSlotUnlink);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw std::runtime_error("cannot lock " + path_.string() + ": the file keeps being replaced");
}

OutputLock::~OutputLock() {
  release_slot(slot_);
  if (fd_ < 0) return;
  // removed while still locked, so that no one locks a file that is on its way out unnoticed
  struct stat mine {
  }, at_path{};
  if (::fstat(fd_, &mine) == 0 && ::lstat(path_.c_str(), &at_path) == 0 && mine.st_dev == at_path.st_dev &&
      mine.st_ino == at_path.st_ino)
    ::unlink(path_.c_str());
  ::close(fd_);
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
      mode_t mode = 0;
      bool other = false;
      if (look_at(AT_FDCWD, p.c_str(), top.st_dev, mode, other) && other) refuse(p, "a mount point");
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

StagedDirectory::OwnedFd::~OwnedFd() {
  if (fd >= 0) ::close(fd);
}

void StagedDirectory::Pinned::pin(const fs::path& d) {
  unpin();
  folder.fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat opened {
  }, named{};
  if (folder.fd < 0 || ::fstat(folder.fd, &opened) != 0 || ::lstat(d.c_str(), &named) != 0 ||
      opened.st_ino != named.st_ino || opened.st_dev != named.st_dev)
    throw std::runtime_error("cannot open " + d.string() + ": it was replaced as it was made");
  dir = d;
  pin_output_folder(dir, folder.fd);
}

void StagedDirectory::Pinned::unpin() {
  if (!dir.empty()) unpin_output_folder(dir);
  dir.clear();
  if (folder.fd >= 0) ::close(folder.fd);
  folder.fd = -1;
}

void StagedDirectory::make_staging(bool made) {
  try {
    pinned_.pin(staging_);
    if (made) write_marker(staging_);
  } catch (...) {
    pinned_.unpin();
    if (made) remove_output_tree(staging_);
    release_slot(slot_);
    slot_ = -1;
    throw;
  }
}

StagedDirectory::StagedDirectory(fs::path final_dir, std::vector<fs::path> inputs, const std::string& host)
    : final_(checked(final_dir, inputs)), made_(final_), lock_(final_, host), active_(final_) {
  parent_.fd = ::open(final_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_.fd < 0) throw std::runtime_error(cannot_write(final_.parent_path(), errno));
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
  slot_ = claim_slot(staging_, kSlotRemove);
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
  parent_.fd = ::open(final_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_.fd < 0) throw std::runtime_error(cannot_write(final_.parent_path(), errno));
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
  slot_ = claim_slot(staging_, keep_ ? kSlotKeep : kSlotRemove);
  make_staging(made);
}

void StagedDirectory::set_keep(bool keep) {
  keep_ = keep;
  if (keep) made_.keep();
  set_slot(slot_, keep ? kSlotKeep : kSlotRemove);
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
  release_slot(slot_);
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
  if (::renameat2(parent_.fd, from.c_str(), parent_.fd, to.c_str(), RENAME_NOREPLACE) == 0) {
    committed_ = true;
  } else if (errno == EEXIST) {
    // an earlier results folder: the two swap places in one step, then the old one goes
    if (::renameat2(parent_.fd, from.c_str(), parent_.fd, to.c_str(), RENAME_EXCHANGE) == 0) {
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
  release_slot(slot_);
  slot_ = -1;
}

}  // namespace fivsim
