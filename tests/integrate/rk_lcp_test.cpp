// tests/integrate/rk_lcp_test.cpp — Runge–Kutta LCP stepping against closed forms: high order in a sliding
// phase with a constant friction force, exact sticking, the analytic static/kinetic stick-slip
// cycle at least as accurate as Moreau at equal dt, and both kinds of nonsmooth events in seed 000
// Model II Example 2 with held and with interpolated stage forces.
#include "fivsim/integrate/rk_lcp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "fivsim/integrate/rk_step_map.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/model/event_log.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using SmallDims = Dims<double, 2, 2>;

struct RkTrajectory {
  std::vector<double> t, q, u;
  std::vector<ContactState> state;
};

// method: "moreau", or a tableau with held / ramped stage forces
RkTrajectory run(const ModelDescription& d, double q0, double u0, double dt, double t_end, const ButcherTableau* tab,
                 StageForces forces = StageForces::held, bool lcp_on_euler = false) {
  auto m = std::make_unique<Model<SmallDims>>();
  make_model(d, *m);
  auto s = std::make_unique<State<SmallDims>>();
  make_initial_state(*m, Eigen::VectorXd::Constant(1, q0), Eigen::VectorXd::Constant(1, u0), 0.0, 1e-9, *s);
  RkTrajectory tr;
  auto record = [&](const State<SmallDims>& st, long, const StepReport&) {
    tr.t.push_back(st.t);
    tr.q.push_back(st.q[0]);
    tr.u.push_back(st.u[0]);
    tr.state.push_back(st.contact[0]);
  };
  const long steps = std::lround(t_end / dt);
  RunOutcome out;
  if (tab) {
    auto map = std::make_unique<RkStepMap<SmallDims>>();
    make_rk_step_map(*m, *tab, dt, forces, *map);
    map->lcp_on_euler = lcp_on_euler;
    out = simulate_rk_lcp(*m, *map, *s, steps, StepOptions{}, record);
  } else {
    out = simulate_moreau(*m, *s, dt, steps, StepOptions{}, record);
  }
  EXPECT_EQ(out.status, Status::ok);
  return tr;
}

SliderBeltParams slider(double v0, double Fn, FrictionLawKind kind, double p0, double p1 = 0, double p2 = 0) {
  SliderBeltParams p;
  p.m = 1.0;
  p.k = 1.0;
  p.v0 = v0;
  p.Fn = Fn;
  p.law.kind = kind;
  p.law.p[0] = p0;
  p.law.p[1] = p1;
  p.law.p[2] = p2;
  return p;
}

// a belt far faster than the slider: always slip−, friction +μFn = 1, so x'' + x = 1 and
// x = 1 + (x0 − 1) cos t + u0 sin t; the LCP runs every step but the force is constant
TEST(RkLcp, HighOrderWhileSliding) {
  const auto d = make_slider_belt(slider(100.0, 10.0, FrictionLawKind::coulomb, 0.1));
  struct Case {
    ButcherTableau tab;
    double dt, order;
  };
  for (const Case& c :
       {Case{classical_rk4(), 0.04, 4.0}, Case{gauss_legendre(2), 0.04, 4.0}, Case{gauss_legendre(3), 0.2, 6.0}}) {
    double err[2];
    for (int k = 0; k < 2; ++k) {
      const RkTrajectory tr = run(d, 0.0, 0.5, c.dt / (1 << k), 4.0, &c.tab);
      const double t = tr.t.back();
      err[k] = std::abs(tr.q.back() - (1.0 - std::cos(t) + 0.5 * std::sin(t)));
      for (ContactState st : tr.state) ASSERT_EQ(st, ContactState::slip_neg);
    }
    EXPECT_NEAR(std::log2(err[0] / err[1]), c.order, 0.15) << c.tab.name << ": " << err[0] << ", " << err[1];
  }
}

// on the belt from x = 0: stuck until k x reaches μs Fn = 1.5 at t = 3. The end-of-step slip
// velocity is held at zero exactly; inside a step a held force lets the velocity dip, so the
// position lags the belt by k v0 dt³/12 per step (second order over the phase), while a force
// interpolated over the stages follows the linearly growing spring force.
TEST(RkLcp, StickingFollowsTheBelt) {
  const auto d = make_slider_belt(slider(0.5, 10.0, FrictionLawKind::stribeck_exp, 0.15, 0.10, 3.0));
  const ButcherTableau tab = gauss_legendre(4);
  const double dt = 1e-2;
  for (StageForces f : {StageForces::held, StageForces::ramp}) {
    const RkTrajectory tr = run(d, 0.0, 0.5, dt, 2.9, &tab, f);
    double worst_q = 0.0;
    for (std::size_t i = 0; i < tr.t.size(); ++i) {
      ASSERT_EQ(tr.state[i], ContactState::stick) << "t=" << tr.t[i];
      EXPECT_NEAR(tr.u[i], 0.5, 1e-12);
      worst_q = std::max(worst_q, std::abs(tr.q[i] - 0.5 * tr.t[i]));
    }
    // held: 290 steps of k v0 dt³/12 (k = 1, v0 = 0.5); ramp: only its first two steps hold
    const double per_step = 0.5 * dt * dt * dt / 12;
    if (f == StageForces::held) {
      EXPECT_NEAR(worst_q, 290 * per_step, 0.01 * 290 * per_step);
    } else {
      EXPECT_NEAR(worst_q, 2 * per_step, 0.01 * per_step);
    }
  }
}

// seed 000's formulation (the LCP on Moreau's prediction, its force held over the RK4 stages)
// sticks by the Euler prediction, not by the RK4 end state: each step ends off the belt speed by
// the velocity the spring takes in dt beyond Euler's, k·v0·dt²/(2m) (the start of the first step,
// from x = 0 with F = 0, gives exactly v0(cos dt − 1)), and the next step's LCP takes it back, so
// the slip velocity stays at that size instead of growing; the contact still reads stick
TEST(RkLcp, StickingOnMoreausPredictionIsOffTheBeltBySecondOrder) {
  const auto d = make_slider_belt(slider(0.5, 10.0, FrictionLawKind::stribeck_exp, 0.15, 0.10, 3.0));
  const ButcherTableau tab = classical_rk4();
  for (double dt : {1e-2, 1e-3}) {
    const RkTrajectory tr = run(d, 0.0, 0.5, dt, 2.9, &tab, StageForces::held, true);
    double worst_u = 0.0;
    for (std::size_t i = 0; i < tr.t.size(); ++i) {
      ASSERT_EQ(tr.state[i], ContactState::stick) << "t=" << tr.t[i];
      worst_u = std::max(worst_u, std::abs(tr.u[i] - 0.5));
    }
    EXPECT_NEAR(std::abs(tr.u[0] - 0.5), 0.5 * (1 - std::cos(dt)), 1e-6 * dt * dt);
    EXPECT_NEAR(worst_u, 0.5 * dt * dt / 2, 0.02 * 0.5 * dt * dt / 2) << "dt " << dt;
  }
}

// times and values of the local maxima of q after t_from (parabola through three samples)
void maxima(const RkTrajectory& tr, double t_from, std::vector<double>& times, std::vector<double>& values) {
  for (std::size_t i = 1; i + 1 < tr.q.size(); ++i) {
    if (tr.t[i] < t_from || !(tr.q[i] > tr.q[i - 1] && tr.q[i] >= tr.q[i + 1])) continue;
    const double a = tr.q[i - 1], b = tr.q[i], c = tr.q[i + 1];
    const double den = a - 2 * b + c;
    const double shift = den != 0 ? 0.5 * (a - c) / den : 0.0;
    times.push_back(tr.t[i] + shift * (tr.t[i] - tr.t[i - 1]));
    values.push_back(b - 0.25 * (a - c) * shift);
  }
}

// the static/kinetic cycle of tests/integrate/moreau_test.cpp (μs = 0.15, μd = 0.10, fast drop): period
// 2(x_s − x_d)/v0 + 2π − 2θ0, maximum x_d + A. The worst relative error of period and maximum.
double cycle_error(double dt, const ButcherTableau* tab, StageForces forces = StageForces::held) {
  const auto d = make_slider_belt(slider(0.5, 10.0, FrictionLawKind::stribeck_exp, 0.15, 0.10, 1e5));
  const double xs = 1.5, xd = 1.0, v0 = 0.5;
  const double A = std::hypot(xs - xd, v0);
  const double period = 2 * (xs - xd) / v0 + 2 * M_PI - 2 * std::atan2(xs - xd, v0);
  const RkTrajectory tr = run(d, 0.0, v0, dt, 60.0, tab, forces);
  std::vector<double> times, values;
  maxima(tr, 4.0, times, values);
  EXPECT_GE(times.size(), 5u);
  if (times.size() < 2) return 1.0;
  double worst = std::abs((times.back() - times.front()) / (times.size() - 1) - period) / period;
  for (double v : values) worst = std::max(worst, std::abs(v - (xd + A)) / (xd + A));
  return worst;
}

// every time stepper finds a transition only at the end of the step in which it happened, so the
// cycle's error is first order in dt whatever the smooth integrator; the Runge–Kutta steppers
// must keep the cycle about as well as Moreau does. Measured: Moreau 0.32·dt (dt = 1e-2) and
// 0.54·dt (1e-3); held forces 0.31·dt and 0.52·dt; ramped 0.31·dt and 0.61·dt.
TEST(RkLcp, StaticKineticCycleAsAccurateAsMoreau) {
  const ButcherTableau gauss = gauss_legendre(5), rk4 = classical_rk4();
  for (double dt : {1e-2, 1e-3}) {
    const double e_moreau = cycle_error(dt, nullptr);
    for (StageForces f : {StageForces::held, StageForces::ramp}) {
      for (const ButcherTableau* tab : {&gauss, &rk4}) {
        const double e = cycle_error(dt, tab, f);
        EXPECT_LE(e, 1.2 * e_moreau) << tab->name << " dt=" << dt;
        EXPECT_LE(e, 0.65 * dt) << tab->name << " dt=" << dt;
      }
    }
  }
}

TEST(RkLcp, ModelIIExample2SeparatesAndSticks) {
  using DH = HostDims;
  const Scenario sc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model2_example2.json"));
  auto m = std::make_unique<Model<DH>>();
  make_model(sc.model, *m);
  for (StageForces f : {StageForces::held, StageForces::ramp}) {
    auto s = std::make_unique<State<DH>>();
    make_initial_state(*m, sc.q0, sc.u0, 0.0, sc.integrator.step.stick_tol, *s);
    auto map = std::make_unique<RkStepMap<DH>>();
    make_rk_step_map(*m, gauss_legendre(5), 1e-4, f, *map);
    EventLog log;
    log.start(*m, *s);
    const RunOutcome out = simulate_rk_lcp(*m, *map, *s, 100000, sc.integrator.step,
                                           [&](const State<DH>& st, long, const StepReport&) { log.observe(*m, st); });
    ASSERT_EQ(out.status, Status::ok);
    EXPECT_GT(log.count(EventKind::separation), 5);
    EXPECT_GT(log.count(EventKind::reattachment), 5);
    EXPECT_GT(log.count(EventKind::stick_to_slip), 2);
    EXPECT_GT(log.count(EventKind::slip_to_stick), 2);
  }
}

}  // namespace
}  // namespace fivsim
