// src/core/output_file.cpp — new files created exclusively from a pinned staging folder, never
// through links (output_file.hpp).
#include "fivsim/core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/output_domain.hpp"

namespace fivsim {

namespace fs = std::filesystem;

std::string cannot_write(const fs::path& path, int err) {
  return "cannot write " + path.string() + ": " + std::strerror(err);
}

namespace {

[[noreturn]] void refuse_entry(const fs::path& path, const char* what) {
  throw InputError("--out", path.string() + " is " + what +
                                ", not a file fivsim wrote; fivsim never writes through it: move it, or name another "
                                "--out");
}

const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  return "a special file (a device, pipe or socket)";
}

// the pinned staging folders of this process's commands, with their descriptors
std::mutex g_pins_mutex;
std::vector<std::pair<fs::path, int>>& pins() {
  static std::vector<std::pair<fs::path, int>> p;
  return p;
}

// the pinned folder `path` lies under (the longest), or -1
int pin_of(const fs::path& path, fs::path& dir) {
  const std::lock_guard<std::mutex> hold(g_pins_mutex);
  int fd = -1;
  std::size_t best = 0;
  for (const auto& [d, f] : pins()) {
    const std::string text = d.string();
    if (path.string().size() > text.size() && path.string().compare(0, text.size(), text) == 0 &&
        path.string()[text.size()] == '/' && text.size() > best) {
      best = text.size();
      fd = f;
      dir = d;
    }
  }
  return fd;
}

}  // namespace

void pin_output_folder(const fs::path& dir, int fd) {
  const std::lock_guard<std::mutex> hold(g_pins_mutex);
  pins().emplace_back(dir, fd);
}

void unpin_output_folder(const fs::path& dir) {
  const std::lock_guard<std::mutex> hold(g_pins_mutex);
  auto& p = pins();
  for (auto it = p.begin(); it != p.end(); ++it)
    if (it->first == dir) {
      p.erase(it);
      return;
    }
}

OutputEntry::OutputEntry(const fs::path& path) : path_(path), fd_(AT_FDCWD), name_(path.string()) {
  fs::path dir;
  const int pin = safety_disabled("links") ? -1 : pin_of(path, dir);
  if (pin < 0) return;
  std::vector<std::string> parts;
  for (const fs::path& c : path.lexically_relative(dir)) parts.push_back(c.string());
  fd_ = pin;
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
    const int next = ::openat(fd_, parts[k].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int err = errno;
    if (owned_) ::close(fd_);
    owned_ = next >= 0;
    fd_ = next >= 0 ? next : AT_FDCWD;
    if (next < 0) {
      fs::path at = dir;
      for (std::size_t j = 0; j <= k; ++j) at /= parts[j];
      if (err == ELOOP || err == ENOTDIR) refuse_entry(at, "a symbolic link or a file where a folder belongs");
      throw std::runtime_error(cannot_write(path, err));
    }
  }
  name_ = parts.empty() ? "." : parts.back();
}

OutputEntry::~OutputEntry() {
  if (owned_) ::close(fd_);
}

std::string OutputEntry::stable_path() const {
  if (fd_ == AT_FDCWD) return path_.string();
  return "/proc/self/fd/" + std::to_string(fd_) + "/" + name_;
}

namespace {

// the entry made ready for a new file (see clear_for_new_file), within its folder
void clear_entry(const OutputEntry& e, const fs::path& path) {
  if (safety_disabled("links")) return;
  struct stat st {};
  if (::fstatat(e.folder(), e.name(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error(cannot_write(path, errno));
  }
  if (!S_ISREG(st.st_mode)) refuse_entry(path, kind_of(st.st_mode));
  if (::unlinkat(e.folder(), e.name(), 0) != 0 && errno != ENOENT) throw std::runtime_error(cannot_write(path, errno));
}

}  // namespace

void clear_for_new_file(const fs::path& path) { clear_entry(OutputEntry(path), path); }

int create_new_file(const fs::path& path) {
  const OutputEntry e(path);
  clear_entry(e, path);
  const int flags = safety_disabled("links") ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
                                             : O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  const int fd = ::openat(e.folder(), e.name(), flags, 0644);
  if (fd < 0) {
    const int err = errno;
    // something was put there since it was cleared
    if (err == EEXIST || err == ELOOP) refuse_entry(path, "something another process put there");
    throw std::runtime_error(cannot_write(path, err));
  }
  return fd;
}

int open_to_continue(const fs::path& path, long keep) {
  const OutputEntry e(path);
  const int fd = ::openat(e.folder(), e.name(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT && keep == 0) return create_new_file(path);
    struct stat st {};
    if (::fstatat(e.folder(), e.name(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
      refuse_entry(path, kind_of(st.st_mode));
    throw std::runtime_error(cannot_write(path, err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd);
    refuse_entry(path, kind_of(mode));
  }
  // back to blocking writes
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (::ftruncate(fd, keep) != 0 || ::lseek(fd, keep, SEEK_SET) != keep) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error(cannot_write(path, err));
  }
  return fd;
}

void make_output_folder(const fs::path& path) {
  fs::path dir;
  if (safety_disabled("links") || pin_of(path, dir) < 0) {
    fs::create_directories(path);
    return;
  }
  // each folder on the way made (where missing) from the one above, then entered without a link
  fs::path at = dir;
  for (const fs::path& c : path.lexically_relative(dir)) {
    at /= c;
    const OutputEntry e(at);
    if (::mkdirat(e.folder(), e.name(), 0777) != 0 && errno != EEXIST)
      throw std::runtime_error(cannot_write(at, errno));
    struct stat st {};
    if (::fstatat(e.folder(), e.name(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      throw std::runtime_error(cannot_write(at, errno));
    if (!S_ISDIR(st.st_mode)) refuse_entry(at, kind_of(st.st_mode));
  }
}

void rename_output_file(const fs::path& from, const fs::path& to) {
  const OutputEntry a(from), b(to);
  if (::renameat(a.folder(), a.name(), b.folder(), b.name()) != 0) throw std::runtime_error(cannot_write(to, errno));
}

void remove_output_file(const fs::path& path) {
  const OutputEntry e(path);
  if (::unlinkat(e.folder(), e.name(), 0) != 0 && errno != ENOENT) throw std::runtime_error(cannot_write(path, errno));
}

std::FILE* create_new_stream(const fs::path& path) {
  const int fd = create_new_file(path);
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error(cannot_write(path, err));
  }
  return f;
}

void write_all(int fd, std::string_view text, const fs::path& path) {
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t w = ::write(fd, text.data() + written, text.size() - written);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(cannot_write(path, w < 0 ? errno : EIO));
    written += static_cast<std::size_t>(w);
  }
}

void write_new_file(const fs::path& path, std::string_view text) {
  const int fd = create_new_file(path);
  try {
    write_all(fd, text, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw std::runtime_error(cannot_write(path, errno));
}

}  // namespace fivsim
