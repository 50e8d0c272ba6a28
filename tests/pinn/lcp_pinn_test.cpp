// tests/pinn/lcp_pinn_test.cpp — the LCP-PINN (pinn/lcp_pinn.hpp): seed 000 Table 1, random LCPs
// against Lemke, the loss gradient against finite differences, scale invariance, and the training
// in reverse communication against the same schedule written as nested loops and run in lockstep.
#include "fivsim/pinn/lcp_pinn.hpp"

#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "fivsim/lcp/lcp_lemke.hpp"
#include "lcp/lcp_test_problems.hpp"

namespace fivsim {
namespace {

using test::make_problem;
using test::Problem6;
using Workspace = LcpPinnWorkspace<double, 6>;

// the network's own answer (polish off, as in the seeds) and the polished one
class LcpPinnBothWays : public ::testing::TestWithParam<bool> {
 protected:
  LcpPinnSettings settings() const {
    LcpPinnSettings s;
    s.polish = GetParam();
    return s;
  }
};
INSTANTIATE_TEST_SUITE_P(Polish, LcpPinnBothWays, ::testing::Values(false, true));

TEST_P(LcpPinnBothWays, ReproducesSeed000Table1) {
  // A = [[1, −1], [−1, 0]], b = [−0.009, 0.02]: x = [0.009, 0], y = [0, 0.011]
  const Problem6 p = make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  auto ws = std::make_unique<Workspace>();
  test::Vec6 x, y;
  LcpOptions opt;
  const LcpResult r = lcp_pinn_solve(p.A, p.b, x, y, opt, settings(), *ws);
  ASSERT_EQ(r.status, Status::ok) << "residual " << r.residual << ", loss " << ws->last.loss;
  EXPECT_NEAR(x[0], 0.009, 1e-12);
  EXPECT_NEAR(x[1], 0.0, 1e-12);
  EXPECT_NEAR(y[0], 0.0, 1e-12);
  EXPECT_NEAR(y[1], 0.011, 1e-12);
  EXPECT_TRUE(ws->last.converged);
}

TEST_P(LcpPinnBothWays, AgreesWithLemkeOnRandomPMatrixProblems) {
  std::mt19937 rng(5);
  auto ws = std::make_unique<Workspace>();
  int solved = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 5;
    const Problem6 p = trial % 2 ? test::random_spd(rng, n) : test::random_p_matrix(rng, n);
    test::Vec6 xl, yl, xp, yp;
    LcpOptions opt;
    ASSERT_EQ(lemke_solve(p.A, p.b, xl, yl, opt).status, Status::ok);
    // a fresh network for each problem (no warm start across unrelated problems)
    ws->trained = false;
    const LcpResult r = lcp_pinn_solve(p.A, p.b, xp, yp, opt, settings(), *ws);
    if (r.status != Status::ok) {
      ADD_FAILURE() << "trial " << trial << " n " << n << ": " << r.status << " residual " << r.residual << " loss "
                    << ws->last.loss;
      continue;
    }
    ++solved;
    // a P-matrix LCP has one solution: the PINN must find Lemke's
    for (int i = 0; i < n; ++i) EXPECT_NEAR(xp[i], xl[i], 1e-8 * (1 + std::abs(xl[i]))) << "trial " << trial;
  }
  EXPECT_EQ(solved, 40);
}

// a training stopped early (4 L-BFGS iterations, no restart) leaves the loss far above its
// tolerance: alone it fails the acceptance test, with the polish the active set it chose gives the
// exact answer
TEST(LcpPinn, PolishFinishesAStoppedTraining) {
  const Problem6 p = make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  for (bool polish : {false, true}) {
    auto ws = std::make_unique<Workspace>();
    LcpPinnSettings s;
    s.polish = polish;
    s.restarts = 0;
    s.optimizer.max_iter = 4;
    test::Vec6 x, y;
    const LcpResult r = lcp_pinn_solve(p.A, p.b, x, y, LcpOptions{}, s, *ws);
    EXPECT_FALSE(ws->last.converged);
    if (!polish) {
      EXPECT_EQ(r.status, Status::lcp_inaccurate) << "residual " << r.residual << " loss " << ws->last.loss;
    } else {
      ASSERT_EQ(r.status, Status::ok);
      EXPECT_LE(r.residual, 1e-17);
      EXPECT_NEAR(x[0], 0.009, 1e-17);
      EXPECT_EQ(x[1], 0.0);
    }
  }
}

// regression: the friction LCP of the 5-slider chain (seed 001 §3.2) at t = 150.244 s, where in a
// pinn_central run the network, warm-started from the previous step and trained on the uniformly
// scaled problem, settled on a wrong pattern (loss 1e-6, two sticking sliders taken as slipping:
// their friction bounds, 0.0036, are 1e-3 of the largest free velocity) until the equilibrated
// second pass was added; from a fresh start the solver must return Lemke's answer
TEST(LcpPinn, SolvesTheFiveSliderFrictionLcp) {
  const double bv[10] = {1.657742280783969,
                         -0.00024205424729082216,
                         0.86286258648116865,
                         -0.0036369609751646143,
                         1.1607209267217351,
                         0.0013501060928052676,
                         0.0036,
                         0.0013628099129274983,
                         0.0036,
                         0.0013521209847664429};
  LcpMatrix<double, 10> A;
  LcpVector<double, 10> b, x, y, xl, yl;
  A.resize(10, 10);
  b.resize(10);
  for (int i = 0; i < 5; ++i) {
    A(i, i) = 1.0;  // slip velocity rows: y = u_free + P + γ
    A(i, 5 + i) = 1.0;
    A(5 + i, i) = -1.0;  // friction cone rows: y = bound − P
  }
  for (int i = 0; i < 10; ++i) b[i] = bv[i];
  ASSERT_EQ(lemke_solve(A, b, xl, yl, LcpOptions{}).status, Status::ok);
  auto ws = std::make_unique<LcpPinnWorkspace<double, 10>>();
  const LcpResult r = lcp_pinn_solve(A, b, x, y, LcpOptions{}, LcpPinnSettings{}, *ws);
  ASSERT_EQ(r.status, Status::ok) << "residual " << r.residual << " loss " << ws->last.loss;
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(x[i], xl[i], 1e-12) << i;
}

TEST(LcpPinn, LossGradientMatchesFiniteDifferences) {
  const Problem6 p = make_problem({{2, 1, 0}, {0.5, 3, -1}, {0, 1, 4}}, {-1, 0.5, -2});
  const double out[6] = {0.3, 0.1, 0.7, 0.2, 0.05, 0.4};
  double g[6], gdum[6];
  lcp_pinn_loss(p.A, p.b, out, g);
  for (int k = 0; k < 6; ++k) {
    double plus[6], minus[6];
    for (int i = 0; i < 6; ++i) plus[i] = minus[i] = out[i];
    plus[k] += 1e-6;
    minus[k] -= 1e-6;
    const double fd = (lcp_pinn_loss(p.A, p.b, plus, gdum) - lcp_pinn_loss(p.A, p.b, minus, gdum)) / 2e-6;
    EXPECT_NEAR(g[k], fd, 1e-8);
  }
}

TEST(LcpPinn, SolvesTheSameProblemAtAnyScale) {
  // impulses of a contact step are ~1e-5: the scaled training finds them as well as unit ones
  const Problem6 p = make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  for (double scale : {1e-6, 1.0, 1e4}) {
    Problem6 q = p;
    for (int i = 0; i < 2; ++i) q.b[i] *= scale;
    auto ws = std::make_unique<Workspace>();
    test::Vec6 x, y;
    const LcpResult r = lcp_pinn_solve(q.A, q.b, x, y, LcpOptions{}, LcpPinnSettings{}, *ws);
    ASSERT_EQ(r.status, Status::ok) << "scale " << scale;
    EXPECT_NEAR(x[0] / scale, 0.009, 1e-11) << "scale " << scale;
    EXPECT_NEAR(y[1] / scale, 0.011, 1e-11) << "scale " << scale;
  }
}

TEST(LcpPinn, WarmStartTrainsFewerIterations) {
  const Problem6 p = make_problem({{1, -1}, {-1, 0}}, {-0.009, 0.02});
  Problem6 q = p;
  q.b[0] = -0.0091;  // the next step's problem: close to the last one
  auto ws = std::make_unique<Workspace>();
  test::Vec6 x, y;
  ASSERT_EQ(lcp_pinn_solve(p.A, p.b, x, y, LcpOptions{}, LcpPinnSettings{}, *ws).status, Status::ok);
  const int cold = ws->last.iterations;
  ASSERT_EQ(lcp_pinn_solve(q.A, q.b, x, y, LcpOptions{}, LcpPinnSettings{}, *ws).status, Status::ok);
  EXPECT_LT(ws->last.iterations, cold);
  EXPECT_NEAR(x[0], 0.0091, 1e-12);
}

// the solve's schedule written the plain way, as nested loops over the two passes and the attempts
// of each, every training one minimize call: lcp_pinn_start / lcp_pinn_tell must be this schedule
template <int Cap>
LcpResult nested_loop_solve(const LcpMatrix<double, Cap>& A, const LcpVector<double, Cap>& b, LcpVector<double, Cap>& x,
                            LcpVector<double, Cap>& y, const LcpOptions& opt, const LcpPinnSettings& set,
                            LcpPinnWorkspace<double, Cap>& ws) {
  const int n = A.rows;
  x.n = y.n = n;
  double beta = 0;
  for (int i = 0; i < n; ++i) beta = std::max(beta, std::abs(b[i]));
  const MlpLayout L = lcp_pinn_layout(set, n);
  const int np = L.param_count();
  const bool same_shape = ws.trained && ws.layout.param_count() == np && ws.layout.outputs() == 2 * n;
  ws.layout = L;
  const double one = 1;
  auto objective = [&](const double* p, double* g) {
    const double* out = mlp_forward(L, p, &one, ws.cache);
    const double loss = lcp_pinn_loss(ws.A, ws.b, out, ws.d_out);
    for (int i = 0; i < np; ++i) g[i] = 0;
    mlp_backward(L, p, ws.cache, ws.d_out, g, ws.scratch);
    return loss;
  };
  OptimizerResult total;
  if (!(set.warm_start && same_shape)) mlp_init(L, set.seed, 0, ws.params);
  LcpResult res;
  for (int pass = 0; pass < 2; ++pass) {
    lcp_pinn_scale(A, b, beta, pass == 1, ws);
    if (pass == 1) mlp_init(L, set.seed, uint64_t(set.restarts + 1), ws.params);
    for (int attempt = 0; attempt <= set.restarts; ++attempt) {
      const bool lift = attempt % 2 == 1;
      if (attempt > 0 && !(lift && lcp_pinn_lift_blocked_outputs(L, ws.params, ws.A, ws.b, ws.cache, ws.d_out)))
        mlp_init(L, set.seed, uint64_t(attempt + pass * (set.restarts + 1)), ws.params);
      const OptimizerResult r = minimize(np, ws.params, ws.grad, objective, set.optimizer, ws.work);
      total.iterations += r.iterations;
      total.evaluations += r.evaluations;
      total.loss = r.loss;
      total.converged = r.converged;
      if (set.polish && lcp_pinn_polish(A, b, mlp_forward(L, ws.params, &one, ws.cache), x, y, opt)) {
        ws.last = total;
        ws.trained = true;
        return lcp_accept(b, x, y, opt, total.iterations);
      }
      if (r.converged) break;
    }
    ws.last = total;
    ws.trained = true;
    const double* out = mlp_forward(L, ws.params, &one, ws.cache);
    for (int i = 0; i < n; ++i) x[i] = out[i] * ws.col_scale[i];
    res = lcp_finish(A, b, x, y, opt, total.iterations);
    if (res.status == Status::ok) break;
  }
  return res;
}

// settings that reach every branch of the schedule: short trainings that stall (lifts, fresh
// starts, the equilibrated pass), with and without the polish
std::vector<LcpPinnSettings> schedule_settings() {
  std::vector<LcpPinnSettings> all;
  for (int max_iter : {3, 12, 2000})
    for (bool polish : {false, true}) {
      LcpPinnSettings s;
      s.optimizer.max_iter = max_iter;
      s.polish = polish;
      s.restarts = 4;
      all.push_back(s);
    }
  return all;
}

TEST(LcpPinn, ReverseCommunicationIsTheNestedLoopSchedule) {
  std::mt19937 rng(11);
  int passes = 0, restarts = 0;
  for (const LcpPinnSettings& s : schedule_settings())
    for (int trial = 0; trial < 12; ++trial) {
      const int n = 2 + trial % 5;
      const Problem6 p = trial % 2 ? test::random_spd(rng, n) : test::random_p_matrix(rng, n);
      auto a = std::make_unique<Workspace>();
      auto b = std::make_unique<Workspace>();
      test::Vec6 xa, ya, xb, yb;
      // twice each: the second solve warm-starts from the first's weights
      for (int again = 0; again < 2; ++again) {
        const LcpResult ra = lcp_pinn_solve(p.A, p.b, xa, ya, LcpOptions{}, s, *a);
        const LcpResult rb = nested_loop_solve(p.A, p.b, xb, yb, LcpOptions{}, s, *b);
        ASSERT_EQ(ra.status, rb.status) << trial;
        EXPECT_EQ(ra.iterations, rb.iterations);
        EXPECT_EQ(ra.residual, rb.residual);
        EXPECT_EQ(a->last.evaluations, b->last.evaluations);
        EXPECT_EQ(a->last.loss, b->last.loss);
        for (int i = 0; i < n; ++i) {
          EXPECT_EQ(xa[i], xb[i]) << trial << " " << i;
          EXPECT_EQ(ya[i], yb[i]) << trial << " " << i;
        }
        passes += a->restarts_used > s.restarts;
        restarts += a->restarts_used > 0;
      }
    }
  // the settings did reach the restarts and the second pass
  EXPECT_GT(restarts, 0);
  EXPECT_GT(passes, 0);
}

// many solves trained in lockstep — all started, then one evaluation and one tell each per round,
// each with its own workspace — end as each solved alone, bit for bit
TEST(LcpPinn, LockstepSolvesEqualEachSolvedAlone) {
  std::mt19937 rng(3);
  const std::vector<LcpPinnSettings> settings = schedule_settings();
  constexpr int kSolves = 24;
  std::vector<Problem6> problems;
  for (int k = 0; k < kSolves; ++k)
    problems.push_back(k % 2 ? test::random_spd(rng, 2 + k % 5) : test::random_p_matrix(rng, 2 + k % 5));
  std::vector<std::unique_ptr<Workspace>> lock(kSolves);
  std::vector<test::Vec6> x(kSolves), y(kSolves);
  std::vector<bool> training(kSolves);
  for (int k = 0; k < kSolves; ++k) {
    lock[k] = std::make_unique<Workspace>();
    const Problem6& p = problems[k];
    training[k] = lcp_pinn_start(p.A, p.b, x[k], y[k], LcpOptions{}, settings[k % settings.size()], *lock[k]);
  }
  int rounds = 0;
  for (bool any = true; any; ++rounds) {
    std::vector<double> loss(kSolves);
    for (int k = 0; k < kSolves; ++k)
      if (training[k]) loss[k] = lcp_pinn_evaluate(*lock[k]);
    any = false;
    for (int k = 0; k < kSolves; ++k)
      if (training[k]) {
        const Problem6& p = problems[k];
        training[k] = lcp_pinn_tell(p.A, p.b, x[k], y[k], settings[k % settings.size()], *lock[k], loss[k]);
        any = any || training[k];
      }
  }
  for (int k = 0; k < kSolves; ++k) {
    auto alone = std::make_unique<Workspace>();
    test::Vec6 xa, ya;
    const Problem6& p = problems[k];
    const LcpResult r = lcp_pinn_solve(p.A, p.b, xa, ya, LcpOptions{}, settings[k % settings.size()], *alone);
    EXPECT_EQ(lock[k]->run.res.status, r.status) << k;
    EXPECT_EQ(lock[k]->run.res.residual, r.residual) << k;
    EXPECT_EQ(lock[k]->last.evaluations, alone->last.evaluations) << k;
    for (int i = 0; i < p.A.rows; ++i) EXPECT_EQ(x[k][i], xa[i]) << k << " " << i;
  }
  EXPECT_GT(rounds, 10);
}

}  // namespace
}  // namespace fivsim
