// fivsim/io/output.hpp — the CSV and JSON files of docs/DESIGN.md §5 and their number formatting,
// written into a command's staging folder (io/staged_directory.hpp) as new files only.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/io/staged_directory.hpp"

namespace fivsim {

struct PinnTotals;  // integrate/pinn_step.hpp

// the trainings of a PINN run or sweep as summary.json and compare.json report them
nlohmann::json pinn_totals_json(const PinnTotals& p);

// shortest text that reads back to the same double
std::string format_double(double x);

void write_json_file(const std::filesystem::path& path, const nlohmann::json& j);

// CSV rows formatted into memory, numbers as format_double writes them: a sweep's chunk is
// rendered by whichever process ran it and appended to the file in case order
class CsvRows {
 public:
  void field(double x);
  // a whole number (a count, a step number) written as an integer; NaN as a double is
  void whole(double x);
  void field(const char* s);
  void end_row();
  const std::string& text() const { return text_; }
  void clear() {
    text_.clear();
    first_ = true;
  }
  // the rows so far, leaving this empty
  std::string take() {
    std::string t = std::move(text_);
    clear();
    return t;
  }

 private:
  std::string text_;
  bool first_ = true;
};

// a CSV file written row by row (or by whole blocks of CsvRows text)
class CsvWriter {
 public:
  explicit CsvWriter(const std::filesystem::path& path);
  // continues `path` after its first `keep` bytes (the rest is cut off)
  CsvWriter(const std::filesystem::path& path, long keep);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  void field(double x) { rows_.field(x); }
  void field(const char* s) { rows_.field(s); }
  void end_row();
  // rows formatted elsewhere (whole lines)
  void append(const std::string& text);
  void close();
  // writes the buffer through to the disk (fflush + fsync); returns the file's length
  long sync();

 private:
  void write_text(const std::string& text);
  void flush_rows();
  std::filesystem::path path_;
  std::FILE* f_ = nullptr;
  CsvRows rows_;
};

// a table as named columns of equal length, numbers or texts: what the command line writes as a
// CSV file and the Python module hands back as arrays
struct NamedColumns {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;     // a number column's values (empty for a text column)
  std::vector<std::vector<std::string>> texts;  // a text column's values (empty for a number column)
  std::vector<bool> text;                       // which columns hold texts
  void add(std::string name, std::vector<double> column) {
    names.push_back(std::move(name));
    columns.push_back(std::move(column));
    texts.emplace_back();
    text.push_back(false);
  }
  void add_text(std::string name, std::vector<std::string> column) {
    names.push_back(std::move(name));
    columns.emplace_back();
    texts.push_back(std::move(column));
    text.push_back(true);
  }
  bool empty() const { return names.empty(); }
  std::size_t rows() const { return names.empty() ? 0 : (text[0] ? texts[0].size() : columns[0].size()); }
};

// the table as a CSV file (a header line of its names, a row per index)
void write_columns(const NamedColumns& table, const std::filesystem::path& file);

}  // namespace fivsim
