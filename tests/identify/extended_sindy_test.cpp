// tests/identify/extended_sindy_test.cpp — extended SINDy (identify/extended_sindy.hpp,
// identify/identification.hpp): the bounds of Eqs. 16–17 against hand sums, segregation (Eq. 15),
// and the seed 003 synthetic cases — continuous motion within 1% (k, F), and the two-stop case where
// extended SINDy beats plain SINDy.
#include "fivsim/identify/extended_sindy.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <gtest/gtest.h>

#include "fivsim/identify/identification.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/scenario.hpp"
#include "identify/identify_test_problems.hpp"

namespace fivsim {
namespace {

TEST(StickSlipBounds, AreTheMaxHoldingAndMinFrictionForces) {
  const double x1[3] = {0.1, -0.2, 0.05}, u[3] = {0.0, 0.1, 0.3}, du[3] = {1.0, -2.0, 0.5};
  const double x2[3] = {0.4, -0.3, 0.2}, dx2[3] = {-1.0, 2.0, 0.7};
  const BoundSamples stop{x1, nullptr, nullptr, u, du, 3};
  const BoundSamples slip{x1, x2, dx2, u, du, 3};
  const double k = 10.0, c = 0.5;
  double phi1 = 0.0, phi2 = 1e300;
  for (int j = 0; j < 3; ++j) {
    phi1 = std::max(phi1, std::abs(c * du[j] + k * u[j] - k * x1[j]));
    phi2 = std::min(phi2, std::abs(c * du[j] + k * u[j] - k * x1[j] - dx2[j] - c * x2[j]));
  }
  // the sums are grouped differently (k(u − x1) there): equal to rounding
  EXPECT_NEAR(stick_lower_bound(stop, k, c), phi1, 1e-14);
  EXPECT_NEAR(slip_upper_bound(slip, k, c), phi2, 1e-14);
  // the grid picks the point of least |Φ2 − Φ1| and F* = Φ1 there
  const BoundSurfaces b = stick_slip_bounds(stop, slip, {9.0, 11.0, 5}, {0.0, 1.0, 3});
  double best = 1e300;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) best = std::min(best, std::abs(b.phi2(i, j) - b.phi1(i, j)));
  EXPECT_EQ(b.D_min, best);
  EXPECT_EQ(b.F_star, stick_lower_bound(stop, b.k_star, b.c_star));
}

TEST(StickSlipBounds, SegregateByVelocity) {
  Eigen::VectorXd v(6);
  v << 0.0, 1e-8, -5e-4, 2e-3, -0.1, 1e-3;
  const Segregation s = segregate_stick_slip(v, 1e-7, 1e-3);
  EXPECT_EQ(s.stop, (std::vector<long>{0, 1}));
  EXPECT_EQ(s.slip, (std::vector<long>{3, 4}));
}

// seed 003 Table 1 system at one forcing frequency, sampled at 5 kHz for 20 s
IdentifyConfig seed003_config(const std::string& method, double f_hz, int window) {
  IdentifyConfig c;
  c.name = "test";
  c.method = method;
  c.simulate = true;
  const BaseExcitedParams p = fivsim_test::seed003_oscillator(f_hz);
  c.model = make_base_excited_sdof(p);
  c.input = IdentifyConfig::SimulatedInput::base_sine;
  c.input_amplitude = p.A;
  c.t_end = 20.0;
  c.sample_dt = 2e-4;
  c.window = window;
  c.library = polynomial_terms(1, true, false);
  c.library.push_back(parse_library_term("sgn(x2)"));
  c.sindy.optimizer = method == "sindy" ? "stlsq" : "sr3";
  c.sindy.threshold = method == "sindy" ? 0.01 : 0.05;
  c.truth = SdofParameters{p.k, p.c, p.Fn};
  return c;
}

TEST(Identification, SindyFindsTheContinuousMotionOscillatorWithinOnePercent) {
  // 2.013 Hz never stops after the start; the damping force (≈ 1e-3 N/kg) is 1/60 of the friction
  // force, so only k and F carry the 1% bound (the seed's c error is 23%). Window 11: the
  // acceleration jumps by 2F at every reversal and a narrow filter smears fewer samples.
  const IdentifyConfig c = seed003_config("sindy", 2.013, 11);
  const IdentificationResult r = identify(c, identification_record(c));
  const SdofParameters e = relative_errors_percent(r.sindy.parameters, *c.truth);
  EXPECT_LT(e.k, 1.0);
  EXPECT_LT(e.F, 1.0);
  EXPECT_EQ(r.sindy.equation.xi.col(0), (Eigen::VectorXd(5) << 0, 1, 0, 0, 0).finished());  // ẋ1 = x2
  EXPECT_TRUE(r.sindy.response.finite);
  EXPECT_LT(r.sindy.response.rmse, 1e-5);  // m; the response amplitude is ≈ 1.5e-3 m
}

TEST(Identification, ExtendedSindyBeatsSindyOnTheTwoStopCase) {
  // seed 003 Table 5, two-stop: SINDy (6.19, 623, 82.35)% against extended (0.84, 23.07, 5.88)%
  // the default grid (201 × 201 around the slip-sample estimate): D is nearly flat along a curve in
  // (k̂, ĉ), so the argmin, and with it ĉ*, moves with the grid (docs/IDENTIFY.md)
  IdentifyConfig c = seed003_config("extended_sindy", 0.95, 35);
  c.step3 = "grid";
  const IdentificationResult r = identify(c, identification_record(c));
  ASSERT_FALSE(r.converges_to_sindy);
  EXPECT_GT(r.n_stop, 1000);
  const SdofParameters plain = relative_errors_percent(r.sindy.parameters, *c.truth);
  const SdofParameters ext = relative_errors_percent(r.extended_sindy.parameters, *c.truth);
  EXPECT_GT(plain.k, 5.0);  // SINDy over stick and slip samples is biased, as in the seed
  EXPECT_GT(plain.F, 20.0);
  EXPECT_LT(ext.k, 1.0);
  EXPECT_LT(ext.c, 40.0);
  EXPECT_LT(ext.F, 6.0);
  EXPECT_LT(r.extended_sindy.response.rmse, r.sindy.response.rmse / 10);
}

// a two-stop record: k̂ = 250, ĉ = 0.08, F̂f = 0.11 at 0.8 Hz, two stops a cycle, 20 s at `dt`
IdentifyConfig measured_rate_config(double dt, int window, const std::string& step3) {
  IdentifyConfig c = seed003_config("extended_sindy", 0.8, window);
  BaseExcitedParams p = fivsim_test::seed003_oscillator(0.8);
  p.k = 250.0;
  p.c = 0.08;
  p.Fn = 0.11;
  c.model = make_base_excited_sdof(p);
  c.sample_dt = dt;
  c.truth = SdofParameters{p.k, p.c, p.Fn};
  c.step3 = step3;
  c.device = "cpu";
  return c;
}

TEST(Identification, HeldStepThreeKeepsTheSlipPrecisionWhereTheGridLosesIt) {
  // at 1 kHz (an 11-sample, 11 ms derivative window) and 5 kHz (35 samples, 7 ms) step 2 is within
  // 1e-3 % on k and F; the held regression stays within 1e-3 %, where the seed's grid argmin moves
  // k by 3 % at 1 kHz (window 35, the default): the stick bound of the last stop sample before a
  // break-away is below the static force by up to a sample period of force rate
  for (const auto& [dt, window] : {std::pair<double, int>{1e-3, 11}, {2e-4, 35}}) {
    const IdentifyConfig c = measured_rate_config(dt, window, "held");
    const IdentificationResult r = identify(c, identification_record(c));
    ASSERT_FALSE(r.converges_to_sindy);
    ASSERT_TRUE(r.held.ok);
    const SdofParameters e = relative_errors_percent(r.extended_sindy.parameters, *c.truth);
    EXPECT_LT(e.k, 1e-3) << dt;
    EXPECT_LT(e.F, 1e-3) << dt;
    // the interval's width reflects the residual: tiny on a clean record
    EXPECT_LT(std::sqrt(r.held.covariance(0, 0)), 1e-3 * c.truth->k) << dt;
  }
  const IdentifyConfig grid = measured_rate_config(1e-3, 35, "grid");
  const IdentifyConfig held = measured_rate_config(1e-3, 35, "held");
  const SdofParameters eg =
      relative_errors_percent(identify(grid, identification_record(grid)).extended_sindy.parameters, *grid.truth);
  const SdofParameters eh =
      relative_errors_percent(identify(held, identification_record(held)).extended_sindy.parameters, *held.truth);
  EXPECT_GT(eg.k, 3.0);
  EXPECT_LT(eh.k, 1.0);
  EXPECT_LT(eh.F, 1.0);
}

TEST(Identification, HeldIntervalsHoldTheTruthAtMeasuredRates) {
  // that clean record at 200 Hz, 1 kHz and 5 kHz with the default derivative window (7 ms:
  // 5, 7 and 35 samples): k and F within 1 %, and each 95 % interval (a bootstrap over the 14
  // input cycles, widened by the change with the window doubled) holds the truth
  for (const double dt : {5e-3, 1e-3, 2e-4}) {
    const IdentifyConfig c = measured_rate_config(dt, 0, "held");
    const IdentificationResult r = identify(c, identification_record(c));
    ASSERT_FALSE(r.converges_to_sindy);
    ASSERT_TRUE(r.has_held_intervals) << dt;
    const HeldIntervals& u = r.held_intervals;
    EXPECT_TRUE(u.bootstrap) << dt;
    EXPECT_GE(u.cycles, 14) << dt;  // u = A sin ωt crosses its mean upward at 1.25 s, …, 18.75 s (and 20 s)
    const SdofParameters e = relative_errors_percent(r.extended_sindy.parameters, *c.truth);
    EXPECT_LT(e.k, 1.0) << dt;
    EXPECT_LT(e.F, 1.0) << dt;
    const double truth[3] = {c.truth->k, c.truth->c, c.truth->F};
    for (int i = 0; i < 3; ++i) {
      EXPECT_LE(u.lo[i], truth[i]) << dt << " parameter " << i;
      EXPECT_GE(u.hi[i], truth[i]) << dt << " parameter " << i;
    }
    // and says something: k and F to within 2 % either side
    EXPECT_LT(u.hi[0] - u.lo[0], 0.04 * truth[0]) << dt;
    EXPECT_LT(u.hi[2] - u.lo[2], 0.04 * truth[2]) << dt;
  }
}

// the covariance intervals of a SINDy fit (identify/fit_intervals.hpp, widened by the doubled
// window's change) where its one equation fits the samples: every sample of the continuous motion,
// the slip samples of the two-stop record (the 35-sample window of the bundled configs; an 11-sample
// one lets STLSQ drop the c term, a choice of model no interval covers); and where it does not —
// SINDy through stick and slip samples — a narrow interval around the biased estimate: the
// covariance sees scatter, not a wrong equation
TEST(Identification, SindyIntervalsHoldTheTruthWhereTheEquationFits) {
  auto holds = [](const SindyReport& r, const SdofParameters& t, const char* what) {
    EXPECT_TRUE(r.has_interval) << what;
    EXPECT_LE(r.lo.k, t.k) << what;
    EXPECT_GE(r.hi.k, t.k) << what;
    EXPECT_LE(r.lo.c, t.c) << what;
    EXPECT_GE(r.hi.c, t.c) << what;
    EXPECT_LE(r.lo.F, t.F) << what;
    EXPECT_GE(r.hi.F, t.F) << what;
    EXPECT_LT(r.hi.k - r.lo.k, 0.02 * t.k) << what;  // and they say something
    EXPECT_LT(r.hi.F - r.lo.F, 0.1 * t.F) << what;
  };
  const IdentifyConfig continuous = seed003_config("sindy", 2.013, 35);
  holds(identify(continuous, identification_record(continuous)).sindy, *continuous.truth, "continuous");
  IdentifyConfig two_stop = seed003_config("extended_sindy", 0.95, 35);
  const IdentificationResult r = identify(two_stop, identification_record(two_stop));
  holds(r.slip_sindy, *two_stop.truth, "two-stop slip samples");
  holds(r.extended_sindy, *two_stop.truth, "two-stop held");
  EXPECT_LT(r.sindy.hi.k, two_stop.truth->k);
}

// the rate study's noisy two-stop rows (scripts/studies/identify_rate_study.py, docs/IDENTIFY.md): 60 dB
// (σ = 1.4e-6 mm on x, seed 1) at 1 kHz and 10 kHz, thresholds by the seed's rule from σ_v; the
// held step 3 within the study's stated bounds (k̂ 0.011 %, F̂f 0.043 %) with intervals that hold
// the truth
TEST(Identification, NoisyRecordsStayWithinTheRateStudysBounds) {
  const std::string dir = FIVSIM_SOURCE_DIR "/scenarios/identify/";
  for (const double rate : {1000.0, 10000.0}) {
    json doc = {{"name", "rate_study"},
                {"method", "extended_sindy"},
                {"data",
                 {{"scenario", FIVSIM_SOURCE_DIR "/scenarios/sdof_base_two_stop.json"},
                  {"set", {{"/model/f_hz", 0.95}}},
                  {"t_end", 20.0},
                  {"sample_dt", 1.0 / rate}}},
                {"library", {{"polynomial_degree", 1}, {"input", true}, {"sign", true}}},
                {"noise", {{"std", 1.4e-9}, {"seed", 1}}},
                {"options", {{"optimizer", "sr3"}, {"threshold", 0.05}, {"step3", "held"}, {"device", "cpu"}}}};
    IdentifyConfig c = parse_identify_config(doc, dir);
    const Record first = identification_record(c);
    // v_stop = 3σ_v, v_slip = max(1e-3, 30σ_v), σ_v = σ·rms(v)/rms(x)
    const double sv = 1.4e-9 * std::sqrt(first.v.squaredNorm() / first.x.squaredNorm());
    doc["options"]["v_stop"] = 3 * sv;
    doc["options"]["v_slip"] = std::max(1e-3, 30 * sv);
    c = parse_identify_config(doc, dir);
    const IdentificationResult r = identify(c, identification_record(c));
    ASSERT_TRUE(r.has_held_intervals) << rate;
    const SdofParameters e = relative_errors_percent(r.extended_sindy.parameters, *c.truth);
    EXPECT_LT(e.k, 0.011) << rate;
    EXPECT_LT(e.F, 0.043) << rate;
    const SindyReport& x = r.extended_sindy;
    EXPECT_TRUE(x.lo.k <= c.truth->k && c.truth->k <= x.hi.k) << rate;
    EXPECT_TRUE(x.lo.c <= c.truth->c && c.truth->c <= x.hi.c) << rate;
    EXPECT_TRUE(x.lo.F <= c.truth->F && c.truth->F <= x.hi.F) << rate;
  }
}

TEST(Identification, DerivativeWindowInSecondsIsAnOddCountOfAtLeastOrderPlusTwo) {
  IdentifyConfig c;
  EXPECT_EQ(derivative_window(c, 2e-4), 35);  // seed 003's 35 samples at 5 kHz
  EXPECT_EQ(derivative_window(c, 1e-4), 71);  // 70 samples: a tie between 69 and 71 goes up
  EXPECT_EQ(derivative_window(c, 1e-3), 7);
  EXPECT_EQ(derivative_window(c, 5e-3), 5);  // 1.4 samples: the cubic's least window
  c.order = 4;
  EXPECT_EQ(derivative_window(c, 5e-3), 7);
  c.window = 11;
  EXPECT_EQ(derivative_window(c, 5e-3), 11);  // a window in samples wins
}

TEST(HeldUncertainty, CycleStartsAreTheUpwardCrossingsOfTheMean) {
  Eigen::VectorXd u(1000);
  for (long i = 0; i < u.size(); ++i) u(i) = 3.0 + std::sin(2.0 * M_PI * (static_cast<double>(i) + 0.5) / 100.0 - 1.0);
  const std::vector<long> s = cycle_starts(u);
  ASSERT_EQ(s.size(), 10u);
  // sin(2π(i + ½)/100 − 1) crosses upward where 2π(i + ½)/100 = 1 + 2πn: i = 15.4 + 100 n
  for (std::size_t n = 0; n < s.size(); ++n) EXPECT_EQ(s[n], 16 + 100 * static_cast<long>(n));
}

}  // namespace
}  // namespace fivsim
