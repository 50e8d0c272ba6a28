// tests/integrate/event_driven_test.cpp — the event-driven reference against closed forms (a Coulomb slider
// through slip, stick and slip again; events to 1e-12 in time), against converging time steppers
// (Moreau at dt = 1e-4 and 1e-5 on seed 000 Model I; Gauss IRK-LCP with interpolated forces on
// Model II, whose separation-reattachment and stick-slip it reproduces), and its refusals.
#include "fivsim/integrate/event_driven.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "integrate/event_driven_problems.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using test_problems::bundled;
using test_problems::CoulombSlider;

// the slider's closed form (event_driven_problems.hpp)
TEST(EventDriven, CoulombSliderClosedForm) {
  const double t1 = CoulombSlider::t1, t2 = CoulombSlider::t2();
  double worst = 0.0;
  long samples = 0;
  const EventDrivenOutcome out =
      simulate_event_driven(CoulombSlider::model(), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Zero(1), 0.0, t2 + 5.0,
                            0.01, EventDrivenOptions{}, [&](const ReferenceSample& s) {
                              double x, u;
                              ContactState st;
                              CoulombSlider::at(s.t, x, u, st);
                              worst = std::max({worst, std::abs(s.q(0) - x), std::abs(s.u(0) - u)});
                              if (std::abs(s.t - t1) > 1e-9 && std::abs(s.t - t2) > 1e-9) {
                                EXPECT_EQ(s.contact[0], st) << s.t;
                              }
                              // the friction force: +μFn while slipping behind the belt, k x while stuck
                              EXPECT_NEAR(s.lamT(0), st == ContactState::stick ? s.q(0) : 1.0, 1e-9);
                              ++samples;
                            });
  ASSERT_EQ(out.status, Status::ok);
  EXPECT_EQ(samples, static_cast<long>(std::floor((t2 + 5.0) / 0.01)) + 1);
  EXPECT_LE(worst, 1e-10);
  CoulombSlider::expect_events(out.events);
}

// the times of the first `count` events of one kind
std::vector<double> event_times(const std::vector<Event>& events, EventKind kind, std::size_t count) {
  std::vector<double> t;
  for (const auto& e : events)
    if (e.kind == kind && t.size() < count) t.push_back(e.t);
  return t;
}

// seed 000 Model I with the slow Stribeck law. Moreau's slip→stick times approach the
// reference's in first order (each transition is seen at the end of its step). Its stick→slip
// times lag the true onset by the time the slip velocity needs to exceed stick_tol: the spring
// force grows past μs Fn at k v0 per second, so |γ_T| ≈ k v0 τ²/(2m) and the lag is
// √(2 m stick_tol/(k v0)) = 6.3e-5 s for stick_tol = 1e-9 (k = m = 1, v0 = 0.5).
TEST(EventDriven, MoreauConvergesToTheReferenceOnModelI) {
  const Scenario sc = bundled("model1_slow_stribeck");
  const double t_end = 20.0;
  const EventDrivenOutcome ref =
      simulate_event_driven(sc.model, sc.q0, sc.u0, 0.0, t_end, 0.01, EventDrivenOptions{}, [](const auto&) {});
  ASSERT_EQ(ref.status, Status::ok);
  const auto stick_ref = event_times(ref.events, EventKind::slip_to_stick, 3);
  const auto slip_ref = event_times(ref.events, EventKind::stick_to_slip, 3);
  ASSERT_EQ(stick_ref.size(), 3u);
  ASSERT_EQ(slip_ref.size(), 3u);
  const double lag = std::sqrt(2 * sc.integrator.step.stick_tol / 0.5);
  auto m = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *m);
  double worst[2];
  const double dts[2] = {1e-4, 1e-5};
  for (int k = 0; k < 2; ++k) {
    auto s = std::make_unique<State<HostDims>>();
    make_initial_state(*m, sc.q0, sc.u0, 0.0, sc.integrator.step.stick_tol, *s);
    EventLog log;
    log.start(*m, *s);
    simulate_moreau(*m, *s, dts[k], std::lround(t_end / dts[k]), sc.integrator.step,
                    [&](const State<HostDims>& st, long, const StepReport&) { log.observe(*m, st); });
    const auto stick = event_times(log.events(), EventKind::slip_to_stick, 3);
    const auto slip = event_times(log.events(), EventKind::stick_to_slip, 3);
    ASSERT_EQ(stick.size(), 3u);
    ASSERT_EQ(slip.size(), 3u);
    worst[k] = 0.0;
    for (int i = 0; i < 3; ++i) {
      worst[k] = std::max(worst[k], std::abs(stick[i] - stick_ref[i]));
      EXPECT_NEAR(slip[i] - slip_ref[i], lag, 4 * dts[k]) << "dt=" << dts[k];
    }
    EXPECT_LE(worst[k], 3 * dts[k]) << "dt=" << dts[k];
  }
  EXPECT_GT(worst[0] / worst[1], 5.0);
}

struct Rms {
  double lamN = 0, x = 0, y = 0;
  long n = 0;
  void add(double a, double b, double c) {
    lamN += a * a, x += b * b, y += c * c;
    ++n;
  }
  double get(double s) const { return std::sqrt(s / n); }
};

// seed 000 Model II Example 2: separations, reattachments and stick-slip; the Gauss IRK-LCP with
// 10 stages and interpolated forces at dt = 1e-4 agrees in RMS to 2e-4 and in event counts
TEST(EventDriven, ModelIIExample2AgainstIrkLcp) {
  const Scenario sc = bundled("model2_example2");
  Rms ref_rms, irk_rms;
  const EventDrivenOutcome ref = simulate_event_driven(sc.model, sc.q0, sc.u0, 0.0, sc.integrator.t_end, 1e-4,
                                                       EventDrivenOptions{}, [&](const ReferenceSample& s) {
                                                         if (s.t > 0) ref_rms.add(s.lamN(0), s.q(0), s.q(1));
                                                       });
  ASSERT_EQ(ref.status, Status::ok);
  long counts[kEventKindCount] = {};
  for (const auto& e : ref.events) ++counts[static_cast<int>(e.kind)];
  EXPECT_GT(counts[static_cast<int>(EventKind::separation)], 5);
  EXPECT_GT(counts[static_cast<int>(EventKind::reattachment)], 5);
  EXPECT_GT(counts[static_cast<int>(EventKind::slip_to_stick)], 2);
  EXPECT_GT(counts[static_cast<int>(EventKind::stick_to_slip)], 2);

  auto m = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *m);
  auto s = std::make_unique<State<HostDims>>();
  make_initial_state(*m, sc.q0, sc.u0, 0.0, sc.integrator.step.stick_tol, *s);
  EventLog log;
  log.start(*m, *s);
  MethodSpec irk;
  irk.kind = MethodKind::irk;
  irk.stages = 10;
  irk.forces = StageForces::ramp;
  simulate_time_stepper(irk, *m, *s, 1e-4, 100000, sc.integrator.step,
                        [&](const State<HostDims>& st, long, const StepReport&) {
                          irk_rms.add(st.lamN[0], st.q[0], st.q[1]);
                          log.observe(*m, st);
                        });
  EXPECT_NEAR(irk_rms.get(irk_rms.lamN), ref_rms.get(ref_rms.lamN), 2e-4 * ref_rms.get(ref_rms.lamN));
  EXPECT_NEAR(irk_rms.get(irk_rms.x), ref_rms.get(ref_rms.x), 2e-4 * ref_rms.get(ref_rms.x));
  EXPECT_NEAR(irk_rms.get(irk_rms.y), ref_rms.get(ref_rms.y), 2e-4 * ref_rms.get(ref_rms.y));
  for (int k = 1; k < kEventKindCount; ++k)
    EXPECT_EQ(log.count(static_cast<EventKind>(k)), counts[k]) << event_kind_name(static_cast<EventKind>(k));
}

TEST(EventDriven, RigidContactsAreRefused) {
  ModelDescription d = make_slider_belt(SliderBeltParams{});
  d.contacts[0].kind = ContactKind::rigid;
  d.contacts[0].w_N = Eigen::VectorXd::Ones(1);
  std::string why;
  EXPECT_FALSE(event_driven_supports(d, &why));
  EXPECT_NE(why.find("rigid"), std::string::npos);
  EXPECT_THROW(simulate_event_driven(d, Eigen::VectorXd::Zero(1), Eigen::VectorXd::Zero(1), 0, 1, 0.1,
                                     EventDrivenOptions{}, [](const auto&) {}),
               ModelError);
}

}  // namespace
}  // namespace fivsim
