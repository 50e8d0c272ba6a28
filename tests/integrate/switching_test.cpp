// tests/integrate/switching_test.cpp — the per-case switching integrator (integrate/switching.hpp) against
// a closed form (a Coulomb slider through slip, stick, slip; events to 1e-12 in time) and against
// the host's event-driven reference (event_driven.hpp: Boost.Odeint's Dormand–Prince, a second
// implementation), event for event and sample for sample to 1e-9, on seed 000 Model I, the 2- and
// 5-DoF chains and Model II (separation and reattachment of spring contacts).
#include "fivsim/integrate/switching.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "integrate/event_driven_problems.hpp"
#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

struct SwitchingRun {
  Status status = Status::ok;
  std::vector<Event> events;
  std::vector<ReferenceSample> samples;
  long steps = 0;
};

// the switching integrator from (q0, u0) at 0, its state read every sample_dt up to t_end
SwitchingRun run_switching(const ModelDescription& d, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0,
                           double t_end, double sample_dt, const SwitchingSettings& set = {}) {
  using D = HostDims;
  auto m = std::make_unique<Model<D>>();
  make_model(d, *m);
  auto ws = std::make_unique<SwitchingWorkspace<D>>();
  SwitchingRun out;
  const int n = d.dof(), nc = d.n_contacts();
  auto sink = [&](const SwitchingEvent<double>& e) {
    if (e.section) return;
    Event ev;
    ev.t = e.t;
    ev.contact = e.contact;
    ev.from = e.from;
    ev.to = e.to;
    ev.kind = classify_transition(e.from, e.to);
    ev.q.assign(e.q, e.q + n);
    out.events.push_back(ev);
  };
  out.status = switching_start(*m, set, SwitchingSection{}, *ws, 0.0, q0.data(), u0.data(), false, sink);
  auto s = std::make_unique<State<D>>();
  const long last = static_cast<long>(std::floor(t_end / sample_dt * (1 + 1e-12)));
  for (long k = 0; k <= last && out.status == Status::ok; ++k) {
    const double t = static_cast<double>(k) * sample_dt;
    out.status = switching_advance(*m, set, SwitchingSection{}, *ws, t, sink);
    if (out.status != Status::ok) break;
    switching_output(*m, *ws, t, *s);
    ReferenceSample r;
    r.t = t;
    r.q = Eigen::Map<const Eigen::VectorXd>(s->q.v, n);
    r.u = Eigen::Map<const Eigen::VectorXd>(s->u.v, n);
    r.lamT = Eigen::Map<const Eigen::VectorXd>(s->lamT.v, nc);
    r.contact.assign(s->contact, s->contact + nc);
    out.samples.push_back(std::move(r));
  }
  out.steps = ws->steps;
  return out;
}

// both integrators on one model: the same events (contact, kind, direction) at times within
// tol_t, and the same states at the samples within tol_x (away from events by 1e-6 s, where a
// state read just before or after an event may differ by the jump of a projection)
void expect_agreement(const ModelDescription& d, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0, double t_end,
                      double sample_dt, double tol_t, double tol_x, std::size_t min_events) {
  std::vector<ReferenceSample> ref_samples;
  // both pairs at 1e-12, so that what they agree to is the events' location, not their error control
  EventDrivenOptions ref_opt;
  ref_opt.rel_tol = 1e-12;
  ref_opt.abs_tol = 1e-14;
  const EventDrivenOutcome ref = simulate_event_driven(d, q0, u0, 0.0, t_end, sample_dt, ref_opt,
                                                       [&](const ReferenceSample& s) { ref_samples.push_back(s); });
  ASSERT_EQ(ref.status, Status::ok);
  SwitchingSettings set;
  set.rel_tol = 1e-12;
  set.abs_tol = 1e-14;
  const SwitchingRun run = run_switching(d, q0, u0, t_end, sample_dt, set);
  ASSERT_EQ(run.status, Status::ok);
  ASSERT_GE(ref.events.size(), min_events);
  ASSERT_EQ(run.events.size(), ref.events.size());
  double worst_t = 0.0;
  for (std::size_t i = 0; i < ref.events.size(); ++i) {
    const Event &a = run.events[i], &b = ref.events[i];
    ASSERT_EQ(a.contact, b.contact) << "event " << i << " at " << b.t;
    ASSERT_EQ(a.from, b.from) << "event " << i << " at " << b.t;
    ASSERT_EQ(a.to, b.to) << "event " << i << " at " << b.t;
    worst_t = std::max(worst_t, std::abs(a.t - b.t));
    for (std::size_t k = 0; k < a.q.size(); ++k) EXPECT_NEAR(a.q[k], b.q[k], tol_x) << "event " << i;
  }
  EXPECT_LE(worst_t, tol_t);
  ASSERT_EQ(run.samples.size(), ref_samples.size());
  double worst_x = 0.0;
  for (std::size_t k = 0; k < ref_samples.size(); ++k) {
    bool near_event = false;
    for (const Event& e : ref.events) near_event = near_event || std::abs(e.t - ref_samples[k].t) < 1e-6;
    if (near_event) continue;
    worst_x = std::max({worst_x, (run.samples[k].q - ref_samples[k].q).cwiseAbs().maxCoeff(),
                        (run.samples[k].u - ref_samples[k].u).cwiseAbs().maxCoeff()});
    for (std::size_t i = 0; i < ref_samples[k].contact.size(); ++i)
      EXPECT_EQ(run.samples[k].contact[i], ref_samples[k].contact[i]) << "t = " << ref_samples[k].t;
  }
  EXPECT_LE(worst_x, tol_x);
  std::printf("%zu events, largest time difference %.3g s, largest state difference %.3g over %zu samples\n",
              ref.events.size(), worst_t, worst_x, ref_samples.size());
}

using test_problems::bundled;
using test_problems::CoulombSlider;

// the slider's closed form (event_driven_problems.hpp)
TEST(Switching, CoulombSliderClosedForm) {
  const double t2 = CoulombSlider::t2();
  const SwitchingRun run =
      run_switching(CoulombSlider::model(), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Zero(1), t2 + 5.0, 0.01);
  ASSERT_EQ(run.status, Status::ok);
  double worst = 0.0;
  for (const ReferenceSample& s : run.samples) {
    double x, u;
    ContactState st;
    CoulombSlider::at(s.t, x, u, st);
    worst = std::max({worst, std::abs(s.q(0) - x), std::abs(s.u(0) - u)});
  }
  EXPECT_LE(worst, 1e-9);
  CoulombSlider::expect_events(run.events);
}

TEST(Switching, MatchesTheHostReferenceOnModelI) {
  const Scenario s = bundled("model1_slow_stribeck");
  expect_agreement(s.model, s.q0, s.u0, 40.0, 0.01, 1e-9, 1e-9, 6);
}

TEST(Switching, MatchesTheHostReferenceOnTheTwoDofChain) {
  const Scenario s = bundled("chain2_F15");
  expect_agreement(s.model, s.q0, s.u0, 60.0, 0.01, 1e-9, 1e-9, 6);
}

TEST(Switching, MatchesTheHostReferenceOnTheFiveDofChain) {
  const Scenario s = bundled("chain5_F15");
  expect_agreement(s.model, s.q0, s.u0, 40.0, 0.01, 1e-9, 1e-9, 10);
}

TEST(Switching, MatchesTheHostReferenceOnModelII) {
  const Scenario s = bundled("model2_example1");
  expect_agreement(s.model, s.q0, s.u0, 2.0, 1e-3, 1e-9, 1e-9, 4);
}

// a stick that starts at its breakaway force (Model I at k·x = μ_s·F_n with ẋ = v0) slips at once
// in both integrators: the run from the boundary follows the run from 1e-10 inside it, whose stick
// ends after 1e-10 s through an ordinary event, to 1e-8 in state
TEST(Switching, AStickStartedAtItsBreakawayForceSlipsAtOnce) {
  const Scenario s = bundled("model1_sharp_stribeck");
  const double breakaway = 0.1 * 10.0 / 1.0;  // μ_s·F_n / k of the scenario
  Eigen::VectorXd u0(1), q_edge(1), q_inside(1);
  u0 << 0.5;
  q_edge << breakaway;
  q_inside << breakaway - 1e-10;
  const double t_end = 20.0, sample_dt = 0.01;
  const SwitchingRun edge = run_switching(s.model, q_edge, u0, t_end, sample_dt);
  const SwitchingRun inside = run_switching(s.model, q_inside, u0, t_end, sample_dt);
  ASSERT_EQ(edge.status, Status::ok);
  ASSERT_EQ(inside.status, Status::ok);
  ASSERT_GE(edge.events.size(), 4u);
  EXPECT_EQ(edge.events[0].from, ContactState::stick);
  EXPECT_LE(edge.events[0].t, 1e-9);
  ASSERT_EQ(edge.events.size(), inside.events.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < edge.samples.size(); ++k)
    worst = std::max({worst, std::abs(edge.samples[k].q(0) - inside.samples[k].q(0)),
                      std::abs(edge.samples[k].u(0) - inside.samples[k].u(0))});
  EXPECT_LE(worst, 1e-8);

  std::vector<ReferenceSample> ref;
  const EventDrivenOutcome host =
      simulate_event_driven(s.model, q_edge, u0, 0.0, t_end, sample_dt, EventDrivenOptions{},
                            [&](const ReferenceSample& r) { ref.push_back(r); });
  ASSERT_EQ(host.status, Status::ok);
  ASSERT_EQ(host.events.size(), edge.events.size());
  EXPECT_LE(host.events[0].t, 1e-9);
  ASSERT_EQ(ref.size(), edge.samples.size());
  EXPECT_NEAR(ref.back().q(0), edge.samples.back().q(0), 1e-6);
}

// a velocity section is located on the dense output: each sample has u = value to rounding
TEST(Switching, VelocitySectionSamplesLieOnTheSection) {
  const Scenario s = bundled("chain2_F15");
  using D = HostDims;
  auto m = std::make_unique<Model<D>>();
  make_model(s.model, *m);
  auto ws = std::make_unique<SwitchingWorkspace<D>>();
  SwitchingSection sec;
  sec.kind = SwitchingSectionKind::velocity;
  sec.dof = 1;
  sec.value = 0.0;
  sec.direction = -1;
  std::vector<std::pair<double, double>> hits;  // (t, u1)
  auto sink = [&](const SwitchingEvent<double>& e) {
    if (e.section) hits.emplace_back(e.t, e.u[1]);
  };
  const SwitchingSettings set;
  ASSERT_EQ(switching_start(*m, set, sec, *ws, 0.0, s.q0.data(), s.u0.data(), false, sink), Status::ok);
  ASSERT_EQ(switching_advance(*m, set, sec, *ws, 100.0, sink), Status::ok);
  ASSERT_GE(hits.size(), 3u);
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_NEAR(hits[i].second, 0.0, 1e-9) << "t = " << hits[i].first;
    if (i > 0) {
      EXPECT_GT(hits[i].first, hits[i - 1].first);
    }
  }
}

}  // namespace
}  // namespace fivsim
