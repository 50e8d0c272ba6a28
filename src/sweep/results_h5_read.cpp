// src/sweep/results_h5_read.cpp — results.h5 read back: its tables' sizes, columns and summary
// (sweep/results_h5.hpp).
#include "fivsim/sweep/results_h5.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "fivsim/sweep/h5_file.hpp"
#include "fivsim/io/json_reader.hpp"

namespace fivsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

long results_h5_rows(const fs::path& file, const std::string& group) {
  quiet_hdf5();
  H5Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) h5_fail("cannot open the file", file);
  if (H5Lexists(f, group.c_str(), H5P_DEFAULT) <= 0) return 0;
  H5Handle g(H5Gopen2(f, group.c_str(), H5P_DEFAULT), H5Gclose);
  const std::vector<std::string> names = read_strings_attribute(g, "columns");
  if (names.empty()) h5_fail("group " + group + " lists no columns", file);
  H5Handle set(H5Dopen2(g, names[0].c_str(), H5P_DEFAULT), H5Dclose);
  H5Handle space(H5Dget_space(set), H5Sclose);
  return static_cast<long>(H5Sget_simple_extent_npoints(space));
}

bool results_h5_has_table(const fs::path& file, const std::string& group) {
  quiet_hdf5();
  H5Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) h5_fail("cannot open the file", file);
  return H5Lexists(f, group.c_str(), H5P_DEFAULT) > 0;
}

bool real_columns_deflated(const fs::path& file, const std::string& group) {
  quiet_hdf5();
  H5Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) h5_fail("cannot open the file", file);
  if (H5Lexists(f, group.c_str(), H5P_DEFAULT) <= 0) return false;
  H5Handle g(H5Gopen2(f, group.c_str(), H5P_DEFAULT), H5Gclose);
  for (const std::string& name : read_strings_attribute(g, "columns")) {
    H5Handle set(H5Dopen2(g, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (set.id < 0) h5_fail("no dataset " + name, file);
    H5Handle type(H5Dget_type(set), H5Tclose);
    if (H5Tget_class(type) != H5T_FLOAT) continue;
    H5Handle dcpl(H5Dget_create_plist(set), H5Pclose);
    unsigned flags = 0;
    std::size_t n = 0;
    unsigned config = 0;
    return H5Pget_filter_by_id2(dcpl, H5Z_FILTER_SHUFFLE, &flags, &n, nullptr, 0, nullptr, &config) >= 0;
  }
  return false;
}

json results_h5_summary(const fs::path& file) {
  quiet_hdf5();
  H5Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) h5_fail("cannot open the file", file);
  // strictly, as every file fivsim reads: a results.h5 may come from anywhere
  return parse_json_text(read_string_attribute(f, "summary"), file.string());
}

H5TableData read_results_h5(const fs::path& file, const std::string& group, long first, long count,
                            const std::vector<std::string>& only) {
  quiet_hdf5();
  H5Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (f.id < 0) h5_fail("cannot open the file", file);
  H5Handle g(H5Gopen2(f, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (g.id < 0) h5_fail("no group " + group, file);
  const std::vector<std::string> names = read_strings_attribute(g, "columns");
  // the columns read, by their names as in the CSV (a swept column's pointer)
  std::vector<std::size_t> kept;
  std::vector<std::string> column_names;
  for (std::size_t c = 0; c < names.size(); ++c) {
    H5Handle set(H5Dopen2(g, names[c].c_str(), H5P_DEFAULT), H5Dclose);
    if (set.id < 0) h5_fail("no dataset " + names[c], file);
    const std::string pointer = read_string_attribute(set, "pointer");
    const std::string name = pointer.empty() ? names[c] : pointer;
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    kept.push_back(c);
    column_names.push_back(name);
  }
  H5TableData out;
  long total = -1;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::size_t c = kept[k];
    H5Handle set(H5Dopen2(g, names[c].c_str(), H5P_DEFAULT), H5Dclose);
    H5Handle type(H5Dget_type(set), H5Tclose);
    H5Handle space(H5Dget_space(set), H5Sclose);
    if (total < 0) {
      total = static_cast<long>(H5Sget_simple_extent_npoints(space));
      if (count < 0 || first + count > total) count = std::max(0L, total - first);
      out.rows.resize(count, static_cast<int>(kept.size()));
    }
    ColumnKind kind = ColumnKind::real;
    const H5T_class_t cls = H5Tget_class(type);
    if (cls == H5T_INTEGER) kind = ColumnKind::whole;
    if (cls == H5T_ENUM) {
      // the three enumerations told apart by their size and the name of 0
      char name[64] = {};
      const std::int8_t zero = 0;
      if (H5Tget_size(type) == 2)
        kind = ColumnKind::point_kind;
      else if (H5Tenum_nameof(type, &zero, name, sizeof name) >= 0 && std::string(name) == "ok")
        kind = ColumnKind::status;
      else
        kind = ColumnKind::case_class;
    }
    out.schema.add(column_names[k], kind);
    if (count == 0) continue;
    const hsize_t start = static_cast<hsize_t>(first), n = static_cast<hsize_t>(count);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &n, nullptr);
    H5Handle mem(H5Screate_simple(1, &n, nullptr), H5Sclose);
    double* col = out.rows.column(static_cast<int>(k));
    herr_t err = 0;
    if (cls == H5T_FLOAT) {
      err = H5Dread(set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, col);
    } else if (cls == H5T_INTEGER) {
      std::vector<long long> v(n);
      err = H5Dread(set, H5T_NATIVE_LLONG, mem, space, H5P_DEFAULT, v.data());
      for (hsize_t i = 0; i < n; ++i) col[i] = static_cast<double>(v[i]);
    } else {
      const std::size_t size = H5Tget_size(type);
      std::vector<unsigned char> v(n * size);
      err = H5Dread(set, type, mem, space, H5P_DEFAULT, v.data());
      for (hsize_t i = 0; i < n; ++i) {
        std::int16_t x16 = 0;
        if (size == 2) std::memcpy(&x16, &v[i * 2], 2);
        col[i] = size == 2 ? static_cast<double>(x16) : static_cast<double>(static_cast<std::int8_t>(v[i]));
        if (kind == ColumnKind::case_class) col[i] = class_of_word_code(col[i]);
      }
    }
    if (err < 0) h5_fail("cannot read " + names[c], file);
  }
  return out;
}

}  // namespace fivsim::sweep
