// tests/lcp/lcp_enum_test.cpp — the enumerative solver: Table 1, size limit, problems without solution.
#include "fivsim/lcp/lcp_enum.hpp"

#include <gtest/gtest.h>

#include "lcp/lcp_test_problems.hpp"

namespace fivsim {
namespace {

TEST(LcpEnum, SeedTable1) {
  auto p = test::make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  test::Vec6 x, y;
  const LcpResult r = enum_solve(p.A, p.b, x, y);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_NEAR(x[0], 0.009, 1e-15);
  EXPECT_NEAR(x[1], 0.0, 1e-15);
  EXPECT_NEAR(y[1], 0.011, 1e-15);
}

TEST(LcpEnum, RefusesMoreThanFourUnknowns) {
  test::Problem6 p;
  p.A.resize(5, 5);
  p.b.resize(5, -1.0);
  for (int i = 0; i < 5; ++i) p.A(i, i) = 1.0;
  test::Vec6 x, y;
  EXPECT_EQ(enum_solve(p.A, p.b, x, y).status, Status::lcp_too_large);
}

TEST(LcpEnum, ReportsNoSolution) {
  auto p = test::make_problem({{-1}}, {-1});
  test::Vec6 x, y;
  EXPECT_EQ(enum_solve(p.A, p.b, x, y).status, Status::lcp_no_solution);
}

TEST(LcpEnum, ResidualIsNaturalMap) {
  auto p = test::make_problem({{2, 0}, {0, 2}}, {-2, 1});
  test::Vec6 x;
  x.resize(2);
  x[0] = 0.5;  // y0 = −1: min(0.5, −1) = −1
  x[1] = 0.0;
  EXPECT_DOUBLE_EQ(lcp_residual(p.A, p.b, x), 1.0);
}

}  // namespace
}  // namespace fivsim
