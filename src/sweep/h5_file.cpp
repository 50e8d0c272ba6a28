// src/sweep/h5_file.cpp — HDF5 as fivsim's result files use it (sweep/h5_file.hpp).
#include "fivsim/sweep/h5_file.hpp"

#include <stdexcept>

#include "fivsim/core/output_file.hpp"

namespace fivsim::sweep {

namespace fs = std::filesystem;

namespace {

// the HDF5 error stack's innermost cause (the system's message, "No space left on device", where
// the file driver gave one), the stack then cleared: HDF5 never prints it itself
std::string h5_cause() {
  std::string cause;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        if (n == 0 && e && e->desc) *static_cast<std::string*>(data) = e->desc;
        return 0;
      },
      &cause);
  H5Eclear2(H5E_DEFAULT);
  const std::string mark = "error message = '";
  const std::size_t at = cause.find(mark);
  if (at != std::string::npos) {
    const std::size_t end = cause.find('\'', at + mark.size());
    cause = cause.substr(at + mark.size(), end == std::string::npos ? std::string::npos : end - at - mark.size());
  }
  return cause;
}

}  // namespace

[[noreturn]] void h5_fail(const std::string& what, const fs::path& file) {
  const std::string cause = h5_cause();
  throw std::runtime_error("results.h5: " + what + " (" + file.string() + ")" + (cause.empty() ? "" : ": " + cause));
}

void quiet_hdf5() {
  static const bool once = [] {
    H5dont_atexit();
    return true;
  }();
  (void)once;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

H5Handle create_h5(const fs::path& file) {
  clear_for_new_file(file);
  const OutputEntry at(file);
  return H5Handle(H5Fcreate(at.stable_path().c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
}

H5Handle h5_string_type() {
  H5Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

void write_string_attribute(hid_t where, const char* name, const std::string& value) {
  H5Handle type = h5_string_type();
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr(H5Acreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const char* text = value.c_str();
  H5Awrite(attr, type, &text);
}

void write_strings_attribute(hid_t where, const char* name, const std::vector<std::string>& values) {
  H5Handle type = h5_string_type();
  const hsize_t n = values.size();
  H5Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Handle attr(H5Acreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::vector<const char*> texts;
  for (const auto& v : values) texts.push_back(v.c_str());
  H5Awrite(attr, type, texts.data());
}

std::string read_string_attribute(hid_t where, const char* name) {
  H5Handle attr(H5Aopen(where, name, H5P_DEFAULT), H5Aclose);
  if (attr.id < 0) return {};
  H5Handle type = h5_string_type();
  char* text = nullptr;
  if (H5Aread(attr, type, &text) < 0 || !text) return {};
  std::string s(text);
  H5free_memory(text);
  return s;
}

std::vector<std::string> read_strings_attribute(hid_t where, const char* name) {
  H5Handle attr(H5Aopen(where, name, H5P_DEFAULT), H5Aclose);
  if (attr.id < 0) return {};
  H5Handle space(H5Aget_space(attr), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  H5Handle type = h5_string_type();
  std::vector<char*> texts(static_cast<std::size_t>(n > 0 ? n : 0), nullptr);
  std::vector<std::string> out;
  if (n > 0 && H5Aread(attr, type, texts.data()) >= 0)
    for (char* t : texts) {
      out.emplace_back(t ? t : "");
      H5free_memory(t);
    }
  return out;
}

}  // namespace fivsim::sweep
