// tests/integrate/moreau_test.cpp — Moreau time stepping against closed forms: free vibration, its first
// order of convergence, the analytic stick-slip cycles of a Coulomb slider, and the two kinds
// of nonsmooth events in seed 000 Model II Example 2.
#include "fivsim/integrate/moreau.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "fivsim/integrate/simulation.hpp"
#include "fivsim/model/event_log.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using D = HostDims;

struct Trajectory {
  std::vector<double> t, q, u;
};

Trajectory run(const ModelDescription& d, double q0, double u0, double dt, double t_end) {
  auto m = std::make_unique<Model<D>>();
  make_model(d, *m);
  auto s = std::make_unique<State<D>>();
  make_initial_state(*m, Eigen::VectorXd::Constant(1, q0), Eigen::VectorXd::Constant(1, u0), 0.0, 1e-9, *s);
  Trajectory tr;
  const long steps = std::lround(t_end / dt);
  const RunOutcome out =
      simulate_moreau(*m, *s, dt, steps, StepOptions{}, [&](const State<D>& st, long, const StepReport&) {
        tr.t.push_back(st.t);
        tr.q.push_back(st.q[0]);
        tr.u.push_back(st.u[0]);
      });
  EXPECT_EQ(out.status, Status::ok);
  return tr;
}

ModelDescription oscillator(double m, double k) {
  ModelDescription d;
  d.type = "linear_multibody";
  d.M = Eigen::MatrixXd::Constant(1, 1, m);
  d.C = Eigen::MatrixXd::Zero(1, 1);
  d.K = Eigen::MatrixXd::Constant(1, 1, k);
  d.f0 = d.f_sin = d.f_cos = Eigen::VectorXd::Zero(1);
  return d;
}

// times of the local maxima of q after t_from (parabolic refinement through three samples)
std::vector<double> maxima_times(const Trajectory& tr, double t_from, std::vector<double>* values = nullptr) {
  std::vector<double> out;
  for (std::size_t i = 1; i + 1 < tr.q.size(); ++i) {
    if (tr.t[i] < t_from || !(tr.q[i] > tr.q[i - 1] && tr.q[i] >= tr.q[i + 1])) continue;
    const double a = tr.q[i - 1], b = tr.q[i], c = tr.q[i + 1];
    const double h = tr.t[i] - tr.t[i - 1];
    const double den = a - 2 * b + c;
    const double shift = den != 0 ? 0.5 * (a - c) / den : 0.0;
    out.push_back(tr.t[i] + shift * h);
    if (values) values->push_back(b - 0.25 * (a - c) * shift);
  }
  return out;
}

double mean_spacing(const std::vector<double>& t) { return (t.back() - t.front()) / static_cast<double>(t.size() - 1); }

TEST(Moreau, FreeVibrationPeriodAndAmplitude) {
  // m = 1, k = 4: q = cos 2t, period π, amplitude 1
  const Trajectory tr = run(oscillator(1.0, 4.0), 1.0, 0.0, 1e-4, 20.0);
  std::vector<double> peaks;
  const auto tmax = maxima_times(tr, 0.5, &peaks);
  ASSERT_GE(tmax.size(), 5u);
  EXPECT_NEAR(mean_spacing(tmax), M_PI, 1e-3 * M_PI);
  for (double p : peaks) EXPECT_NEAR(p, 1.0, 1e-3);
}

TEST(Moreau, FirstOrderOnASmoothPhase) {
  double err[3];
  const double dts[3] = {2e-3, 1e-3, 5e-4};
  for (int i = 0; i < 3; ++i) {
    const Trajectory tr = run(oscillator(1.0, 4.0), 1.0, 0.0, dts[i], 2.0);
    err[i] = std::abs(tr.q.back() - std::cos(4.0));
  }
  const double order1 = std::log2(err[0] / err[1]);
  const double order2 = std::log2(err[1] / err[2]);
  EXPECT_NEAR(order1, 1.0, 0.1);
  EXPECT_NEAR(order2, 1.0, 0.1);
}

SliderBeltParams slider(double v0, double Fn) {
  SliderBeltParams p;
  p.m = 1.0;
  p.k = 1.0;
  p.c = 0.0;
  p.v0 = v0;
  p.Fn = Fn;
  return p;
}

// constant μ: stuck on the belt until k x = μ Fn (x_e = 1 at t = 2), then the slip arc
// x = x_e + (v0/ω) sin(ω (t − 2)), which returns to the belt velocity exactly at x_e:
// extrema x_e ± v0/ω = 1.5 / 0.5 and period 2π/ω
TEST(Moreau, CoulombSliderAnalyticCycle) {
  SliderBeltParams p = slider(0.5, 10.0);
  p.law.kind = FrictionLawKind::coulomb;
  p.law.p[0] = 0.1;
  const Trajectory tr = run(make_slider_belt(p), 0.0, 0.5, 1e-4, 40.0);
  // the stick phase ends when the spring force reaches μ Fn
  std::size_t first_slip = 0;
  while (first_slip < tr.u.size() && std::abs(tr.u[first_slip] - 0.5) < 1e-9) ++first_slip;
  EXPECT_NEAR(tr.t[first_slip], 2.0, 2e-4);
  std::vector<double> peaks;
  const auto tmax = maxima_times(tr, 2.5, &peaks);
  ASSERT_GE(tmax.size(), 5u);
  EXPECT_NEAR(mean_spacing(tmax), 2 * M_PI, 1e-3 * 2 * M_PI);
  for (double v : peaks) EXPECT_NEAR(v, 1.5, 1.5e-3);
  double qmin = 1e9;
  for (std::size_t i = 0; i < tr.q.size(); ++i)
    if (tr.t[i] > 2.5) qmin = std::min(qmin, tr.q[i]);
  EXPECT_NEAR(qmin, 0.5, 0.5e-3);
}

// static μs > kinetic μd (stribeck_exp with a very fast drop): stick until x_s = μs Fn/k,
// slip arc about x_d = μd Fn/k with amplitude A = √((x_s − x_d)² + (v0/ω)²) until the velocity
// is back to v0 at 2x_d − x_s, then stick again. Period = 2(x_s − x_d)/v0 + (2π − 2θ0)/ω with
// θ0 = atan2(x_s − x_d, v0/ω); extrema x_d ± A.
TEST(Moreau, StaticKineticAnalyticCycle) {
  SliderBeltParams p = slider(0.5, 10.0);
  p.law.kind = FrictionLawKind::stribeck_exp;
  p.law.p[0] = 0.15;
  p.law.p[1] = 0.10;
  p.law.p[2] = 1e5;
  const double xs = 1.5, xd = 1.0, v0 = 0.5;
  const double A = std::hypot(xs - xd, v0);
  const double theta0 = std::atan2(xs - xd, v0);
  const double period = 2 * (xs - xd) / v0 + (2 * M_PI - 2 * theta0);
  const Trajectory tr = run(make_slider_belt(p), 0.0, v0, 1e-4, 60.0);
  std::vector<double> peaks;
  const auto tmax = maxima_times(tr, 4.0, &peaks);
  ASSERT_GE(tmax.size(), 5u);
  EXPECT_NEAR(mean_spacing(tmax), period, 1e-3 * period);
  for (double v : peaks) EXPECT_NEAR(v, xd + A, 1e-3 * (xd + A));
  double qmin = 1e9;
  for (std::size_t i = 0; i < tr.q.size(); ++i)
    if (tr.t[i] > 4.0) qmin = std::min(qmin, tr.q[i]);
  EXPECT_NEAR(qmin, xd - A, 1e-3 * (xd - A));
}

TEST(Moreau, ModelIIExample2SeparatesAndSticks) {
  const Scenario sc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model2_example2.json"));
  auto m = std::make_unique<Model<D>>();
  make_model(sc.model, *m);
  auto s = std::make_unique<State<D>>();
  make_initial_state(*m, sc.q0, sc.u0, 0.0, sc.integrator.step.stick_tol, *s);
  EventLog log;
  log.start(*m, *s);
  const RunOutcome out = simulate_moreau(*m, *s, sc.integrator.dt, sc.integrator.steps, sc.integrator.step,
                                         [&](const State<D>& st, long, const StepReport&) { log.observe(*m, st); });
  ASSERT_EQ(out.status, Status::ok);
  EXPECT_GT(log.count(EventKind::separation), 5);
  EXPECT_GT(log.count(EventKind::reattachment), 5);
  EXPECT_GT(log.count(EventKind::stick_to_slip), 2);
  EXPECT_GT(log.count(EventKind::slip_to_stick), 2);
  // seed 000 §4.3.2: separation-reattachment first, stick-slip from about 4.6 s
  double first_stick = -1.0, first_separation = -1.0;
  for (const auto& e : log.events()) {
    if (first_stick < 0 && e.kind == EventKind::slip_to_stick) first_stick = e.t;
    if (first_separation < 0 && e.kind == EventKind::separation) first_separation = e.t;
  }
  EXPECT_NEAR(first_stick, 4.6, 0.5);
  EXPECT_LT(first_separation, 1.0);
}

}  // namespace
}  // namespace fivsim
