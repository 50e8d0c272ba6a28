// fivsim/core/output_file.hpp — the files a command writes into its staging folder, made so that
// nothing planted there can redirect them. The staging folder is pinned by a descriptor opened
// when it is made (pin_output_folder): every file and folder under it is reached from that
// descriptor, a folder at a time and never through a symbolic link (openat, O_NOFOLLOW), so that
// neither a link planted in it nor a folder above it swapped while the command runs moves a write.
// A new file is created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW), a file continued by a resume
// must be a regular file, and every write error (a full disk: ENOSPC) is a std::runtime_error
// naming the file and the cause (docs/DESIGN.md §5).
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace fivsim {

// `dir` (as the commands name its files) pinned to the descriptor `fd` of the folder this process
// made there, until unpinned; the descriptor stays the caller's
void pin_output_folder(const std::filesystem::path& dir, int fd);
void unpin_output_folder(const std::filesystem::path& dir);

// where `path` lies: the descriptor of its folder and its last name. Under a pinned folder the
// folder is opened component by component from the pin, never through a link (a link or anything
// but a folder on the way is an InputError("--out") naming it); elsewhere the current folder and
// the path itself
class OutputEntry {
 public:
  explicit OutputEntry(const std::filesystem::path& path);
  ~OutputEntry();
  OutputEntry(const OutputEntry&) = delete;
  OutputEntry& operator=(const OutputEntry&) = delete;
  int folder() const { return fd_; }
  const char* name() const { return name_.c_str(); }
  // a path the kernel resolves from the pinned folder (/proc/self/fd/N/name), for libraries that
  // take paths (HDF5); the path itself where nothing is pinned
  std::string stable_path() const;

 private:
  std::filesystem::path path_;
  int fd_;
  bool owned_ = false;
  std::string name_;
};

// the entry `path` made ready for a new file: absent, or a regular file (removed). A link, a
// folder, a device or a pipe there is refused: an InputError("--out") naming it, left as it is
void clear_for_new_file(const std::filesystem::path& path);

// a new regular file at `path` (clear_for_new_file first), open for writing: its descriptor
int create_new_file(const std::filesystem::path& path);

// the regular file at `path` (never a link) open for writing and cut to its first `keep` bytes,
// the offset at its end; where nothing is there and keep is 0, a new file
int open_to_continue(const std::filesystem::path& path, long keep);

// a new file at `path` as a stdio stream ("wb")
std::FILE* create_new_stream(const std::filesystem::path& path);

// the folder `path` (and those between it and a pinned folder), made where missing; an existing
// link or file on the way is refused
void make_output_folder(const std::filesystem::path& path);

// `from` renamed to `to` within one folder (a file written aside put in place), or removed
void rename_output_file(const std::filesystem::path& from, const std::filesystem::path& to);
void remove_output_file(const std::filesystem::path& path);

// all of `text` to the descriptor, or a std::runtime_error naming `path` and the cause
void write_all(int fd, std::string_view text, const std::filesystem::path& path);

// `text` as the new file `path`, closed and checked (a full disk is an error, never a short file)
void write_new_file(const std::filesystem::path& path, std::string_view text);

// "cannot write <path>: <strerror(err)>"
std::string cannot_write(const std::filesystem::path& path, int err);

}  // namespace fivsim
