// fivsim/sweep/results_h5.hpp — a sweep's tables in one HDF5 file, results.h5, readable by h5py
// (and so pandas) or any HDF5 reader without fivsim:
//
//   /cases, /points     groups, one dataset per column of cases.csv / points.csv, in rows of
//                       cases; attribute "columns": the datasets' names in the CSV's order
//   real columns        float64; whole numbers int64; a case's class, a status and a point's kind
//                       HDF5 enumerations (int8 / int16) whose member names are the CSV's words
//                       ("periodic" with period_n beside it, "nonfinite", "stick_to_slip@1", ...)
//   swept parameters    named by their pointer without its first "/" and with "/" as "." (the
//                       dataset of /model/Fn is model.Fn), with the pointer in attribute "pointer"
//   chunks              of 65536 rows, written whole; whole numbers and words byte-shuffled and
//                       deflated (HDF5's shuffle and deflate filters; the deflate stream finds
//                       runs only, fast on shuffled numbers, on all threads); real columns
//                       stored as they are unless asked (`--compression deflate`): deflate
//                       declared, each chunk written past it (a table of less than a chunk
//                       deflated)
//   /                   attribute "summary": summary.json's text; "format": the layout's name
//
// While a sweep runs, each table's chunks go to an append-only spill file (blocks of columns, the
// resume journal marks them like the CSV files); results.h5 is written from the spills when the
// sweep ends, and `fivsim merge` reads the shards' files back block by block.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/result_table.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::sweep {

// 2: the class column's words are periodic-N, chaotic, … (class_words), as in cases.csv
inline constexpr const char* kResultsH5Format = "fivsim sweep results 2";

// a spill file's block: rows, columns (the head, two 64-bit words), then the values column by
// column (doubles)
struct SpillHead {
  std::int64_t words[2];
};
inline SpillHead spill_head(const ColumnBlock& block, int columns) { return {{block.rows, columns}}; }
std::string spill_block(const ColumnBlock& block, int columns);

// one table of results.h5: its group, its columns, and the spill that holds its rows
struct H5Table {
  std::string group;  // "cases" or "points"
  TableSchema schema;
  std::filesystem::path spill;
  int n_contacts = 0;  // for the names of point kinds
  // real columns shuffled and deflated as the others are; false: stored as they are, which costs
  // the writer nothing and a measured value's mantissa hardly compresses
  bool deflate_real = false;
};

// results.h5 written beside a running sweep: a thread of its own packs each table's spill as far
// as the sweep says it is complete, so that compressing the rows overlaps the stepping; finish()
// packs the rest and closes the file, whose root's summary attribute is "{}" until
// set_results_h5_summary. Between construction and finish() nothing else may call HDF5 (its
// serial build holds no locks); the destructor of an unfinished writer stops its thread and leaves
// the file unfinished
class ResultsH5Writer {
 public:
  ResultsH5Writer(std::filesystem::path file, std::vector<H5Table> tables);
  ~ResultsH5Writer();
  ResultsH5Writer(const ResultsH5Writer&) = delete;
  ResultsH5Writer& operator=(const ResultsH5Writer&) = delete;
  // each table's spill (in the tables' order) holds whole blocks up to these byte offsets
  void complete_to(const std::vector<long>& ends);
  // waits for the thread to pack everything announced; rethrows what stopped it
  void finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// writes `file` (replacing it) from the tables' whole spills, as ResultsH5Writer does
void write_results_h5(const std::filesystem::path& file, const std::vector<H5Table>& tables);
// sets (or replaces) the root's summary attribute of a written file: a sweep's summary knows its
// wall time only once the file is written
void set_results_h5_summary(const std::filesystem::path& file, const nlohmann::json& summary);

// the dataset name of a column (a swept pointer's dots)
std::string h5_column_name(const std::string& column);

// reads a table of a results.h5 back: its schema (names as in the CSV) and rows [first, first +
// count) of every column as doubles (codes as their numbers); count < 0 reads to the end; `only`,
// where not empty, names the columns to read (the others are left out, the missing ones ignored)
struct H5TableData {
  TableSchema schema;
  ColumnBlock rows;
};
H5TableData read_results_h5(const std::filesystem::path& file, const std::string& group, long first = 0,
                            long count = -1, const std::vector<std::string>& only = {});
// the number of rows of a table (0 when the file has no such group)
long results_h5_rows(const std::filesystem::path& file, const std::string& group);
bool results_h5_has_table(const std::filesystem::path& file, const std::string& group);
// whether a table's real columns are shuffled and deflated chunk by chunk (false too when it has none)
bool real_columns_deflated(const std::filesystem::path& file, const std::string& group);

// the tables of several results.h5 (shards of one sweep, in order) as one file with `summary`;
// every shard must have the first one's columns; the real columns deflated as the first shard's are
void join_results_h5(const std::vector<std::filesystem::path>& parts, const std::filesystem::path& file,
                     const nlohmann::json& summary, int n_contacts);
// the root's "summary" attribute
nlohmann::json results_h5_summary(const std::filesystem::path& file);

// small tables held in memory (`fivsim continue`'s branches, bifurcations, orbit points, curves) as one
// HDF5 file in the layout above: a group per table, a dataset per column (float64, int64 where
// every value is a whole number, variable-length UTF-8 strings for a text column), attribute
// "columns", pointer columns named with dots; `format` and `summary` on the root. Replaces `file`
inline constexpr const char* kContinuationH5Format = "fivsim continuation results 1";
void write_tables_h5(const std::filesystem::path& file,
                     const std::vector<std::pair<std::string, const fivsim::NamedColumns*>>& tables,
                     const std::string& format, const nlohmann::json& summary);

}  // namespace fivsim::sweep
