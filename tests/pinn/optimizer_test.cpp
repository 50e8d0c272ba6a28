// tests/pinn/optimizer_test.cpp — Adam and L-BFGS (pinn/optimizer.hpp) on problems with known minima:
// an ill-conditioned quadratic (closed-form minimiser) and the Rosenbrock function (minimum at 1);
// and their reverse-communication form driven in lockstep over a batch of problems, against each
// problem minimised alone.
#include "fivsim/pinn/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

// f = ½ Σ d_i (x_i − i)², d_i from 1 to 1e4: minimiser x_i = i, minimum 0
struct Quadratic {
  int n;
  int calls = 0;
  double operator()(const double* x, double* g) {
    ++calls;
    double f = 0.0;
    for (int i = 0; i < n; ++i) {
      const double d = std::pow(1e4, double(i) / (n - 1)), e = x[i] - i;
      f += 0.5 * d * e * e;
      g[i] = d * e;
    }
    return f;
  }
};

double rosenbrock(const double* x, double* g) {
  const double a = 1 - x[0], b = x[1] - x[0] * x[0];
  g[0] = -2 * a - 400 * x[0] * b;
  g[1] = 200 * b;
  return a * a + 100 * b * b;
}

// minimises Rosenbrock from the classical start (−1.2, 1); x holds the end point
OptimizerResult minimize_rosenbrock(const OptimizerOptions& opt, double x[2]) {
  x[0] = -1.2;
  x[1] = 1.0;
  double g[2];
  std::vector<double> work(optimizer_work_size(2, opt));
  return minimize(2, x, g, rosenbrock, opt, work.data());
}

TEST(Lbfgs, MinimisesAnIllConditionedQuadratic) {
  const int n = 8;  // within the history of 10 pairs
  Quadratic f{n};
  OptimizerOptions opt;
  opt.max_iter = 500;
  opt.tol = 1e-24;
  std::vector<double> x(n, 0.0), g(n), work(optimizer_work_size(n, opt));
  const OptimizerResult r = minimize(n, x.data(), g.data(), f, opt, work.data());
  EXPECT_TRUE(r.converged) << "loss " << r.loss;
  for (int i = 0; i < n; ++i) EXPECT_NEAR(x[i], double(i), 1e-9);
  // quasi-Newton: a gradient method needs of the order of cond · ln(1/tol) ≈ 5e5 iterations here
  EXPECT_LT(r.iterations, 100);
  EXPECT_EQ(r.evaluations, f.calls);
}

TEST(Lbfgs, FindsTheRosenbrockMinimum) {
  OptimizerOptions opt;
  opt.max_iter = 1000;
  opt.tol = 1e-26;
  double x[2];
  const OptimizerResult r = minimize_rosenbrock(opt, x);
  EXPECT_TRUE(r.converged) << "loss " << r.loss;
  EXPECT_NEAR(x[0], 1.0, 1e-10);
  EXPECT_NEAR(x[1], 1.0, 1e-10);
}

TEST(Adam, ApproachesTheRosenbrockMinimumAndHandsOverToLbfgs) {
  OptimizerOptions opt;
  opt.kind = OptimizerKind::adam;
  opt.max_iter = 20000;
  opt.learning_rate = 1e-2;
  opt.tol = 1e-8;
  double x[2];
  const OptimizerResult r = minimize_rosenbrock(opt, x);
  EXPECT_TRUE(r.converged) << "loss " << r.loss;
  EXPECT_NEAR(x[0], 1.0, 1e-2);

  // adam + lbfgs: a few Adam steps, then L-BFGS to full precision
  opt.kind = OptimizerKind::adam_lbfgs;
  opt.adam_iter = 50;
  opt.max_iter = 1000;
  opt.tol = 1e-26;
  double y[2];
  const OptimizerResult r2 = minimize_rosenbrock(opt, y);
  EXPECT_TRUE(r2.converged) << "loss " << r2.loss;
  EXPECT_GE(r2.iterations, 50);
  EXPECT_NEAR(y[0], 1.0, 1e-10);
}

TEST(Lbfgs, StopsAtTheIterationCap) {
  OptimizerOptions opt;
  opt.max_iter = 3;
  opt.tol = 0.0;
  double x[2];
  const OptimizerResult r = minimize_rosenbrock(opt, x);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3);
}

// a batch in lockstep — each round evaluates every run that still wants an evaluation, then tells
// each its loss — ends where each problem minimised alone ends, bit for bit: the runs share
// nothing, whatever the order of the rounds. Shifted Rosenbrock problems stop after different
// numbers of iterations, so the batch's runs finish at different rounds.
TEST(Optimizer, LockstepBatchEqualsEachRunAlone) {
  for (const OptimizerKind kind : {OptimizerKind::lbfgs, OptimizerKind::adam, OptimizerKind::adam_lbfgs}) {
    OptimizerOptions opt;
    opt.kind = kind;
    opt.max_iter = kind == OptimizerKind::adam ? 300 : 200;
    opt.adam_iter = 40;
    opt.learning_rate = 1e-2;
    opt.tol = 1e-22;
    const int B = 5, n = 2;
    auto shifted = [](int b) {
      return [b](const double* x, double* g) {
        const double y[2] = {x[0] - 0.1 * b, x[1] + 0.05 * b};
        return rosenbrock(y, g);
      };
    };
    std::vector<double> x(B * n), g(B * n), work(B * optimizer_work_size(n, opt));
    const int ws = optimizer_work_size(n, opt);
    std::vector<OptimizerRun<double>> run(B);
    for (int b = 0; b < B; ++b) {
      x[b * n] = -1.2 + 0.1 * b;
      x[b * n + 1] = 1.0;
      optimizer_start(n, &x[b * n], opt, run[b], &work[b * ws]);
    }
    int rounds = 0;
    for (bool any = true; any; ++rounds) {
      std::vector<double> loss(B);
      for (int b = 0; b < B; ++b)
        if (!run[b].done())
          loss[b] = shifted(b)(optimizer_eval_x(n, &work[b * ws]), optimizer_eval_grad(n, &work[b * ws]));
      any = false;
      for (int b = 0; b < B; ++b)
        if (!run[b].done()) any = optimizer_tell(n, &x[b * n], &g[b * n], loss[b], opt, run[b], &work[b * ws]) || any;
    }
    int most = 0, fewest = 1 << 30;
    for (int b = 0; b < B; ++b) {
      double y[2] = {-1.2 + 0.1 * b, 1.0}, gy[2];
      std::vector<double> w(ws);
      const OptimizerResult alone = minimize(n, y, gy, shifted(b), opt, w.data());
      EXPECT_EQ(run[b].res.evaluations, alone.evaluations) << int(kind) << " problem " << b;
      EXPECT_EQ(run[b].res.iterations, alone.iterations);
      EXPECT_EQ(run[b].res.loss, alone.loss);
      EXPECT_EQ(run[b].res.converged, alone.converged);
      EXPECT_EQ(x[b * n], y[0]);
      EXPECT_EQ(x[b * n + 1], y[1]);
      most = std::max(most, alone.evaluations);
      fewest = std::min(fewest, alone.evaluations);
    }
    EXPECT_EQ(rounds, most);
    if (kind != OptimizerKind::adam) {
      EXPECT_LT(fewest, most);  // the runs do stop apart
    }
  }
}

}  // namespace
}  // namespace fivsim
