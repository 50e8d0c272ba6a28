// fivsim/sweep/h5_file.hpp — HDF5 as fivsim's result files use it: quiet (its error stack turned
// into one message naming the file and the system's cause) and without its exit handler, handles
// closed by their owners, new files created exclusively from a pinned staging folder, and string
// attributes. Only the results.h5 writer and reader include it.
#pragma once

#include <hdf5.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fivsim::sweep {

// a std::runtime_error "results.h5: <what> (<file>): <the system's cause>"
[[noreturn]] void h5_fail(const std::string& what, const std::filesystem::path& file);

// HDF5 quiet (its error stack turned into h5_fail()'s messages) and without its exit handler: a
// file that could not be closed (a full disk) must not be closed again as the process ends, where
// HDF5 would crash; every file is closed by its H5Handle before then. Called before HDF5 is used
void quiet_hdf5();

// an HDF5 handle closed by its own close function
struct H5Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  H5Handle() = default;
  H5Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  H5Handle(H5Handle&& o) noexcept : id(o.id), close(o.close) { o.id = -1; }
  H5Handle& operator=(H5Handle&& o) noexcept {
    std::swap(id, o.id);
    std::swap(close, o.close);
    return *this;
  }
  ~H5Handle() {
    if (id >= 0 && close) close(id);
  }
  // closed now: what the close returns (a full disk shows here, as the last blocks are written)
  herr_t close_now() {
    const herr_t r = id >= 0 && close ? close(id) : 0;
    id = -1;
    return r;
  }
  operator hid_t() const { return id; }
};

// a new HDF5 file at `file`, created exclusively from its pinned folder (core/output_file.hpp):
// never through a link planted there
H5Handle create_h5(const std::filesystem::path& file);

// a variable-length UTF-8 string type
H5Handle h5_string_type();

void write_string_attribute(hid_t where, const char* name, const std::string& value);
void write_strings_attribute(hid_t where, const char* name, const std::vector<std::string>& values);
// "" (or none) where the attribute is missing
std::string read_string_attribute(hid_t where, const char* name);
std::vector<std::string> read_strings_attribute(hid_t where, const char* name);

}  // namespace fivsim::sweep
