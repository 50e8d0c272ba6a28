// fivsim/core/output_file.hpp — the files a command writes into its staging folder, made so that
// nothing planted there can redirect them: a new file is created exclusively and never through a
// symbolic link (O_CREAT | O_EXCL | O_NOFOLLOW), a file continued by a resume must be a regular
// file, and every write error (a full disk: ENOSPC) is a std::runtime_error naming the file and the
// cause (docs/DESIGN.md §5).
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace fivsim {

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

// all of `text` to the descriptor, or a std::runtime_error naming `path` and the cause
void write_all(int fd, std::string_view text, const std::filesystem::path& path);

// `text` as the new file `path`, closed and checked (a full disk is an error, never a short file)
void write_new_file(const std::filesystem::path& path, std::string_view text);

// "cannot write <path>: <strerror(err)>"
std::string cannot_write(const std::filesystem::path& path, int err);

}  // namespace fivsim
