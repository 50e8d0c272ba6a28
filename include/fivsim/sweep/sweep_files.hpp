// fivsim/sweep/sweep_files.hpp — what a sweep's results become: the files of its resumable staging
// folder (cases.csv, points.csv, results.h5 from spill files, each chunk appended and synced, its
// marks for the journal), the trajectories asked for, or the same tables kept in memory
// (SweepOptions::tables) with the basins of a sweep over initial conditions (docs/DESIGN.md §5).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/results_h5.hpp"
#include "fivsim/sweep/sweep_journal.hpp"
#include "fivsim/sweep/sweep_ranks.hpp"
#include "fivsim/sweep/sweep_runner.hpp"

namespace fivsim::sweep {

// what a sweep writes into its resumable staging folder: a resume refuses anything else there
extern const std::vector<std::string> kSweepStagingNames;

class AppendFile;

// the output files of a sweep in its staging folder, by format: cases.csv and (when asked)
// points.csv, and for results.h5 a spill file per table that it is written from at the end
class SweepFiles {
 public:
  SweepFiles(const std::filesystem::path& dir, const TableSchema& cases, const TableSchema& points, bool with_points,
             bool csv, bool h5, bool deflate_real, int n_contacts, SweepJournal& journal, bool resumed);
  ~SweepFiles();
  SweepFiles(const SweepFiles&) = delete;
  SweepFiles& operator=(const SweepFiles&) = delete;

  // a chunk's rows, written and synced: the marks the journal records
  std::map<std::string, FileMark> append(const ChunkOutput& o);
  // results.h5 finished from the spills, which then go
  void finish();
  // the summary, in results.h5 too; then the checksums of the finished files join it in
  // summary.json ("checksums", what `fivsim merge` verifies a shard by)
  void write_summary(nlohmann::json& summary) const;
  // the files a reader finds, for summary.json
  std::vector<std::string> names() const;

 private:
  std::filesystem::path dir_;
  const TableSchema &cases_schema_, &points_schema_;
  bool with_points_, csv_, h5_, deflate_real_;
  int n_contacts_;
  std::map<std::string, std::unique_ptr<AppendFile>> files_;
  std::vector<H5Table> h5_tables_;
  std::optional<ResultsH5Writer> h5_writer_;

  // the spills' whole blocks so far, to results.h5's writer
  void announce_spills();
};

// a trajectory as the CSV of `fivsim run`'s time series
void write_trajectory(const SweepTrajectory& tr, int n_dof, const std::filesystem::path& file);

// a block's rows after those a table kept in memory already holds, column by column
void append_columns(const ColumnBlock& block, std::vector<std::vector<double>>& columns);

// a sweep kept in memory over initial conditions: its basins into the summary and each case's
// attractor as the column "attractor" (basins.hpp; the files of a sweep hold them in basins.csv
// and attractors.csv)
void add_basins(SweepTables& tables, const std::vector<std::string>& paths, int n_dof, nlohmann::json& summary);

}  // namespace fivsim::sweep
