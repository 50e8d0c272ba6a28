// tests/lcp/lcp_lemke_test.cpp — Lemke against the seed's Table 1, the enumerative solver, PGS and
// problems without solution.
#include "fivsim/lcp/lcp_lemke.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "fivsim/lcp/lcp_enum.hpp"
#include "fivsim/lcp/lcp_pgs.hpp"
#include "fivsim/lcp/lcp_solve.hpp"
#include "lcp/lcp_test_problems.hpp"

namespace fivsim {
namespace {

TEST(LcpLemke, SeedTable1) {
  // seed 000 Table 1: A = [[1, −1], [−1, 0]], b = [−0.009, 0.02] → x = [0.009, 0], y = [0, 0.011]
  auto p = test::make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  test::Vec6 x, y;
  const LcpResult r = lemke_solve(p.A, p.b, x, y);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_NEAR(x[0], 0.009, 1e-15);
  EXPECT_NEAR(x[1], 0.0, 1e-15);
  EXPECT_NEAR(y[0], 0.0, 1e-15);
  EXPECT_NEAR(y[1], 0.011, 1e-15);
  EXPECT_LE(r.residual, 1e-15);
}

TEST(LcpLemke, TrivialWhenBNonNegative) {
  auto p = test::make_problem({{2, 1}, {1, 2}}, {0.5, 0.0});
  test::Vec6 x, y;
  const LcpResult r = lemke_solve(p.A, p.b, x, y);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(x[0], 0.0);
  EXPECT_EQ(y[0], 0.5);
}

// y = −x + 1 has two solutions, x = 0 and x = 1; a warm start on {0} must not move Lemke off x = 0
TEST(LcpLemke, WarmStartKeepsTheTrivialAnswer) {
  auto p = test::make_problem({{-1}}, {1.0});
  test::Vec6 x, y;
  LcpOptions opt;
  opt.use_basis_hint = true;
  opt.basis_hint = 1;
  const LcpResult r = lemke_solve(p.A, p.b, x, y, opt);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_EQ(x[0], 0.0);
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(r.basis, 0u);
}

// random symmetric positive definite problems: a unique solution that all three solvers find
TEST(LcpLemke, AgreesWithEnumerationAndPgsOnSpd) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + trial % 6;
    auto p = test::random_spd(rng, n);
    test::Vec6 xl, yl, xp, yp, xe, ye;
    const LcpResult rl = lemke_solve(p.A, p.b, xl, yl);
    ASSERT_EQ(rl.status, Status::ok) << "trial " << trial;
    EXPECT_LE(rl.residual, 1e-12);
    LcpOptions tight;
    tight.tolerance = 1e-14;
    tight.max_iterations = 200000;
    const LcpResult rp = pgs_solve(p.A, p.b, xp, yp, tight);
    ASSERT_EQ(rp.status, Status::ok) << "trial " << trial;
    EXPECT_LE(rp.residual, 1e-12);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(xl[i], xp[i], 1e-9) << "trial " << trial;
    if (n <= kEnumMaxSize) {
      const LcpResult re = enum_solve(p.A, p.b, xe, ye);
      ASSERT_EQ(re.status, Status::ok);
      EXPECT_LE(re.residual, 1e-12);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(xl[i], xe[i], 1e-10) << "trial " << trial;
    }
  }
}

// random nonsymmetric P-matrices (unique solution for every b)
TEST(LcpLemke, AgreesWithEnumerationOnPMatrices) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + trial % 4;
    auto p = test::random_p_matrix(rng, n);
    test::Vec6 xl, yl, xe, ye;
    const LcpResult rl = lemke_solve(p.A, p.b, xl, yl);
    const LcpResult re = enum_solve(p.A, p.b, xe, ye);
    ASSERT_EQ(rl.status, Status::ok) << "trial " << trial;
    ASSERT_EQ(re.status, Status::ok) << "trial " << trial;
    EXPECT_LE(rl.residual, 1e-12);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(xl[i], xe[i], 1e-10) << "trial " << trial;
  }
}

// row and column scalings over six decades (as between the compliance 1/(k_c dt²) and the
// Delassus entries of a spring contact) leave the solution set unchanged; Lemke must still
// return it to full accuracy
TEST(LcpLemke, BadlyScaledPMatrices) {
  std::mt19937 rng(4242);
  std::uniform_real_distribution<double> expo(-3.0, 3.0);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 2 + trial % 3;
    auto p = test::random_p_matrix(rng, n);
    double r[6], c[6];
    for (int i = 0; i < n; ++i) {
      r[i] = std::pow(10.0, expo(rng));
      c[i] = std::pow(10.0, expo(rng));
    }
    test::Problem6 s = p;
    for (int i = 0; i < n; ++i) {
      s.b[i] = r[i] * p.b[i];
      for (int j = 0; j < n; ++j) s.A(i, j) = r[i] * p.A(i, j) * c[j];
    }
    test::Vec6 xs, ys, xe, ye;
    const LcpResult rs = lemke_solve(s.A, s.b, xs, ys);
    ASSERT_EQ(rs.status, Status::ok) << "trial " << trial << " residual " << rs.residual;
    ASSERT_EQ(enum_solve(p.A, p.b, xe, ye).status, Status::ok);
    // x of the scaled problem is x of the original divided by the column scale
    for (int i = 0; i < n; ++i) EXPECT_NEAR(xs[i] * c[i], xe[i], 1e-9 * (1 + std::abs(xe[i]))) << "trial " << trial;
  }
}

// regression: a spring-contact step of Model II (k_c = 500, dt = 1e-4) where the z0 row and
// the γ_L row tie in the ratio test to 1e-9 relative; a loose tie rule ended Lemke there with
// y_1 = −1.8e-7
TEST(LcpLemke, SpringContactNearTie) {
  auto p = test::make_problem(
      {{200000.19999999998, 0, 0}, {-0.23999999999999949, 0.19999999999999998, 1}, {2.399999999999995, -1, 0}},
      {-246.90209070460818, 0.00029609856983858762, 0});
  test::Vec6 x, y, xe, ye;
  const LcpResult r = lemke_solve(p.A, p.b, x, y);
  ASSERT_EQ(r.status, Status::ok) << r.residual;
  ASSERT_EQ(enum_solve(p.A, p.b, xe, ye).status, Status::ok);
  EXPECT_LE(r.residual, 1e-13);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(x[i], xe[i], 1e-12 * std::abs(xe[i]));
  EXPECT_GT(x[1], 0.0);  // the friction impulse Λ_L is active
}

TEST(LcpLemke, InfeasibleProblemIsARay) {
  // y = 0·x − 1 < 0 for every x: no solution
  auto p = test::make_problem({{0}}, {-1});
  test::Vec6 x, y;
  EXPECT_EQ(lemke_solve(p.A, p.b, x, y).status, Status::lcp_ray);
  // y1 = −x1 − x2 − 1 < 0 for all x ≥ 0
  auto q = test::make_problem({{-1, -1}, {1, 2}}, {-1, 1});
  EXPECT_EQ(lemke_solve(q.A, q.b, x, y).status, Status::lcp_ray);
  EXPECT_EQ(enum_solve(q.A, q.b, x, y).status, Status::lcp_no_solution);
}

// on general random matrices Lemke may fail, but a reported success must be a solution and a
// problem that enumeration proves unsolvable must never be reported solved
TEST(LcpLemke, RayIsNeverReportedAsSuccess) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int successes = 0, failures = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + trial % 4;
    test::Problem6 p;
    p.A.resize(n, n);
    p.b.resize(n);
    for (int i = 0; i < n; ++i) {
      p.b[i] = u(rng);
      for (int j = 0; j < n; ++j) p.A(i, j) = u(rng);
    }
    test::Vec6 xl, yl, xe, ye;
    const LcpResult rl = lemke_solve(p.A, p.b, xl, yl);
    const LcpResult re = enum_solve(p.A, p.b, xe, ye);
    if (rl.status == Status::ok) {
      ++successes;
      EXPECT_LE(lcp_residual(p.A, p.b, xl), 1e-10 * (1 + norm_inf(p.b))) << "trial " << trial;
      for (int i = 0; i < n; ++i) {
        EXPECT_GE(xl[i], 0.0);
        EXPECT_GE(yl[i], -1e-12);
      }
      EXPECT_EQ(re.status, Status::ok) << "Lemke solved a problem enumeration calls unsolvable, trial " << trial;
    } else {
      ++failures;
    }
  }
  EXPECT_GT(successes, 100);
  EXPECT_GT(failures, 10);  // the sample does contain unsolvable problems
}

TEST(LcpLemke, NonFiniteInputIsRejected) {
  auto p = test::make_problem({{1}}, {std::nan("")});
  test::Vec6 x, y;
  EXPECT_EQ(lemke_solve(p.A, p.b, x, y).status, Status::nonfinite);
}

TEST(LcpLemke, DegenerateProblemTerminates) {
  // several rows tie in the ratio test; the lexicographic rule must still end in a solution
  auto p = test::make_problem({{1, 1, 1}, {1, 1, 1}, {1, 1, 2}}, {-1, -1, -1});
  test::Vec6 x, y;
  const LcpResult r = lemke_solve(p.A, p.b, x, y);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_LE(r.residual, 1e-12);
}

// the solvers' temporaries in a caller's scratch (what device kernels over large LCPs give them) hold
// the same arithmetic as their own stack: every answer bit for bit, whatever the scratch held before.
// Problems of 1 to 6 unknowns with mostly negative b, so that Lemke pivots and the basis solves run
// at the runtime size (5 and 6 active entries) as well as the fixed ones; cold and warm started
TEST(LcpLemke, ScratchGivesTheOwnStacksAnswers) {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto scratch = std::make_unique<LcpScratch<double, 6>>();
  const auto same = [](const LcpResult& a, const LcpResult& b, const test::Vec6& xa, const test::Vec6& xb,
                       const test::Vec6& ya, const test::Vec6& yb, int n) {
    if (a.status != b.status || a.iterations != b.iterations || a.basis != b.basis) return false;
    if (std::memcmp(&a.residual, &b.residual, sizeof(double)) != 0) return false;
    return std::memcmp(xa.v, xb.v, n * sizeof(double)) == 0 && std::memcmp(ya.v, yb.v, n * sizeof(double)) == 0;
  };
  int pivoted = 0, runtime_size = 0, failed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + trial % 6;
    test::Problem6 p = trial % 3 == 2 ? test::random_p_matrix(rng, n) : test::random_spd(rng, n);
    if (trial % 3 == 1)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) p.A(i, j) = u(rng);  // general: rays and unsolvable problems too
    for (int i = 0; i < n; ++i) p.b[i] = i % 5 == 4 ? std::abs(u(rng)) : -std::abs(u(rng));
    // what an earlier solve left in the scratch must not matter
    std::memset(static_cast<void*>(scratch.get()), trial % 2 ? 0xff : 0x7f, sizeof(*scratch));
    LcpOptions opt;
    opt.use_basis_hint = trial % 4 == 3;
    opt.basis_hint = static_cast<uint64_t>(rng()) & ((uint64_t(1) << n) - 1);
    test::Vec6 x0, y0, x1, y1;
    const LcpResult own = lemke_solve(p.A, p.b, x0, y0, opt);
    const LcpResult in = lemke_solve(p.A, p.b, x1, y1, opt, scratch.get());
    ASSERT_TRUE(same(own, in, x0, x1, y0, y1, n)) << "Lemke, trial " << trial;
    pivoted += own.iterations > 0;
    failed += own.status != Status::ok;
    if (std::popcount(own.basis) > 4) ++runtime_size;
    const LcpResult via = lcp_solve(LcpSolverKind::lemke, p.A, p.b, x1, y1, opt, scratch.get());
    ASSERT_TRUE(same(own, via, x0, x1, y0, y1, n)) << "lcp_solve, trial " << trial;
    if (n <= kEnumMaxSize) {
      const LcpResult e0 = enum_solve(p.A, p.b, x0, y0, opt);
      const LcpResult e1 = enum_solve(p.A, p.b, x1, y1, opt, scratch.get());
      ASSERT_TRUE(same(e0, e1, x0, x1, y0, y1, n)) << "enumeration, trial " << trial;
    }
    // the basis solve on the full set: at the runtime size from 5 unknowns
    const uint64_t all = (uint64_t(1) << n) - 1;
    const bool b0 = lcp_solve_on_basis(p.A, p.b, all, x0, y0, 1e-13, lcp_basis_rel_tol<double>());
    const bool b1 = lcp_solve_on_basis(p.A, p.b, all, x1, y1, 1e-13, lcp_basis_rel_tol<double>(), scratch.get());
    ASSERT_EQ(b0, b1) << "basis solve, trial " << trial;
    if (b0) {
      ASSERT_TRUE(same(LcpResult{}, LcpResult{}, x0, x1, y0, y1, n)) << "basis solve, trial " << trial;
    }
  }
  // the sample reaches every path it is meant to
  EXPECT_GT(pivoted, 1000);
  EXPECT_GT(runtime_size, 100);
  EXPECT_GT(failed, 10);
}

}  // namespace
}  // namespace fivsim
