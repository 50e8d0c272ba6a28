// tests/integrate/switching_orbit_test.cpp — shooting onto periodic orbits of the switching model
// (integrate/switching_orbit.hpp): the return map's Jacobian (variational equations, saltations,
// the section's correction) against central differences of the return map itself; Newton from a
// run's last section sample onto the orbit; the Floquet multipliers against those of the
// difference Jacobian, and the slowest one against the rate at which the run's samples approach
// the orbit (the leading multiplier); the Lyapunov exponents of the variational equations against
// the multipliers (0 along the flow, ln|μ|/T across it).
#include "fivsim/integrate/switching_orbit.hpp"

#include "fivsim/integrate/switching_lyapunov.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <vector>

#include "integrate/event_driven_problems.hpp"
#include "integrate/orbit_shot_cases.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using ChainDims = Dims<double, 2, 2>;
constexpr int NY = 4;

// the 2-DoF chain of the bifurcation demo (v0 = 0.3, μ = 0.045 + 0.075 e^(−3|v|)) at load Fn
std::unique_ptr<Model<ChainDims>> chain(double Fn) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_bifurcation.json");
  doc["model"]["Fn"] = Fn;
  doc.erase("sweep");
  const Scenario s = parse_scenario(doc);
  auto m = std::make_unique<Model<ChainDims>>();
  make_model(s.model, *m);
  return m;
}

// the section samples of a plain run from (0.5, 0.5, 0, 0) up to t_end
std::vector<std::vector<double>> samples(const Model<ChainDims>& m, const SwitchingSection& sec, double t_end) {
  auto ws = std::make_unique<SwitchingWorkspace<ChainDims>>();
  std::vector<std::vector<double>> out;
  auto sink = [&](const SwitchingEvent<double>& e) {
    if (e.section) out.push_back({e.q[0], e.q[1], e.u[0], e.u[1]});
  };
  const double q0[2] = {0.5, 0.5}, u0[2] = {0.0, 0.0};
  SwitchingSettings set;
  EXPECT_EQ(switching_start(m, set, sec, *ws, 0.0, q0, u0, false, sink), Status::ok);
  EXPECT_EQ(switching_advance(m, set, sec, *ws, t_end, sink), Status::ok);
  return out;
}

std::vector<std::complex<double>> multipliers(const Eigen::MatrixXd& a) {
  Eigen::EigenSolver<Eigen::MatrixXd> es(a);
  std::vector<std::complex<double>> ev(es.eigenvalues().data(), es.eigenvalues().data() + a.rows());
  std::sort(ev.begin(), ev.end(), [](auto x, auto y) { return std::abs(x) > std::abs(y); });
  return ev;
}

// the return map's Jacobian on the section's coordinates (u1 dropped)
Eigen::MatrixXd reduced(const double (*dp)[NY], int k) {
  Eigen::MatrixXd a(NY - 1, NY - 1);
  for (int i = 0, r = 0; i < NY; ++i) {
    if (i == k) continue;
    for (int j = 0, c = 0; j < NY; ++j)
      if (j != k) a(r, c++) = dp[i][j];
    ++r;
  }
  return a;
}

// central differences of P on the section's coordinates
Eigen::MatrixXd difference_jacobian(const Model<ChainDims>& m, const SwitchingSettings& set,
                                    const SwitchingSection& sec, const double* x, double h) {
  const int k = section_coordinate(sec, 2);
  auto w = std::make_unique<OrbitWork<ChainDims>>();
  Eigen::MatrixXd a(NY - 1, NY - 1);
  for (int j = 0, c = 0; j < NY; ++j) {
    if (j == k) continue;
    double xp[NY], xm[NY], pp[NY], pm[NY];
    std::copy(x, x + NY, xp);
    std::copy(x, x + NY, xm);
    xp[j] += h;
    xm[j] -= h;
    EXPECT_TRUE(switching_return_map(m, set, sec, *w, 0.0, xp, 1, 100.0));
    std::copy(w->x_end, w->x_end + NY, pp);
    EXPECT_TRUE(switching_return_map(m, set, sec, *w, 0.0, xm, 1, 100.0));
    std::copy(w->x_end, w->x_end + NY, pm);
    for (int i = 0, r = 0; i < NY; ++i)
      if (i != k) a(r++, c) = (pp[i] - pm[i]) / (2 * h);
    ++c;
  }
  return a;
}

TEST(SwitchingOrbit, ReturnMapJacobianMatchesFiniteDifferences) {
  const auto m = chain(5.0);
  const SwitchingSection sec = half_belt_section();
  SwitchingSettings set;
  set.rel_tol = 1e-12;
  set.abs_tol = 1e-14;
  set.event_tol = 1e-14;
  // the first crossing: a point of the transient, off the orbit
  const auto pts = samples(*m, sec, 20.0);
  ASSERT_GE(pts.size(), 1u);
  const double* x = pts[0].data();
  auto w = std::make_unique<OrbitWork<ChainDims>>();
  ASSERT_TRUE(switching_return_map(*m, set, sec, *w, 0.0, x, 1, 100.0));
  std::printf("return after %.6f s, %ld saltations\n", w->t_end, w->tan.saltations);
  EXPECT_GE(w->tan.saltations, 2);
  const Eigen::MatrixXd exact = reduced(w->dp, section_coordinate(sec, 2));
  const Eigen::MatrixXd fd = difference_jacobian(*m, set, sec, x, 1e-6);
  const double diff = (exact - fd).cwiseAbs().maxCoeff() / std::max(1.0, exact.cwiseAbs().maxCoeff());
  std::printf("largest difference %.3g\n", diff);
  EXPECT_LE(diff, 1e-6);
}

TEST(SwitchingOrbit, NewtonFindsTheStickSlipCycleAndItsMultipliers) {
  const auto m = chain(5.0);
  const SwitchingSection sec = half_belt_section();
  const SwitchingSettings set;
  const auto pts = samples(*m, sec, 220.0);
  ASSERT_GE(pts.size(), 12u);
  auto w = std::make_unique<OrbitWork<ChainDims>>();
  const OrbitResult<ChainDims> orbit =
      switching_periodic_orbit(*m, set, sec, OrbitSettings{}, *w, 0.0, pts.back().data());
  std::printf("Newton: converged %d after %d iterations, residual %.3g, period %.9f s\n", orbit.converged,
              orbit.iterations, orbit.residual, orbit.period);
  ASSERT_TRUE(orbit.converged);
  EXPECT_LE(orbit.iterations, 6);
  double re[NY], im[NY];
  ASSERT_EQ(orbit_multipliers(*m, sec, *w, re, im), NY - 1);
  std::vector<std::complex<double>> exact;
  for (int i = 0; i < NY - 1; ++i) exact.emplace_back(re[i], im[i]);
  // the same Jacobian through Eigen's solver, and the difference Jacobian's
  const auto eigen = multipliers(reduced(w->dp, section_coordinate(sec, 2)));
  const auto fd = multipliers(difference_jacobian(*m, set, sec, orbit.x, 1e-6));
  for (std::size_t i = 0; i < exact.size(); ++i) {
    std::printf("multiplier %zu: %.9f %+.9fi (differences: %.9f %+.9fi)\n", i, exact[i].real(), exact[i].imag(),
                fd[i].real(), fd[i].imag());
    EXPECT_NEAR(std::abs(exact[i] - fd[i]), 0.0, 1e-5);
    EXPECT_NEAR(std::abs(exact[i] - eigen[i]), 0.0, 1e-12);
  }
  EXPECT_LT(std::abs(exact[0]), 1.0);  // the run settles on it, so it attracts
  // the other multipliers vanish (sticks), so the run's samples close in on the orbit by exactly
  // the leading one per crossing, up to terms of the distance's square
  auto distance = [&](const std::vector<double>& p) {
    double d = 0.0;
    for (int i = 0; i < NY; ++i) d = std::max(d, std::abs(p[i] - orbit.x[i]));
    return d;
  };
  for (std::size_t n = pts.size() - 3; n + 1 < pts.size(); ++n) {
    const double rate = distance(pts[n + 1]) / distance(pts[n]);
    std::printf("sample %zu: distance %.3g, ratio to the one before %.9f\n", n + 1, distance(pts[n + 1]), rate);
    EXPECT_NEAR(rate, exact[0].real(), 10 * distance(pts[n]));
  }
}

// Benettin's exponents of the run that settles on the stick-slip cycle: 0 along the flow and
// ln|μ₁|/T across it, μ₁ the leading multiplier of the cycle Newton finds, T its period
TEST(SwitchingOrbit, LyapunovExponentsAgreeWithTheMultipliers) {
  const auto m = chain(5.0);
  const SwitchingSection sec = half_belt_section();
  const SwitchingSettings set;
  const auto pts = samples(*m, sec, 60.0);
  auto w = std::make_unique<OrbitWork<ChainDims>>();
  const OrbitResult<ChainDims> orbit =
      switching_periodic_orbit(*m, set, sec, OrbitSettings{}, *w, 0.0, pts.back().data());
  ASSERT_TRUE(orbit.converged);
  double re[NY], im[NY];
  ASSERT_EQ(orbit_multipliers(*m, sec, *w, re, im), NY - 1);
  const double expected = std::log(std::hypot(re[0], im[0])) / orbit.period;
  const double q0[2] = {0.5, 0.5}, u0[2] = {0.0, 0.0};
  LyapunovSpectrum spec;
  // 12 000 s: the exponent along the flow is log|f(y(T))|/|f(y(0))| over the window, a bias
  // within the cycle's range of |f| divided by the window (1.2e-3 after 3000 s)
  ASSERT_EQ(switching_lyapunov(*m, set, w->ws, w->tan, 0.0, q0, u0, 300.0, 12300.0, 1.0, 3, spec), Status::ok);
  std::printf("exponents %.6f ± %.1e, %.6f ± %.1e, %g over %.0f s (%ld saltations); from the multiplier %.6f\n",
              spec.exponent[0], spec.error[0], spec.exponent[1], spec.error[1], spec.exponent[2], spec.time,
              spec.saltations, expected);
  EXPECT_NEAR(spec.exponent[0], 0.0, 5e-4);
  EXPECT_NEAR(spec.exponent[1], expected, 5e-4);
  EXPECT_LE(spec.error[1], 5e-4);
  EXPECT_EQ(spec.exponent[2], -HUGE_VAL);  // the stick annihilates the third direction each cycle
  EXPECT_EQ(spec.grazing, 0);
}

// the break-away events of contact c in a plain run up to t_end: the state and the modes just after
struct Breakaway {
  double t;
  std::vector<double> x;
  ContactState modes[2];
};
std::vector<Breakaway> breakaways(const Model<ChainDims>& m, int c, double t_end) {
  auto ws = std::make_unique<SwitchingWorkspace<ChainDims>>();
  std::vector<Breakaway> out;
  auto sink = [&](const SwitchingEvent<double>& e) {
    if (e.section || e.contact != c || e.from != ContactState::stick || e.to == ContactState::free) return;
    out.push_back({e.t, {e.q[0], e.q[1], e.u[0], e.u[1]}, {ws->mode[0], ws->mode[1]}});
  };
  const double q0[2] = {0.5, 0.5}, u0[2] = {0.0, 0.0};
  SwitchingSettings set;
  EXPECT_EQ(switching_start(m, set, SwitchingSection{}, *ws, 0.0, q0, u0, false, sink), Status::ok);
  EXPECT_EQ(switching_advance(m, set, SwitchingSection{}, *ws, t_end, sink), Status::ok);
  return out;
}

// the sweeps' own section, the outer slider's break-away: Newton on that event surface finds the
// orbit the velocity section found — the same period, the same leading multiplier (multipliers do
// not depend on the section) — and DP there matches central differences of the break-away map
// along the section (each perturbed start pulled back onto it)
TEST(SwitchingOrbit, TheBreakAwaySectionFindsTheSameCycle) {
  const auto m = chain(5.0);
  const SwitchingSettings set;
  const auto events = breakaways(*m, 1, 60.0);
  ASSERT_GE(events.size(), 3u);
  auto w = std::make_unique<OrbitWork<ChainDims>>();
  const Breakaway& last = events.back();
  const OrbitResult<ChainDims> orbit =
      switching_breakaway_orbit(*m, set, OrbitSettings{}, *w, 0.0, last.x.data(), last.modes, 1);
  std::printf("break-away Newton: converged %d after %d iterations, residual %.3g, period %.9f s\n", orbit.converged,
              orbit.iterations, orbit.residual, orbit.period);
  ASSERT_TRUE(orbit.converged);
  EXPECT_LE(orbit.iterations, 6);
  EXPECT_LE(std::abs(w->constraint[0]) + std::abs(w->constraint[1]), 1e-10);  // on the section
  double re[NY], im[NY];
  ASSERT_EQ(breakaway_multipliers(*m, *w, re, im), NY - 2);
  std::printf("multipliers %.9f%+.9fi, %.9f%+.9fi\n", re[0], im[0], re[1], im[1]);

  // the velocity section's orbit
  const SwitchingSection sec = half_belt_section();
  const auto pts = samples(*m, sec, 60.0);
  auto wv = std::make_unique<OrbitWork<ChainDims>>();
  const OrbitResult<ChainDims> vel =
      switching_periodic_orbit(*m, set, sec, OrbitSettings{}, *wv, 0.0, pts.back().data());
  ASSERT_TRUE(vel.converged);
  double rv[NY], iv[NY];
  ASSERT_EQ(orbit_multipliers(*m, sec, *wv, rv, iv), NY - 1);
  EXPECT_NEAR(orbit.period, vel.period, 1e-8);
  EXPECT_NEAR(std::hypot(re[0], im[0]), std::hypot(rv[0], iv[0]), 1e-7);

  // DP along the section against central differences: a tangent direction t, x ± h t pulled back
  // onto {γ = 0, margin = 0} by Gauss–Newton on the conditions
  double x[NY], tdir[NY];
  std::copy(orbit.x, orbit.x + NY, x);
  double g[2][NY];
  for (int k = 0; k < 2; ++k) std::copy(w->constraint_grad[k], w->constraint_grad[k] + NY, g[k]);
  // t: e_0 with the gradients' span removed
  for (int i = 0; i < NY; ++i) tdir[i] = i == 0 ? 1.0 : 0.0;
  {
    Eigen::Matrix<double, 2, NY> G;
    for (int k = 0; k < 2; ++k)
      for (int i = 0; i < NY; ++i) G(k, i) = g[k][i];
    Eigen::Matrix<double, NY, 1> tv = Eigen::Map<Eigen::Matrix<double, NY, 1>>(tdir);
    tv -= G.transpose() * (G * G.transpose()).ldlt().solve(G * tv);
    for (int i = 0; i < NY; ++i) tdir[i] = tv(i);
  }
  // the map and the differences at tight tolerances, so that the integrator's error over h stays
  // far below the comparison's
  SwitchingSettings fine;
  fine.rel_tol = 1e-12;
  fine.abs_tol = 1e-14;
  fine.event_tol = 1e-14;
  ASSERT_TRUE(switching_breakaway_map(*m, fine, *w, 0.0, x, last.modes, 1, 1, 100.0));
  double expected[NY];
  for (int i = 0; i < NY; ++i) {
    expected[i] = 0.0;
    for (int j = 0; j < NY; ++j) expected[i] += w->dp[i][j] * tdir[j];
  }
  auto on_section = [&](double* y) {
    auto wc = std::make_unique<OrbitWork<ChainDims>>();
    for (int it = 0; it < 6; ++it) {
      ASSERT_TRUE(breakaway_constraints(*m, set, *wc, 0.0, y, last.modes, 1));
      Eigen::Matrix<double, 2, NY> G;
      for (int k = 0; k < 2; ++k)
        for (int i = 0; i < NY; ++i) G(k, i) = wc->constraint_grad[k][i];
      const Eigen::Vector2d c(wc->constraint[0], wc->constraint[1]);
      const Eigen::Matrix<double, NY, 1> d = -G.transpose() * (G * G.transpose()).ldlt().solve(c);
      for (int i = 0; i < NY; ++i) y[i] += d(i);
    }
  };
  const double h = 1e-6;
  double xp[NY], xm[NY], pp[NY], pm[NY];
  for (int i = 0; i < NY; ++i) {
    xp[i] = x[i] + h * tdir[i];
    xm[i] = x[i] - h * tdir[i];
  }
  on_section(xp);
  on_section(xm);
  ASSERT_TRUE(switching_breakaway_map(*m, fine, *w, 0.0, xp, last.modes, 1, 1, 100.0));
  std::copy(w->x_end, w->x_end + NY, pp);
  ASSERT_TRUE(switching_breakaway_map(*m, fine, *w, 0.0, xm, last.modes, 1, 1, 100.0));
  std::copy(w->x_end, w->x_end + NY, pm);
  double worst = 0.0;
  for (int i = 0; i < NY; ++i) worst = std::max(worst, std::abs((pp[i] - pm[i]) / (2 * h) - expected[i]));
  std::printf("DP along the section against differences: largest difference %.3g\n", worst);
  EXPECT_LE(worst, 1e-6);
}

}  // namespace
}  // namespace fivsim
