// tests/sweep/result_table_test.cpp — a sweep table's CSV text (sweep/result_table.hpp): a block
// formatted in slices on all threads is, byte for byte, its rows formatted one block of one row at a
// time (the serial pass), over enough rows for several slices and a partial last one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "fivsim/analysis/classification.hpp"
#include "fivsim/sweep/result_table.hpp"

namespace {

using fivsim::sweep::ColumnBlock;
using fivsim::sweep::ColumnKind;
using fivsim::sweep::TableSchema;

TEST(ResultTable, CsvOfABlockIsItsRowsFormattedOneByOne) {
  TableSchema s;
  s.add("case", ColumnKind::whole);
  s.add("rms_q0", ColumnKind::real);
  s.add("status", ColumnKind::status);
  s.add("class", ColumnKind::case_class);
  s.add("period_n", ColumnKind::whole);
  const long rows = 3 * 4096 + 1234;
  ColumnBlock b;
  b.resize(rows, s.size());
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  for (long r = 0; r < rows; ++r) {
    b.column(0)[r] = static_cast<double>(r);
    b.column(1)[r] = r % 97 == 0 ? std::nan("") : value(random);
    b.column(2)[r] = 0.0;
    b.column(3)[r] = static_cast<double>(fivsim::CaseClass::periodic);
    b.column(4)[r] = static_cast<double>(1 + r % 3);
  }
  std::string whole;
  fivsim::sweep::csv_rows(s, b, whole);
  std::string one_by_one;
  ColumnBlock row;
  row.resize(1, s.size());
  for (long r = 0; r < rows; ++r) {
    for (int c = 0; c < s.size(); ++c) row.column(c)[0] = b.column(c)[r];
    fivsim::sweep::csv_rows(s, row, one_by_one);
  }
  EXPECT_EQ(whole, one_by_one);
  EXPECT_NE(whole.find("periodic-3"), std::string::npos);
}

}  // namespace
