// src/core/input_file.cpp — whole input files read with errors that name the path and the cause.
#include "fivsim/core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/output_domain.hpp"
#include "fivsim/core/unique_fd.hpp"

namespace fivsim {

std::string read_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
  refuse_input_in_active_output(path);
  return read_file_bytes(path, max_bytes, what);
}

namespace {

// the file's bytes (or, where !read, only its checks)
std::string checked_bytes(const std::string& path, std::uintmax_t max_bytes, const std::string& what, bool read) {
  namespace fs = std::filesystem;
  // non-blocking, so that a pipe without a writer is refused rather than waited on
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    std::error_code ec;
    const fs::path folder = fs::absolute(path, ec).parent_path();
    const std::string where = fs::is_directory(folder, ec) ? " (looked for in " + folder.string() + ")"
                                                           : " (the folder " + folder.string() + " does not exist)";
    throw InputError::in_file(path, std::string("cannot be opened: ") + std::strerror(err) + where);
  }
  const UniqueFd closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError::in_file(path, std::string("cannot be read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError::in_file(path, "is a folder, not " + what + " file");
  if (!S_ISREG(st.st_mode))
    throw InputError::in_file(path, "is not a regular file (a device, pipe or socket), not " + what + " file");
  const auto too_large = [&] {
    return InputError::in_file(
        path, "is larger than " + std::to_string(max_bytes >> 20) + " MiB, the most fivsim reads as " + what + " file");
  };
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) throw too_large();
  if (!read) return {};
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      // a file that grows while it is read is read on, up to the limit
      if (text.size() >= max_bytes) {
        char probe;
        const ssize_t more = ::read(fd, &probe, 1);
        if (more > 0) throw too_large();
        break;
      }
      text.resize(std::min<std::uintmax_t>(max_bytes, text.size() + 4096));
    }
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw InputError::in_file(path, std::string("cannot be read: ") + std::strerror(errno));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  text.resize(got);
  return text;
}

}  // namespace

std::string read_file_bytes(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
  return checked_bytes(path, max_bytes, what, true);
}

void check_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
  (void)checked_bytes(path, max_bytes, what, false);
}

}  // namespace fivsim
