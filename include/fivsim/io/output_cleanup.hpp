// fivsim/io/output_cleanup.hpp — removal of what a command wrote that never follows a link or
// enters another file system, and the staging folders and lock files removed when SIGINT, SIGTERM
// or SIGHUP ends the process (fixed slots a signal handler reads without allocating).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fivsim {

// removes `path` and what it holds without following a link or entering another file system (a
// mount point inside is left, as is anything that cannot be removed): the paths left, "" if none
std::vector<std::string> remove_output_tree(const std::filesystem::path& path);

// the first folder inside `dir` that is a mount point (or on another file system), or ""
std::string mount_point_inside(const std::filesystem::path& dir);

// whether `p` (not followed where it is a link) is the root of a mount or on another file system
// than `dev`
bool on_another_file_system(const std::filesystem::path& p, dev_t dev);

// what a signal does with a path a command registered: remove the staging folder, keep it (it
// holds a sweep's finished chunks), or unlink the lock file
enum class CleanupKind { remove, keep, unlink };
// a slot for `p` (-1 where none is free), its kind changed, and released once the command no
// longer needs it
int claim_cleanup_slot(const std::filesystem::path& p, CleanupKind kind);
void set_cleanup_slot(int slot, CleanupKind kind);
void release_cleanup_slot(int slot);

// removes the staging folders and lock files of this process's commands when SIGINT, SIGTERM or
// SIGHUP ends it (a resumable one that holds recorded chunks stays for --resume), then ends it by
// the signal; installed by the command line (a library must not take an embedding program's signals)
void remove_staging_on_signals();

}  // namespace fivsim
