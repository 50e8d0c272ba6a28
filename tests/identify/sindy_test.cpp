// tests/identify/sindy_test.cpp — SINDy (identify/sindy.hpp): library terms, STLSQ and SR3 against a linear
// oscillator with closed-form derivatives, thresholding of spurious terms, and fixed coefficients.
#include "fivsim/identify/sindy.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

TEST(SindyLibrary, ParsesTermsAndNamesErrors) {
  const LibraryTerm t = parse_library_term("x1^2 * sgn(x2)");
  EXPECT_EQ(t.name, "x1^2*sgn(x2)");
  const double x[4] = {3.0, -0.5, 0.0, 0.0};
  EXPECT_DOUBLE_EQ(evaluate_term(t, x), -9.0);
  EXPECT_DOUBLE_EQ(evaluate_term(parse_library_term("1"), x), 1.0);
  EXPECT_DOUBLE_EQ(evaluate_term(parse_library_term("abs(x2)*cos(u)"), x), 0.5);
  EXPECT_THROW(parse_library_term("x3"), std::invalid_argument);
  EXPECT_THROW(parse_library_term("x1^0"), std::invalid_argument);
  EXPECT_THROW(parse_library_term("sgn(x2"), std::invalid_argument);
  EXPECT_THROW(parse_library_term("x1**x2"), std::invalid_argument);
}

TEST(SindyLibrary, PolynomialTermsCountTheMonomials) {
  // degree ≤ 2 in 4 variables: 4 + 10 monomials; in 2: 2 + 3
  EXPECT_EQ(polynomial_terms(2, true, false).size(), 14u);
  const auto two = polynomial_terms(2, false, true);
  ASSERT_EQ(two.size(), 6u);
  EXPECT_EQ(two[0].name, "x1");
  EXPECT_EQ(two[2].name, "x1^2");
  EXPECT_EQ(two[3].name, "x1*x2");
  EXPECT_EQ(two[5].name, "1");
}

// a damped linear oscillator ẍ = −k x − c ẋ + b u with u = sin(2t), sampled with its exact
// derivatives (the forced solution plus a decaying free part, in closed form via RK-free algebra)
struct LinearData {
  Eigen::MatrixXd X, dX;
  double k = 40.0, c = 0.3, b = 7.0;
};

LinearData linear_oscillator() {
  LinearData d;
  const long n = 4000;
  const double dt = 2.5e-3, w = 2.0;
  // particular solution X_p sin + Y_p cos of ẍ + cẋ + kx = b sin(wt)
  const double den = (d.k - w * w) * (d.k - w * w) + (d.c * w) * (d.c * w);
  const double P = d.b * (d.k - w * w) / den, Q = -d.b * d.c * w / den;
  // homogeneous part e^{−σt}(cos ω_d t)
  const double sigma = d.c / 2, wd = std::sqrt(d.k - sigma * sigma);
  d.X.resize(n, fivsim::kSindyVars);
  d.dX.resize(n, 2);
  for (long i = 0; i < n; ++i) {
    const double t = i * dt, e = std::exp(-sigma * t);
    const double x = P * std::sin(w * t) + Q * std::cos(w * t) + e * std::cos(wd * t);
    const double v =
        P * w * std::cos(w * t) - Q * w * std::sin(w * t) + e * (-sigma * std::cos(wd * t) - wd * std::sin(wd * t));
    const double u = std::sin(w * t);
    d.X.row(i) << x, v, u, w * std::cos(w * t), v;  // w: no belt
    d.dX.row(i) << v, -d.k * x - d.c * v + d.b * u;
  }
  return d;
}

TEST(Sindy, StlsqRecoversALinearOscillatorExactlyAndDropsTheRest) {
  const LinearData d = linear_oscillator();
  std::vector<LibraryTerm> terms = polynomial_terms(2, true, true);  // 15 terms, 3 true ones
  const Eigen::MatrixXd theta = evaluate_library(terms, d.X);
  SindyOptions o;
  o.threshold = 0.05;
  const SindyFit fit = sindy_fit(theta, d.dX, o);
  for (std::size_t j = 0; j < terms.size(); ++j) {
    const std::string& n = terms[j].name;
    const double want1 = n == "x2" ? 1.0 : 0.0;
    const double want2 = n == "x1" ? -d.k : n == "x2" ? -d.c : n == "u" ? d.b : 0.0;
    EXPECT_NEAR(fit.xi(j, 0), want1, 1e-9 * std::max(1.0, std::abs(want1))) << n;
    EXPECT_NEAR(fit.xi(j, 1), want2, 1e-9 * std::max(1.0, std::abs(want2))) << n;
  }
  EXPECT_EQ(sindy_equation(fit.xi.col(1), terms, "dx2", 4), "dx2 = -40 x1 - 0.3 x2 + 7 u");
}

TEST(Sindy, Sr3AgreesWithStlsqAndKeepsFixedCoefficients) {
  const LinearData d = linear_oscillator();
  const std::vector<LibraryTerm> terms = polynomial_terms(1, true, false);  // x1 x2 u du
  const Eigen::MatrixXd theta = evaluate_library(terms, d.X);
  SindyOptions o;
  o.optimizer = "sr3";
  o.threshold = 0.05;
  // ẋ1 = x2 fixed, and a deliberately wrong fixed value for the ẋ2 coefficient of du
  for (int j = 0; j < 4; ++j) o.fixed.push_back({j, 0, j == 1 ? 1.0 : 0.0});
  const SindyFit free_fit = sindy_fit(theta, d.dX, o);
  EXPECT_NEAR(free_fit.xi(0, 1), -d.k, 1e-8 * d.k);
  EXPECT_NEAR(free_fit.xi(1, 1), -d.c, 1e-8);
  EXPECT_NEAR(free_fit.xi(2, 1), d.b, 1e-8 * d.b);
  EXPECT_EQ(free_fit.xi(3, 1), 0.0);
  EXPECT_EQ(free_fit.xi.col(0), Eigen::Vector4d(0, 1, 0, 0));
  o.fixed.push_back({3, 1, 0.5});
  const SindyFit pinned = sindy_fit(theta, d.dX, o);
  EXPECT_EQ(pinned.xi(3, 1), 0.5);
  // the other coefficients absorb the pinned term: the fit is no longer exact
  EXPECT_GT(std::abs(pinned.xi(2, 1) - d.b), 1e-3);
}

TEST(Sindy, LassoSelectsTheTrueTermsAndRefits) {
  const LinearData d = linear_oscillator();
  const std::vector<LibraryTerm> terms = polynomial_terms(2, true, true);
  SindyOptions o;
  o.optimizer = "lasso";
  o.alpha = 1e-3;  // on unit-rms columns: shrinks every coefficient by about 1e-3 before the refit
  o.threshold = 0.05;
  const SindyFit fit = sindy_fit(evaluate_library(terms, d.X), d.dX, o);
  for (std::size_t j = 0; j < terms.size(); ++j) {
    const std::string& n = terms[j].name;
    const double want = n == "x1" ? -d.k : n == "x2" ? -d.c : n == "u" ? d.b : 0.0;
    EXPECT_NEAR(fit.xi(j, 1), want, 1e-8 * std::max(1.0, std::abs(want))) << n;
  }
}

TEST(Sindy, RejectsMismatchedInput) {
  SindyOptions o;
  EXPECT_THROW(sindy_fit(Eigen::MatrixXd::Ones(5, 2), Eigen::MatrixXd::Ones(4, 2), o), std::invalid_argument);
  o.optimizer = "elastic_net";
  EXPECT_THROW(sindy_fit(Eigen::MatrixXd::Ones(5, 2), Eigen::MatrixXd::Ones(5, 2), o), std::invalid_argument);
}

// a decay factor of the relative velocity: parsed, evaluated, its rate set again by name; and
// terms that repeat others on every sample found with the terms they repeat
TEST(Sindy, DecayFactorsAndCollinearTerms) {
  const LibraryTerm t = parse_library_term("sgn(w) * exp(-2*abs(w))");
  EXPECT_EQ(t.name, "sgn(w)*exp(-2*abs(w))");
  const double x[kSindyVars] = {0.0, 1.0, 0.0, 0.0, -0.5};
  EXPECT_DOUBLE_EQ(evaluate_term(t, x), -std::exp(-1.0));
  const LibraryTerm r = with_decay_rate(t, 0.5);
  EXPECT_EQ(r.name, "sgn(w)*exp(-0.5*abs(w))");
  EXPECT_DOUBLE_EQ(evaluate_term(r, x), -std::exp(-0.25));
  EXPECT_THROW(parse_library_term("exp(-a*abs(w))"), std::invalid_argument);
  EXPECT_THROW(parse_library_term("exp(-0*abs(w))"), std::invalid_argument);
  std::vector<LibraryTerm> terms;
  for (const char* name : {"x1", "x2", "sgn(x2)*abs(x2)", "x1^2"}) terms.push_back(parse_library_term(name));
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(50, kSindyVars);
  for (long i = 0; i < 50; ++i) X.row(i) << std::sin(0.3 * i), std::cos(0.2 * i), 0.0, 0.0, std::cos(0.2 * i);
  const std::vector<std::string> found = collinear_terms(terms, evaluate_library(terms, X));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "'sgn(x2)*abs(x2)' is collinear with x2");
}

}  // namespace
}  // namespace fivsim
