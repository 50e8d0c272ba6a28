// src/sweep/sweep_files.cpp — a sweep's files in its staging folder, its trajectories, and its
// tables kept in memory (sweep/sweep_files.hpp).
#include "fivsim/sweep/sweep_files.hpp"

#include <unistd.h>

#include <cerrno>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "fivsim/sweep/basins.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/io/timeseries_csv.hpp"

namespace fivsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> kSweepStagingNames = {
    "manifest.json", "manifest.json.tmp", "cases.csv",  "points.csv",     "cases.bin",   "points.bin",
    "results.h5",    "summary.json",      "basins.csv", "attractors.csv", "trajectories"};

// a file of the staging folder written chunk by chunk: each append synced, its length and the
// checksum of its bytes returned for the journal
class AppendFile {
 public:
  // continues `path` after its first `keep` bytes (the rest cut off), or starts it empty
  AppendFile(const fs::path& path, long keep) : path_(path) {
    fd_ = keep > 0 ? open_to_continue(path, keep) : create_new_file(path);
    end_ = keep;
  }
  ~AppendFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // appends the pieces (written whole, then synced); the checksum runs over them in order
  FileMark append(std::initializer_list<std::pair<const char*, std::size_t>> pieces) {
    ByteChecksum sum;
    for (const auto& [data, size] : pieces) {
      write_all(fd_, std::string_view(data, size), path_);
      sum.update(data, size);
      end_ += static_cast<long>(size);
    }
    if (::fsync(fd_) != 0) throw std::runtime_error(cannot_write(path_, errno));
    return FileMark{end_, sum.value()};
  }
  FileMark append(const char* data, std::size_t size) { return append({{data, size}}); }
  long end() const { return end_; }

 private:
  fs::path path_;
  int fd_ = -1;
  long end_ = 0;
};

SweepFiles::SweepFiles(const fs::path& dir, const TableSchema& cases, const TableSchema& points, bool with_points,
                       bool csv, bool h5, bool deflate_real, int n_contacts, SweepJournal& journal, bool resumed)
    : dir_(dir),
      cases_schema_(cases),
      points_schema_(points),
      with_points_(with_points),
      csv_(csv),
      h5_(h5),
      deflate_real_(deflate_real),
      n_contacts_(n_contacts) {
  const auto open = [&](const std::string& name, const std::string& header) {
    files_[name] = std::make_unique<AppendFile>(dir / name, resumed ? journal.end_of(name) : 0);
    if (!resumed && !header.empty()) files_[name]->append(header.data(), header.size());
  };
  if (csv_) {
    open("cases.csv", csv_header(cases));
    if (with_points_) open("points.csv", csv_header(points));
  }
  if (h5_) {
    open("cases.bin", "");
    if (with_points_) open("points.bin", "");
  }
  if (!resumed) {
    std::map<std::string, long> ends;
    for (const auto& [name, file] : files_) ends[name] = file->end();
    journal.set_headers(ends);
  }
  // results.h5 packed as the spills grow (a resumed sweep's from what the journal kept)
  if (h5_) {
    h5_tables_ = {{"cases", cases_schema_, dir_ / "cases.bin", n_contacts_, deflate_real_}};
    if (with_points_) h5_tables_.push_back({"points", points_schema_, dir_ / "points.bin", n_contacts_, deflate_real_});
    h5_writer_.emplace(dir_ / "results.h5", h5_tables_);
    announce_spills();
  }
}

SweepFiles::~SweepFiles() = default;

std::map<std::string, FileMark> SweepFiles::append(const ChunkOutput& o) {
  std::map<std::string, FileMark> marks;
  const auto put = [&](const std::string& name, const std::string& bytes) {
    marks[name] = files_.at(name)->append(bytes.data(), bytes.size());
  };
  if (csv_) {
    std::string text;
    csv_rows(cases_schema_, o.cases, text);
    put("cases.csv", text);
    if (with_points_) {
      text.clear();
      csv_rows(points_schema_, o.points, text);
      put("points.csv", text);
    }
  }
  if (h5_) {
    const auto spill = [&](const std::string& name, const ColumnBlock& b, int columns) {
      const SpillHead head = spill_head(b, columns);
      marks[name] =
          files_.at(name)->append({{reinterpret_cast<const char*>(head.words), sizeof head.words},
                                   {reinterpret_cast<const char*>(b.values.data()), b.values.size() * sizeof(double)}});
    };
    spill("cases.bin", o.cases, cases_schema_.size());
    if (with_points_) spill("points.bin", o.points, points_schema_.size());
    announce_spills();
  }
  return marks;
}

void SweepFiles::finish() {
  files_.clear();
  if (!h5_) return;
  h5_writer_->finish();
  h5_writer_.reset();
  for (const H5Table& t : h5_tables_) remove_output_file(t.spill);
}

void SweepFiles::write_summary(json& summary) const {
  if (h5_) set_results_h5_summary(dir_ / "results.h5", summary);
  json checks = json::object();
  for (const std::string& name : names()) checks[name] = file_check(dir_ / name);
  summary["checksums"] = std::move(checks);
  write_json_file(dir_ / "summary.json", summary);
}

std::vector<std::string> SweepFiles::names() const {
  std::vector<std::string> n;
  if (csv_) n.push_back("cases.csv");
  if (csv_ && with_points_) n.push_back("points.csv");
  if (h5_) n.push_back("results.h5");
  return n;
}

void SweepFiles::announce_spills() {
  std::vector<long> ends;
  for (const H5Table& t : h5_tables_) ends.push_back(files_.at(t.spill.filename().string())->end());
  h5_writer_->complete_to(ends);
}

void write_trajectory(const SweepTrajectory& tr, int n_dof, const fs::path& file) {
  TimeseriesCsv csv(file, n_dof, static_cast<int>(tr.states.size()));
  std::vector<double> values(tr.values.size());
  std::vector<ContactState> states(tr.states.size());
  for (std::size_t r = 0; r < tr.t.size(); ++r) {
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = tr.values[k][r];
    for (std::size_t i = 0; i < states.size(); ++i) states[i] = static_cast<ContactState>(tr.states[i][r]);
    csv.row(tr.t[r], values, states.data());
  }
  csv.close();
}

void append_columns(const ColumnBlock& block, std::vector<std::vector<double>>& columns) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const double* from = block.column(static_cast<int>(c));
    columns[c].insert(columns[c].end(), from, from + block.rows);
  }
}

void add_basins(SweepTables& tables, const std::vector<std::string>& paths, int n_dof, json& summary) {
  summary.erase("basins");
  summary.erase("basins_skipped");
  if (!sweeps_initial_conditions(paths)) return;
  NamedColumns columns;
  for (int c = 0; c < tables.cases_schema.size(); ++c)
    columns[tables.cases_schema.names[static_cast<std::size_t>(c)]] = tables.cases[static_cast<std::size_t>(c)];
  const Basins b = find_basins(paths, columns, n_dof);
  if (!set_basins_summary(b, summary)) return;
  tables.cases_schema.add("attractor", ColumnKind::whole);
  tables.cases.emplace_back(b.attractor.begin(), b.attractor.end());
}

}  // namespace fivsim::sweep
