// tests/cases/case_runner_test.cpp — one case of a sweep (cases/case_runner.hpp): its aggregates against
// the host driver and the event log, its Poincaré samples against a closed-form oscillator, and its
// classification against synthetic point sequences and the event-driven reference.
#include "fivsim/cases/case_runner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "integrate/event_driven_problems.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/integrate/switching_lyapunov.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using D1 = Dims<double, 1, 1>;
using D2 = Dims<double, 2, 2>;

// a CaseResult with q and u ranging over [−1, 1] and n points pushed into the section ring
struct Synthetic {
  SweepAnalysis an;
  CaseResult<D1> r;
  std::vector<double> points;
  Synthetic() {
    an.capacity = 32;
    points.assign(case_points_size(1, an), 0.0);
    r.transitions = 100;
    for (int s = 0; s < 2; ++s) {
      r.series[s].add(-1.0);
      r.series[s].add(1.0);
    }
  }
  void push(double t, double q, double u) {
    detail::push_point(points.data(), 1, r.points_seen[1], an.capacity, 1, t, -1.0, &q, &u);
  }
  void classify() { classify_case(points.data(), an, 1, 1, r); }
};

TEST(CaseRunner, ClassifiesSyntheticSequences) {
  {
    Synthetic s;  // a fixed point with noise at 1e-5 of the range: periodic-1, period 2 s
    for (int i = 0; i < 40; ++i) s.push(2.0 * i, 0.3 + 1e-5 * std::sin(i), -0.2);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::periodic);
    EXPECT_EQ(s.r.period_n, 1);
    EXPECT_NEAR(s.r.period_s, 2.0, 1e-12);
  }
  {
    Synthetic s;  // alternating between two points: periodic-2
    for (int i = 0; i < 40; ++i) s.push(i, i % 2 ? 0.5 : -0.4, 0.1);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::periodic);
    EXPECT_EQ(s.r.period_n, 2);
    EXPECT_NEAR(s.r.period_s, 2.0, 1e-12);
  }
  {
    Synthetic s;  // a 3-cycle
    const double cycle[3] = {0.1, 0.7, -0.6};
    for (int i = 0; i < 40; ++i) s.push(i, cycle[i % 3], 0.0);
    s.classify();
    EXPECT_EQ(s.r.period_n, 3);
  }
  {
    // the demo's ring (88 samples, K = 10) holding an exact 3-cycle: read with N = 1 its thirds
    // (29 samples) hold the three phases in unequal numbers, a trend that is no creep
    Synthetic s;
    s.an.capacity = 88;
    s.an.confirmations = 10;
    s.points.assign(case_points_size(1, s.an), 0.0);
    const double cycle[3] = {2.58, 0.56, 1.83};
    for (int i = 0; i < 166; ++i) s.push(12.0 * i, cycle[i % 3], 0.1 * cycle[(i + 1) % 3]);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::periodic);
    EXPECT_EQ(s.r.period_n, 3);
  }
  {
    Synthetic s;  // the logistic map at r = 4: aperiodic, but without an exponent not called chaotic
    double x = 0.123;
    for (int i = 0; i < 40; ++i) {
      x = 4 * x * (1 - x);
      s.push(i, 2 * x - 1, 0.0);
    }
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::undetermined);
    EXPECT_GT(s.r.recurrence, 0.1);
    // with its exponent (ln 2 per sample) measured over 10 blocks: chaotic
    s.an.lyapunov_every = 10;
    s.r.lyapunov = std::log(2.0);  // per second, one sample a second
    s.r.lyapunov_time = 20.0;
    for (int b = 0; b < 20; ++b) s.r.lyapunov_blocks.add(std::log(2.0) + 0.05 * std::sin(b));
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::chaotic);
    // a positive estimate inside three standard errors is not enough
    s.r.lyapunov_blocks = BatchMeans();
    for (int b = 0; b < 20; ++b) s.r.lyapunov_blocks.add(b % 2 ? 6.0 : -4.6);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::undetermined);
  }
  {
    Synthetic s;  // a difference of 1e-2 of the range breaks the period at tol 1e-3
    for (int i = 0; i < 40; ++i) s.push(i, i == 30 ? 0.31 : 0.3, 0.0);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::undetermined);
    EXPECT_NEAR(s.r.recurrence, 0.005, 1e-12);  // 0.01 of a range of 2
  }
  {
    Synthetic s;  // three samples of a fixed point cannot confirm it K = 3 times
    for (int i = 0; i < 3; ++i) s.push(i, 0.3, 0.0);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::undetermined);
    EXPECT_EQ(s.r.samples, 3);
    s.push(3, 0.3, 0.0);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::periodic);
    EXPECT_EQ(s.r.period_n, 1);
    EXPECT_EQ(s.r.settled_at, 0.0);
  }
  {
    Synthetic s;
    s.r.transitions = 0;
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::no_stick_slip);
    s.r.status = Status::nonfinite;
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::diverged);
  }
}

// samples that contract onto a 2-cycle by 2 % a sample (the chain near its period doubling) are
// not periodic however well neighbours N apart match, and not quasi-periodic with an exponent of 0;
// samples filling a circle (a golden-mean rotation) with an exponent of 0 are quasi-periodic
TEST(CaseRunner, TellsACreepingTransientFromAnInvariantCurve) {
  const auto zero_exponent = [](Synthetic& s) {
    s.an.lyapunov_every = 10;
    s.r.lyapunov = 1e-5;
    s.r.lyapunov_time = 20.0;
    for (int b = 0; b < 20; ++b) s.r.lyapunov_blocks.add(1e-4 * std::sin(b));
  };
  {
    Synthetic s;
    zero_exponent(s);
    for (int i = 0; i < 32; ++i) s.push(i, 0.3 + (i % 2 ? 1 : -1) * 0.3 * std::pow(0.98, i), 0.0);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::undetermined);
  }
  {
    Synthetic s;
    const double golden = 0.5 * (std::sqrt(5.0) - 1.0);
    for (int i = 0; i < 32; ++i)
      s.push(i, 0.5 * std::cos(2 * M_PI * golden * i), 0.5 * std::sin(2 * M_PI * golden * i));
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::undetermined);  // no exponent
    zero_exponent(s);
    s.classify();
    EXPECT_EQ(s.r.klass, CaseClass::quasi_periodic);
  }
}

template <class D>
CaseSetup<D> setup_of(const ModelDescription& d, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0, double dt,
                      long steps, double t_transient) {
  CaseSetup<D> c;
  make_model(d, c.model);
  make_initial_state(c.model, q0, u0, 0.0, StepOptions{}.stick_tol, c.start);
  c.dt = dt;
  c.steps = steps;
  c.t_transient = t_transient;
  return c;
}

template <class D>
struct CaseRun {
  CaseResult<D> r;
  std::vector<double> points;
};

// one case through the runner; the Lyapunov twin is always given (the runner uses it only when
// an.lyapunov_every > 0)
template <class D>
CaseRun<D> run_one(const CaseSetup<D>& c, const SweepAnalysis& an, const StepOptions& opt = {},
                   const RkStepMap<D>* rk_map = nullptr) {
  CaseRun<D> out;
  out.points.assign(case_points_size(c.model.n_dof, an), 0.0);
  auto ws = std::make_unique<CaseWorkspace<D>>();
  auto s = std::make_unique<State<D>>();
  auto twin = std::make_unique<LyapunovTwin<D>>();
  run_case(c, rk_map, an, opt, *ws, *s, out.r, out.points.data(), twin.get());
  return out;
}

// the switching integrator through the case runner (integrator.method switching in sweeps): every
// kept transition point and break-away sample is an event of the host's event-driven reference
// (a second implementation) at the same time and state, to 1e-9
void expect_switching_matches_reference(const std::string& name, double t_end, double t_transient, int contact,
                                        std::size_t min_points, bool breaks_away = true) {
  using D = Dims<double, 5, 5>;
  const Scenario sc = test_problems::bundled(name);
  const double dt = 0.01;
  const auto c =
      std::make_unique<CaseSetup<D>>(setup_of<D>(sc.model, sc.q0, sc.u0, dt, std::lround(t_end / dt), t_transient));
  SweepAnalysis an;
  an.section = SectionKind::stick_to_slip;
  an.contact = contact;
  an.capacity = 256;
  SwitchingSettings set;
  set.rel_tol = 1e-12;
  set.abs_tol = 1e-14;
  CaseRun<D> run;
  run.points.assign(case_points_size(c->model.n_dof, an), 0.0);
  auto ws = std::make_unique<SwitchingWorkspace<D>>();
  auto s = std::make_unique<State<D>>();
  run_switching_case(*c, set, an, StepOptions{}, *ws, *s, run.r, run.points.data());
  ASSERT_EQ(run.r.status, Status::ok);

  EventDrivenOptions ref_opt;
  ref_opt.rel_tol = 1e-12;
  ref_opt.abs_tol = 1e-14;
  const EventDrivenOutcome ref =
      simulate_event_driven(sc.model, sc.q0, sc.u0, 0.0, t_end, t_end, ref_opt, [](const ReferenceSample&) {});
  ASSERT_EQ(ref.status, Status::ok);
  const int n = sc.model.dof(), stride = point_stride(n);
  // the reference event with this time (within 1e-6 s) and code, or null
  const auto match = [&](const double* row, bool section) -> const Event* {
    for (const Event& e : ref.events) {
      const bool same = section ? e.kind == EventKind::stick_to_slip && e.contact == contact
                                : row[1] == static_cast<double>(int(e.kind) * 64 + e.contact);
      if (same && std::abs(e.t - row[0]) < 1e-6) return &e;
    }
    return nullptr;
  };
  double worst = 0.0;
  std::size_t compared = 0;
  for (int kind = 0; kind < kPointKinds; ++kind) {
    const long seen = run.r.points_seen[kind];
    const int kept = static_cast<int>(std::min<long>(seen, an.capacity));
    for (int i = 0; i < kept; ++i) {
      const double* row = ring_point(run.points.data(), kind, seen, an.capacity, stride, i);
      const Event* e = match(row, kind == 1);
      ASSERT_NE(e, nullptr) << name << ": no reference event for the point at t = " << row[0] << ", kind " << kind;
      worst = std::max(worst, std::abs(e->t - row[0]));
      for (int k = 0; k < n; ++k) worst = std::max(worst, std::abs(e->q[k] - row[2 + k]));
      ++compared;
    }
  }
  EXPECT_GE(compared, min_points) << name;
  // Model II's contacts separate rather than stick: no break-away samples
  if (breaks_away) {
    EXPECT_GT(run.r.points_seen[1], 0) << name;
  }
  EXPECT_LE(worst, 1e-9) << name;
  // and the reference's transitions after the transient are all there
  long ref_transitions = 0;
  for (const Event& e : ref.events) ref_transitions += e.t >= t_transient && e.kind != EventKind::none;
  EXPECT_EQ(run.r.transitions, ref_transitions) << name;
}

TEST(CaseRunner, SwitchingCasesMatchTheEventDrivenReference) {
  expect_switching_matches_reference("model1_slow_stribeck", 40.0, 5.0, 0, 8);
  expect_switching_matches_reference("chain2_F15", 80.0, 10.0, 1, 12);
  expect_switching_matches_reference("chain5_F15", 40.0, 5.0, 4, 20);
  expect_switching_matches_reference("model2_example1", 2.0, 0.2, 0, 4, false);
}

// an undamped oscillator (a belt slider with no normal force): q = cos t. Moreau is symplectic
// Euler here, so the samples stay on the circle to O(dt)
TEST(CaseRunner, SectionsSampleAHarmonicOscillator) {
  SliderBeltParams p;
  p.m = 1;
  p.k = 1;
  p.v0 = 0.5;
  p.Fn = 0;
  const double dt = 1e-3;
  const auto c = setup_of<D1>(make_slider_belt(p), Eigen::VectorXd::Ones(1), Eigen::VectorXd::Zero(1), dt, 40000, 5.0);
  SweepAnalysis an;
  an.capacity = 16;
  an.section = SectionKind::velocity;  // u crosses 0 from above at the maxima of q, t = 2πk
  an.value = 0.0;
  an.direction = -1;
  const auto v = run_one(c, an);
  EXPECT_EQ(v.r.klass, CaseClass::no_stick_slip);
  ASSERT_EQ(v.r.section_hits, 6);  // maxima at 2π·1 … 2π·6 inside [5, 40]
  for (int i = 0; i < 6; ++i) {
    const double* row = ring_point(v.points.data(), 1, v.r.points_seen[1], an.capacity, point_stride(1), i);
    EXPECT_NEAR(row[0], 2 * M_PI * (i + 1), 5 * dt);
    EXPECT_NEAR(row[2], 1.0, 5 * dt);
    EXPECT_NEAR(row[3], 0.0, 1e-12);
  }
  an.section = SectionKind::stroboscopic;  // every π from t = 5: q = cos(5 + kπ) = ±cos 5
  an.period = M_PI;
  const auto s = run_one(c, an);
  EXPECT_EQ(s.r.section_hits, 11);  // 5 + kπ for k = 1 … 11 (the sample at t = 5 itself is not taken)
  for (int i = 0; i < 11; ++i) {
    const double* row = ring_point(s.points.data(), 1, s.r.points_seen[1], an.capacity, point_stride(1), i);
    EXPECT_NEAR(row[0], 5.0 + M_PI * (i + 1), 1e-9);
    EXPECT_NEAR(row[2], std::cos(row[0]), 5 * dt);
  }
}

// the runner's aggregates equal the host driver's over the same steps (simulation.hpp, EventLog),
// for Moreau and for a Runge–Kutta LCP stepper
template <class D>
void expect_same_aggregates(const ModelDescription& d, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0, double dt,
                            long steps, double t_transient, const MethodSpec& spec = {}) {
  const auto c = setup_of<D>(d, q0, u0, dt, steps, t_transient);
  SweepAnalysis an;
  auto map = std::make_unique<RkStepMap<D>>();
  const bool rk = spec.kind != MethodKind::moreau;
  if (rk) make_method_step_map(spec, c.model, dt, *map);
  const auto run = run_one(c, an, StepOptions{}, rk ? map.get() : nullptr);
  ASSERT_EQ(run.r.status, Status::ok);

  auto m = std::make_unique<Model<HostDims>>();
  make_model(d, *m);
  auto s = std::make_unique<State<HostDims>>();
  make_initial_state(*m, q0, u0, 0.0, StepOptions{}.stick_tol, *s);
  const int nq = m->n_dof, nc = m->n_contacts;
  std::vector<RunningStats> stats(2 * nq + 2 * nc);
  long in_state[4] = {0, 0, 0, 0}, events_after = 0;
  EventLog log;
  log.start(*m, *s);
  const RunOutcome out = simulate_time_stepper(spec, *m, *s, dt, steps, StepOptions{},
                                               [&](const State<HostDims>& st, long, const StepReport&) {
                                                 const std::size_t before = log.events().size();
                                                 log.observe(*m, st);
                                                 if (st.t < t_transient) return;
                                                 events_after += static_cast<long>(log.events().size() - before);
                                                 int k = 0;
                                                 for (int i = 0; i < nq; ++i) stats[k++].add(st.q[i]);
                                                 for (int i = 0; i < nq; ++i) stats[k++].add(st.u[i]);
                                                 for (int i = 0; i < nc; ++i) stats[k++].add(st.lamN[i]);
                                                 for (int i = 0; i < nc; ++i) stats[k++].add(st.lamT[i]);
                                                 for (int i = 0; i < nc; ++i)
                                                   ++in_state[static_cast<int>(st.contact[i])];
                                               });
  ASSERT_EQ(out.status, Status::ok);
  EXPECT_EQ(run.r.steps, steps);
  EXPECT_EQ(run.r.transitions, events_after);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(run.r.in_state[k], in_state[k]) << k;
  for (std::size_t k = 0; k < stats.size(); ++k) {
    const double tol = 1e-12 * (1 + std::abs(stats[k].rms()));
    EXPECT_NEAR(run.r.series[k].rms(), stats[k].rms(), tol) << "series " << k;
    EXPECT_NEAR(run.r.series[k].min, stats[k].min, tol) << "series " << k;
    EXPECT_NEAR(run.r.series[k].max, stats[k].max, tol) << "series " << k;
  }
  EXPECT_LE(run.r.max_lcp_residual, 1e-8);
}

TEST(CaseRunner, AggregatesEqualTheHostDriver) {
  const Scenario chain = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_F15.json"));
  expect_same_aggregates<D2>(chain.model, chain.q0, chain.u0, 1e-3, 60000, 20.0);
  const Scenario mc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model2_example2.json"));
  expect_same_aggregates<D2>(mc.model, mc.q0, mc.u0, 1e-3, 5000, 1.0);
  MethodSpec irk;
  irk.kind = MethodKind::irk;
  irk.stages = 4;
  irk.forces = StageForces::ramp;
  expect_same_aggregates<D2>(mc.model, mc.q0, mc.u0, 1e-3, 5000, 1.0, irk);
  MethodSpec rk4;
  rk4.kind = MethodKind::rk4lcp;
  expect_same_aggregates<Dims<double, 2, 2, true>>(chain.model, chain.q0, chain.u0, 1e-3, 20000, 5.0, rk4);
}

// distinct break-away positions of contact 0 after t_transient in the event-driven reference:
// the number of points of the cycle (0 when they do not recur with period ≤ 8)
int reference_period(const Scenario& sc, double t_end, double t_transient, double tol) {
  const EventDrivenOutcome ref =
      simulate_event_driven(sc.model, sc.q0, sc.u0, 0.0, t_end, t_end, EventDrivenOptions{}, [](const auto&) {});
  std::vector<std::vector<double>> pts;
  double lo = 1e300, hi = -1e300;
  for (const Event& e : ref.events) {
    if (e.t < t_transient || e.contact != 0 || e.kind != EventKind::stick_to_slip) continue;
    pts.push_back(e.q);
    lo = std::min(lo, e.q[0]);
    hi = std::max(hi, e.q[0]);
  }
  const double scale = std::max(hi - lo, 1e-9);
  for (int N = 1; N <= 8; ++N) {
    bool ok = static_cast<int>(pts.size()) >= 2 * N + 2;
    for (std::size_t i = 0; ok && i + N < pts.size(); ++i)
      for (std::size_t c = 0; c < pts[i].size(); ++c) ok = ok && std::abs(pts[i][c] - pts[i + N][c]) <= tol * scale;
    if (ok) return N;
  }
  return 0;
}

CaseClass classify_scenario(const Scenario& sc, int& period_n) {
  const auto c = setup_of<D2>(sc.model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.analysis.t_transient);
  const auto run = run_one(c, sweep::sweep_analysis(sc));
  period_n = run.r.period_n;
  return run.r.klass;
}

TEST(CaseRunner, ClassesAgreeWithTheEventDrivenReference) {
  // Model I: a 1-DoF slider has a period-1 stick-slip cycle
  {
    const Scenario sc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model1_slow_stribeck.json"));
    const auto c = setup_of<D1>(sc.model, sc.q0, sc.u0, 1e-3, 40000, 10.0);
    const auto run = run_one(c, sweep::sweep_analysis(sc));
    EXPECT_EQ(run.r.klass, CaseClass::periodic);
    EXPECT_EQ(run.r.period_n, 1);
    EXPECT_EQ(reference_period(sc, 40.0, 10.0, 1e-3), 1);
  }
  // the 2-DoF chain of seed 001 at 24 N (two break-aways of slider 1 per cycle) and 12 N (chaotic)
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_F15.json");
  doc["integrator"]["t_end"] = 300.0;
  doc["analysis"]["t_transient"] = 150.0;
  doc["model"]["Fn"] = 24.0;
  int n = 0;
  const Scenario f24 = parse_scenario(doc);
  EXPECT_EQ(classify_scenario(f24, n), CaseClass::periodic);
  EXPECT_EQ(n, reference_period(f24, 300.0, 150.0, 1e-3));
  EXPECT_EQ(n, 2);
  // at 12 N neither finds a period in 150 s; without an exponent that is undetermined, not chaos
  doc["model"]["Fn"] = 12.0;
  const Scenario f12 = parse_scenario(doc);
  EXPECT_EQ(classify_scenario(f12, n), CaseClass::undetermined);
  EXPECT_EQ(reference_period(f12, 300.0, 150.0, 1e-3), 0);
}

// the load sweep's chain at loads whose class a long fixed run settles (BENCHMARKS.md, the load
// scan over 2·10^4 s): an adaptive run stops early with the fixed run's class and period
TEST(CaseRunner, AdaptiveRunsStopWithTheClassOfALongFixedRun) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_load_sweep.json");
  doc["analysis"]["lyapunov"] = {{"every", 10}};
  struct Expect {
    double fn;
    CaseClass klass;
    int period_n;
  };
  // the chain's section samples drift within the tolerance long after they are periodic, so the
  // reference is a long run's last 1000 s (classes as at 2·10^4 s)
  for (const Expect& e : {Expect{12.0, CaseClass::periodic, 1}, Expect{7.0, CaseClass::periodic, 2},
                          Expect{3.0, CaseClass::periodic, 5}, Expect{4.0, CaseClass::chaotic, 0}}) {
    doc["model"]["Fn"] = e.fn;
    // the reference: 3000 s, judged on the last 1000 (chaos: 6000 s, on the last 4000, where the
    // exponent's error is under a third of it)
    const bool chaos = e.klass == CaseClass::chaotic;
    doc["integrator"]["t_end"] = chaos ? 6000.0 : 3000.0;
    doc["analysis"]["t_transient"] = 2000.0;
    const Scenario fixed_sc = parse_scenario(doc);
    const auto fixed_setup = setup_of<D2>(fixed_sc.model, fixed_sc.q0, fixed_sc.u0, fixed_sc.integrator.dt,
                                          fixed_sc.integrator.steps, fixed_sc.analysis.t_transient);
    const auto fixed = run_one(fixed_setup, sweep::sweep_analysis(fixed_sc));
    EXPECT_EQ(fixed.r.klass, e.klass) << e.fn;
    EXPECT_EQ(fixed.r.period_n, e.period_n) << e.fn;
    // the break-away sampled where its stick margin reaches zero inside the step: a settled
    // period-1 or period-2 orbit's samples repeat to O(dt²) (2e-7 and 6e-6 of the range at 12 and
    // 7 N), where samples taken at the step spread by a step's change (3e-4)
    if (e.klass == CaseClass::periodic && e.period_n <= 2) {
      EXPECT_LT(fixed.r.recurrence, 2e-5) << e.fn;
    }
    // adaptive: from 100 s on, 4000 s at most (the chaos stop waits for kChaosWindow cycles)
    doc["integrator"]["t_end"] = 4000.0;
    doc["analysis"]["t_transient"] = 100.0;
    doc["analysis"]["adaptive"] = true;
    const Scenario sc = parse_scenario(doc);
    doc["analysis"].erase("adaptive");
    const auto setup =
        setup_of<D2>(sc.model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.analysis.t_transient);
    const SweepAnalysis an = sweep::sweep_analysis(sc);
    ASSERT_TRUE(an.adaptive);
    const auto run = run_one(setup, an);
    EXPECT_EQ(run.r.klass, e.klass) << e.fn;
    EXPECT_EQ(run.r.period_n, e.period_n) << e.fn;
    if (e.klass != CaseClass::periodic) {
      // chaos: it stops once kChaosWindow cycles kept the exponent positive, before t_end
      EXPECT_LT(run.r.steps, sc.integrator.steps) << e.fn;
      EXPECT_GE(run.r.lyapunov_blocks.count, kChaosWindow) << e.fn;
      continue;
    }
    EXPECT_LT(run.r.steps, sc.integrator.steps / 2) << e.fn;  // it stopped when the class was known
    EXPECT_GE(run.r.settled_at, 100.0);
    // period-5 at 3 N keeps drifting slowly (its period 47.4 s at 200 s, 48.1 s at 2500 s, 48.8 s
    // at 2·10^4 s): only its class is compared
    if (e.period_n > 2) continue;
    // the mean sample interval within the classification's tolerance: periodic_tol of the period
    // plus the step grid (2 dt a sample)
    EXPECT_NEAR(run.r.period_s, fixed.r.period_s,
                an.periodic_tol * fixed.r.period_s + 2.0 * sc.integrator.dt * e.period_n)
        << e.fn;
    // the statistics cover the one orbit after the confirmation: N sample intervals, each within
    // 2 dt of the mean (the grid) — the extremes are not compared, the orbit itself still drifts
    // by a few 1e-3 of its range between 200 s and 3000 s
    EXPECT_NEAR(static_cast<double>(run.r.series[0].count) * sc.integrator.dt, run.r.period_s,
                an.periodic_tol * run.r.period_s + 2.0 * sc.integrator.dt * e.period_n)
        << e.fn;
  }
}

// the same with the switching method, whose exact break-away samples make a long run's periodic
// samples repeat to 1e-10 of the range: period-1, -2, -3, -4 and -5 and a chaotic case of the
// chain's load × belt-speed map, each adaptive run against a 2·10^4 s run judged on its last 2000 s
TEST(CaseRunner, SwitchingAdaptiveRunsStopWithTheClassOfALongFixedRun) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_classmap.json");
  doc.erase("sweep");
  ASSERT_EQ(doc["integrator"]["method"], "switching");
  struct Expect {
    double fn, v0;
    CaseClass klass;
    int period_n;
  };
  for (const Expect& e : {Expect{12.0, 0.3, CaseClass::periodic, 1}, Expect{7.0, 0.3, CaseClass::periodic, 2},
                          Expect{9.0, 0.8, CaseClass::periodic, 3}, Expect{4.0, 0.2, CaseClass::periodic, 4},
                          Expect{3.0, 0.3, CaseClass::periodic, 5}, Expect{4.0, 0.3, CaseClass::chaotic, 0}}) {
    doc["model"]["Fn"] = e.fn;
    doc["model"]["v0"] = e.v0;
    doc["analysis"]["adaptive"] = false;
    doc["integrator"]["t_end"] = 20000.0;
    doc["analysis"]["t_transient"] = 18000.0;
    const Scenario fixed_sc = parse_scenario(doc);
    const SwitchingSettings set = fixed_sc.integrator.switching_settings();
    const auto fixed_setup = std::make_unique<CaseSetup<D2>>(setup_of<D2>(
        fixed_sc.model, fixed_sc.q0, fixed_sc.u0, fixed_sc.integrator.dt, fixed_sc.integrator.steps, 18000.0));
    const auto run_switching = [&](const CaseSetup<D2>& c, const SweepAnalysis& an) {
      CaseRun<D2> out;
      out.points.assign(case_points_size(2, an), 0.0);
      auto ws = std::make_unique<SwitchingWorkspace<D2>>();
      auto st = std::make_unique<State<D2>>();
      auto tangent = std::make_unique<SwitchingTangent<D2>>();
      run_switching_case(c, set, an, StepOptions{}, *ws, *st, out.r, out.points.data(), tangent.get());
      return out;
    };
    const auto fixed = run_switching(*fixed_setup, sweep::sweep_analysis(fixed_sc));
    ASSERT_EQ(fixed.r.status, Status::ok);
    EXPECT_EQ(fixed.r.klass, e.klass) << e.fn << " N, " << e.v0 << " m/s";
    EXPECT_EQ(fixed.r.period_n, e.period_n) << e.fn << " N, " << e.v0 << " m/s";
    // no time grid in the samples: a periodic orbit's repeat to the integrator's accuracy
    if (e.klass == CaseClass::periodic) {
      EXPECT_LT(fixed.r.recurrence, 1e-8) << e.fn;
    }
    doc["analysis"]["adaptive"] = true;
    doc["integrator"]["t_end"] = 10000.0;  // the class map's
    doc["analysis"]["t_transient"] = 100.0;
    const Scenario sc = parse_scenario(doc);
    const auto setup = std::make_unique<CaseSetup<D2>>(
        setup_of<D2>(sc.model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, 100.0));
    const SweepAnalysis an = sweep::sweep_analysis(sc);
    ASSERT_TRUE(an.adaptive);
    const auto run = run_switching(*setup, an);
    EXPECT_EQ(run.r.klass, e.klass) << e.fn << " N, " << e.v0 << " m/s";
    EXPECT_EQ(run.r.period_n, e.period_n) << e.fn << " N, " << e.v0 << " m/s";
    EXPECT_LT(run.r.steps, sc.integrator.steps) << e.fn;  // it stopped when the class was known
  }
}

// at 2 N the demo chain's outer slider never sticks, so its break-away section is never crossed:
// an adaptive case judges on its stick→slip points as the classification does, and stops long
// before t_end (where it ran to before) with the class, N and period of a 3000 s run judged on its
// last 1000 s
TEST(CaseRunner, AdaptiveRunsWithoutSectionSamplesStopOnTheirTransitions) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_bifurcation.json");
  doc.erase("sweep");
  doc["model"]["Fn"] = 2.0;
  doc["analysis"]["orbit"] = false;
  const auto run_switching = [&](const json& d) {
    const Scenario sc = parse_scenario(d);
    const auto setup = std::make_unique<CaseSetup<D2>>(
        setup_of<D2>(sc.model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.analysis.t_transient));
    CaseRun<D2> out;
    const SweepAnalysis an = sweep::sweep_analysis(sc);
    out.points.assign(case_points_size(2, an), 0.0);
    auto ws = std::make_unique<SwitchingWorkspace<D2>>();
    auto st = std::make_unique<State<D2>>();
    auto tangent = std::make_unique<SwitchingTangent<D2>>();
    run_switching_case(*setup, sc.integrator.switching_settings(), an, StepOptions{}, *ws, *st, out.r,
                       out.points.data(), tangent.get());
    return out;
  };
  json fixed_doc = doc;
  fixed_doc["analysis"]["adaptive"] = false;
  fixed_doc["analysis"]["t_transient"] = 2000.0;
  const auto fixed = run_switching(fixed_doc);
  const auto run = run_switching(doc);
  ASSERT_EQ(fixed.r.status, Status::ok);
  ASSERT_EQ(fixed.r.points_seen[1], 0);  // no section sample in the long run either
  EXPECT_EQ(fixed.r.klass, CaseClass::periodic);
  EXPECT_EQ(run.r.points_seen[1], 0);
  EXPECT_EQ(run.r.klass, fixed.r.klass);
  EXPECT_EQ(run.r.period_n, fixed.r.period_n);
  // the transition points' mean interval: periodic_tol of the period plus nothing of a grid (exact
  // events)
  EXPECT_NEAR(run.r.period_s, fixed.r.period_s, 1e-3 * fixed.r.period_s);
  EXPECT_LT(run.r.steps, 300000 / 4);
  EXPECT_GE(run.r.settled_at, 100.0);
}

TEST(CaseRunner, ClosedFormFrictionEqualsLemke) {
  // decoupled given-normal contacts: the clamp of moreau.hpp against the Lemke path
  const Scenario chain = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_F15.json"));
  const auto c = setup_of<D2>(chain.model, chain.q0, chain.u0, 1e-3, 20000, 5.0);
  ASSERT_TRUE(c.model.decoupled_friction);
  SweepAnalysis an;
  StepOptions lemke;
  lemke.closed_form_decoupled = false;
  const auto a = run_one(c, an), b = run_one(c, an, lemke);
  EXPECT_EQ(a.r.transitions, b.r.transitions);
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(a.r.series[k].rms(), b.r.series[k].rms(), 1e-9 * (1 + b.r.series[k].rms()));
  for (int k = 0; k < 4; ++k) EXPECT_EQ(a.r.in_state[k], b.r.in_state[k]);
  const Scenario mc = parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/model2_example2.json"));
  EXPECT_FALSE(setup_of<D2>(mc.model, mc.q0, mc.u0, 1e-3, 1, 0.0).model.decoupled_friction);  // spring contact
}

}  // namespace
}  // namespace fivsim

namespace fivsim {
namespace {

TEST(CaseRunner, LyapunovExponentOfADampedOscillator) {
  // q'' + c q' + q = 0 (a belt slider without normal force): both exponents are −c/(2m); Moreau's
  // symplectic Euler gives ln(1 − c·dt)/(2dt) = −0.1 − 1e-5 here
  SliderBeltParams p;
  p.m = 1;
  p.k = 1;
  p.c = 0.2;
  p.v0 = 0.5;
  p.Fn = 0;
  const auto c =
      setup_of<D1>(make_slider_belt(p), Eigen::VectorXd::Ones(1), Eigen::VectorXd::Zero(1), 1e-3, 100000, 10.0);
  SweepAnalysis an;
  an.lyapunov_every = 10;
  const auto run = run_one(c, an);
  EXPECT_NEAR(run.r.lyapunov_time, 90.0, 1e-9);
  EXPECT_NEAR(run.r.lyapunov, std::log(1 - 0.2e-3) / 2e-3, 2e-3);
  // not asked for: no estimate
  an.lyapunov_every = 0;
  EXPECT_EQ(run_one(c, an).r.lyapunov, 0.0);
}

TEST(CaseRunner, LyapunovSeparatesPeriodicFromChaotic) {
  // the cases of ClassesAgreeWithTheEventDrivenReference: 24 N periodic-2, 12 N chaotic
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_F15.json");
  doc["integrator"]["t_end"] = 300.0;
  doc["analysis"]["t_transient"] = 150.0;
  SweepAnalysis an;
  an.lyapunov_every = 10;
  double lambda[2];
  int k = 0;
  for (double fn : {24.0, 12.0}) {
    doc["model"]["Fn"] = fn;
    const Scenario sc = parse_scenario(doc);
    const auto c = setup_of<D2>(sc.model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.analysis.t_transient);
    lambda[k++] = run_one(c, an).r.lyapunov;
  }
  // a periodic orbit of an autonomous system has a zero largest exponent (a shift along the orbit
  // neither grows nor decays); the chaotic case separates
  EXPECT_LT(std::abs(lambda[0]), 1e-3);
  EXPECT_GT(lambda[1], 2e-3);
}

// a switching case's exponent comes from its variational equations (one tangent vector through
// every event's saltation matrix, normalised each step): on the class map's chaotic cell (4 N,
// 0.3 m/s) it is the largest of the QR spectrum of switching_lyapunov (a second driver of the same
// equations, three vectors re-orthonormalised each second) over the same window, to the spread two
// starting vectors leave over 3000 s; on a period-1 orbit (12 N) it is zero (the shift along the
// orbit), where a twin's distance, broken at every event, came out positive
TEST(CaseRunner, SwitchingExponentIsThatOfTheVariationalEquations) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_classmap.json");
  doc.erase("sweep");
  doc["analysis"]["adaptive"] = false;
  doc["analysis"]["orbit"] = false;
  doc["integrator"]["t_end"] = 3100.0;
  for (const double fn : {4.0, 12.0}) {
    doc["model"]["Fn"] = fn;
    const Scenario sc = parse_scenario(doc);
    const SwitchingSettings set = sc.integrator.switching_settings();
    const auto setup = std::make_unique<CaseSetup<D2>>(
        setup_of<D2>(sc.model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps, sc.analysis.t_transient));
    const SweepAnalysis an = sweep::sweep_analysis(sc);
    ASSERT_GT(an.lyapunov_every, 0);
    CaseRun<D2> run;
    run.points.assign(case_points_size(2, an), 0.0);
    auto ws = std::make_unique<SwitchingWorkspace<D2>>();
    auto tangent = std::make_unique<SwitchingTangent<D2>>();
    auto st = std::make_unique<State<D2>>();
    run_switching_case(*setup, set, an, StepOptions{}, *ws, *st, run.r, run.points.data(), tangent.get());
    ASSERT_EQ(run.r.status, Status::ok);
    LyapunovSpectrum spec;
    const double q0[2] = {sc.q0[0], sc.q0[1]}, u0[2] = {sc.u0[0], sc.u0[1]};
    ASSERT_EQ(switching_lyapunov(setup->model, set, *ws, *tangent, 0.0, q0, u0, sc.analysis.t_transient,
                                 sc.integrator.t_end, 1.0, 3, spec),
              Status::ok);
    std::printf("%g N: sweep %.5f ± %.5f over %.1f s (%ld blocks); QR %.5f ± %.5f over %.1f s\n", fn, run.r.lyapunov,
                run.r.lyapunov_blocks.std_error(), run.r.lyapunov_time, run.r.lyapunov_blocks.count, spec.exponent[0],
                spec.error[0], spec.time);
    EXPECT_NEAR(run.r.lyapunov_time, spec.time, 1.0);
    if (fn == 4.0) {
      EXPECT_EQ(run.r.klass, CaseClass::chaotic);
      EXPECT_GT(run.r.lyapunov, 5.0 * run.r.lyapunov_blocks.std_error());
      // two starting vectors of the same equations part by O(1/T): log of their ratio over the window
      EXPECT_NEAR(run.r.lyapunov, spec.exponent[0], 5.0 / spec.time);
    } else {
      ASSERT_EQ(run.r.klass, CaseClass::periodic);
      EXPECT_NEAR(run.r.lyapunov, 0.0, 1e-3);
      EXPECT_NEAR(spec.exponent[0], 0.0, 1e-3);
    }
  }
}

}  // namespace
}  // namespace fivsim
