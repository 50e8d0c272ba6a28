// src/io/output.cpp — staged output folders, CSV and JSON writers (docs/DESIGN.md §5).
#include "fivsim/io/output.hpp"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <stdexcept>

#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim {

nlohmann::json pinn_totals_json(const PinnTotals& p) {
  return {{"dynamic_iterations", p.iterations},
          {"lcp_iterations", p.lcp_iterations},
          {"max_dynamic_loss", p.max_loss},
          {"unconverged_steps", p.unconverged}};
}

StagedDirectory::StagedDirectory(std::filesystem::path final_dir) : final_(std::move(final_dir)) {
  if (final_.filename().empty()) final_ = final_.parent_path();
  staging_ = final_;
  staging_ += ".partial-" + std::to_string(::getpid());
  std::filesystem::remove_all(staging_);
  std::filesystem::create_directories(staging_);
}

std::filesystem::path StagedDirectory::resumable_staging(std::filesystem::path final_dir) {
  if (final_dir.filename().empty()) final_dir = final_dir.parent_path();
  final_dir += ".partial";
  return final_dir;
}

StagedDirectory::StagedDirectory(std::filesystem::path final_dir, Resumable) : final_(std::move(final_dir)) {
  if (final_.filename().empty()) final_ = final_.parent_path();
  staging_ = resumable_staging(final_);
  std::filesystem::create_directories(staging_);
}

StagedDirectory::~StagedDirectory() {
  if (!committed_ && !keep_) {
    std::error_code ec;
    std::filesystem::remove_all(staging_, ec);
  }
}

void StagedDirectory::commit() {
  if (std::filesystem::exists(final_)) std::filesystem::remove_all(final_);
  std::filesystem::rename(staging_, final_);
  committed_ = true;
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
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

CsvWriter::CsvWriter(const std::filesystem::path& path) {
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw std::runtime_error("cannot write " + path.string());
}

CsvWriter::CsvWriter(const std::filesystem::path& path, long keep) {
  std::error_code ec;
  std::filesystem::resize_file(path, static_cast<std::uintmax_t>(keep), ec);
  if (ec) throw std::runtime_error("cannot continue " + path.string() + ": " + ec.message());
  f_ = std::fopen(path.c_str(), "ab");
  if (!f_) throw std::runtime_error("cannot write " + path.string());
}

void CsvRows::field(double x) {
  char buf[32];
  const std::size_t len = double_to_text(x, buf);
  if (!first_) text_.push_back(',');
  text_.append(buf, len);
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
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size())
    throw std::runtime_error("error while writing a CSV file");
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
    throw std::runtime_error("error while writing a CSV file");
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
    throw std::runtime_error("error while closing a CSV file");
  }
  f_ = nullptr;
}

void write_columns(const NamedColumns& table, const std::filesystem::path& file) {
  CsvWriter csv(file);
  for (const auto& name : table.names) csv.field(name.c_str());
  csv.end_row();
  for (std::size_t i = 0; i < table.rows(); ++i) {
    for (std::size_t c = 0; c < table.names.size(); ++c) {
      if (table.text[c])
        csv.field(table.texts[c][i].c_str());
      else
        csv.field(table.columns[c][i]);
    }
    csv.end_row();
  }
  csv.close();
}

}  // namespace fivsim
