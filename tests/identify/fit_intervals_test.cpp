// tests/identify/fit_intervals_test.cpp — covariance intervals of a least-squares fit
// (identify/fit_intervals.hpp) by their coverage over many noisy records: a line a + bt fitted to
// independent Gaussian noise holds its true coefficients in about 95 % of the records; with AR(1)
// noise (φ = 0.8, the kind a derivative filter or an output error leaves) the plain covariance
// σ²(JᵀJ)⁻¹ covers far less, the effective-sample correction about 95 % again.
#include "fivsim/identify/fit_intervals.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "fivsim/core/random.hpp"

namespace fivsim {
namespace {

struct Coverage {
  double corrected = 0.0, plain = 0.0;
};

// records of m samples of y = 1.5 − 0.7t + e on t ∈ [0, 1], e AR(1) with coefficient phi and unit
// innovations; the fraction whose intervals hold both true coefficients
Coverage coverage(double phi, int records, long m) {
  const Eigen::Vector2d truth(1.5, -0.7);
  Eigen::MatrixXd J(m, 2);
  for (long i = 0; i < m; ++i) J.row(i) << 1.0, static_cast<double>(i) / static_cast<double>(m - 1);
  std::uint64_t draw = 0;
  auto gauss = [&]() {
    const double a = unit_draw(7, 0x6669ULL, draw++), b = unit_draw(7, 0x6669ULL, draw++);
    return std::sqrt(-2.0 * std::log(1.0 - a)) * std::cos(2.0 * M_PI * b);
  };
  Coverage c;
  for (int k = 0; k < records; ++k) {
    Eigen::VectorXd e(m);
    e(0) = gauss() / std::sqrt(1.0 - phi * phi);  // the stationary start
    for (long i = 1; i < m; ++i) e(i) = phi * e(i - 1) + gauss();
    const Eigen::VectorXd y = J * truth + e;
    const Eigen::Vector2d fit = J.colPivHouseholderQr().solve(y);
    const Eigen::VectorXd r = y - J * fit;
    const FitIntervals f = fit_intervals(J, r);
    EXPECT_TRUE(f.ok);
    const bool in = ((fit - truth).cwiseAbs().array() <= f.half_width.array()).all();
    // the plain covariance, written out here as the textbook has it
    const double sigma2 = r.squaredNorm() / static_cast<double>(m - 2);
    const Eigen::Vector2d plain = (1.96 * (sigma2 * (J.transpose() * J).inverse()).diagonal().cwiseSqrt());
    const bool in_plain = ((fit - truth).cwiseAbs().array() <= plain.array()).all();
    c.corrected += in ? 1.0 : 0.0;
    c.plain += in_plain ? 1.0 : 0.0;
  }
  c.corrected /= records;
  c.plain /= records;
  return c;
}

TEST(FitIntervals, IndependentNoiseIsCoveredNinetyFivePercentOfTheTime) {
  const Coverage c = coverage(0.0, 1000, 400);
  // two coefficients at 95 % each: joint coverage about 0.90–0.95; binomial σ ≈ 0.008 over 1000
  EXPECT_GT(c.corrected, 0.88);  // 0.92 here
  EXPECT_LT(c.corrected, 0.97);
  EXPECT_NEAR(c.corrected, c.plain, 0.02);  // ρ₁ ≈ 0: the correction does nothing
}

TEST(FitIntervals, CorrelatedNoiseNeedsTheEffectiveSampleCount) {
  const Coverage c = coverage(0.8, 1000, 400);
  EXPECT_LT(c.plain, 0.75);      // (1 + φ)/(1 − φ) = 9: the plain intervals a third as wide (0.33 here)
  EXPECT_GT(c.corrected, 0.86);  // 0.89 here
  EXPECT_LT(c.corrected, 0.98);
}

TEST(FitIntervals, TooFewResidualsOrASingularFitGiveNoInterval) {
  Eigen::MatrixXd J(3, 2);
  J << 1, 0, 1, 1, 1, 2;
  EXPECT_FALSE(fit_intervals(J, Eigen::Vector3d(0.1, -0.2, 0.1)).ok);  // m < p + 2
  Eigen::MatrixXd same(10, 2);
  same.col(0).setOnes();
  same.col(1).setOnes();
  const FitIntervals f = fit_intervals(same, Eigen::VectorXd::LinSpaced(10, -1, 1));
  EXPECT_FALSE(f.ok);
  EXPECT_TRUE(std::isnan(f.half_width(0)));
}

}  // namespace
}  // namespace fivsim
