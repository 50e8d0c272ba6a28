// src/sweep/sweep_journal.cpp — the resumable sweep's manifest and its output folder's lock
// (sweep/sweep_journal.hpp).
#include "fivsim/sweep/sweep_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "fivsim/core/input_file.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/io/json_reader.hpp"

namespace fivsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL, kP3 = 0x165667B19E3779F9ULL,
                        kP4 = 0x85EBCA77C2B2AE63ULL, kP5 = 0x27D4EB2F165667C5ULL;

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
std::uint64_t round64(std::uint64_t acc, std::uint64_t input) { return rotl(acc + input * kP2, 31) * kP1; }
std::uint64_t word_at(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// the checksum of bytes [from, to) of a file; false when the file is shorter or the range is none
bool file_checksum(const fs::path& file, long from, long to, std::uint64_t& hash) {
  ByteChecksum sum;
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec || from < 0 || to < from || static_cast<std::uintmax_t>(to) > size) return false;
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  in.seekg(from);
  char buf[1 << 16];
  for (long left = to - from; left > 0;) {
    const long want = left < static_cast<long>(sizeof buf) ? left : static_cast<long>(sizeof buf);
    if (!in.read(buf, want)) return false;
    sum.update(buf, static_cast<std::size_t>(want));
    left -= want;
  }
  hash = sum.value();
  return true;
}

// a manifest field that is there but cannot be used
struct UnreadableField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// j[key] as a whole number; a float (1e300, say) would not convert, so it is refused
long integer_at(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_integer()) throw UnreadableField(std::string(key) + " is " + v.dump() + ", no whole number");
  return v.get<long>();
}

// makes a rename in `dir` durable (POSIX leaves a folder's entries to its own fsync)
void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

ByteChecksum::ByteChecksum() : lane_{kP1 + kP2, kP2, 0, 0 - kP1} {}

void ByteChecksum::stripe(const unsigned char* p) {
  for (int i = 0; i < 4; ++i) lane_[i] = round64(lane_[i], word_at(p + 8 * i));
}

void ByteChecksum::update(const char* data, std::size_t size) {
  if (size == 0) return;  // an empty piece may come as a null pointer, which memcpy takes from no one
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  total_ += size;
  if (pending_size_ > 0) {
    const std::size_t take = std::min(size, sizeof pending_ - pending_size_);
    std::memcpy(pending_ + pending_size_, p, take);
    pending_size_ += take;
    p += take;
    size -= take;
    if (pending_size_ < sizeof pending_) return;
    stripe(pending_);
    pending_size_ = 0;
  }
  for (; size >= 32; p += 32, size -= 32) stripe(p);
  std::memcpy(pending_, p, size);
  pending_size_ = size;
}

std::uint64_t ByteChecksum::value() const {
  std::uint64_t h;
  if (total_ >= 32) {
    h = rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18);
    for (const std::uint64_t v : lane_) h = (h ^ round64(0, v)) * kP1 + kP4;
  } else {
    h = kP5;
  }
  h += total_;
  std::size_t i = 0;
  for (; i + 8 <= pending_size_; i += 8) h = rotl(h ^ round64(0, word_at(pending_ + i)), 27) * kP1 + kP4;
  for (; i < pending_size_; ++i) h = rotl(h ^ (pending_[i] * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

namespace {
struct FileScan {
  long bytes = 0, lines = 0;
  std::uint64_t hash = 0;
};

FileScan scan_file(const fs::path& file) {
  // never through a link, never waiting on a pipe: a file fivsim wrote is a regular file
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot read " + file.string() + " (not a regular file fivsim wrote)");
  }
  FileScan s;
  ByteChecksum sum;
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error("cannot read " + file.string() + ": " + std::strerror(err));
    }
    if (got == 0) break;
    sum.update(buf.data(), static_cast<std::size_t>(got));
    s.bytes += got;
    s.lines += std::count(buf.data(), buf.data() + got, '\n');
  }
  ::close(fd);
  s.hash = sum.value();
  return s;
}

std::string hex64(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}
}  // namespace

json file_check(const fs::path& file) {
  const FileScan s = scan_file(file);
  return {{"bytes", s.bytes}, {"lines", s.lines}, {"checksum", hex64(s.hash)}};
}

std::string file_check_mismatch(const fs::path& file, const json& check) {
  if (!check.is_object() || !check.contains("bytes") || !check["bytes"].is_number_integer() ||
      !check.contains("checksum") || !check["checksum"].is_string())
    return "its record in summary.json's \"checksums\" is not one fivsim writes";
  std::error_code ec;
  const fs::file_type type = fs::symlink_status(file, ec).type();
  if (type == fs::file_type::not_found) return "it is missing";
  if (type != fs::file_type::regular) return "it is not a regular file (a link, folder or device)";
  const FileScan s = scan_file(file);
  const long bytes = check["bytes"].get<long>();
  if (s.bytes != bytes) return std::to_string(s.bytes) + " bytes where the sweep wrote " + std::to_string(bytes);
  if (hex64(s.hash) != check["checksum"].get<std::string>())
    return "its bytes differ from what the sweep wrote (checksum)";
  return "";
}

SweepJournal::SweepJournal(fs::path dir, json identity) : dir_(std::move(dir)), identity_(std::move(identity)) {}

bool SweepJournal::has_manifest() const { return fs::exists(dir_ / "manifest.json"); }

void SweepJournal::set_headers(std::map<std::string, long> ends) {
  headers_ = std::move(ends);
  write();
}

long SweepJournal::end_of(const std::string& file) const {
  if (!chunks_.empty()) {
    const auto it = chunks_.back().files.find(file);
    if (it != chunks_.back().files.end()) return it->second.end;
  }
  const auto it = headers_.find(file);
  return it == headers_.end() ? 0 : it->second;
}

std::string SweepJournal::load(long first_case, long end_case, const std::map<std::string, std::string>& header_texts) {
  json m;
  std::map<std::string, long> headers;
  std::vector<JournalChunk> recorded;
  try {
    // strictly (size, regular file, nesting, keys once), as every file fivsim reads
    m = parse_json_text(read_file_bytes((dir_ / "manifest.json").string(), kMaxJsonFileBytes, "a JSON"),
                        (dir_ / "manifest.json").string());
    if (m.value("identity", json()) != identity_)
      return "it holds another sweep (scenario, overrides, precision, format or --shard differ from this command's)";
    for (const auto& item : m.at("headers").items())
      headers[item.key()] = integer_at(m.at("headers"), item.key().c_str());
    // the recorded chunks tile the start of the sweep's cases, each beginning where the last ended
    long next = first_case;
    for (const json& c : m.at("chunks")) {
      JournalChunk ch;
      ch.first = integer_at(c, "first");
      ch.n = integer_at(c, "n");
      if (ch.first != next || ch.n <= 0 || ch.n > end_case - next)
        return "its manifest.json cannot be read (a chunk of " + std::to_string(ch.n) + " cases at case " +
               std::to_string(ch.first) + " where case " + std::to_string(next) + " comes next, of " +
               std::to_string(end_case) + ")";
      next += ch.n;
      for (const auto& [name, f] : c.at("files").items()) {
        if (!headers.count(name)) throw UnreadableField("a chunk's file " + name + " has no header");
        if (!f.at("checksum").is_number_unsigned())
          throw UnreadableField("the checksum of " + name + " is " + f.at("checksum").dump());
        ch.files[name] = FileMark{integer_at(f, "end"), f.at("checksum").get<std::uint64_t>()};
      }
      if (ch.files.size() != headers.size()) throw UnreadableField("a chunk does not mark every file");
      if (!from_json(c.at("counts"), ch.counts))
        return "its manifest.json cannot be read (the counts of the chunk at case " + std::to_string(ch.first) + ")";
      recorded.push_back(std::move(ch));
    }
  } catch (const std::exception& e) {
    // not JSON, a field missing or of the wrong kind (json::exception, UnreadableField): damaged
    // by hand or by a file system that lost it, nothing in it can be trusted
    return "its manifest.json cannot be read (" + std::string(e.what()) + ")";
  }
  headers_ = headers;
  chunks_.clear();
  // a header changed by hand (a column renamed) is a change of every row's meaning
  for (const auto& [name, text] : header_texts) {
    const auto it = headers_.find(name);
    if (it == headers_.end()) continue;
    std::uint64_t h = 0;
    ByteChecksum expected;
    expected.update(text.data(), text.size());
    if (it->second != static_cast<long>(text.size()) || !file_checksum(dir_ / name, 0, it->second, h) ||
        h != expected.value())
      return {};
  }
  std::map<std::string, long> at = headers_;
  for (JournalChunk& ch : recorded) {
    // a chunk whose bytes changed or went missing is run again, and every chunk after it
    bool intact = true;
    for (const auto& [name, mark] : ch.files) {
      std::uint64_t h = 0;
      intact = intact && file_checksum(dir_ / name, at[name], mark.end, h) && h == mark.hash;
    }
    if (!intact) break;
    for (const auto& [name, mark] : ch.files) at[name] = mark.end;
    chunks_.push_back(std::move(ch));
  }
  return {};
}

void SweepJournal::record(JournalChunk chunk) {
  chunks_.push_back(std::move(chunk));
  write();
}

void SweepJournal::write() const {
  json m = {{"identity", identity_}, {"headers", headers_}};
  m["chunks"] = json::array();
  for (const JournalChunk& c : chunks_) {
    json files = json::object();
    for (const auto& [name, mark] : c.files) files[name] = {{"end", mark.end}, {"checksum", mark.hash}};
    m["chunks"].push_back({{"first", c.first}, {"n", c.n}, {"files", files}, {"counts", to_json(c.counts)}});
  }
  // written aside, synced and renamed, then the folder synced: a kill or a crash of the machine
  // leaves the old manifest or the new one, never half of one or none
  const fs::path tmp = dir_ / "manifest.json.tmp";
  const std::string text = m.dump() + "\n";
  const int fd = create_new_file(tmp);
  int err = 0;
  for (std::size_t written = 0; written < text.size() && err == 0;) {
    const ssize_t w = ::write(fd, text.data() + written, text.size() - written);
    if (w > 0)
      written += static_cast<std::size_t>(w);
    else if (w == 0)
      err = EIO;
    else if (errno != EINTR)
      err = errno;
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (err != 0) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(err));
  rename_output_file(tmp, dir_ / "manifest.json");
  sync_folder(dir_);
}

void SweepJournal::remove_manifest() const { remove_output_file(dir_ / "manifest.json"); }

}  // namespace fivsim::sweep
