// tests/sweep/sweep_journal_test.cpp — the resumable sweep's manifest (sweep/sweep_journal.hpp), called
// directly: what a resume keeps after each kind of damage a crash, a kill or a person can leave.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "fivsim/sweep/sweep_journal.hpp"

namespace {

using fivsim::sweep::ChunkCounts;
using fivsim::sweep::FileMark;
using fivsim::sweep::JournalChunk;
using fivsim::sweep::SweepJournal;
using namespace fivsim_test;
using nlohmann::json;

const json kIdentity = {{"scenario", {{"model", "chain"}}}, {"precision", "double"}};
// the sweep's cases, [0, kCases)
constexpr long kCases = 100;

void append(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::app) << text;
}

long size_of(const fs::path& file) { return static_cast<long>(fs::file_size(file)); }

// a file's length and the checksum of its bytes from `from` on, as the sweep's writer marks them
FileMark mark(const fs::path& file, long from) {
  const std::string text = slurp(file);
  fivsim::sweep::ByteChecksum sum;
  sum.update(text.data() + from, text.size() - static_cast<std::size_t>(from));
  return {static_cast<long>(text.size()), sum.value()};
}

ChunkCounts counts_with_steps(double case_steps) {
  ChunkCounts c;
  c.case_steps = case_steps;
  c.status["ok"] = 2;
  return c;
}

// a folder as a sweep leaves it after `chunks` chunks of two cases (rows "i,..."), points.csv
// included unless `points` is false: headers first, then each chunk's rows appended and recorded
fs::path journal_with_chunks(const std::string& name, int chunks, bool points = true) {
  const fs::path dir = fresh_dir(name);
  fs::create_directories(dir);
  append(dir / "cases.csv", "case,value\n");
  if (points) append(dir / "points.csv", "case,t,q0\n");
  SweepJournal journal(dir, kIdentity);
  std::map<std::string, long> headers{{"cases.csv", size_of(dir / "cases.csv")}};
  if (points) headers["points.csv"] = size_of(dir / "points.csv");
  journal.set_headers(headers);
  for (int c = 0; c < chunks; ++c) {
    std::map<std::string, long> from;
    for (const auto& [file, end] : headers) from[file] = journal.end_of(file);
    for (int i = 2 * c; i < 2 * c + 2; ++i) {
      std::ofstream(dir / "cases.csv", std::ios::binary | std::ios::app) << i << ',' << 0.5 * i << '\n';
      if (points) std::ofstream(dir / "points.csv", std::ios::binary | std::ios::app) << i << ",1.0," << i << "e-3\n";
    }
    JournalChunk ch{2L * c, 2, {}, counts_with_steps(100.0 * (c + 1))};
    for (const auto& [file, at] : from) ch.files[file] = mark(dir / file, at);
    journal.record(ch);
  }
  return dir;
}

long cases_end(const SweepJournal& j) { return j.end_of("cases.csv"); }
long points_end(const SweepJournal& j) { return j.end_of("points.csv"); }
long chunk_end(const JournalChunk& c, const char* file) { return c.files.at(file).end; }

TEST(SweepJournal, ALoadedManifestGivesBackEveryRecordedChunk) {
  const fs::path dir = journal_with_chunks("fivsim_journal_intact", 3);
  SweepJournal resumed(dir, kIdentity);
  ASSERT_TRUE(resumed.has_manifest());
  ASSERT_EQ(resumed.load(0, kCases), "");
  ASSERT_EQ(resumed.chunks().size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(resumed.chunks()[c].first, 2 * static_cast<long>(c));
    EXPECT_EQ(resumed.chunks()[c].n, 2);
    EXPECT_EQ(resumed.chunks()[c].counts.case_steps, 100.0 * static_cast<double>(c + 1));
  }
  EXPECT_EQ(cases_end(resumed), size_of(dir / "cases.csv"));
  EXPECT_EQ(points_end(resumed), size_of(dir / "points.csv"));
  // no manifest.json.tmp is left beside the manifest
  EXPECT_FALSE(fs::exists(dir / "manifest.json.tmp"));
  fs::remove_all(dir);
}

// a chunk's counts survive the manifest, the host's stages too; a manifest an older fivsim wrote,
// without them, still loads (its stages zero), and a stage that is not a number is refused
TEST(SweepJournal, ChunkCountsKeepTheirStagesThroughTheManifest) {
  ChunkCounts c;
  c.case_steps = 1200;
  c.compute_s = 0.5;
  c.setup_s = 0.125;
  c.launch_s = 0.25;
  c.wait_s = 0.375;
  c.columns_s = 0.0625;
  c.classes["periodic-1"] = 3;
  c.status["ok"] = 3;
  ChunkCounts back;
  ASSERT_TRUE(from_json(to_json(c), back));
  EXPECT_EQ(back.launch_s, 0.25);
  EXPECT_EQ(back.wait_s, 0.375);
  EXPECT_EQ(back.columns_s, 0.0625);
  EXPECT_EQ(back.setup_s, 0.125);
  json older = to_json(c);
  for (const char* key : {"launch_s", "wait_s", "columns_s"}) older.erase(key);
  ASSERT_TRUE(from_json(older, back));
  EXPECT_EQ(back.launch_s, 0.0);
  EXPECT_EQ(back.compute_s, 0.5);
  json bad = to_json(c);
  bad["wait_s"] = "soon";
  EXPECT_FALSE(from_json(bad, back));
}

// a half-written row after the last recorded chunk (a kill mid-write) is not counted: the resume
// goes on from the end of the last whole chunk
TEST(SweepJournal, RowsAfterTheLastRecordedChunkAreNotCounted) {
  const fs::path dir = journal_with_chunks("fivsim_journal_tail", 2);
  const long recorded_end = size_of(dir / "cases.csv");
  append(dir / "cases.csv", "4,2.");
  SweepJournal resumed(dir, kIdentity);
  ASSERT_EQ(resumed.load(0, kCases), "");
  EXPECT_EQ(resumed.chunks().size(), 2u);
  EXPECT_EQ(cases_end(resumed), recorded_end);
  fs::remove_all(dir);
}

// a changed byte in a chunk's rows drops that chunk and every later one, in either file; a file
// cut short drops the chunks it no longer holds
TEST(SweepJournal, DamagedOrMissingBytesDropTheirChunkAndEveryLaterOne) {
  for (const char* file : {"cases.csv", "points.csv"}) {
    const fs::path dir = journal_with_chunks(std::string("fivsim_journal_flip_") + file[0], 3);
    SweepJournal first(dir, kIdentity);
    ASSERT_EQ(first.load(0, kCases), "");
    const long second_start = chunk_end(first.chunks()[0], "cases.csv"),
               points_second_start = chunk_end(first.chunks()[0], "points.csv");
    std::string text = slurp(dir / file);
    const std::size_t at = static_cast<std::size_t>(file[0] == 'c' ? second_start : points_second_start) + 2;
    text[at] = text[at] == '9' ? '8' : '9';
    std::ofstream(dir / file, std::ios::binary | std::ios::trunc) << text;
    SweepJournal resumed(dir, kIdentity);
    ASSERT_EQ(resumed.load(0, kCases), "") << file;
    ASSERT_EQ(resumed.chunks().size(), 1u) << file;
    EXPECT_EQ(cases_end(resumed), second_start) << file;
    EXPECT_EQ(points_end(resumed), points_second_start) << file;
    fs::remove_all(dir);
  }

  const fs::path dir = journal_with_chunks("fivsim_journal_short", 3);
  SweepJournal first(dir, kIdentity);
  ASSERT_EQ(first.load(0, kCases), "");
  fs::resize_file(dir / "cases.csv", static_cast<std::uintmax_t>(chunk_end(first.chunks()[1], "cases.csv") - 1));
  SweepJournal resumed(dir, kIdentity);
  ASSERT_EQ(resumed.load(0, kCases), "");
  EXPECT_EQ(resumed.chunks().size(), 1u);
  // lengths no file has (a manifest edited by hand) keep nothing
  const std::string manifest = slurp(dir / "manifest.json");
  json nonsense = json::parse(manifest);
  nonsense["headers"]["cases.csv"] = -1;
  nonsense["chunks"][0]["files"]["cases.csv"]["end"] = std::numeric_limits<long>::max();
  std::ofstream(dir / "manifest.json", std::ios::trunc) << nonsense.dump();
  SweepJournal edited(dir, kIdentity);
  ASSERT_EQ(edited.load(0, kCases), "");
  EXPECT_TRUE(edited.chunks().empty());
  std::ofstream(dir / "manifest.json", std::ios::trunc) << manifest;
  // with every row gone, the resume starts after the headers
  fs::resize_file(dir / "cases.csv", 11);
  SweepJournal from_headers(dir, kIdentity);
  ASSERT_EQ(from_headers.load(0, kCases), "");
  EXPECT_TRUE(from_headers.chunks().empty());
  EXPECT_EQ(cases_end(from_headers), 11);
  fs::remove_all(dir);
}

// another sweep's manifest, or one that cannot be read (empty, not JSON, a field missing or of the
// wrong type), is refused with a reason rather than resumed or thrown
TEST(SweepJournal, AnotherSweepsOrAnUnreadableManifestIsRefusedWithItsReason) {
  const fs::path dir = journal_with_chunks("fivsim_journal_refused", 2);
  json other = kIdentity;
  other["precision"] = "float";
  SweepJournal another(dir, other);
  EXPECT_NE(another.load(0, kCases).find("it holds another sweep"), std::string::npos);

  const json good = json::parse(slurp(dir / "manifest.json"));
  json missing = good;
  missing.erase("headers");
  json wrong_type = good;
  wrong_type["chunks"][1]["files"]["cases.csv"]["end"] = "x";
  json chunk_missing = good;
  chunk_missing["chunks"][0]["files"]["points.csv"].erase("checksum");
  json file_missing = good;
  file_missing["chunks"][0]["files"].erase("points.csv");
  json fractional = good;
  fractional["chunks"][0]["files"]["cases.csv"]["end"] = 1e300;
  json signed_checksum = good;
  signed_checksum["chunks"][1]["files"]["cases.csv"]["checksum"] = -5;
  json fractional_count = good;
  fractional_count["chunks"][1]["counts"]["status"]["ok"] = 1.5;
  for (const std::string& text :
       {std::string(), std::string("{\"identity\": "), missing.dump(), wrong_type.dump(), chunk_missing.dump(),
        file_missing.dump(), fractional.dump(), signed_checksum.dump(), fractional_count.dump()}) {
    std::ofstream(dir / "manifest.json", std::ios::trunc) << text;
    SweepJournal resumed(dir, kIdentity);
    const std::string why = resumed.load(0, kCases);
    EXPECT_NE(why.find("its manifest.json cannot be read"), std::string::npos) << text << "\n" << why;
    EXPECT_TRUE(resumed.chunks().empty());
  }
  fs::remove_all(dir);
}

// chunks that do not tile the start of the sweep's cases (a gap, an overlap, an empty chunk, one
// past the end: a manifest edited by hand) cannot be trusted to lose or repeat no case
TEST(SweepJournal, ChunksThatDoNotTileTheCasesAreRefused) {
  const fs::path dir = journal_with_chunks("fivsim_journal_tiling", 3);
  const json good = json::parse(slurp(dir / "manifest.json"));
  SweepJournal whole(dir, kIdentity);
  EXPECT_EQ(whole.load(0, 6), "");
  // a shard's range must start where its chunks do
  EXPECT_NE(whole.load(2, kCases).find("where case 2 comes next"), std::string::npos);
  // the last chunk ends past the sweep's cases
  EXPECT_NE(whole.load(0, 5).find("a chunk of 2 cases at case 4"), std::string::npos);
  for (const auto& [chunk, field, value] :
       {std::tuple{1, "first", 3L}, std::tuple{1, "first", 1L}, std::tuple{0, "n", 0L}, std::tuple{2, "n", -2L},
        std::tuple{2, "n", std::numeric_limits<long>::max()}}) {
    json edited = good;
    edited["chunks"][chunk][field] = value;
    std::ofstream(dir / "manifest.json", std::ios::trunc) << edited.dump();
    SweepJournal resumed(dir, kIdentity);
    const std::string why = resumed.load(0, kCases);
    EXPECT_NE(why.find("its manifest.json cannot be read (a chunk of"), std::string::npos)
        << field << " = " << value << ": " << why;
    EXPECT_TRUE(resumed.chunks().empty());
  }
  fs::remove_all(dir);
}

// a manifest.json.tmp that a crash left half-written is overwritten by the next record, and the
// manifest beside it was never touched by it
TEST(SweepJournal, AHalfWrittenTemporaryManifestIsIgnored) {
  const fs::path dir = journal_with_chunks("fivsim_journal_tmp", 1);
  std::ofstream(dir / "manifest.json.tmp") << "{\"identity\": {\"sce";
  SweepJournal resumed(dir, kIdentity);
  ASSERT_EQ(resumed.load(0, kCases), "");
  ASSERT_EQ(resumed.chunks().size(), 1u);
  const long cases_from = cases_end(resumed), points_from = points_end(resumed);
  append(dir / "cases.csv", "2,1\n3,1.5\n");
  append(dir / "points.csv", "2,1.0,2e-3\n3,1.0,3e-3\n");
  resumed.record(
      {2,
       2,
       {{"cases.csv", mark(dir / "cases.csv", cases_from)}, {"points.csv", mark(dir / "points.csv", points_from)}},
       counts_with_steps(1.0)});
  EXPECT_FALSE(fs::exists(dir / "manifest.json.tmp"));
  SweepJournal again(dir, kIdentity);
  ASSERT_EQ(again.load(0, kCases), "");
  EXPECT_EQ(again.chunks().size(), 2u);
  fs::remove_all(dir);
}

// a sweep without points.csv keeps its chunks by cases.csv alone; a file it wrote that has gone
// keeps none
TEST(SweepJournal, TheFilesASweepWroteDecide) {
  const fs::path dir = journal_with_chunks("fivsim_journal_nopoints", 2, false);
  SweepJournal resumed(dir, kIdentity);
  ASSERT_EQ(resumed.load(0, kCases), "");
  EXPECT_EQ(resumed.chunks().size(), 2u);
  fs::remove_all(dir);
  const fs::path gone = journal_with_chunks("fivsim_journal_gone", 2);
  fs::remove(gone / "points.csv");
  SweepJournal without(gone, kIdentity);
  ASSERT_EQ(without.load(0, kCases), "");
  EXPECT_TRUE(without.chunks().empty());
  fs::remove_all(gone);
}

// the checksum of a stream does not depend on how it is split, and tells one byte apart
TEST(ByteChecksum, IsTheSameHoweverTheBytesArriveAndSeesEveryByte) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>((i * 37 + 11) & 0xff);
  fivsim::sweep::ByteChecksum whole;
  whole.update(bytes.data(), bytes.size());
  for (const std::size_t piece : {1u, 7u, 31u, 32u, 33u, 500u}) {
    fivsim::sweep::ByteChecksum split;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
      split.update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(split.value(), whole.value()) << piece;
  }
  for (const std::size_t at : {0u, 31u, 32u, 998u, 999u}) {
    std::string other = bytes;
    other[at] = static_cast<char>(other[at] ^ 1);
    fivsim::sweep::ByteChecksum changed;
    changed.update(other.data(), other.size());
    EXPECT_NE(changed.value(), whole.value()) << at;
  }
  fivsim::sweep::ByteChecksum shorter;
  shorter.update(bytes.data(), bytes.size() - 1);
  EXPECT_NE(shorter.value(), whole.value());
}

}  // namespace
