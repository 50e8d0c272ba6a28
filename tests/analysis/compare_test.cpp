// tests/analysis/compare_test.cpp — the measures of `fivsim compare` on inputs with known answers:
// transition matching (missed, spurious, timing), displacement RMS at stick-slip transitions,
// spectral peaks of a sum of sinusoids, and RMS of recorded series.
#include "fivsim/analysis/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

Event event(double t, int contact, EventKind kind, std::vector<double> q = {0.0}) {
  Event e;
  e.t = t;
  e.contact = contact;
  e.kind = kind;
  e.q = std::move(q);
  return e;
}

TEST(Compare, MatchTransitions) {
  const std::vector<Event> ref = {event(1.0, 0, EventKind::stick_to_slip), event(2.0, 0, EventKind::slip_to_stick),
                                  event(3.0, 0, EventKind::stick_to_slip), event(3.5, 1, EventKind::separation),
                                  event(4.0, 0, EventKind::slip_to_stick)};
  const std::vector<Event> run = {event(1.004, 0, EventKind::stick_to_slip),  // 4 ms late
                                  event(1.999, 0, EventKind::slip_to_stick),  // 1 ms early
                                  event(2.5, 0, EventKind::slip_to_stick),    // spurious
                                  event(3.0, 1, EventKind::stick_to_slip),    // wrong contact: spurious
                                  event(3.502, 1, EventKind::separation),
                                  event(4.2, 0, EventKind::slip_to_stick)};  // too late: missed + spurious
  const TransitionMatch m = match_transitions(ref, run, 0.01, 0.0);
  EXPECT_EQ(m.reference, 5);
  EXPECT_EQ(m.matched, 3);
  EXPECT_EQ(m.missed, 2);  // stick→slip at 3.0, slip→stick at 4.0
  EXPECT_EQ(m.spurious, 3);
  EXPECT_NEAR(m.worst_timing, 0.004, 1e-12);
  EXPECT_NEAR(m.mean_timing, (0.004 + 0.001 + 0.002) / 3, 1e-12);
  // from t = 2.2 on only three reference events count
  const TransitionMatch late = match_transitions(ref, run, 0.01, 2.2);
  EXPECT_EQ(late.reference, 3);
  EXPECT_EQ(late.matched, 1);
}

TEST(Compare, TransitionDisplacementRms) {
  SliderChainParams p;
  p.m = p.k = p.c = p.Fn = {1.0, 1.0};
  const ModelDescription d = make_slider_chain(p);
  const std::vector<Event> ev = {event(1, 0, EventKind::stick_to_slip, {3.0, 9.0}),
                                 event(2, 0, EventKind::slip_to_stick, {4.0, 9.0}),
                                 event(3, 1, EventKind::stick_to_slip, {0.0, 2.0}),
                                 event(4, 1, EventKind::slip_reversal, {0.0, 7.0}),     // not a stick-slip transition
                                 event(0.5, 1, EventKind::slip_to_stick, {0.0, 5.0})};  // before t_from
  const auto rms = transition_displacement_rms(ev, d, 0.9);
  ASSERT_EQ(rms.size(), 2u);
  EXPECT_NEAR(rms[0], std::sqrt((9.0 + 16.0) / 2), 1e-15);
  EXPECT_NEAR(rms[1], 2.0, 1e-15);
}

TEST(Compare, DominantFrequencies) {
  // 0.13 Hz with its 2nd and 3rd harmonics, like the stick-slip cycle of seed 000 Fig. 13
  const double dt = 0.01, f1 = 0.13;
  std::vector<double> x;
  for (int i = 0; i < 40000; ++i) {
    const double t = i * dt;
    x.push_back(0.3 + 1.0 * std::sin(2 * M_PI * f1 * t) + 0.18 * std::sin(2 * M_PI * 2 * f1 * t + 0.3) +
                0.02 * std::cos(2 * M_PI * 3 * f1 * t));
  }
  const auto peaks = dominant_frequencies(x, dt, 3);
  ASSERT_EQ(peaks.size(), 3u);
  const double df = 1.0 / (40000 * dt);
  const double f[3] = {f1, 2 * f1, 3 * f1}, a[3] = {1.0, 0.18, 0.02};
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(peaks[k].frequency, f[k], 0.1 * df) << k;
    EXPECT_NEAR(peaks[k].amplitude, a[k], 0.02 * a[k]) << k;
  }
}

TEST(Compare, RunRecordRmsAfterTheTransient) {
  RunRecord rec(1, 1, 1.0);
  double q = 0, u = 0, n = 0, t_ = 0;
  ContactState st = ContactState::stick;
  SeriesPoint p;
  p.n_dof = 1;
  p.n_contacts = 1;
  p.q = &q;
  p.u = &u;
  p.lamN = &n;
  p.lamT = &t_;
  p.contact = &st;
  for (int i = 0; i <= 30; ++i) {
    p.t = 0.1 * i;
    q = i <= 10 ? 100.0 : (i % 2 ? 3.0 : -3.0);
    rec.add(p);
  }
  EXPECT_EQ(rec.stats()[0].count, 21);  // t = 1.0 … 3.0
  EXPECT_NEAR(rec.stats()[0].rms(), std::sqrt((100.0 * 100.0 + 20 * 9.0) / 21), 1e-12);
  EXPECT_EQ(rec.stats().size(), 4u);  // q0, u0, lamN0, lamT0
  EXPECT_EQ(rec.first_displacement().size(), 21u);
}

TEST(Compare, BriefSticksBetweenOppositeSlipsAreReversals) {
  auto ev = [](double t, EventKind k, ContactState from, ContactState to) {
    Event e = event(t, 0, k);
    e.from = from;
    e.to = to;
    return e;
  };
  using CS = ContactState;
  const std::vector<Event> run = {ev(1.00, EventKind::slip_to_stick, CS::slip_neg, CS::stick),
                                  ev(1.01, EventKind::stick_to_slip, CS::stick, CS::slip_pos),  // 1 step: reversal
                                  ev(2.00, EventKind::slip_to_stick, CS::slip_pos, CS::stick),
                                  ev(2.01, EventKind::stick_to_slip, CS::stick, CS::slip_pos),  // same side: a stick
                                  ev(3.00, EventKind::slip_to_stick, CS::slip_pos, CS::stick),
                                  ev(3.50, EventKind::stick_to_slip, CS::stick, CS::slip_neg)};  // long: a stick
  const auto merged = merge_brief_sticks(run, 0.025);
  ASSERT_EQ(merged.size(), 5u);
  EXPECT_EQ(merged[0].kind, EventKind::slip_reversal);
  EXPECT_EQ(merged[0].from, CS::slip_neg);
  EXPECT_EQ(merged[0].to, CS::slip_pos);
  EXPECT_EQ(merged[1].kind, EventKind::slip_to_stick);
  EXPECT_EQ(merged[4].kind, EventKind::stick_to_slip);
}

// scenarios/model1_sharp_short_stick.json is built so that a stick lasts 8 ms: Moreau at
// dt = 0.01 steps over it and its transitions are reported missed; at dt = 1e-4 every transition
// of the event-driven reference is found, none is spurious
TEST(Compare, MissedTransitionOfACaseBuiltToMissOne) {
  const Scenario sc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model1_sharp_short_stick.json"));
  auto m = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *m);
  auto events_of = [&](MethodKind kind, double dt) {
    MethodSpec spec;
    spec.kind = kind;
    const long steps = std::lround(sc.integrator.t_end / dt);
    const MethodOutcome out =
        run_method(spec, sc.model, *m, sc.q0, sc.u0, dt, steps, sc.integrator.step, [](const SeriesPoint&) {});
    EXPECT_EQ(out.status, Status::ok);
    return kind == MethodKind::event_driven ? out.events : merge_brief_sticks(out.events, 2.5 * dt);
  };
  const auto ref = events_of(MethodKind::event_driven, 1e-3);
  long sticks = 0;
  for (const auto& e : ref) sticks += e.kind == EventKind::slip_to_stick;
  ASSERT_EQ(sticks, 1);
  const TransitionMatch coarse = match_transitions(ref, events_of(MethodKind::moreau, 1e-2), 0.0, 0.0);
  EXPECT_GE(coarse.missed, 1);
  const TransitionMatch fine = match_transitions(ref, events_of(MethodKind::moreau, 1e-4), 0.0, 0.0);
  EXPECT_EQ(fine.missed, 0);
  EXPECT_EQ(fine.spurious, 0);
  EXPECT_EQ(fine.matched, fine.reference);
  EXPECT_LE(fine.worst_timing, 1e-3);
}

}  // namespace
}  // namespace fivsim
