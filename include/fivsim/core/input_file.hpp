// fivsim/core/input_file.hpp — reading a whole input file (a scenario, a record) with errors that
// name the path and the cause, so that a missing file, a folder, a device like /dev/zero or a file
// far too large is refused at once instead of read until the process is killed (docs/DESIGN.md §4).
#pragma once

#include <cstdint>
#include <string>

namespace fivsim {

// a whole input file's bytes: a regular file of at most `max_bytes`, else an InputError naming the
// path and why: the system's reason and the folder it was looked for in, a folder, a device, pipe
// or socket, a file too large. `what` names the kind of file expected ("a JSON", "a CSV")
// An input lying in a folder this process is writing (core/output_domain.hpp) is refused too
std::string read_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what);

// the checks of read_file_bytes without the reading, for a file a library reads itself (HDF5, a
// streamed CSV): a regular file of at most `max_bytes`, else an InputError naming it
void check_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what);

// the same checks and limits for a file of the command's own output (a resumed sweep's manifest)
std::string read_file_bytes(const std::string& path, std::uintmax_t max_bytes, const std::string& what);

}  // namespace fivsim
