// src/core/output_file.cpp — new files created exclusively, never through links (output_file.hpp).
#include "fivsim/core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

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

}  // namespace

void clear_for_new_file(const fs::path& path) {
  if (safety_disabled("links")) return;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error(cannot_write(path, errno));
  }
  if (!S_ISREG(st.st_mode)) refuse_entry(path, kind_of(st.st_mode));
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw std::runtime_error(cannot_write(path, errno));
}

int create_new_file(const fs::path& path) {
  clear_for_new_file(path);
  const int flags = safety_disabled("links") ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
                                             : O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    const int err = errno;
    // something was put there since it was cleared
    if (err == EEXIST || err == ELOOP) refuse_entry(path, "something another process put there");
    throw std::runtime_error(cannot_write(path, err));
  }
  return fd;
}

int open_to_continue(const fs::path& path, long keep) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT && keep == 0) return create_new_file(path);
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) refuse_entry(path, kind_of(st.st_mode));
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
