// tests/identify/law_ranking_test.cpp — candidate laws ranked by AIC and BIC against their closed
// forms, the record's noise floor from its samples alone, and the residual whiteness checks
// (identify/law_ranking.hpp) on series whose answer is known by construction.
#include "fivsim/identify/law_ranking.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace fivsim {
namespace {

// n ln(RSS/n) + 2p and + p ln n by hand, the differences from the best and the weights
TEST(LawRanking, CriteriaAndWeightsAreTheClosedForms) {
  std::vector<CandidateScore> c(3);
  c[0] = {"one", 1, 1000, 2.0};
  c[1] = {"two", 2, 1000, 1.0};
  c[2] = {"three", 3, 1000, 0.999};
  rank_candidates(c);
  const double n = 1000.0;
  EXPECT_NEAR(c[0].aic, n * std::log(2.0 / n) + 2.0, 1e-9);
  EXPECT_NEAR(c[1].bic, n * std::log(1.0 / n) + 2.0 * std::log(n), 1e-9);
  // the third's one more number buys too little: two ranks first by BIC
  EXPECT_EQ(c[1].rank, 1);
  EXPECT_EQ(c[2].rank, 2);
  EXPECT_EQ(c[0].rank, 3);
  EXPECT_DOUBLE_EQ(c[1].delta_bic, 0.0);
  EXPECT_NEAR(c[2].delta_bic, n * std::log(0.999) + std::log(n), 1e-9);
  const double a = std::exp(-0.5 * c[0].delta_aic), b = std::exp(-0.5 * c[1].delta_aic),
               d = std::exp(-0.5 * c[2].delta_aic);
  EXPECT_NEAR(c[1].akaike_weight, b / (a + b + d), 1e-12);
  EXPECT_NEAR(c[0].akaike_weight + c[1].akaike_weight + c[2].akaike_weight, 1.0, 1e-12);
  // a failed fit ranks last with no weight
  std::vector<CandidateScore> failed = {{"ok", 1, 100, 1.0}, {"failed", 1, 100, HUGE_VAL}};
  rank_candidates(failed);
  EXPECT_EQ(failed[1].rank, 2);
  EXPECT_EQ(failed[1].akaike_weight, 0.0);
}

// a smooth stick-slip-like signal (a sine with kinks) plus white noise of σ = 0.01 sampled at
// 200 Hz: the second differences' median gives σ within 5 %; without noise, next to nothing
TEST(LawRanking, RecordNoiseIsTheWhiteNoiseUnderASmoothSignal) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  const long n = 8000;
  Eigen::VectorXd clean(n), noisy(n);
  for (long i = 0; i < n; ++i) {
    const double t = 0.005 * static_cast<double>(i);
    clean(i) = std::max(std::sin(t), 0.3);  // a kink where it sticks at 0.3
    noisy(i) = clean(i) + noise(rng);
  }
  EXPECT_NEAR(record_noise_std(noisy), 0.01, 5e-4);
  EXPECT_LT(record_noise_std(clean), 1e-4);
}

// white residuals pass; the same noise smoothed into AR(1) with ρ = 0.9 and a misfit's slow
// wave do not
TEST(LawRanking, WhiteResidualsPassAndStructuredOnesDoNot) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 1.0);
  const long n = 4000;
  Eigen::VectorXd white(n), ar(n), wave(n);
  double last = 0.0;
  for (long i = 0; i < n; ++i) {
    white(i) = noise(rng);
    last = 0.9 * last + noise(rng);
    ar(i) = last;
    wave(i) = std::sin(0.01 * static_cast<double>(i)) + 0.1 * noise(rng);
  }
  const ResidualWhiteness w = residual_whiteness(white);
  EXPECT_TRUE(w.white) << w.rho1 << " " << w.runs_z;
  EXPECT_LT(std::abs(w.runs_z), 3.0);
  const ResidualWhiteness a = residual_whiteness(ar);
  EXPECT_FALSE(a.white);
  EXPECT_NEAR(a.rho1, 0.9, 0.03);
  EXPECT_LT(a.runs_z, -10.0);
  EXPECT_FALSE(residual_whiteness(wave).white);
  // the warnings: a residual twice the noise, and one that is not white
  const auto both = misfit_warnings("the law", 0.02, 0.01, a);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_NE(both[0].find("2.0 times the record's noise"), std::string::npos) << both[0];
  EXPECT_TRUE(misfit_warnings("the law", 0.0101, 0.01, w).empty());
  // a clean record's residual: below its noise estimate, however smooth
  EXPECT_TRUE(misfit_warnings("the law", 1e-11, 1e-9, a).empty());
  // an equation's residual against what a right one leaves: over twice it, flagged
  EXPECT_EQ(equation_warnings("the equation", 2.5e-3, 1e-3, 100).size(), 1u);
  EXPECT_TRUE(equation_warnings("the equation", 1.9e-3, 1e-3, 100).empty());
}

}  // namespace
}  // namespace fivsim
