// tests/core/small_eigenvalues_test.cpp — core/small_eigenvalues.hpp against matrices built with known
// eigenvalues (S D S⁻¹, D with real entries, zeros and rotation blocks) and against Eigen's
// EigenSolver on random matrices of sizes 1–12.
#include "fivsim/core/small_eigenvalues.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <complex>
#include <random>
#include <vector>

namespace fivsim {
namespace {

constexpr int N = 12;
using C = std::complex<double>;

std::vector<C> ours(const Eigen::MatrixXd& a) {
  const int n = static_cast<int>(a.rows());
  Mat<double, N, N> h;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) h(i, j) = a(i, j);
  double re[N], im[N];
  EXPECT_TRUE(small_eigenvalues(h, n, re, im));
  std::vector<C> out;
  for (int i = 0; i < n; ++i) out.emplace_back(re[i], im[i]);
  return out;
}

// the largest distance from each expected eigenvalue to a distinct one found (greedy matching)
double mismatch(std::vector<C> found, const std::vector<C>& expected) {
  EXPECT_EQ(found.size(), expected.size());
  double worst = 0.0;
  for (const C& e : expected) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < found.size(); ++i)
      if (std::abs(found[i] - e) < std::abs(found[best] - e)) best = i;
    worst = std::max(worst, std::abs(found[best] - e));
    found.erase(found.begin() + static_cast<long>(best));
  }
  return worst;
}

TEST(SmallEigenvalues, KnownSpectraWithZerosAndComplexPairs) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (int n : {1, 2, 3, 4, 5, 7, 9, 12}) {
    // D: a rotation block r(cos θ, sin θ) per pair while room is left, zeros and reals otherwise
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n, n);
    std::vector<C> expected;
    int i = 0;
    for (; i + 1 < n && i < n / 2; i += 2) {
      const double r = 0.2 + 0.3 * i, th = 0.4 + 0.5 * i;
      d(i, i) = d(i + 1, i + 1) = r * std::cos(th);
      d(i, i + 1) = -r * std::sin(th);
      d(i + 1, i) = r * std::sin(th);
      expected.emplace_back(r * std::cos(th), r * std::sin(th));
      expected.emplace_back(r * std::cos(th), -r * std::sin(th));
    }
    for (; i < n; ++i) {
      d(i, i) = i % 3 == 0 ? 0.0 : 0.9 - 0.35 * i;  // stick phases make multipliers exactly zero
      expected.emplace_back(d(i, i), 0.0);
    }
    Eigen::MatrixXd s(n, n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) s(r, c) = g(rng) + (r == c ? 2.0 : 0.0);
    const Eigen::MatrixXd a = s * d * s.inverse();
    const std::vector<C> found = ours(a);
    EXPECT_LE(mismatch(found, expected), 1e-10 * (1 + a.norm()))
        << "n = " << n << ", found " << Eigen::Map<const Eigen::VectorXcd>(found.data(), n).transpose();
  }
}

TEST(SmallEigenvalues, MatchEigensSolverOnRandomMatrices) {
  std::mt19937 rng(11);
  std::normal_distribution<double> g;
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % N;
    Eigen::MatrixXd a(n, n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) a(r, c) = g(rng) * (trial % 4 == 0 ? 1e3 : 1.0);
    Eigen::EigenSolver<Eigen::MatrixXd> es(a);
    const Eigen::VectorXcd ev = es.eigenvalues();
    const std::vector<C> expected(ev.data(), ev.data() + n);
    worst = std::max(worst, mismatch(ours(a), expected) / a.norm());
  }
  EXPECT_LE(worst, 1e-11);
}

}  // namespace
}  // namespace fivsim
