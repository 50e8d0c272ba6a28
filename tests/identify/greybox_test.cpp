// tests/identify/greybox_test.cpp — grey-box fitting (identify/greybox.hpp, seed 002 §3.3): least squares
// and RLS on an exact linear problem, Nelder–Mead on Rosenbrock's valley and against a bound, its
// batched simplices against the serial search and on a tilted double well, Levenberg–Marquardt
// against linear least squares and on an exponential decay, the genetic algorithm on Rastrigin's
// many minima, and the bundled grey-box configs recovering the
// generating parameters of noise-free simulated records within 1e-4 relative; the search on a
// closed-form response handed in as the configuration's callback.
#include "fivsim/identify/greybox.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "fivsim/identify/identification.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

TEST(Greybox, LeastSquaresAndRlsRecoverAnExactLinearModel) {
  Eigen::MatrixXd phi(200, 3);
  for (int i = 0; i < 200; ++i) phi.row(i) << std::sin(0.1 * i), std::cos(0.37 * i), 1.0 + 0.01 * i;
  const Eigen::Vector3d theta(2.5, -0.75, 0.125);
  const Eigen::VectorXd y = phi * theta;
  EXPECT_LT((least_squares_fit(phi, y) - theta).norm(), 1e-12);
  // RLS from P = 1e12·I: the prior's pull is 1e-12 relative
  EXPECT_LT((recursive_least_squares(phi, y) - theta).norm(), 1e-8);
}

TEST(Greybox, NelderMeadFollowsRosenbrocksValleyAndStopsAtABound) {
  auto rosenbrock = [](const Eigen::VectorXd& x) {
    return 100.0 * std::pow(x(1) - x(0) * x(0), 2) + std::pow(1.0 - x(0), 2);
  };
  const Eigen::Vector2d lo(-5, -5), hi(5, 5);
  const SearchResult r =
      nelder_mead(rosenbrock, Eigen::Vector2d(-1.2, 1.0), Eigen::Vector2d(0.5, 0.5), lo, hi, 5000, 1e-20, 1e-12);
  EXPECT_NEAR(r.x(0), 1.0, 1e-6);
  EXPECT_NEAR(r.x(1), 1.0, 1e-6);
  // the unconstrained minimum x = 3 lies outside [0, 2]
  const SearchResult b =
      nelder_mead([](const Eigen::VectorXd& x) { return (x(0) - 3) * (x(0) - 3); }, Eigen::VectorXd::Constant(1, 0.5),
                  Eigen::VectorXd::Constant(1, 0.2), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, 2.0));
  EXPECT_DOUBLE_EQ(b.x(0), 2.0);
}

// a batch objective that scores each column with f
BatchObjective batch_of(const Objective& f) {
  return [f](const Eigen::MatrixXd& pop) {
    Eigen::VectorXd v(pop.cols());
    for (long j = 0; j < pop.cols(); ++j) v(j) = f(pop.col(j));
    return v;
  };
}

// a simulated response's error carries noise from its located events: a minimum at a bound of
// the box (where the simplex flattens onto the bound) with 1e-9 of deterministic noise on top. The
// simplex ends one ulp wide, its shrink rounding back onto the same vertices and the values 1e-9
// apart, never within ftol (without the stall rule: 2000 iterations); it stops by its stall rule,
// both alone and stepped with others
TEST(Greybox, NelderMeadStopsAtANoisyObjectivesFloor) {
  auto noisy = [](const Eigen::VectorXd& x) {
    std::uint64_t bits[2];
    std::memcpy(bits, x.data(), sizeof bits);
    const double u = static_cast<double>((bits[0] * 0x9e3779b97f4a7c15ULL ^ bits[1]) * 0xbf58476d1ce4e5b9ULL >> 11) /
                     9007199254740992.0;
    return (x(0) + 1.0) * (x(0) + 1.0) + (x(1) - 2.661) * (x(1) - 2.661) + 1e-9 * u;
  };
  const Eigen::Vector2d lo(0, 0), hi(1, 5), x0(0.6, 1.7), scale(0.05, 0.25);
  const SearchResult serial = nelder_mead(noisy, x0, scale, lo, hi, 2000);
  const SearchResult batched = nelder_mead_simplices(batch_of(noisy), x0, scale, lo, hi, 2000);
  for (const SearchResult* r : {&serial, &batched}) {
    EXPECT_LT(r->iterations, 400);
    EXPECT_EQ(r->x(0), 0.0);
    EXPECT_NEAR(r->x(1), 2.661, 1e-4);  // the noise's reach: √1e-9
  }
}

TEST(Greybox, SimplicesTakeTheSerialStepsAndFindTheDeeperBasin) {
  auto rosenbrock = [](const Eigen::VectorXd& x) {
    return 100.0 * std::pow(x(1) - x(0) * x(0), 2) + std::pow(1.0 - x(0), 2);
  };
  const Eigen::Vector2d lo(-5, -5), hi(5, 5), scale(0.5, 0.5), x0(-1.2, 1.0);
  const SearchResult serial = nelder_mead(rosenbrock, x0, scale, lo, hi, 5000, 1e-20, 1e-12);
  const SearchResult one = nelder_mead_simplices(batch_of(rosenbrock), x0, scale, lo, hi, 5000, 1e-20, 1e-12);
  // every move evaluated ahead, the same rule picks among them: the same path to the bit
  EXPECT_EQ(one.x, serial.x);
  EXPECT_EQ(one.f, serial.f);
  EXPECT_EQ(one.iterations, serial.iterations);
  EXPECT_GT(one.evaluations, serial.evaluations);
  // a batch per iteration, a second for an iteration that shrinks, one for the first vertices
  EXPECT_GE(one.batches, one.iterations + 1);
  EXPECT_LE(one.batches, 2L * one.iterations + 1);
  EXPECT_EQ(serial.batches, 0);

  // a tilted double well (x² − 1)² + 0.3x: a local minimum near +0.96, the global one near −1.04,
  // both roots of 4x³ − 4x + 0.3 (Newton's method from ±1 gives them independently)
  auto well = [](const Eigen::VectorXd& x) { return std::pow(x(0) * x(0) - 1.0, 2) + 0.3 * x(0); };
  auto root = [](double x) {
    for (int i = 0; i < 50; ++i) x -= (4 * x * x * x - 4 * x + 0.3) / (12 * x * x - 4);
    return x;
  };
  const Eigen::VectorXd l = Eigen::VectorXd::Constant(1, -2.0), h = Eigen::VectorXd::Constant(1, 2.0),
                        s = Eigen::VectorXd::Constant(1, 0.1);
  const SearchResult local = nelder_mead(well, Eigen::VectorXd::Constant(1, 0.8), s, l, h, 500, 1e-20, 1e-12);
  EXPECT_NEAR(local.x(0), root(1.0), 1e-6);
  Eigen::MatrixXd starts(1, 3);
  starts << 0.8, 1.5, -0.3;
  const SearchResult many = nelder_mead_simplices(batch_of(well), starts, s, l, h, 500, 1e-20, 1e-12);
  EXPECT_NEAR(many.x(0), root(-1.0), 1e-6);
  EXPECT_LT(many.f, local.f);
}

TEST(Greybox, LevenbergMarquardtMatchesLinearLeastSquaresAndFitsADecay) {
  // r(x) = Φx − y: forward differences are exact, so the search ends at the least-squares answer
  Eigen::MatrixXd phi(50, 3);
  for (int i = 0; i < 50; ++i) phi.row(i) << 1.0, 0.1 * i, std::sin(0.3 * i);
  Eigen::VectorXd y(50);
  for (int i = 0; i < 50; ++i) y(i) = 0.5 + 0.2 * i * 0.1 - 0.7 * std::sin(0.3 * i) + 0.05 * std::cos(1.7 * i);
  const auto linear = [&](const Eigen::MatrixXd& pop) { return Eigen::MatrixXd((phi * pop).colwise() - y); };
  const Eigen::Vector3d lo(-10, -10, -10), hi(10, 10, 10);
  const SearchResult lin = levenberg_marquardt(linear, Eigen::Vector3d(1, 1, 1), lo, hi);
  EXPECT_LT((lin.x - least_squares_fit(phi, y)).norm(), 1e-8);
  EXPECT_EQ(lin.evaluations, 4L * (1 + 3L * lin.iterations));  // n + 1 columns per trial
  EXPECT_EQ(lin.batches, 1L + lin.iterations);

  // y = a e^(−bt) + c from a start 30 % off; b > 5 "fails to simulate" (NaN), which the search
  // steps around
  const Eigen::VectorXd t = Eigen::VectorXd::LinSpaced(200, 0.0, 4.0);
  const Eigen::Vector3d truth(2.0, 1.3, -0.4);
  const auto decay = [&](const Eigen::MatrixXd& pop) {
    Eigen::MatrixXd r(t.size(), pop.cols());
    for (long j = 0; j < pop.cols(); ++j) {
      const Eigen::Vector3d p = pop.col(j);
      r.col(j) = p(1) > 5.0 ? Eigen::VectorXd::Constant(t.size(), std::nan(""))
                            : Eigen::VectorXd(p(0) * (-p(1) * t.array()).exp() + p(2) -
                                              (truth(0) * (-truth(1) * t.array()).exp() + truth(2)));
    }
    return r;
  };
  const SearchResult d =
      levenberg_marquardt(decay, Eigen::Vector3d(2.6, 0.9, -0.28), Eigen::Vector3d(0, 0, -2), Eigen::Vector3d(5, 8, 2));
  EXPECT_LT((d.x - truth).cwiseQuotient(truth).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_LT(d.f, 1e-16);
  EXPECT_LT(d.iterations, 60);
}

TEST(Greybox, GeneticSearchFindsRastriginsGlobalBasin) {
  // 10·n + Σ(x² − 10 cos 2πx) has a local minimum near every integer point; the global one is 0
  auto rastrigin = [](const Eigen::VectorXd& x) {
    double f = 10.0 * x.size();
    for (long i = 0; i < x.size(); ++i) f += x(i) * x(i) - 10.0 * std::cos(2 * M_PI * x(i));
    return f;
  };
  const Eigen::Vector2d lo(-5.12, -5.12), hi(5.12, 5.12);
  auto batch = [&](const Eigen::MatrixXd& pop) {
    Eigen::VectorXd f(pop.cols());
    for (long j = 0; j < pop.cols(); ++j) f(j) = rastrigin(pop.col(j));
    return f;
  };
  const SearchResult g = genetic_search(batch, lo, hi, 64, 60, 7);
  EXPECT_LT(g.x.cwiseAbs().maxCoeff(), 0.2);  // inside the global basin (|x| < 0.5)
  EXPECT_EQ(g.evaluations, 64 * 61);
  const SearchResult again = genetic_search(batch, lo, hi, 64, 60, 7);
  EXPECT_EQ(g.x, again.x);  // deterministic for a seed
}

IdentificationResult run_bundled(const std::string& file, IdentifyConfig* out = nullptr) {
  const std::string dir = FIVSIM_SOURCE_DIR "/scenarios/identify/";
  const IdentifyConfig c = parse_identify_config(load_json_file(dir + file), dir);
  if (out) *out = c;
  return identify(c, identification_record(c));
}

TEST(Greybox, NelderMeadRecoversTheGeneratingParametersFromASimulatedRecord) {
  IdentifyConfig c;
  const IdentificationResult r = run_bundled("sdof_two_stop_greybox.json", &c);
  ASSERT_TRUE(r.greybox_search);
  ASSERT_EQ(c.parameters.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_NEAR(r.greybox.values(static_cast<long>(k)), c.parameters[k].truth, 1e-4 * c.parameters[k].truth)
        << c.parameters[k].path;
  EXPECT_LT(r.greybox.rmse, 1e-9);
}

// the search runs on the configuration's response callback alone, with no scenario: a closed-form
// damped oscillation x(t) = e^(−ζωt) cos(ω_d t), ω_d = ω√(1 − ζ²), sampled at 1 kHz, and its
// generating (ω, ζ) recovered by Nelder–Mead and by Levenberg–Marquardt from a start 5 % and 10 %
// off; a callback that fails at the start is the clear input error it was before
TEST(Greybox, SearchRunsOnAResponseCallback) {
  Record rec;
  const long n = 2001;
  rec.t = Eigen::VectorXd::LinSpaced(n, 0.0, 2.0);
  const auto response = [&](const Eigen::VectorXd& p) {
    const double w = p(0), z = p(1), wd = w * std::sqrt(1.0 - z * z);
    return Eigen::VectorXd((-z * w * rec.t.array()).exp() * (wd * rec.t.array()).cos());
  };
  const Eigen::Vector2d truth(9.0, 0.05);
  rec.x = response(truth);
  rec.v = Eigen::VectorXd::Zero(n);
  IdentifyConfig c;
  c.method = "greybox";
  c.greybox_optimizer = "nelder_mead";
  c.parameters = {{"/omega", 8.6, 7.0, 11.0}, {"/zeta", 0.055, 0.0, 0.2}};
  std::atomic<int> calls{0};  // the batches simulate side by side
  c.response = [&](const Eigen::VectorXd& values, const Record& r, std::string*) {
    ++calls;
    EXPECT_EQ(r.size(), n);
    return response(values);
  };
  const IdentificationResult r = identify(c, rec);
  ASSERT_TRUE(r.greybox_search);
  EXPECT_NEAR(r.greybox.values(0), truth(0), 1e-6 * truth(0));
  EXPECT_NEAR(r.greybox.values(1), truth(1), 1e-6 * truth(1));
  EXPECT_LT(r.greybox.rmse, 1e-8);
  EXPECT_GT(calls, 20);
  // Levenberg–Marquardt on the same residuals (simulations side by side: no sweep callbacks here)
  c.greybox_optimizer = "levenberg_marquardt";
  c.max_iter_search = 200;
  const IdentificationResult m = identify(c, rec);
  EXPECT_EQ(m.greybox.evaluated_by, "simulations");
  EXPECT_NEAR(m.greybox.values(0), truth(0), 1e-8 * truth(0));
  EXPECT_NEAR(m.greybox.values(1), truth(1), 1e-8 * truth(1));
  EXPECT_LT(m.greybox.evaluations, r.greybox.evaluations);
  c.response = [](const Eigen::VectorXd&, const Record&, std::string* why) {
    if (why) *why = "diverged";
    return Eigen::VectorXd();
  };
  try {
    identify(c, rec);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer, "/model/scenario");
    EXPECT_NE(std::string(e.what()).find("diverged"), std::string::npos);
  }
}

// the output error's covariance intervals (identify/fit_intervals.hpp, the Jacobian at the fit by
// one more batch of differences) on the two-stop record with 40 dB of white measurement noise on x:
// Levenberg–Marquardt from 20 % off, three noise seeds, every interval holds the truth and says
// something (k within 0.5 %, Ff within 1 % either side)
TEST(Greybox, OutputErrorIntervalsHoldTheTruthOnNoisyRecords) {
  const std::string dir = FIVSIM_SOURCE_DIR "/scenarios/identify/";
  for (int seed = 1; seed <= 3; ++seed) {
    json doc = load_json_file(dir + "sdof_two_stop_greybox.json");
    doc["options"] = {{"optimizer", "levenberg_marquardt"}};
    doc["noise"] = {{"snr_db", 40}, {"seed", seed}};
    const IdentifyConfig c = parse_identify_config(doc, dir);
    const IdentificationResult r = identify(c, identification_record(c));
    ASSERT_EQ(r.greybox.half_width.size(), 3);
    for (long k = 0; k < 3; ++k) {
      const double v = r.greybox.values(k), hw = r.greybox.half_width(k), truth = c.parameters[k].truth;
      EXPECT_LE(std::abs(v - truth), hw) << seed << " " << c.parameters[k].path;
    }
    EXPECT_LT(r.greybox.half_width(0), 5e-3 * c.parameters[0].truth) << seed;
    EXPECT_LT(r.greybox.half_width(2), 1e-2 * c.parameters[2].truth) << seed;
    EXPECT_LT(r.greybox.residual_rho1, 0.2) << seed;  // white noise on x dominates the residual
  }
}

TEST(Greybox, LeastSquaresRecoversEquation11FromTheSlipSamples) {
  IdentifyConfig c;
  const IdentificationResult r = run_bundled("sdof_two_stop_least_squares.json", &c);
  ASSERT_TRUE(r.greybox_equation);
  const SdofParameters e = relative_errors_percent(r.sindy.parameters, *c.truth);
  EXPECT_LT(e.k, 1e-2);  // percent: 1e-4 relative
  EXPECT_LT(e.c, 1e-2);
  EXPECT_LT(e.F, 1e-2);
}

TEST(Greybox, ConfigErrorsNameThePointer) {
  const std::string dir = FIVSIM_SOURCE_DIR "/scenarios/identify/";
  const json base = load_json_file(dir + "sdof_two_stop_greybox.json");
  auto error_of = [&](const std::string& assignment) -> std::string {
    json doc = base;
    apply_override(doc, assignment);
    try {
      (void)parse_identify_config(doc, dir);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of("/parameters/0/path=\"/model/zz\""),
            "/parameters/0/path: '/model/zz' is not a number of the model scenario");
  EXPECT_EQ(error_of("/parameters/1/bounds=[1,0]"), "/parameters/1/bounds: needs lower < upper");
  EXPECT_EQ(error_of("/parameters/2/initial=5"), "/parameters/2/initial: must lie within the bounds");
  EXPECT_EQ(error_of("/options/optimizer=\"least_squares\""),
            "/model: applies to the output-error optimizers (nelder_mead, genetic, levenberg_marquardt)");
  EXPECT_EQ(error_of("/options/threshold=0.1"),
            "/options/threshold: unknown key (allowed here: device, evaluate, "
            "max_iter, optimizer, order, seed, simplices, window, window_s)");
}

}  // namespace
}  // namespace fivsim
