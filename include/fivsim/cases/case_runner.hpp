// fivsim/cases/case_runner.hpp — one case of a sweep from start to end, reduced on the fly to the
// numbers of a bifurcation diagram without storing its trajectory: statistics, time fractions,
// transition points and section samples in rings, its class and, with analysis.adaptive, a stop
// once its attractor is known (docs/METHODS.md "`fivsim sweep`: what each case is reduced to";
// DESIGN.md §2). FIVSIM_HD code over plain structs: the CPU backend's OpenMP loop and the CUDA
// kernels (kernels/sweep_batch.cuh) run it alike, with Moreau, RK4-LCP / Gauss IRK-LCP or the
// event-driven switching integrator (cases/case_steppers.hpp).
#pragma once

#include "fivsim/model/events.hpp"
#include "fivsim/analysis/classification.hpp"
#include "fivsim/analysis/observers.hpp"
#include "fivsim/analysis/statistics.hpp"
#include "fivsim/cases/case_steppers.hpp"

namespace fivsim {

// one case's immutable input: its model, start state and time grid
template <class D>
struct CaseSetup {
  Model<D> model;
  State<D> start;
  double dt = 0.0;
  long steps = 0;
  double t_transient = 0.0;
};

// what a case's run found, apart from its per-series arrays (sized by the instantiation)
struct CaseFindings {
  Status status = Status::ok;
  long steps = 0;                   // steps completed
  double failed_at = 0.0;           // start time of the failing step
  long in_state[4] = {0, 0, 0, 0};  // contact-steps in free / stick / slip− / slip+
  long transitions = 0;             // events after t_transient, all contacts
  long section_hits = 0;            // Poincaré samples after t_transient
  double max_lcp_residual = 0.0;
  double output_sse = 0.0;  // output_error: Σ (q[dof] − reference)² over the steps compared
  long output_samples = 0;
  long points_seen[kPointKinds] = {0, 0};  // points offered to each ring (kept: the last capacity)
  double lyapunov = 0.0;                   // largest Lyapunov exponent estimate (1/s), when asked for
  double lyapunov_time = 0.0;              // time over which it was averaged
  BatchMeans lyapunov_blocks;              // its growth rate per block (a block closes at each section sample)
  double lyapunov_block_sum = 0.0, lyapunov_block_time = 0.0;  // the open block
  CaseClass klass = CaseClass::undetermined;
  int period_n = 0;       // N of periodic-N
  double period_s = 0.0;  // N × mean time between section samples
  // the evidence of the class
  int samples = 0;  // samples the class was judged on
  // largest spread of a phase over the window, relative to the range (N chosen, else the best)
  double recurrence = 0.0;
  double settled_at = -1.0;  // time of the first sample of the periodic window (−1: not periodic)
  // the orbit observer (case_orbit.hpp): the stable orbit shot from the last sample, else the
  // smallest N's unstable one; orbit_n 0 where Newton found none
  int orbit_n = 0;
  double orbit_residual = 0.0;        // max|Pᴺ(x) − x| at the orbit
  double orbit_period = 0.0;          // its period (s)
  double orbit_multiplier = 0.0;      // the largest Floquet multiplier's modulus
  double orbit_multiplier_arg = 0.0;  // and argument (rad)
  double orbit_settle_t = -1.0;       // a stable orbit: when the samples come within periodic_tol of it
};

template <class D>
struct CaseResult : CaseFindings {
  static constexpr int NS = 2 * D::max_dof + 2 * D::max_contacts;
  RunningStats series[NS];                      // q.., u.., lamN.., lamT.. after t_transient
  double max_step_change[2 * D::max_dof] = {};  // largest |Δq_i|, |Δu_i| over one step after t_transient
  // the range of each q and u over what the case settled on (classification.hpp record_settled_range)
  double settled_lo[2 * D::max_dof] = {}, settled_hi[2 * D::max_dof] = {};
};

namespace detail {
// a law's static friction coefficients, bounding a positive and a negative stick force (μ at zero
// relative velocity), found once per case so that a stick step pays no transcendental function
struct StaticFriction {
  double plus = 0.0, minus = 0.0;
};
FIVSIM_HD inline StaticFriction static_friction(const FrictionLaw& law) {
  StaticFriction mu;
  friction_bounds(law, 0.0, mu.plus, mu.minus);
  return mu;
}

// how far a sticking contact's friction force is inside its cone: μ(0)·λN − |λT|
FIVSIM_HD inline double stick_margin(const StaticFriction& mu, double lamN, double lamT) {
  return (lamT >= 0.0 ? mu.minus : mu.plus) * lamN - fabs(lamT);
}

// where in its step a break-away happened: the stick margins at the ends of the two steps before
// it, extrapolated linearly to zero (the spring force that breaks the stick grows smoothly), as a
// fraction of the step; 1 (the step's end, the grid's sample) when they do not close. A sample
// taken there moves by O(dt²) with the orbit's phase against the time grid, not by O(dt).
// whether the section's velocity, a before the step and b after it (less the section's value),
// crosses it in the section's direction (≤ 0 down, ≥ 0 up), leaving the band ±eps
FIVSIM_HD inline bool velocity_crosses(double a, double b, double eps, int direction) {
  // bitwise, not short-circuit: no branch, so that a loop over lanes vectorises it
  const bool down = (a > -eps) & (b <= -eps);
  const bool up = (a < eps) & (b >= eps);
  return ((direction <= 0) & down) | ((direction >= 0) & up);
}

FIVSIM_HD inline double break_away_fraction(double margin_1, double margin_2) {
  if (!(margin_1 >= 0.0) || !(margin_2 > margin_1)) return 1.0;
  const double theta = margin_1 / (margin_2 - margin_1);
  return theta < 1.0 ? theta : 1.0;
}

}  // namespace detail

// the perturbed twin of a case for the Lyapunov estimate
template <class D>
struct LyapunovTwin {
  State<D> s;
  CaseWorkspace<D> ws;
};

namespace detail {

// distance of the twin from the case in (q, u), and the twin pulled back to distance d0 along it
template <class D>
FIVSIM_HD inline double renormalise_twin(const State<D>& s, State<D>& twin, int nq, double d0) {
  using T = typename D::scalar;
  double d2 = 0.0;
  for (int i = 0; i < nq; ++i) {
    const double dq = static_cast<double>(twin.q[i] - s.q[i]), du = static_cast<double>(twin.u[i] - s.u[i]);
    d2 += dq * dq + du * du;
  }
  const double d = sqrt(d2);
  // a twin that merged with the case (both stuck to the belt) starts again d0 away in q0
  const double scale = d > 0.0 ? d0 / d : 0.0;
  for (int i = 0; i < nq; ++i) {
    twin.q[i] = s.q[i] + T(scale) * (twin.q[i] - s.q[i]);
    twin.u[i] = s.u[i] + T(scale) * (twin.u[i] - s.u[i]);
  }
  if (!(d > 0.0)) twin.q[0] = s.q[0] + T(d0);
  return d;
}

// statistics start again (the orbit that follows a confirmation is what they describe)
template <class D>
FIVSIM_HD inline void restart_statistics(CaseResult<D>& r) {
  for (int c = 0; c < CaseResult<D>::NS; ++c) r.series[c] = RunningStats();
  for (int c = 0; c < 2 * D::max_dof; ++c) r.max_step_change[c] = 0.0;
  for (int c = 0; c < 4; ++c) r.in_state[c] = 0;
  r.transitions = 0;
}

// an adaptive case's new section sample: whether the case is done. Once the last (K+1)·N samples
// confirm periodic-N, the case records when that window began, starts its statistics afresh and
// runs one more orbit (N samples) over which they are taken.
// A period that is a multiple of `unsettled` (an unstable periodic-`unsettled` orbit the samples lie
// by: a negative multiplier's alternation repeats every second sample while it grows) confirms
// nothing.
template <class D>
FIVSIM_HD inline bool adaptive_sample(const double* points, const SweepAnalysis& an, int nq, CaseResult<D>& r,
                                      long& confirmed_until, int unsettled = 0) {
  if (confirmed_until >= 0) return r.section_hits >= confirmed_until;
  const int stride = point_stride(nq);
  SampleSet set{points, 1, r.points_seen[1], -2.0, 0, an.capacity, stride};
  set.count = static_cast<int>(set.seen < an.capacity ? set.seen : an.capacity);
  double relative = 0.0;
  int first = 0;
  const int N = find_period(set, true, an, nq, r, relative, first);
  if (N == 0 || (unsettled > 0 && N % unsettled == 0)) return false;
  r.settled_at = set.at(first)[0];
  r.period_n = N;
  confirmed_until = r.section_hits + N;
  restart_statistics(r);
  return false;
}

// an adaptive case whose section has not been crossed since the transient (a break-away section
// whose contact never sticks) at a stick→slip transition: whether its transition points, as
// the classification will take them (class_samples), confirm periodic-N. If they do, the case
// records when, starts its statistics afresh and runs for N of their periods more (until_t).
template <class D>
FIVSIM_HD inline void adaptive_transition(const double* points, const SweepAnalysis& an, int nq, int nc,
                                          CaseResult<D>& r, double t, double& until_t) {
  const SampleSet set = class_samples(points, an, nq, nc, r);
  if (set.kind != 0 || set.count < an.confirmations + 1) return;
  double relative = 0.0;
  int first = 0;
  const int N = find_period(set, true, an, nq, r, relative, first);
  if (N == 0) return;
  const double t_first = set.at(first)[0], t_last = set.at(set.count - 1)[0];
  r.settled_at = t_first;
  r.period_n = N;
  until_t = t + (t_last - t_first) / static_cast<double>(set.count - 1 - first) * N;
  restart_statistics(r);
}

}  // namespace detail

// one case's progress through its time grid, between steps: what the runner keeps of the
// trajectory (statistics, rings, the Lyapunov estimate, the adaptive stop) and where it is. The
// case's stepper is driven from outside — by run_case_with, step after step, or by a lockstep
// orchestrator that advances many cases one step at a time (cases/pinn_case.hpp) — and
// reports each step here: before_step, the step of the case (and its twin), after_step.
template <class D>
struct CaseRun {
  using T = typename D::scalar;
  const CaseSetup<D>* setup = nullptr;
  const SweepAnalysis* an = nullptr;
  const StepOptions* opt = nullptr;
  State<D>* s = nullptr;
  State<D>* twin = nullptr;  // null: no Lyapunov estimate by a twin (not asked for, or the twin failed)
  bool tangent = false;      // the estimate from the stepper's variational equations (tangent_growth)
  CaseResult<D>* r = nullptr;
  double* points = nullptr;
  double* residuals = nullptr;  // keep_residuals: after the rings
  int nq = 0, nc = 0;
  unsigned obs = 0;
  long k = 1;  // the step to take next
  double lyapunov_sum = 0.0;
  Vec<T, D::max_dof> q_prev, u_prev;
  double t_prev = 0.0;
  ContactState last[D::max_contacts] = {};
  long stick_from = 0;                      // step at which the section contact last began to stick
  double margin_1 = -1.0, margin_2 = -1.0;  // its stick margins at the ends of the last two stick steps
  bool break_away_section = false;
  detail::StaticFriction mu0;
  double t0 = 0.0, dt = 0.0;
  double next_strobe = 0.0;
  long confirmed_until = -1;        // adaptive: the section hit that ends the case once periodic-N is confirmed
  double confirmed_until_t = -1.0;  // or the time, where its transition points confirmed it
  bool sampled = false;             // a section sample came in the last step
  int unstable_near = 0;            // the period of an unstable orbit the orbit observer last found by the samples
  // exact events (the switching stepper)
  bool stop = false, sink_on = true;
  double stick_since = -1.0;  // when the section contact began its current stick (−1: not sticking)

  // the case at its start: s (and the twin, d0 away in q0) set from the setup, r cleared. The
  // caller resets its stepper for the case (and the twin when `twin` is still set).
  FIVSIM_HD void begin(const CaseSetup<D>& setup_, const SweepAnalysis& an_, const StepOptions& opt_, State<D>& s_,
                       CaseResult<D>& r_, double* points_, State<D>* twin_) {
    setup = &setup_;
    an = &an_;
    opt = &opt_;
    s = &s_;
    r = &r_;
    points = points_;
    const Model<D>& m = setup->model;
    nq = dof_count(m);
    nc = contact_count(m);
    obs = an->observers;
    residuals = an->keep_residuals ? points + case_rings_size(nq, an->capacity) : nullptr;
    *s = setup->start;
    *r = CaseResult<D>();
    twin = an->lyapunov_every > 0 ? twin_ : nullptr;
    if (twin) {
      *twin = setup->start;
      twin->q[0] += T(an->lyapunov_d0);
    }
    break_away_section = an->section == SectionKind::stick_to_slip && an->contact < nc;
    mu0 = break_away_section ? detail::static_friction(m.law[an->contact]) : detail::StaticFriction();
    for (int i = 0; i < nc; ++i) last[i] = s->contact[i];
    t0 = static_cast<double>(s->t);
    dt = setup->dt;
    next_strobe = setup->t_transient;
    if (obs & kObserveOutputError) observe_output(0);
  }

  // output_error: the state after `step` steps against the reference's sample `step`
  FIVSIM_HD void observe_output(long step) {
    if (step >= an->reference_n) return;
    const double e = static_cast<double>(s->q[an->reference_dof]) - an->reference[step];
    r->output_sse += e * e;
    ++r->output_samples;
    if (residuals) residuals[step] = e;
  }

  FIVSIM_HD bool running() const { return k <= setup->steps; }

  FIVSIM_HD void before_step() {
    q_prev = s->q;
    u_prev = s->u;
    t_prev = static_cast<double>(s->t);
  }

  // a Poincaré sample: kept, closes a Lyapunov block (blocks of whole cycles), and tells whether
  // an adaptive case is done
  FIVSIM_HD bool section_sample(double ts, const T* qs, const T* us) {
    ++r->section_hits;
    sampled = true;
    detail::push_point(points, 1, r->points_seen[1], an->capacity, nq, ts, -1.0, qs, us);
    if ((twin || tangent) && r->lyapunov_block_time > 0.0) {
      r->lyapunov_blocks.add(r->lyapunov_block_sum / r->lyapunov_block_time);
      r->lyapunov_block_sum = r->lyapunov_block_time = 0.0;
    }
    if (an->adaptive && confirmed_until_t < 0.0 &&
        detail::adaptive_sample(points, *an, nq, *r, confirmed_until, unstable_near))
      return true;
    // chaos shows in the exponent's sign, whatever the samples do (judged as a block closes),
    // until periodic-N is confirmed: its last orbit then runs to its end
    if (an->adaptive && (twin || tangent) && !confirmed() && r->lyapunov_blocks.count >= an->chaos_window &&
        r->lyapunov_time > 0.0) {
      const double cycle = detail::mean_block_time(*r);
      const double lambda = lyapunov_sum / r->lyapunov_time;
      if (lambda * cycle > an->lyapunov_zero && lambda > 3.0 * r->lyapunov_blocks.std_error()) return true;
    }
    return false;
  }

  // the growth of the stepper's tangent vector over its last step (SwitchingCaseStepper): counted
  // as a twin's over the same time; a failed estimate is dropped (NaN), an annihilated one is −∞
  FIVSIM_HD void tangent_growth(const TangentGrowth& g) {
    if (g.failed && !g.annihilated) {
      tangent = false;
      r->lyapunov_time = 0.0;
      r->lyapunov_blocks = BatchMeans();
      return;
    }
    lyapunov_sum += g.log;
    r->lyapunov_time += g.time;
    r->lyapunov_block_sum += g.log;
    r->lyapunov_block_time += g.time;
    if (g.annihilated) {
      tangent = false;
      // the time it covered may be nil: an exponent of −∞ all the same
      if (!(r->lyapunov_time > 0.0)) r->lyapunov_time = dt;
    }
  }

  // adaptive with the orbit observer: whether the case's orbit may be shot now (a new sample,
  // nothing confirmed yet)
  FIVSIM_HD bool orbit_due() {
    if (!sampled) return false;
    sampled = false;
    return an->adaptive && (obs & kObserveOrbit) && !confirmed() && !stop;
  }

  FIVSIM_HD bool confirmed() const { return confirmed_until >= 0 || confirmed_until_t >= 0.0; }

  // a transition point kept at t: whether an adaptive case is done (adaptive_transition: the
  // section never crossed, its stick→slip points judge)
  FIVSIM_HD bool transition_sample(EventKind kind, double t) {
    if (!an->adaptive) return false;
    if (confirmed_until_t >= 0.0) return t >= confirmed_until_t;
    if (confirmed_until < 0 && r->points_seen[1] == 0 && kind == EventKind::stick_to_slip)
      detail::adaptive_transition(points, *an, nq, nc, *r, t, confirmed_until_t);
    return false;
  }

  // a stable periodic-N orbit found near the samples decides the case: as when the samples confirm
  // periodic-N, its statistics start afresh and it runs one more orbit
  FIVSIM_HD void orbit_found(int n) {
    const long kept = r->points_seen[1] < an->capacity ? r->points_seen[1] : an->capacity;
    r->settled_at =
        ring_point(points, 1, r->points_seen[1], an->capacity, point_stride(nq), static_cast<int>(kept - 1))[0];
    r->period_n = n;
    confirmed_until = r->section_hits + n;
    detail::restart_statistics(*r);
  }

  // an exact event of the switching stepper: transitions and section samples at their own times
  FIVSIM_HD void on_event(const SwitchingEvent<T>& e) {
    if (!sink_on) return;  // the twin's
    if (e.section) {
      if ((obs & kObservePoincare) && e.t >= setup->t_transient && !stop) stop = section_sample(e.t, e.q, e.u);
      return;
    }
    const EventKind kind = classify_transition(e.from, e.to);
    if (kind != EventKind::none && e.t >= setup->t_transient) {
      if (obs & kObserveTransitions) {
        ++r->transitions;
        detail::push_point(points, 0, r->points_seen[0], an->capacity, nq, e.t,
                           static_cast<double>(int(kind) * 64 + e.contact), e.q, e.u);
        if (!stop) stop = transition_sample(kind, e.t);
      }
      if (break_away_section && (obs & kObservePoincare) && kind == EventKind::stick_to_slip &&
          e.contact == an->contact && stick_since >= 0.0 && !stop)
        stop = section_sample(e.t, e.q, e.u);
    }
    if (e.contact == an->contact) stick_since = e.to == ContactState::stick ? e.t : -1.0;
  }

  // the step just taken (rep: the case's; twin_failed: its twin's step failed): observed and
  // counted; false when the case is done (failed, stopped, or adaptive and decided)
  template <bool exact>
  FIVSIM_HD bool after_step(const StepReport& rep, bool twin_failed) {
    if (rep.status != Status::ok) {
      r->status = rep.status;
      r->failed_at = t0 + static_cast<double>(k - 1) * dt;
      return false;
    }
    const long step = k++;
    // time from the step count, as the host driver does (simulation.hpp)
    const double t = t0 + static_cast<double>(step) * dt;
    s->t = T(t);
    r->steps = step;
    if ((obs & kObserveLcpResidual) && rep.lcp_residual > r->max_lcp_residual) r->max_lcp_residual = rep.lcp_residual;
    if (obs & kObserveOutputError) observe_output(step);
    const bool settled = t >= setup->t_transient;
    if (twin) {
      // the twin stops (and the estimate with it) if its own step fails
      if (twin_failed) {
        twin = nullptr;
        r->lyapunov_time = 0.0;
        r->lyapunov_blocks = BatchMeans();
      } else {
        twin->t = T(t);
        if (step % an->lyapunov_every == 0) {
          const double d = detail::renormalise_twin(*s, *twin, nq, an->lyapunov_d0);
          // intervals that start after the transient count
          if (t - an->lyapunov_every * dt >= setup->t_transient - 0.5 * dt && d > 0.0) {
            const double growth = log(d / an->lyapunov_d0);
            lyapunov_sum += growth;
            r->lyapunov_time += an->lyapunov_every * dt;
            r->lyapunov_block_sum += growth;
            r->lyapunov_block_time += an->lyapunov_every * dt;
          }
        }
      }
    }

    bool break_away = false;
    if (!exact && (obs & (kObserveTransitions | kObservePoincare))) {
      for (int i = 0; i < nc; ++i) {
        const EventKind e = classify_transition(last[i], s->contact[i]);
        if (e != EventKind::none && settled) {
          if (obs & kObserveTransitions) {
            ++r->transitions;
            detail::push_point(points, 0, r->points_seen[0], an->capacity, nq, t, static_cast<double>(int(e) * 64 + i),
                               s->q.v, s->u.v);
            if (!stop) stop = transition_sample(e, t);
          }
          // a stick of a single step is the velocity grazing the belt's, not a stick phase
          break_away = break_away || (e == EventKind::stick_to_slip && i == an->contact && step - stick_from > 1);
        }
        if (i == an->contact && s->contact[i] == ContactState::stick && last[i] != ContactState::stick)
          stick_from = step;
        if (break_away_section && i == an->contact && s->contact[i] == ContactState::stick) {
          margin_2 = margin_1;
          margin_1 = detail::stick_margin(mu0, static_cast<double>(s->lamN[i]), static_cast<double>(s->lamT[i]));
        }
        last[i] = s->contact[i];
      }
    }
    if (!settled) return true;

    if (obs & kObserveMinMax) {
      int c = 0;
      for (int i = 0; i < nq; ++i) r->series[c++].add(static_cast<double>(s->q[i]));
      for (int i = 0; i < nq; ++i) r->series[c++].add(static_cast<double>(s->u[i]));
      // a transition point taken at the step after its event moves with the time grid by up to a
      // step's change; an exact event's does not (its jitter stays 0)
      for (int i = 0; i < nq && !exact; ++i) {
        const double dq = fabs(static_cast<double>(s->q[i] - q_prev[i]));
        const double du = fabs(static_cast<double>(s->u[i] - u_prev[i]));
        if (dq > r->max_step_change[i]) r->max_step_change[i] = dq;
        if (du > r->max_step_change[nq + i]) r->max_step_change[nq + i] = du;
      }
      for (int i = 0; i < nc; ++i) r->series[2 * nq + i].add(static_cast<double>(s->lamN[i]));
      for (int i = 0; i < nc; ++i) r->series[2 * nq + nc + i].add(static_cast<double>(s->lamT[i]));
    } else {
      int c = 0;
      for (int i = 0; i < nq; ++i) r->series[c++].add_square(static_cast<double>(s->q[i]));
      for (int i = 0; i < nq; ++i) r->series[c++].add_square(static_cast<double>(s->u[i]));
      for (int i = 0; i < nc; ++i) r->series[c++].add_square(static_cast<double>(s->lamN[i]));
      for (int i = 0; i < nc; ++i) r->series[c++].add_square(static_cast<double>(s->lamT[i]));
    }
    if (obs & kObserveFractions)
      for (int i = 0; i < nc; ++i) ++r->in_state[static_cast<int>(s->contact[i])];
    if (exact || stop) return !stop;
    if (!(obs & kObservePoincare)) return true;

    // Poincaré section: the break-away state, or the crossing point by linear interpolation inside
    // the step
    double theta = -1.0;
    if (an->section == SectionKind::stick_to_slip && break_away) {
      theta = detail::break_away_fraction(margin_1, margin_2);
    } else if (an->section == SectionKind::velocity) {
      const double eps = opt->stick_tol;
      const double a = static_cast<double>(u_prev[an->dof]) - an->value;
      const double b = static_cast<double>(s->u[an->dof]) - an->value;
      if (detail::velocity_crosses(a, b, eps, an->direction)) theta = a / (a - b);
    } else if (an->section == SectionKind::stroboscopic && t >= next_strobe) {
      theta = t > t_prev ? (next_strobe - t_prev) / (t - t_prev) : 1.0;
      next_strobe += an->period;
    }
    if (theta >= 0.0 && t_prev >= setup->t_transient) {
      theta = theta > 1.0 ? 1.0 : theta;
      T qs[D::max_dof] = {}, us[D::max_dof] = {};
      for (int i = 0; i < nq; ++i) {
        qs[i] = q_prev[i] + T(theta) * (s->q[i] - q_prev[i]);
        us[i] = u_prev[i] + T(theta) * (s->u[i] - u_prev[i]);
      }
      if (section_sample(t_prev + theta * dt, qs, us)) return false;
    }
    return true;
  }

  // the estimate and the class, once the case has stopped
  FIVSIM_HD void finish() {
    // not asked for: 0; asked for but no window (or the twin failed): NaN
    r->lyapunov = r->lyapunov_time > 0.0 ? lyapunov_sum / r->lyapunov_time : (an->lyapunov_every > 0 ? nan("") : 0.0);
    if (observes_class(obs))
      classify_case(points, *an, nq, nc, *r, an->adaptive);
    else
      r->klass = r->status == Status::ok ? CaseClass::unclassified : CaseClass::diverged;
  }
};

// runs one case with `stepper` (step(which, state), reset(which); which 0 is the case, 1 its
// twin); `points` holds kPointKinds × capacity rows for the case; with a twin state (and
// an.lyapunov_every > 0) it also estimates the largest Lyapunov exponent
template <class D, class Stepper>
FIVSIM_HD inline void run_case_with(const CaseSetup<D>& setup, const SweepAnalysis& an, const StepOptions& opt,
                                    Stepper& stepper, State<D>& s, CaseResult<D>& r, double* points,
                                    State<D>* twin = nullptr) {
  constexpr bool exact = detail::has_exact_events<Stepper>::value;
  CaseRun<D> run;
  run.begin(setup, an, opt, s, r, points, twin);
  stepper.reset(0);
  if (run.twin) stepper.reset(1);
  if constexpr (detail::has_tangent_growth<Stepper>::value) run.tangent = an.lyapunov_every > 0 && stepper.tangent;
  auto sink = [&](const SwitchingEvent<typename D::scalar>& e) { run.on_event(e); };
  while (run.running()) {
    run.before_step();
    // the case and its twin go through one call site, so that the stepper is inlined once
    StepReport rep;
    bool twin_failed = false;
    for (int w = 0; w < (run.twin ? 2 : 1); ++w) {
      run.sink_on = w == 0;
      const StepReport rw = detail::step_with(stepper, w, w == 0 ? s : *run.twin, sink);
      if (w == 0)
        rep = rw;
      else
        twin_failed = rw.status != Status::ok;
    }
    if constexpr (detail::has_tangent_growth<Stepper>::value)
      if (run.tangent) run.tangent_growth(stepper.take_growth());
    if (!run.template after_step<exact>(rep, twin_failed)) break;
    if constexpr (detail::has_orbit_probe<Stepper>::value)
      if (run.orbit_due()) stepper.probe_orbit(run);
  }
  run.finish();
}

// runs one case with Moreau time stepping, or with the Runge–Kutta LCP stepper of `rk_map` when
// it is given (run_case_with with the classical steppers)
template <class D>
FIVSIM_HD inline void run_case(const CaseSetup<D>& setup, const RkStepMap<D>* rk_map, const SweepAnalysis& an,
                               const StepOptions& opt, CaseWorkspace<D>& ws, State<D>& s, CaseResult<D>& r,
                               double* points, LyapunovTwin<D>* twin = nullptr) {
  ClassicalCaseStepper<D> stepper{
      &setup.model, rk_map, typename D::scalar(setup.dt), &opt, {&ws, twin ? &twin->ws : nullptr}};
  run_case_with(setup, an, opt, stepper, s, r, points, twin ? &twin->s : nullptr);
}

// runs one case with the switching integrator (integrator.method switching): the same observers
// and classes, its events and section samples exact; dt is the interval at which the statistics
// sample the trajectory. Given a tangent (and an.lyapunov_every > 0) it estimates the largest
// Lyapunov exponent from the variational equations
template <class D>
FIVSIM_HD inline void run_switching_case(const CaseSetup<D>& setup, const SwitchingSettings& set,
                                         const SweepAnalysis& an, const StepOptions& opt, SwitchingWorkspace<D>& ws,
                                         State<D>& s, CaseResult<D>& r, double* points,
                                         SwitchingTangent<D>* tangent = nullptr) {
  SwitchingCaseStepper<D> stepper{&setup.model, setup.dt,         set, switching_section(an, setup.t_transient), &ws,
                                  tangent,      setup.t_transient};
  run_case_with(setup, an, opt, stepper, s, r, points);
}

}  // namespace fivsim
