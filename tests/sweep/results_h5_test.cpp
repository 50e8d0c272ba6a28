// tests/sweep/results_h5_test.cpp — results.h5 from spill files (sweep/results_h5.hpp), called
// directly: byte planes stored or deflated in one zlib stream that HDF5's own filters decode, and a
// file packed while its spills grow that is the file packed from the whole spills.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli_test_util.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/results_h5.hpp"

namespace {

using fivsim::sweep::ColumnBlock;
using fivsim::sweep::ColumnKind;
using fivsim::sweep::H5Table;
using fivsim::sweep::TableSchema;
using namespace fivsim_test;

// a measured value (every mantissa byte random), a parameter on a grid, a count and a constant:
// byte planes nearly random, structured and constant side by side; rows past one HDF5 chunk
// (65536 rows) and not a multiple of it
constexpr long kRows = 150000;

TableSchema schema() {
  TableSchema s;
  s.add("measured", ColumnKind::real);
  s.add("/model/Fn", ColumnKind::real);
  s.add("steps", ColumnKind::whole);
  s.add("constant", ColumnKind::real);
  return s;
}

std::vector<std::vector<double>> columns() {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> measured(-3.0, 5.0);
  std::vector<std::vector<double>> c(4, std::vector<double>(kRows));
  for (long i = 0; i < kRows; ++i) {
    const std::size_t r = static_cast<std::size_t>(i);
    c[0][r] = measured(random);
    c[1][r] = 1.0 + 29.0 * static_cast<double>(i) / static_cast<double>(kRows - 1);
    c[2][r] = static_cast<double>(300000 + i % 7);
    c[3][r] = 0.25;
  }
  return c;
}

// rows [first, first + n) as one spill block
std::string block(const std::vector<std::vector<double>>& c, long first, long n) {
  ColumnBlock b;
  b.resize(n, static_cast<int>(c.size()));
  for (std::size_t k = 0; k < c.size(); ++k)
    std::memcpy(b.column(static_cast<int>(k)), c[k].data() + first, static_cast<std::size_t>(n) * sizeof(double));
  return fivsim::sweep::spill_block(b, static_cast<int>(c.size()));
}

// the blocks of a sweep's chunks: sizes that cross the HDF5 chunks' edges
const std::vector<long> kBlocks = {70000, 1, 49999, 30000};

// the blocks as one spill file
void write_spill(const fs::path& file, const std::vector<std::vector<double>>& c) {
  std::ofstream spill(file, std::ios::binary);
  long at = 0;
  for (const long n : kBlocks) {
    spill << block(c, at, n);
    at += n;
  }
}

std::string slurp_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ResultsH5, NearlyRandomBytePlanesStoredBesideDeflatedOnesReadBackBitForBit) {
  const fs::path dir = fresh_dir("fivsim_results_h5_planes");
  fs::create_directories(dir);
  const auto c = columns();
  write_spill(dir / "cases.bin", c);
  fivsim::sweep::write_results_h5(dir / "results.h5", {{"cases", schema(), dir / "cases.bin", 1, true}});
  EXPECT_TRUE(fivsim::sweep::real_columns_deflated(dir / "results.h5", "cases"));
  // read through HDF5's own shuffle and deflate filters: the decoder is the library's, not ours
  const fivsim::sweep::H5TableData back = fivsim::sweep::read_results_h5(dir / "results.h5", "cases");
  ASSERT_EQ(back.rows.rows, kRows);
  ASSERT_EQ(back.schema.names, schema().names);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(std::memcmp(back.rows.column(k), c[static_cast<std::size_t>(k)].data(), kRows * sizeof(double)), 0)
        << schema().names[static_cast<std::size_t>(k)];
  // the grid, the counts and the constant compress, the measured column's random mantissa does
  // not: the file lies between the measured column's six random planes and all the raw bytes
  const double raw = 4.0 * 8.0 * kRows, random_planes = 6.0 * kRows;
  const double size = static_cast<double>(fs::file_size(dir / "results.h5"));
  EXPECT_LT(size, 0.5 * raw);
  EXPECT_GT(size, random_planes);
  fs::remove_all(dir);
}

// by default the real columns' chunks are their doubles as they are (written past the declared
// deflate filter: nothing to run on writing or reading) and the whole numbers are still deflated;
// a table of less than one chunk is deflated so that it stays small
TEST(ResultsH5, RealColumnsAreStoredAsTheyAreUnlessDeflateIsAsked) {
  const fs::path dir = fresh_dir("fivsim_results_h5_raw");
  fs::create_directories(dir);
  const auto c = columns();
  write_spill(dir / "cases.bin", c);
  fivsim::sweep::write_results_h5(dir / "results.h5", {{"cases", schema(), dir / "cases.bin", 1}});
  EXPECT_FALSE(fivsim::sweep::real_columns_deflated(dir / "results.h5", "cases"));
  const fivsim::sweep::H5TableData back = fivsim::sweep::read_results_h5(dir / "results.h5", "cases");
  ASSERT_EQ(back.rows.rows, kRows);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(std::memcmp(back.rows.column(k), c[static_cast<std::size_t>(k)].data(), kRows * sizeof(double)), 0)
        << schema().names[static_cast<std::size_t>(k)];
  // the three real columns' three chunks of 65536 rows as they are (the last one padded), the
  // counts deflated
  const double real_chunks = 3.0 * 8.0 * 3 * 65536;
  const double size = static_cast<double>(fs::file_size(dir / "results.h5"));
  EXPECT_GT(size, real_chunks);
  EXPECT_LT(size, real_chunks + 0.25 * 8.0 * kRows);
  // a table of 40 rows: its one, partial chunk deflated, so the padding to 65536 rows takes no room
  std::ofstream(dir / "small.bin", std::ios::binary) << block(c, 0, 40);
  fivsim::sweep::write_results_h5(dir / "small.h5", {{"cases", schema(), dir / "small.bin", 1}});
  EXPECT_LT(fs::file_size(dir / "small.h5"), 64u * 1024u);
  const fivsim::sweep::H5TableData small = fivsim::sweep::read_results_h5(dir / "small.h5", "cases");
  ASSERT_EQ(small.rows.rows, 40);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(std::memcmp(small.rows.column(k), c[static_cast<std::size_t>(k)].data(), 40 * sizeof(double)), 0);
  fs::remove_all(dir);
}

TEST(ResultsH5, AFilePackedAsItsSpillGrowsIsTheFilePackedFromTheWholeSpill) {
  const fs::path dir = fresh_dir("fivsim_results_h5_growing");
  fs::create_directories(dir);
  const auto c = columns();
  for (const bool deflate : {false, true}) {
    // all at once
    write_spill(dir / "whole.bin", c);
    fivsim::sweep::write_results_h5(dir / "whole.h5", {{"cases", schema(), dir / "whole.bin", 1, deflate}});
    // block by block, each announced once it is written, as a sweep's chunks come
    {
      fs::remove(dir / "growing.bin");
      std::ofstream spill(dir / "growing.bin", std::ios::binary);
      fivsim::sweep::ResultsH5Writer w(dir / "growing.h5", {{"cases", schema(), dir / "growing.bin", 1, deflate}});
      long at = 0;
      for (const long n : kBlocks) {
        spill << block(c, at, n);
        spill.flush();
        at += n;
        w.complete_to({static_cast<long>(spill.tellp())});
      }
      w.finish();
    }
    EXPECT_EQ(slurp_bytes(dir / "growing.h5"), slurp_bytes(dir / "whole.h5")) << "deflate " << deflate;
  }
  fs::remove_all(dir);
}

TEST(ResultsH5, AWriterWhoseSpillCannotBeReadSaysSoAndOneLeftUnfinishedStops) {
  const fs::path dir = fresh_dir("fivsim_results_h5_failing");
  fs::create_directories(dir);
  {
    fivsim::sweep::ResultsH5Writer w(dir / "results.h5", {{"cases", schema(), dir / "missing.bin", 1}});
    try {
      w.finish();
      ADD_FAILURE() << "no error for a missing spill";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("missing.bin"), std::string::npos) << e.what();
    }
  }
  // a sweep that fails before its end leaves its writer unfinished: the destructor stops the
  // thread (this test hangs otherwise)
  {
    std::ofstream(dir / "cases.bin", std::ios::binary) << block(columns(), 0, 10);
    fivsim::sweep::ResultsH5Writer w(dir / "results.h5", {{"cases", schema(), dir / "cases.bin", 1}});
    w.complete_to({static_cast<long>(fs::file_size(dir / "cases.bin"))});
  }
  fs::remove_all(dir);
}

}  // namespace
