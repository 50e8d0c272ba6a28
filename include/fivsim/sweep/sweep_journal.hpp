// fivsim/sweep/sweep_journal.hpp — the manifest that makes a sweep resumable. A sweep writes into
// "<out>.partial"; after each chunk's bytes are on the disk (fsync), the manifest records the
// chunk (its case range, the length of each output file after it with a checksum of the bytes it
// added, and its counts) by a synced, atomic rename. After a crash or kill -9, a resume
// keeps the recorded chunks whose bytes are intact, cuts the files back to the last of them and
// goes on from the next case, so that no case is lost or written twice.
// (io/output.hpp's OutputLock keeps a second command out of a folder that one is writing.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/sweep/sweep_counts.hpp"

namespace fivsim::sweep {

// a 64-bit checksum of a byte stream, the same however the stream is split into updates: four
// lanes of multiply-rotate rounds over 32-byte stripes (xxHash64's scheme), several GB/s, so that
// checking a chunk's bytes costs little beside writing them
class ByteChecksum {
 public:
  void update(const char* data, std::size_t size);
  std::uint64_t value() const;

 private:
  void stripe(const unsigned char* p);
  std::uint64_t lane_[4];
  unsigned char pending_[32];
  std::size_t pending_size_ = 0;
  std::uint64_t total_ = 0;

 public:
  ByteChecksum();
};

// a finished results file as summary.json's "checksums" records it: {"bytes", "lines", "checksum"
// (ByteChecksum, 16 hex digits)}, so that a reader (`fivsim merge`) can tell a damaged or cut file
nlohmann::json file_check(const std::filesystem::path& file);
// "" while `file` is as `check` recorded it, else what differs ("20000 bytes where the sweep wrote 61234")
std::string file_check_mismatch(const std::filesystem::path& file, const nlohmann::json& check);

// a file's length after a chunk, and the checksum of the bytes the chunk added to it
struct FileMark {
  long end = 0;
  std::uint64_t hash = 0;
};

struct JournalChunk {
  long first = 0, n = 0;                  // cases [first, first + n)
  std::map<std::string, FileMark> files;  // by file name in the folder
  ChunkCounts counts;
};

class SweepJournal {
 public:
  // `identity`: what must match for a resume (scenario as run, precision, case range)
  SweepJournal(std::filesystem::path dir, nlohmann::json identity);

  bool has_manifest() const;
  // reads the manifest and keeps its chunks whose bytes are intact (each file's checksums in
  // order, the first mismatch drops that chunk and all after it); "" or why the folder cannot be
  // resumed (another sweep's manifest, or one that cannot be read: a field missing or of the wrong
  // kind, counts that cannot be added up, chunks that do not tile the start of the cases
  // [first_case, end_case)). A file whose first bytes are not `headers[name]` (the header this
  // sweep writes) keeps no chunk: everything is run again
  std::string load(long first_case, long end_case, const std::map<std::string, std::string>& headers = {});
  // appends a chunk (its files already synced to the marks it carries) and rewrites the manifest
  void record(JournalChunk chunk);
  void remove_manifest() const;

  const std::vector<JournalChunk>& chunks() const { return chunks_; }
  // a file's length after the last recorded chunk (or after its header)
  long end_of(const std::string& file) const;
  // the files and their lengths before the first chunk (their headers), recorded
  void set_headers(std::map<std::string, long> ends);
  const nlohmann::json& identity() const { return identity_; }

 private:
  void write() const;
  std::filesystem::path dir_;
  nlohmann::json identity_;
  std::map<std::string, long> headers_;
  std::vector<JournalChunk> chunks_;
};

}  // namespace fivsim::sweep
