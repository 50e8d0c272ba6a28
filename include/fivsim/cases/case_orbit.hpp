// fivsim/cases/case_orbit.hpp — the orbit observer (analysis.observers "orbit"): after a case has
// run, its exact periodic orbit is shot from its last section sample with the switching model's
// return map and variational equations (integrate/switching_orbit.hpp), and where Newton finds a
// stable one the case's class comes from it rather than from its samples (docs/METHODS.md
// "Classes decided by the orbit").
//
// Near a period doubling the orbit's multiplier approaches −1 and the samples converge like |λ|ⁿ,
// so no window of samples with a fixed tolerance separates a slowly converging periodic-1 from a
// periodic-2 with a small split. Newton on Pᴺ(x) − x converges in a few steps from a point near
// the orbit, and the multipliers say whether it attracts and how fast: the case is periodic-N for
// the smallest N whose orbit is stable and close to the samples, whatever the samples' own verdict.
// The section is the sweeps' default, a contact's break-away (SectionKind::stick_to_slip); the
// orbit is the exact system's (the switching model's), also for a case stepped by Moreau or RK-LCP.
// An adaptive switching case also shoots as it runs (OrbitProbingStepper) and stops once decided.
#pragma once

#include "fivsim/cases/case_runner.hpp"
#include "fivsim/integrate/switching_orbit.hpp"

namespace fivsim {

// how the orbit observer shoots (the settings every case of a sweep shares)
struct OrbitObserverSettings {
  int max_iterations = 12;  // Newton steps per N
  double tol = 1e-9;        // converged when max|Pᴺ(x) − x| ≤ tol·(1 + max|x|)
  // the orbit must pass this close to the landed sample, per component, relative to the
  // component's range over the case: an orbit Newton wanders off to is not the one the case nears.
  // Up to `near` it is taken; up to `reach` only where the samples contract onto it (the landed
  // one nearer than the one N returns before)
  double near = 0.05;
  double reach = 0.25;
  // Newton gives up on an N once a step from the third on leaves more than this share of the last
  // residual (a chaotic case's samples are near no orbit)
  double give_up_ratio = 0.5;
  // a multiplier at least this far inside the unit circle is stable (|λ| = 1 within the
  // variational equations' error is undecided)
  double stable_margin = 1e-6;
  // an adaptive case shoots as it runs at most this many times without a stable orbit (a chaotic
  // case's samples come back close now and then, near no orbit)
  int max_missed_shots = 3;
};

namespace orbit_observer_detail {

// the largest distance between x and y over the components, each relative to its range over the
// case (NaN where one is not finite)
template <class D>
FIVSIM_HD inline double case_distance(const typename D::scalar* x, const typename D::scalar* y, int ny,
                                      const CaseResult<D>& r) {
  double dist = 0.0;
  for (int i = 0; i < ny; ++i) {
    const double range = r.series[i].max - r.series[i].min;
    const double d = fabs(static_cast<double>(x[i] - y[i])) / (range > 0.0 ? range : 1.0);
    if (d != d) return d;
    dist = d > dist ? d : dist;
  }
  return dist;
}

// the distance of the last break-away sample kept to the n-th before it (NaN without one)
template <class D>
FIVSIM_HD inline double recurrence(const double* points, const SweepAnalysis& an, int nq, const CaseResult<D>& r,
                                   int n) {
  const long kept = r.points_seen[1] < an.capacity ? r.points_seen[1] : an.capacity;
  if (n >= kept) return nan("");
  const int stride = point_stride(nq);
  const double* last = ring_point(points, 1, r.points_seen[1], an.capacity, stride, static_cast<int>(kept - 1));
  const double* back = ring_point(points, 1, r.points_seen[1], an.capacity, stride, static_cast<int>(kept - 1 - n));
  return case_distance<D>(last + 2, back + 2, 2 * nq, r);
}

}  // namespace orbit_observer_detail

// what shooting found for a case: the stable periodic-N orbit nearest the samples, else the
// smallest N's unstable one (n = 0: none converged near them)
template <class D>
struct OrbitVerdict {
  int n = 0;
  bool stable = false;
  bool near = false;  // the landed sample within os.near of it
  double residual = 0.0, period = 0.0, multiplier = 0.0, multiplier_arg = 0.0;
  double settle_t = 0.0;  // when the samples will be within the classification's tolerance of it
  // a stable orbit's range of each q and u over its N section points
  double lo[2 * D::max_dof] = {}, hi[2 * D::max_dof] = {};
};

// the orbit of case r from its last section sample (the rings in `points`, as the case runner left
// them), for the divisors of `divisors_of` (smallest first) or, given 0, of every N ≤ an.max_period
// whose samples N apart come within os.reach (samples that come back no closer are near no
// orbit: a chaotic case shoots for none). `w` is scratch.
template <class D>
FIVSIM_HD_NOINLINE inline OrbitVerdict<D> shoot_case_orbit(const CaseSetup<D>& setup, const SwitchingSettings& set,
                                                           const OrbitObserverSettings& os, const SweepAnalysis& an,
                                                           const double* points, OrbitWork<D>& w,
                                                           const CaseResult<D>& r, int divisors_of = 0) {
  using T = typename D::scalar;
  namespace od = orbit_observer_detail;
  OrbitVerdict<D> v;
  const Model<D>& m = setup.model;
  const int nq = dof_count(m), ny = 2 * nq, nc = contact_count(m);
  if (r.status != Status::ok || r.transitions == 0 || an.section != SectionKind::stick_to_slip ||
      r.points_seen[1] == 0 || an.capacity <= 0 || an.contact >= nc)
    return v;
  // the last sample kept, landed on the exact system's section: its next break-away
  const long kept = r.points_seen[1] < an.capacity ? r.points_seen[1] : an.capacity;
  const double* last =
      ring_point(points, 1, r.points_seen[1], an.capacity, point_stride(nq), static_cast<int>(kept - 1));
  T x[2 * D::max_dof];
  for (int i = 0; i < ny; ++i) x[i] = static_cast<T>(last[2 + i]);
  // a return must come within a few of the sampled cycles (the mean time between the samples)
  const double cycle = r.section_hits > 1 && kept > 1
                           ? (last[0] - ring_point(points, 1, r.points_seen[1], an.capacity, point_stride(nq), 0)[0]) /
                                 static_cast<double>(kept - 1)
                           : 0.0;
  const double max_time = cycle > 0.0 ? 4.0 * an.max_period * cycle : 1e3;
  if (!switching_land_on_breakaway(m, set, w, last[0], x, an.contact, max_time)) return v;
  const double t0 = w.t_end;
  T x0[2 * D::max_dof];
  ContactState modes[D::max_contacts];
  for (int i = 0; i < ny; ++i) x0[i] = w.x_end[i];
  for (int i = 0; i < nc; ++i) modes[i] = w.modes_end[i];
  // the N to shoot for
  constexpr int kMostN = 32;  // analysis.max_period's limit
  bool shoot[kMostN + 1] = {};
  for (int m = 1; m <= an.max_period && m <= kMostN; ++m) {
    if (divisors_of > 0 ? m != divisors_of : !(od::recurrence(points, an, nq, r, m) <= os.reach)) continue;
    for (int d = 1; d <= m; ++d) shoot[d] = shoot[d] || m % d == 0;
  }
  for (int n = 1; n <= an.max_period && n <= kMostN; ++n) {
    if (!shoot[n]) continue;
    const OrbitSettings settings{n, os.max_iterations, os.tol, max_time, os.give_up_ratio};
    const OrbitResult<D> o = switching_breakaway_orbit(m, set, settings, w, t0, x0, modes, an.contact);
    if (!o.converged) continue;
    const double dist = od::case_distance<D>(x0, o.x, ny, r);
    if (!(dist <= os.near)) {
      // farther: the sample N returns before the landed one must lie farther still
      if (!(dist <= os.reach) || kept < n) continue;
      const double* back =
          ring_point(points, 1, r.points_seen[1], an.capacity, point_stride(nq), static_cast<int>(kept - n));
      T xb[2 * D::max_dof];
      for (int i = 0; i < ny; ++i) xb[i] = static_cast<T>(back[2 + i]);
      if (!(dist < od::case_distance<D>(xb, o.x, ny, r))) continue;
    }
    T re[2 * D::max_dof] = {}, im[2 * D::max_dof] = {};
    if (breakaway_multipliers(m, w, re, im) < 0) continue;
    const double lambda = sqrt(static_cast<double>(re[0] * re[0] + im[0] * im[0]));
    // an orbit of a smaller N found again (a fixed point of P is one of Pᴺ): the smaller N was
    // tried first and was not stable, and neither is this one
    if (n > 1) {
      T y[2 * D::max_dof];
      for (int i = 0; i < ny; ++i) y[i] = o.x[i];
      bool repeats = false;
      for (int d = 1; d < n && !repeats; ++d) {
        if (n % d != 0 || !switching_breakaway_map(m, set, w, t0, y, modes, an.contact, d, max_time)) continue;
        repeats = od::case_distance<D>(y, w.x_end, ny, r) <= 10.0 * os.tol;
      }
      if (repeats) continue;
    }
    const bool stable = lambda < 1.0 - os.stable_margin;
    // the stable orbit, else the smallest N's: an unstable orbit is not what the case settles on
    if (stable || v.n == 0) {
      v.n = n;
      v.stable = stable;
      v.near = dist <= os.near;
      v.residual = o.residual;
      v.period = o.period;
      v.multiplier = lambda;
      v.multiplier_arg = atan2(static_cast<double>(im[0]), static_cast<double>(re[0]));
    }
    if (!stable) continue;
    // its N section points, one return at a time from the fixed point
    T y[2 * D::max_dof];
    ContactState y_modes[D::max_contacts];
    double t = t0;
    for (int i = 0; i < ny; ++i) v.lo[i] = v.hi[i] = static_cast<double>(y[i] = o.x[i]);
    for (int i = 0; i < nc; ++i) y_modes[i] = modes[i];
    for (int k = 1; k < n; ++k) {
      if (!switching_breakaway_map(m, set, w, t, y, y_modes, an.contact, 1, max_time)) break;
      t = w.t_end;
      for (int i = 0; i < nc; ++i) y_modes[i] = w.modes_end[i];
      for (int i = 0; i < ny; ++i) {
        y[i] = w.x_end[i];
        const double yi = static_cast<double>(y[i]);
        v.lo[i] = yi < v.lo[i] ? yi : v.lo[i];
        v.hi[i] = yi > v.hi[i] ? yi : v.hi[i];
      }
    }
    // stable: the samples contract onto it by λ each N returns
    const double returns = lambda > 0.0 && dist > an.periodic_tol ? log(an.periodic_tol / dist) / log(lambda) : 0.0;
    v.settle_t = t0 + returns * o.period;
    return v;
  }
  return v;
}

// the verdict into r's orbit columns
template <class D>
FIVSIM_HD inline void record_orbit(const OrbitVerdict<D>& v, CaseResult<D>& r, int ny) {
  r.orbit_n = v.n;
  r.orbit_residual = v.residual;
  r.orbit_period = v.period;
  r.orbit_multiplier = v.multiplier;
  r.orbit_multiplier_arg = v.multiplier_arg;
  if (!v.stable) return;
  r.orbit_settle_t = v.settle_t;
  // the case settled on the exact orbit
  for (int i = 0; i < ny; ++i) {
    r.settled_lo[i] = v.lo[i];
    r.settled_hi[i] = v.hi[i];
  }
}

// the orbit observer's verdict on a case that has run: r.orbit_* and, where a stable orbit is
// found (or was, as the case ran: OrbitProbingStepper), its class
template <class D>
FIVSIM_HD inline void decide_by_orbit(const CaseSetup<D>& setup, const SwitchingSettings& set,
                                      const OrbitObserverSettings& os, const SweepAnalysis& an, const double* points,
                                      OrbitWork<D>& w, CaseResult<D>& r) {
  if (!(r.orbit_settle_t >= 0.0)) {
    const OrbitVerdict<D> v = shoot_case_orbit(setup, set, os, an, points, w, r);
    if (v.n == 0) return;
    record_orbit(v, r, 2 * dof_count(setup.model));
    // samples repeating by an unstable orbit of a divisor of their period have not settled
    if (!v.stable && v.near && r.klass == CaseClass::periodic && r.period_n % v.n == 0)
      r.klass = CaseClass::undetermined;
    if (!v.stable) return;
  }
  if (r.status != Status::ok) return;
  r.klass = CaseClass::periodic;
  r.period_n = r.orbit_n;
  r.period_s = r.orbit_period;
}

// the N in 1 … an.max_period whose break-away samples N apart are closest, the last against the
// N-th before it (0 with fewer than three samples), and that distance relative to each
// component's range
template <class D>
FIVSIM_HD inline int nearest_recurrence(const double* points, const SweepAnalysis& an, int nq, const CaseResult<D>& r,
                                        double& distance) {
  const long kept = r.points_seen[1] < an.capacity ? r.points_seen[1] : an.capacity;
  int best = 0;
  distance = nan("");
  if (kept < 3) return 0;
  for (int n = 1; n <= an.max_period && n < kept; ++n) {
    const double d = orbit_observer_detail::recurrence(points, an, nq, r, n);
    if (best == 0 || d < distance) {
      best = n;
      distance = d;
    }
  }
  return best;
}

// the switching stepper of an adaptive case with the orbit observer: at each break-away sample
// where the samples come back within `reach` after some N, and closer than at the last shot that
// failed, it shoots for N's divisors; a stable orbit the samples contract onto decides the case,
// which then runs that orbit once more for its statistics. A case near a period doubling, whose
// samples creep like |λ|ⁿ, so stops after tens of cycles instead of thousands of seconds, and
// any periodic case before its samples could confirm it to the classification's tolerance.
template <class D>
struct OrbitProbingStepper : SwitchingCaseStepper<D> {
  OrbitWork<D>* work = nullptr;
  OrbitObserverSettings os;
  double shoot_below = -1.0;  // the recurrence the next shot waits for (−1: reach)
  int missed = 0;             // shots that found no stable orbit
  FIVSIM_HD void probe_orbit(CaseRun<D>& run) {
    if (!work) return;
    double distance = 0.0;
    const int hint = nearest_recurrence(run.points, *run.an, run.nq, *run.r, distance);
    if (shoot_below < 0.0) shoot_below = os.reach;
    if (hint == 0 || !(distance <= shoot_below) || missed >= os.max_missed_shots) return;
    const OrbitVerdict<D> v = shoot_case_orbit(*run.setup, this->set, os, *run.an, run.points, *work, *run.r, hint);
    // samples by an unstable orbit have not settled, whatever their recurrence says
    run.unstable_near = !v.stable && v.near ? v.n : 0;
    if (!v.stable) {
      // the next shot once the samples have closed in by half
      shoot_below = 0.5 * distance;
      ++missed;
      return;
    }
    record_orbit(v, *run.r, 2 * run.nq);
    run.orbit_found(v.n);
  }
};

// runs one case with the switching integrator, as run_switching_case, its adaptive stop also
// decided by its orbit (OrbitProbingStepper) when `orbit` scratch is given and the sweep is adaptive
// with the orbit observer (CaseRun::orbit_due); null: the plain run. One stepper either way, so
// that a kernel holds one copy of the runner
template <class D>
FIVSIM_HD inline void run_switching_case(const CaseSetup<D>& setup, const SwitchingSettings& set,
                                         const SweepAnalysis& an, const StepOptions& opt, SwitchingWorkspace<D>& ws,
                                         State<D>& s, CaseResult<D>& r, double* points, SwitchingTangent<D>* tangent,
                                         OrbitWork<D>* orbit) {
  OrbitProbingStepper<D> stepper;
  stepper.m = &setup.model;
  stepper.dt = setup.dt;
  stepper.set = set;
  stepper.section = switching_section(an, setup.t_transient);
  stepper.ws = &ws;
  stepper.tangent = tangent;
  stepper.tangent_from = setup.t_transient;
  stepper.work = orbit;
  run_case_with(setup, an, opt, stepper, s, r, points);
}

}  // namespace fivsim
