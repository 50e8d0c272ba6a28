// tests/analysis/continuation_test.cpp — the pseudo-arclength engine (analysis/continuation.hpp) on
// problems whose branches and bifurcations are known in closed form: a fold of x² = p, and a Hopf
// point and a flutter point (two undamped pairs that collide) of linear fields.
#include "fivsim/analysis/continuation.hpp"

#include <cmath>
#include <complex>
#include <vector>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// F(x, p) = x² − p: the branch x = ±√p turns back at the fold (0, 0)
class Parabola : public ContinuationProblem {
 public:
  int size() const override { return 1; }
  bool evaluate(const VectorXd& x, double p, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    F = VectorXd::Constant(1, x(0) * x(0) - p);
    if (Fx) *Fx = MatrixXd::Constant(1, 1, 2.0 * x(0));
    if (Fp) *Fp = VectorXd::Constant(1, -1.0);
    return true;
  }
  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd& Fx) override {
    return Eigen::VectorXcd::Constant(1, Fx(0, 0));
  }
};

// F(x, p) = A(p) x − b with A = [[p − 0.3, −2], [2, p − 0.3]]: one equilibrium, eigenvalues
// p − 0.3 ± 2i, a Hopf point at p = 0.3 of frequency 2
class HopfPair : public ContinuationProblem {
 public:
  int size() const override { return 2; }
  MatrixXd A(double p) const { return (MatrixXd(2, 2) << p - 0.3, -2.0, 2.0, p - 0.3).finished(); }
  bool evaluate(const VectorXd& x, double p, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    F = A(p) * x - VectorXd::Ones(2);
    if (Fx) *Fx = A(p);
    if (Fp) *Fp = x;
    return true;
  }
  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd& Fx) override {
    return Eigen::EigenSolver<MatrixXd>(Fx, false).eigenvalues();
  }
};

// the undamped pair of oscillators ẍ + K(p) x = 0 with K = [[5, p], [−p, 3]]: frequencies²
// 4 ± √(1 − p²) collide at p = 1 and the pairs leave the axis (flutter), at ω = 2
class Flutter : public ContinuationProblem {
 public:
  int size() const override { return 4; }
  MatrixXd J(double p) const {
    MatrixXd j = MatrixXd::Zero(4, 4);
    j.topRightCorner(2, 2) = MatrixXd::Identity(2, 2);
    j.bottomLeftCorner(2, 2) = -(MatrixXd(2, 2) << 5.0, p, -p, 3.0).finished();
    return j;
  }
  bool evaluate(const VectorXd& x, double p, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    F = J(p) * x;
    if (Fx) *Fx = J(p);
    if (Fp) *Fp = VectorXd::Zero(4);
    return true;
  }
  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd& Fx) override {
    return Eigen::EigenSolver<MatrixXd>(Fx, false).eigenvalues();
  }
};

TEST(Continuation, FollowsAParabolaThroughItsFold) {
  Parabola problem;
  ContinuationSettings set;
  set.p_min = -1.0;
  set.p_max = 1.0;
  set.direction = -1;
  set.ds = 0.05;
  const ContinuationBranch b = continue_branch(problem, VectorXd::Constant(1, 1.0), 1.0, set);
  EXPECT_EQ(b.stop, "p_max reached");
  ASSERT_EQ(b.bifurcations.size(), 1u);
  EXPECT_EQ(b.bifurcations[0].kind, BifurcationKind::fold);
  // dp/ds = 2x·dx/ds vanishes with x: p = x² to the tolerance
  EXPECT_NEAR(b.bifurcations[0].p, 0.0, 1e-10);
  EXPECT_NEAR(b.bifurcations[0].x(0), 0.0, 1e-5);
  // every point on the curve, and the branch came back on the other side to p = 1
  for (const ContinuationPoint& pt : b.points) EXPECT_NEAR(pt.x(0) * pt.x(0), pt.p, 1e-10);
  EXPECT_NEAR(b.points.back().x(0), -1.0, 1e-10);
  EXPECT_EQ(b.points.back().p, 1.0);
  EXPECT_TRUE(b.points.front().max_real > 0.0 && b.points.back().max_real < 0.0);
}

TEST(Continuation, LocatesAHopfPointAndItsFrequency) {
  HopfPair problem;
  ContinuationSettings set;
  set.p_min = 0.0;
  set.p_max = 1.0;
  VectorXd x0 = VectorXd::Zero(2);
  ASSERT_TRUE(solve_at_fixed_parameter(problem, x0, 0.0, set));
  const ContinuationBranch b = continue_branch(problem, x0, 0.0, set);
  ASSERT_EQ(b.bifurcations.size(), 1u);
  EXPECT_EQ(b.bifurcations[0].kind, BifurcationKind::hopf);
  EXPECT_NEAR(b.bifurcations[0].p, 0.3, 1e-10);
  EXPECT_NEAR(b.bifurcations[0].frequency, 2.0, 1e-9);
  EXPECT_TRUE(b.points.front().stable);
  EXPECT_FALSE(b.points.back().stable);
  EXPECT_EQ(b.points.back().p, 1.0);
}

TEST(Continuation, LocatesAFlutterPointWhereTwoUndampedPairsCollide) {
  Flutter problem;
  ContinuationSettings set;
  set.p_min = 0.0;
  set.p_max = 2.0;
  const ContinuationBranch b = continue_branch(problem, VectorXd::Zero(4), 0.0, set);
  ASSERT_EQ(b.bifurcations.size(), 1u);
  EXPECT_EQ(b.bifurcations[0].kind, BifurcationKind::hopf);
  // the real parts near the double eigenvalue are ill-conditioned; its discriminant is not
  EXPECT_NEAR(b.bifurcations[0].p, 1.0, 1e-8);
  EXPECT_NEAR(b.bifurcations[0].frequency, 2.0, 1e-6);
  EXPECT_FALSE(b.points.front().stable);  // undamped: neutral, not asymptotically stable
}

// 2A ⊙ I has the sums of A's eigenvalue pairs as its own (the property the Hopf curves rest on),
// checked against Eigen's eigenvalues of A for a nonsymmetric 5 × 5 with a complex pair
TEST(Continuation, BialternateSumHasThePairSumsAsEigenvalues) {
  MatrixXd A(5, 5);
  A << 0.3, -1.2, 0.5, 0.0, 0.7, 1.1, -0.4, 0.2, 0.9, -0.3, -0.6, 0.8, 0.1, -1.5, 0.4, 0.2, 0.0, 1.3, -0.7, 0.6, 0.9,
      -0.5, -0.2, 0.3, -1.1;
  const Eigen::VectorXcd lambda = Eigen::EigenSolver<MatrixXd>(A, false).eigenvalues();
  const MatrixXd B = bialternate_sum(A);
  ASSERT_EQ(B.rows(), 10);
  Eigen::VectorXcd mu = Eigen::EigenSolver<MatrixXd>(B, false).eigenvalues();
  std::vector<bool> used(10, false);
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) {
      const std::complex<double> sum = lambda(i) + lambda(j);
      int best = -1;
      for (int k = 0; k < 10; ++k)
        if (!used[static_cast<std::size_t>(k)] && (best < 0 || std::abs(mu(k) - sum) < std::abs(mu(best) - sum)))
          best = k;
      EXPECT_NEAR(std::abs(mu(best) - sum), 0.0, 1e-12) << "λ" << i << " + λ" << j;
      used[static_cast<std::size_t>(best)] = true;
    }
}

}  // namespace
}  // namespace fivsim
