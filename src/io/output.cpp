// src/io/output.cpp — CSV and JSON writers (docs/DESIGN.md §5).
#include "fivsim/io/output.hpp"

#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim {

nlohmann::json pinn_totals_json(const PinnTotals& p) {
  return {{"dynamic_iterations", p.iterations},
          {"lcp_iterations", p.lcp_iterations},
          {"max_dynamic_loss", p.max_loss},
          {"unconverged_steps", p.unconverged}};
}

namespace {
// shortest round-trip text of x into buf (32 bytes); returns its length
std::size_t double_to_text(double x, char* buf) {
  auto res = std::to_chars(buf, buf + 32, x);
  return static_cast<std::size_t>(res.ptr - buf);
}
}  // namespace

std::string format_double(double x) {
  char buf[32];
  return std::string(buf, double_to_text(x, buf));
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& j) {
  write_new_file(path, j.dump(2) + "\n");
}

CsvWriter::CsvWriter(const std::filesystem::path& path) : path_(path) { f_ = create_new_stream(path); }

CsvWriter::CsvWriter(const std::filesystem::path& path, long keep) : path_(path) {
  const int fd = open_to_continue(path, keep);
  f_ = ::fdopen(fd, "ab");
  if (!f_) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error(cannot_write(path, err));
  }
}

void CsvRows::field(double x) {
  char buf[32];
  const std::size_t len = double_to_text(x, buf);
  if (!first_) text_.push_back(',');
  text_.append(buf, len);
  first_ = false;
}

void CsvRows::whole(double x) {
  if (!(std::abs(x) < 9e15) || x != std::floor(x)) return field(x);
  char buf[24];
  const int len = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
  if (!first_) text_.push_back(',');
  text_.append(buf, static_cast<std::size_t>(len));
  first_ = false;
}

void CsvRows::field(const char* s) {
  if (!first_) text_.push_back(',');
  text_.append(s);
  first_ = false;
}

void CsvRows::end_row() {
  text_.push_back('\n');
  first_ = true;
}

void CsvWriter::write_text(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size()) throw std::runtime_error(cannot_write(path_, errno));
}

void CsvWriter::flush_rows() {
  write_text(rows_.text());
  rows_.clear();
}

void CsvWriter::end_row() {
  rows_.end_row();
  // rows go to the FILE in blocks of about 64 KiB
  if (rows_.text().size() >= (1u << 16)) flush_rows();
}

void CsvWriter::append(const std::string& text) {
  flush_rows();
  write_text(text);
}

long CsvWriter::sync() {
  flush_rows();
  if (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0 || std::fseek(f_, 0, SEEK_END) != 0)
    throw std::runtime_error(cannot_write(path_, errno));
  return std::ftell(f_);
}

CsvWriter::~CsvWriter() {
  if (f_) {
    if (!rows_.text().empty()) std::fwrite(rows_.text().data(), 1, rows_.text().size(), f_);
    std::fclose(f_);
  }
}

void CsvWriter::close() {
  if (!f_) return;
  flush_rows();
  if (std::fclose(f_) != 0) {
    f_ = nullptr;
    throw std::runtime_error(cannot_write(path_, errno));
  }
  f_ = nullptr;
}

namespace {

// a text as one CSV field: in double quotes (inner quotes doubled, line breaks as spaces) where it
// holds a comma, a quote or a line break (an error message), else as it is
std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) {
    if (ch == '"')
      q += "\"\"";
    else
      q += ch == '\n' || ch == '\r' ? ' ' : ch;
  }
  return q + "\"";
}

}  // namespace

void write_columns(const NamedColumns& table, const std::filesystem::path& file) {
  CsvWriter csv(file);
  for (const auto& name : table.names) csv.field(csv_text(name).c_str());
  csv.end_row();
  for (std::size_t i = 0; i < table.rows(); ++i) {
    for (std::size_t c = 0; c < table.names.size(); ++c) {
      if (table.text[c])
        csv.field(csv_text(table.texts[c][i]).c_str());
      else
        csv.field(table.columns[c][i]);
    }
    csv.end_row();
  }
  csv.close();
}

}  // namespace fivsim
