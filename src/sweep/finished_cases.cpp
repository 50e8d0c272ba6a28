// src/sweep/finished_cases.cpp — the cases table of a finished sweep folder read back
// (sweep/finished_cases.hpp): results.h5's, else cases.csv's.
#include "fivsim/sweep/finished_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "fivsim/analysis/classification.hpp"
#include "fivsim/core/input_file.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/results_h5.hpp"

namespace fivsim::sweep {

namespace fs = std::filesystem;

namespace {

// the first `most` cells of one CSV line (quoted cells as write_columns writes them) into `cells`,
// whose strings keep their storage from line to line
void csv_cells(const std::string& line, std::vector<std::string>& cells,
               std::size_t most = std::numeric_limits<std::size_t>::max()) {
  std::size_t n = 1;
  const auto cell = [&]() -> std::string& {
    if (cells.size() < n) cells.resize(n);
    return cells[n - 1];
  };
  cell().clear();
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cell() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      if (n == most) break;
      ++n;
      cell().clear();
    } else {
      cell() += ch;
    }
  }
  cells.resize(n);
}

// the numeric columns of cases.csv ("class" as its CaseClass code); `only`, where not empty,
// names the columns kept
NamedColumns read_cases_csv(const fs::path& file, const std::vector<std::string>& only) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot be read");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  csv_cells(line, names);
  std::map<std::string, int> class_codes;
  for (const auto& [word, code] : class_words()) class_codes[word] = code;
  NamedColumns cols;
  // per cell of a line: the column it fills, or none
  std::vector<std::vector<double>*> into(names.size(), nullptr);
  for (std::size_t c = 0; c < names.size(); ++c)
    if (only.empty() || std::find(only.begin(), only.end(), names[c]) != only.end()) into[c] = &cols[names[c]];
  std::size_t read_cells = 0;
  for (std::size_t c = 0; c < names.size(); ++c)
    if (into[c]) read_cells = c + 1;
  const std::size_t class_column =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "class") - names.begin());
  std::vector<std::string> cells;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    csv_cells(line, cells, read_cells);
    for (std::size_t c = 0; c < read_cells; ++c) {
      if (!into[c]) continue;
      const std::string empty;
      const std::string& cell = c < cells.size() ? cells[c] : empty;
      double v = std::nan("");
      if (c == class_column) {
        const auto it = class_codes.find(cell);
        v = it == class_codes.end() ? static_cast<double>(CaseClass::undetermined) : class_of_word_code(it->second);
      } else {
        char* end = nullptr;
        const double x = std::strtod(cell.c_str(), &end);
        if (end && end != cell.c_str()) v = x;
      }
      into[c]->push_back(v);
    }
  }
  return cols;
}

// the cases table of results.h5, "class" as its CaseClass code
NamedColumns read_cases_h5(const fs::path& file, const std::vector<std::string>& only) {
  const H5TableData t = read_results_h5(file, "cases", 0, -1, only);
  NamedColumns cols;
  for (int c = 0; c < t.schema.size(); ++c) {
    const double* v = t.rows.column(c);
    std::vector<double>& out = cols[t.schema.names[static_cast<std::size_t>(c)]];
    out.assign(v, v + t.rows.rows);
    if (t.schema.names[static_cast<std::size_t>(c)] == "class")
      for (double& x : out) x = class_of_word_code(x);
  }
  return cols;
}

}  // namespace

NamedColumns read_sweep_cases(const fs::path& dir, const std::vector<std::string>& only) {
  const fs::path h5 = dir / "results.h5", csv = dir / "cases.csv";
  // regular files only: HDF5 and the CSV reader would wait on a pipe or read a device for ever
  constexpr std::uintmax_t any_size = std::uintmax_t{1} << 50;
  if (fs::exists(h5)) {
    check_input_file(h5.string(), any_size, "an HDF5");
    if (results_h5_has_table(h5, "cases")) return read_cases_h5(h5, only);
  }
  if (fs::exists(csv)) {
    check_input_file(csv.string(), any_size, "a CSV");
    return read_cases_csv(csv, only);
  }
  throw std::runtime_error("'" + dir.string() +
                           "' holds neither results.h5 nor cases.csv (the output of `fivsim sweep`)");
}

}  // namespace fivsim::sweep
