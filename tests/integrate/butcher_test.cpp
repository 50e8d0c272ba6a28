// tests/integrate/butcher_test.cpp — the computed Gauss–Legendre tables satisfy the simplifying order
// conditions B(2q), C(q) and D(q) (Butcher), which together give order 2q; RK4 has order 4.
#include "fivsim/integrate/butcher.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fivsim {
namespace {

// the conditions hold to a few units of rounding (measured worst: 1.1e-15 at q = 200)
double tol(int) { return 1e-14; }

TEST(Butcher, GaussLegendreOrderConditionsUpTo200Stages) {
  for (int q : {1, 2, 3, 4, 5, 7, 10, 16, 25, 40, 64, 100, 200}) {
    const ButcherTableau t = gauss_legendre(q);
    ASSERT_EQ(t.stages, q);
    EXPECT_EQ(t.order, 2 * q);
    // B(2q): Σ b_i c_i^(k−1) = 1/k
    for (int k = 1; k <= 2 * q; ++k) {
      double s = 0.0;
      for (int i = 0; i < q; ++i) s += t.b[i] * std::pow(t.c[i], k - 1);
      EXPECT_NEAR(s, 1.0 / k, tol(q)) << "B, q=" << q << " k=" << k;
    }
    // C(q): Σ_j a_ij c_j^(k−1) = c_i^k / k
    double worst_c = 0.0;
    for (int i = 0; i < q; ++i)
      for (int k = 1; k <= q; ++k) {
        double s = 0.0;
        for (int j = 0; j < q; ++j) s += t.A(i, j) * std::pow(t.c[j], k - 1);
        worst_c = std::max(worst_c, std::abs(s - std::pow(t.c[i], k) / k));
      }
    EXPECT_LE(worst_c, tol(q)) << "C, q=" << q;
    // D(q): Σ_i b_i c_i^(k−1) a_ij = b_j (1 − c_j^k) / k
    double worst_d = 0.0;
    for (int j = 0; j < q; ++j)
      for (int k = 1; k <= q; ++k) {
        double s = 0.0;
        for (int i = 0; i < q; ++i) s += t.b[i] * std::pow(t.c[i], k - 1) * t.A(i, j);
        worst_d = std::max(worst_d, std::abs(s - t.b[j] * (1.0 - std::pow(t.c[j], k)) / k));
      }
    EXPECT_LE(worst_d, tol(q)) << "D, q=" << q;
    // nodes strictly inside (0, 1), ascending, symmetric about ½
    for (int i = 0; i < q; ++i) {
      EXPECT_GT(t.c[i], 0.0);
      EXPECT_LT(t.c[i], 1.0);
      if (i > 0) {
        EXPECT_GT(t.c[i], t.c[i - 1]);
      }
      EXPECT_NEAR(t.c[i] + t.c[q - 1 - i], 1.0, 1e-14);
    }
  }
}

TEST(Butcher, TwoStageGaussMatchesTheTextbookTable) {
  const ButcherTableau t = gauss_legendre(2);
  const double r = std::sqrt(3.0) / 6.0;
  EXPECT_NEAR(t.c[0], 0.5 - r, 1e-15);
  EXPECT_NEAR(t.c[1], 0.5 + r, 1e-15);
  EXPECT_NEAR(t.A(0, 0), 0.25, 1e-15);
  EXPECT_NEAR(t.A(0, 1), 0.25 - r, 1e-15);
  EXPECT_NEAR(t.A(1, 0), 0.25 + r, 1e-15);
  EXPECT_NEAR(t.A(1, 1), 0.25, 1e-15);
  EXPECT_NEAR(t.b[0], 0.5, 1e-15);
}

TEST(Butcher, ClassicalRk4IsExplicitOfOrderFour) {
  const ButcherTableau t = classical_rk4();
  EXPECT_TRUE(t.explicit_method());
  EXPECT_FALSE(gauss_legendre(3).explicit_method());
  // the eight order conditions up to order 4
  const auto& b = t.b;
  const auto& c = t.c;
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0;
  for (int i = 0; i < 4; ++i) {
    double ac = 0, ac2 = 0, aac = 0;
    for (int j = 0; j < 4; ++j) {
      ac += t.A(i, j) * c[j];
      ac2 += t.A(i, j) * c[j] * c[j];
      double inner = 0;
      for (int k = 0; k < 4; ++k) inner += t.A(j, k) * c[k];
      aac += t.A(i, j) * inner;
    }
    s1 += b[i];
    s2 += b[i] * c[i];
    s3 += b[i] * c[i] * c[i];
    s4 += b[i] * ac;
    s5 += b[i] * c[i] * c[i] * c[i];
    s6 += b[i] * c[i] * ac;
    s7 += b[i] * ac2;
    s8 += b[i] * aac;
  }
  EXPECT_NEAR(s1, 1.0, 1e-15);
  EXPECT_NEAR(s2, 0.5, 1e-15);
  EXPECT_NEAR(s3, 1.0 / 3, 1e-15);
  EXPECT_NEAR(s4, 1.0 / 6, 1e-15);
  EXPECT_NEAR(s5, 0.25, 1e-15);
  EXPECT_NEAR(s6, 0.125, 1e-15);
  EXPECT_NEAR(s7, 1.0 / 12, 1e-15);
  EXPECT_NEAR(s8, 1.0 / 24, 1e-15);
}

TEST(Butcher, StageCountOutOfRangeIsRejected) {
  EXPECT_THROW(gauss_legendre(0), std::invalid_argument);
  EXPECT_THROW(gauss_legendre(kMaxGaussStages + 1), std::invalid_argument);
}

}  // namespace
}  // namespace fivsim
