// fivsim/io/output.hpp — output folders that appear only when complete, and number formatting
// for the CSV and JSON files of docs/DESIGN.md §5.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fivsim {

struct PinnTotals;  // integrate/pinn_step.hpp

// the trainings of a PINN run or sweep as summary.json and compare.json report them
nlohmann::json pinn_totals_json(const PinnTotals& p);

// the file that marks a folder as a results folder fivsim wrote: --out replaces only such a
// folder (or an empty one), never anything else that exists
inline constexpr const char* kOutputMarker = ".fivsim-output";

// why `out` may not be (re)placed by a results folder, or "" where it may: it must not exist, or be
// an empty folder, or a folder holding the marker; never a file, a link, a device, `/`, the
// current folder `cwd` or an ancestor of it, nor the folder holding an input (scenario, record,
// shard). Only looks (stat, read), so that the refusal of real system paths can be tested
std::string output_refusal(const std::filesystem::path& out, const std::filesystem::path& cwd,
                           const std::vector<std::filesystem::path>& inputs);
// throws InputError("--out", ...) where output_refusal refuses, from the current folder
void require_safe_output(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs);

// "runs/x/" names the folder runs/x
std::filesystem::path folder_named(std::filesystem::path out_dir);

// one writer per output folder: an exclusive POSIX record lock (fcntl) on "<out>.lock", held while
// a command writes the folder, so that a second command into it (a job started twice, or srun
// starting every task as a process of its own) refuses instead of mixing its files with the
// first's. The kernel drops the lock of a killed process, so a resume after kill -9 takes it.
class OutputLock {
 public:
  // throws std::runtime_error, naming the holder, when another process holds the lock, and
  // InputError("--out") when "<out>.lock" is something fivsim did not write; `host` (this
  // machine's name, gethostname where empty) goes into the note a refused command reads. Where the
  // file system has no record locks, holds none and says so in unguarded()
  explicit OutputLock(const std::filesystem::path& out_dir, const std::string& host = "");
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  static std::filesystem::path path_for(const std::filesystem::path& out_dir);
  // "" while the lock is held, or why there is none (for a warning)
  const std::string& unguarded() const { return unguarded_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  int slot_ = -1;
  std::string unguarded_;
};

// the folder a command writes: `out`, or runs/<default_name> where none is given
inline std::filesystem::path output_folder(const std::string& out, const std::string& default_name) {
  return out.empty() ? std::filesystem::path("runs") / default_name : std::filesystem::path(out);
}

// Files are written into a sibling "<dir>.partial-<pid>" (marked as fivsim's from the start)
// that commit() puts in place of <dir>: where <dir> is an earlier results folder, the two are
// swapped in one rename (renameat2 RENAME_EXCHANGE; moved aside and renamed where the file system
// cannot) and the old one removed, so a reader sees the old folder or the new one, never none or
// a mix. Without commit() the staging folder is removed, so a failed command leaves nothing
// half-written. The constructor refuses an unsafe <dir> (require_safe_output) and locks it
// (OutputLock) before any work starts.
class StagedDirectory {
 public:
  explicit StagedDirectory(std::filesystem::path final_dir, std::vector<std::filesystem::path> inputs = {},
                           const std::string& host = "");
  // a resumable staging folder: "<dir>.partial" (no pid), kept as it is when it exists, so that a
  // sweep killed mid-run can go on from what it holds (`fivsim sweep --resume`); one that existed
  // is kept on failure until restart() or keep_on_failure() says otherwise
  struct Resumable {};
  StagedDirectory(std::filesystem::path final_dir, Resumable, std::vector<std::filesystem::path> inputs = {},
                  const std::string& host = "");
  static std::filesystem::path resumable_staging(std::filesystem::path final_dir);
  // empties the staging folder (what an earlier attempt left), which is removed again on failure
  void restart();
  // from now on a failure leaves the staging folder for a resume instead of removing it
  void keep_on_failure();
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  const std::filesystem::path& path() const { return staging_; }
  const std::filesystem::path& final_path() const { return final_; }
  std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  // "" while the folder is locked, or why it is not (OutputLock::unguarded)
  const std::string& unguarded() const { return lock_.unguarded(); }
  void commit();

 private:
  void make_staging();
  void set_keep(bool keep);
  std::filesystem::path final_;
  std::vector<std::filesystem::path> inputs_;
  OutputLock lock_;
  std::filesystem::path staging_;
  int slot_ = -1;
  bool committed_ = false;
  bool keep_ = false;
};

// removes the staging folders and lock files of this process's commands when SIGINT, SIGTERM or
// SIGHUP ends it (a resumable one that holds recorded chunks stays for --resume), then ends it by
// the signal; installed by the command line (a library must not take an embedding program's signals)
void remove_staging_on_signals();

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
