// tests/lcp/lcp_pgs_test.cpp — projected Gauss–Seidel: convergence on SPD problems, the zero-diagonal
// failure, and the iteration cap.
#include "fivsim/lcp/lcp_pgs.hpp"

#include <gtest/gtest.h>

#include "fivsim/lcp/lcp_enum.hpp"
#include "lcp/lcp_test_problems.hpp"

namespace fivsim {
namespace {

TEST(LcpPgs, ZeroDiagonalIsAClearFailure) {
  // seed 000 Table 1 has A_22 = 0 (the γ_R row of the friction LCP)
  auto p = test::make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  test::Vec6 x, y;
  const LcpResult r = pgs_solve(p.A, p.b, x, y);
  EXPECT_EQ(r.status, Status::lcp_zero_diagonal);
  EXPECT_STREQ(status_name(r.status), "lcp_zero_diagonal");
}

TEST(LcpPgs, SolvesSpdLikeEnumeration) {
  auto p = test::make_problem({{2, 1, 0}, {1, 3, 1}, {0, 1, 4}}, {-1, 2, -3});
  test::Vec6 x, y, xe, ye;
  LcpOptions opt;
  opt.tolerance = 1e-14;
  const LcpResult r = pgs_solve(p.A, p.b, x, y, opt);
  ASSERT_EQ(r.status, Status::ok);
  ASSERT_EQ(enum_solve(p.A, p.b, xe, ye).status, Status::ok);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(x[i], xe[i], 1e-12);
  EXPECT_LE(r.residual, 1e-12);
}

TEST(LcpPgs, IterationCapIsReported) {
  // both unknowns active: Gauss–Seidel contracts by 0.99² per sweep
  auto p = test::make_problem({{1, 0.99}, {0.99, 1}}, {-1, -1});
  test::Vec6 x, y;
  LcpOptions opt;
  opt.max_iterations = 2;
  opt.tolerance = 1e-15;
  EXPECT_EQ(pgs_solve(p.A, p.b, x, y, opt).status, Status::lcp_not_converged);
}

}  // namespace
}  // namespace fivsim
