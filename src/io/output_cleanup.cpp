// src/io/output_cleanup.cpp — removal that never follows a link or enters another file system, and
// the cleanup of staging folders and locks when a signal ends the process (io/output_cleanup.hpp).
#include "fivsim/io/output_cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace fivsim {

namespace fs = std::filesystem;

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

}  // namespace

std::string mount_point_inside(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    if (on_another_file_system(it->path(), st.st_dev)) return it->path().string();
  }
  return "";
}

bool on_another_file_system(const fs::path& p, dev_t dev) {
  mode_t mode = 0;
  bool other = false;
  return look_at(AT_FDCWD, p.c_str(), dev, mode, other) && other;
}

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

namespace {

constexpr int kCleanupSlots = 32;
// 0 free, 1 being written, 2 a staging folder to remove, 3 one to keep, 4 a lock file to unlink
struct CleanupSlot {
  std::atomic<int> state{0};
  char path[kWalkPath] = {};
};
CleanupSlot g_cleanup[kCleanupSlots];
enum : int { kSlotFree = 0, kSlotWriting = 1, kSlotRemove = 2, kSlotKeep = 3, kSlotUnlink = 4 };

int state_of(CleanupKind kind) {
  return kind == CleanupKind::remove ? kSlotRemove : kind == CleanupKind::keep ? kSlotKeep : kSlotUnlink;
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

int claim_cleanup_slot(const fs::path& p, CleanupKind kind) {
  const int state = state_of(kind);
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

void release_cleanup_slot(int slot) {
  if (slot >= 0) g_cleanup[slot].state.store(kSlotFree);
}

void set_cleanup_slot(int slot, CleanupKind kind) {
  if (slot >= 0) g_cleanup[slot].state.store(state_of(kind));
}

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

}  // namespace fivsim
