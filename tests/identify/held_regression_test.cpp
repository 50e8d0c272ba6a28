// tests/identify/held_regression_test.cpp — the slip regression held by the stop samples
// (identify/held_regression.hpp): the unconstrained least squares where every stop sample is held,
// the exact optimum of the quadratic program (by enumerating every set of at most three active
// constraints and solving each KKT system, an independent solver) where some are not, and the
// covariance against the textbook σ²(JᵀJ)⁻¹.
#include "fivsim/identify/held_regression.hpp"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

// samples of Eq. 12 with (k, c, F), Gaussian noise of `noise` on ẋ2, and stop samples whose
// holding forces reach `hold` × F at most
struct Samples {
  std::vector<double> x1, x2, dx2, u, du;  // slip
  std::vector<double> s_x1, s_u, s_du;     // stop
  BoundSamples slip() const {
    return {x1.data(), x2.data(), dx2.data(), u.data(), du.data(), static_cast<long>(x1.size())};
  }
  BoundSamples stop() const {
    return {s_x1.data(), nullptr, nullptr, s_u.data(), s_du.data(), static_cast<long>(s_x1.size())};
  }
};

Samples make_samples(double k, double c, double F, double noise, int n_slip, int n_stop, double hold, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  Samples s;
  for (int l = 0; l < n_slip; ++l) {
    const double x1 = 1e-3 * unit(rng), x2 = 0.05 * unit(rng), u = 1e-3 * unit(rng), du = 0.01 * unit(rng);
    s.x1.push_back(x1);
    s.x2.push_back(x2);
    s.u.push_back(u);
    s.du.push_back(du);
    s.dx2.push_back(k * (u - x1) + c * (du - x2) - F * (x2 > 0 ? 1.0 : -1.0) + noise * gauss(rng));
  }
  for (int j = 0; j < n_stop; ++j) {
    // a holding force of hold·F·w (|w| ≤ 1), split between the spring and the damper
    const double w = unit(rng), du = 0.01 * unit(rng);
    const double a = (hold * F * w - c * du) / k;
    const double u = 1e-3 * unit(rng);
    s.s_x1.push_back(u - a);
    s.s_u.push_back(u);
    s.s_du.push_back(du);
  }
  return s;
}

// the unconstrained least squares of the slip rows, by QR
Eigen::Vector3d least_squares(const Samples& s) {
  const long n = static_cast<long>(s.x1.size());
  Eigen::MatrixXd J(n, 3);
  Eigen::VectorXd y(n);
  for (long l = 0; l < n; ++l) {
    J.row(l) << s.u[l] - s.x1[l], s.du[l] - s.x2[l], s.x2[l] > 0 ? -1.0 : 1.0;
    y(l) = s.dx2[l];
  }
  return J.colPivHouseholderQr().solve(y);
}

// the exact optimum: every set of at most three constraints taken as equalities (KKT system of the
// least squares), the feasible solution of least residual
Eigen::Vector3d brute_force_optimum(const Samples& s) {
  const long n = static_cast<long>(s.x1.size()), m = 2 * static_cast<long>(s.s_x1.size());
  Eigen::MatrixXd J(n, 3);
  Eigen::VectorXd y(n);
  for (long l = 0; l < n; ++l) {
    J.row(l) << s.u[l] - s.x1[l], s.du[l] - s.x2[l], s.x2[l] > 0 ? -1.0 : 1.0;
    y(l) = s.dx2[l];
  }
  std::vector<Eigen::Vector3d> rows;
  for (long i = 0; i < m; ++i) {
    const long j = i / 2;
    const double sign = i % 2 == 0 ? -1.0 : 1.0;
    rows.emplace_back(sign * (s.s_u[j] - s.s_x1[j]), sign * s.s_du[j], 1.0);
  }
  const auto feasible = [&](const Eigen::Vector3d& t) {
    for (const auto& r : rows)
      if (r.dot(t) < -1e-12 * t.norm()) return false;
    return true;
  };
  const auto solve_with = [&](const std::vector<long>& active) -> Eigen::Vector3d {
    const long q = static_cast<long>(active.size());
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(3 + q, 3 + q);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(3 + q);
    K.topLeftCorner(3, 3) = J.transpose() * J;
    rhs.head(3) = J.transpose() * y;
    for (long i = 0; i < q; ++i) {
      K.block(0, 3 + i, 3, 1) = rows[static_cast<std::size_t>(active[static_cast<std::size_t>(i)])];
      K.block(3 + i, 0, 1, 3) = rows[static_cast<std::size_t>(active[static_cast<std::size_t>(i)])].transpose();
    }
    return K.fullPivLu().solve(rhs).head(3);
  };
  double best = HUGE_VAL;
  Eigen::Vector3d answer = Eigen::Vector3d::Constant(NAN);
  const auto consider = [&](const std::vector<long>& active) {
    const Eigen::Vector3d t = solve_with(active);
    if (!t.allFinite() || !feasible(t)) return;
    const double r = (y - J * t).squaredNorm();
    if (r < best) best = r, answer = t;
  };
  consider({});
  for (long a = 0; a < m; ++a) {
    consider({a});
    for (long b = a + 1; b < m; ++b) {
      consider({a, b});
      for (long c = b + 1; c < m; ++c) consider({a, b, c});
    }
  }
  return answer;
}

TEST(HeldRegression, IsTheSlipLeastSquaresWhereEveryStopSampleIsHeld) {
  const Samples s = make_samples(250.0, 0.08, 0.11, 1e-3, 400, 60, 0.9, 1);
  const HeldRegression h = held_regression(s.stop(), s.slip());
  ASSERT_TRUE(h.ok);
  EXPECT_EQ(h.active, 0);
  const Eigen::Vector3d ls = least_squares(s);
  EXPECT_NEAR(h.k, ls(0), 1e-9 * std::abs(ls(0)));
  EXPECT_NEAR(h.c, ls(1), 1e-9 * std::abs(ls(0)));
  EXPECT_NEAR(h.F, ls(2), 1e-9 * std::abs(ls(2)));
}

TEST(HeldRegression, MatchesTheExactOptimumWhereStopSamplesBind) {
  // stop samples holding up to 1.3 F: the slip fit leaves some unheld, so the answer moves
  for (unsigned seed = 2; seed < 8; ++seed) {
    const Samples s = make_samples(250.0, 0.08, 0.11, 2e-3, 200, 8, 1.3, seed);
    const HeldRegression h = held_regression(s.stop(), s.slip());
    ASSERT_TRUE(h.ok);
    EXPECT_GT(h.active, 0) << seed;
    const Eigen::Vector3d best = brute_force_optimum(s);
    ASSERT_TRUE(best.allFinite()) << seed;
    EXPECT_NEAR(h.k, best(0), 1e-7 * std::abs(best(0))) << seed;
    EXPECT_NEAR(h.c, best(1), 1e-7 * std::abs(best(0))) << seed;
    EXPECT_NEAR(h.F, best(2), 1e-7 * std::abs(best(2))) << seed;
    // every stop sample is held by the answer
    for (std::size_t j = 0; j < s.s_x1.size(); ++j)
      EXPECT_LE(std::abs(h.c * s.s_du[j] + h.k * (s.s_u[j] - s.s_x1[j])), h.F * (1 + 1e-9)) << seed;
  }
}

TEST(HeldRegression, CovarianceIsSigmaSquaredTimesTheInverseNormalMatrix) {
  const Samples s = make_samples(250.0, 0.08, 0.11, 1e-3, 300, 20, 0.5, 9);
  const HeldRegression h = held_regression(s.stop(), s.slip());
  ASSERT_TRUE(h.ok);
  ASSERT_EQ(h.active, 0);
  const long n = static_cast<long>(s.x1.size());
  Eigen::MatrixXd J(n, 3);
  for (long l = 0; l < n; ++l) J.row(l) << s.u[l] - s.x1[l], s.du[l] - s.x2[l], s.x2[l] > 0 ? -1.0 : 1.0;
  const Eigen::Matrix3d expected = h.rss / static_cast<double>(n - 3) * (J.transpose() * J).inverse();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(h.covariance(i, j), expected(i, j), 1e-8 * std::abs(expected(i, i))) << i << j;
  // the truth within three standard deviations of the answer
  EXPECT_LT(std::abs(h.k - 250.0), 3 * std::sqrt(h.covariance(0, 0)));
  EXPECT_LT(std::abs(h.F - 0.11), 3 * std::sqrt(h.covariance(2, 2)));
}

TEST(HeldRegression, RefusesTooFewSlipSamples) {
  const Samples s = make_samples(250.0, 0.08, 0.11, 0.0, 3, 4, 0.5, 10);
  EXPECT_FALSE(held_regression(s.stop(), s.slip()).ok);
}

}  // namespace
}  // namespace fivsim
