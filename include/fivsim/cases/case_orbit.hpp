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
#pragma once

#include "fivsim/cases/case_runner.hpp"
#include "fivsim/integrate/switching_orbit.hpp"

namespace fivsim {

// how the orbit observer shoots (the settings every case of a sweep shares)
struct OrbitObserverSettings {
  int max_iterations = 12;  // Newton steps per N
  double tol = 1e-9;        // converged when max|Pᴺ(x) − x| ≤ tol·(1 + max|x|)
  // the orbit must pass this close to the landed sample, per component, relative to the
  // component's range over the case: an orbit Newton wanders off to is not the one the case nears
  double near = 0.05;
  // Newton gives up on an N once a step from the third on leaves more than this share of the last
  // residual (a chaotic case's samples are near no orbit)
  double give_up_ratio = 0.5;
  // a multiplier at least this far inside the unit circle is stable (|λ| = 1 within the
  // variational equations' error is undecided)
  double stable_margin = 1e-6;
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

}  // namespace orbit_observer_detail

// the orbit of case r from its last section sample (the rings in `points`, as the case runner left
// them): r.orbit_* and, where a stable orbit is found, its class. `w` is scratch.
template <class D>
FIVSIM_HD inline void decide_by_orbit(const CaseSetup<D>& setup, const SwitchingSettings& set,
                                      const OrbitObserverSettings& os, const SweepAnalysis& an, const double* points,
                                      OrbitWork<D>& w, CaseResult<D>& r) {
  using T = typename D::scalar;
  namespace od = orbit_observer_detail;
  const Model<D>& m = setup.model;
  const int nq = dof_count(m), ny = 2 * nq, nc = contact_count(m);
  if (r.status != Status::ok || r.transitions == 0 || an.section != SectionKind::stick_to_slip ||
      r.points_seen[1] == 0 || an.capacity <= 0 || an.contact >= nc)
    return;
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
  if (!switching_land_on_breakaway(m, set, w, last[0], x, an.contact, max_time)) return;
  const double t0 = w.t_end;
  T x0[2 * D::max_dof];
  ContactState modes[D::max_contacts];
  for (int i = 0; i < ny; ++i) x0[i] = w.x_end[i];
  for (int i = 0; i < nc; ++i) modes[i] = w.modes_end[i];
  for (int n = 1; n <= an.max_period; ++n) {
    const OrbitSettings settings{n, os.max_iterations, os.tol, max_time, os.give_up_ratio};
    const OrbitResult<D> o = switching_breakaway_orbit(m, set, settings, w, t0, x0, modes, an.contact);
    if (!o.converged || !(od::case_distance<D>(x0, o.x, ny, r) <= os.near)) continue;
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
    if (stable || r.orbit_n == 0) {
      r.orbit_n = n;
      r.orbit_residual = o.residual;
      r.orbit_period = o.period;
      r.orbit_multiplier = lambda;
      r.orbit_multiplier_arg = atan2(static_cast<double>(im[0]), static_cast<double>(re[0]));
    }
    if (!stable) continue;
    // stable: the samples contract onto it by λ each N returns; when they will be within the
    // classification's tolerance of it
    const double dist = od::case_distance<D>(x0, o.x, ny, r);
    const double returns = lambda > 0.0 && dist > an.periodic_tol ? log(an.periodic_tol / dist) / log(lambda) : 0.0;
    r.orbit_settle_t = t0 + returns * o.period;
    r.klass = CaseClass::periodic;
    r.period_n = n;
    r.period_s = o.period;
    return;
  }
}

}  // namespace fivsim
