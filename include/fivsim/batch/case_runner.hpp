// fivsim/batch/case_runner.hpp — one case of a sweep from start to end, reduced on the fly to the
// numbers of a bifurcation diagram (DESIGN.md §2 observers, §5 cases.csv / points.csv).
//
// Written once as FIVSIM_HD code over plain structs: the CPU backend calls it from an OpenMP loop,
// the CUDA kernel from one thread per case (kernels/sweep_batch.cuh). The stepper is Moreau's
// (moreau.hpp) or, given the case's Runge–Kutta step map, RK4-LCP / Gauss IRK-LCP (rk_lcp.hpp).
// After analysis.t_transient it keeps, per case and without storing the trajectory:
//   - running statistics (RMS, min, max) of every series q.., u.., lamN.., lamT..;
//   - time fractions in free / stick / slip− / slip+ and the largest LCP residual;
//   - the last `capacity` transition points (seed 001 Fig. 5: positions at stick↔slip and
//     separation events) and the last `capacity` Poincaré samples on the scenario's section
//     (the break-away of a contact after a stick of at least two steps — on a belt, u leaving the
//     belt speed downwards; a velocity crossing, interpolated linearly inside the step; or
//     stroboscopic);
//   - a classification: periodic-N when the Poincaré samples repeat with period N within a
//     tolerance relative to the attractor's size, quasi-periodic-or-chaotic when they do not,
//     no-stick-slip without events, diverged on a failed step.
// Points are kept in ring buffers in caller-provided memory (a slice of the chunk's point buffer),
// each row [t, code, q0.., u0..]; code is the event kind·64 + contact, or −1 for a section sample.
#pragma once

#include "fivsim/analysis/events.hpp"
#include "fivsim/analysis/observers.hpp"
#include "fivsim/analysis/statistics.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"

namespace fivsim {

enum class SectionKind : int { none = 0, velocity = 1, stroboscopic = 2, stick_to_slip = 3 };

// the Poincaré section and the classification settings shared by all cases of a sweep
struct SweepAnalysis {
  SectionKind section = SectionKind::stick_to_slip;
  int contact = 0;         // stick_to_slip section: the contact whose break-away is sampled
  int dof = 0;             // velocity section: u[dof] = value
  double value = 0.0;
  int direction = -1;      // −1 crossing from above, +1 from below, 0 both
  double period = 0.0;     // stroboscopic: sample every period, starting at t_transient
  double periodic_tol = 1e-3;  // relative to each component's range over the trajectory
  int max_period = 8;          // largest N tested for periodic-N
  int capacity = 32;           // points kept per kind (transitions, section samples)
  // largest Lyapunov exponent (Benettin): a twin trajectory d0 away, renormalised every
  // lyapunov_every steps; 0 = not estimated
  int lyapunov_every = 0;
  double lyapunov_d0 = 1e-8;
  unsigned observers = kObserveBifurcation;
};

// unclassified: the observers asked for leave classification out (a lean sweep)
enum class CaseClass : int { periodic = 0, chaotic = 1, no_stick_slip = 2, diverged = 3, unclassified = 4 };

inline constexpr int kPointKinds = 2;  // 0 transitions, 1 section samples

// one case's immutable input: its model, start state and time grid
template <class D>
struct CaseSetup {
  Model<D> model;
  State<D> start;
  double dt = 0.0;
  long steps = 0;
  double t_transient = 0.0;
};

template <class D>
struct CaseResult {
  static constexpr int NS = 2 * D::max_dof + 2 * D::max_contacts;
  Status status = Status::ok;
  long steps = 0;            // steps completed
  double failed_at = 0.0;    // start time of the failing step
  RunningStats series[NS];   // q.., u.., lamN.., lamT.. after t_transient
  double max_step_change[2 * D::max_dof] = {};  // largest |Δq_i|, |Δu_i| over one step after t_transient
  long in_state[4] = {0, 0, 0, 0};  // contact-steps in free / stick / slip− / slip+
  long transitions = 0;      // events after t_transient, all contacts
  long section_hits = 0;     // Poincaré samples after t_transient
  double max_lcp_residual = 0.0;
  long points_seen[kPointKinds] = {0, 0};  // points offered to each ring (kept: the last capacity)
  double lyapunov = 0.0;       // largest Lyapunov exponent estimate (1/s), when asked for
  double lyapunov_time = 0.0;  // time over which it was averaged
  CaseClass klass = CaseClass::chaotic;
  int period_n = 0;          // N of periodic-N
  double period_s = 0.0;     // N × mean time between section samples
};

// row width of the point buffer for n_dof degrees of freedom
FIVSIM_HD inline int point_stride(int n_dof) { return 2 + 2 * n_dof; }

// doubles of point buffer one case needs
FIVSIM_HD inline long case_points_size(int n_dof, int capacity) {
  return static_cast<long>(kPointKinds) * capacity * point_stride(n_dof);
}

// the i-th oldest kept point of ring `kind` (0 ≤ i < kept)
FIVSIM_HD inline const double* ring_point(const double* points, int kind, long seen, int capacity, int stride,
                                         int i) {
  const long kept = seen < capacity ? seen : capacity;
  const long first = seen - kept;
  const long slot = (first + i) % capacity;
  return points + (static_cast<long>(kind) * capacity + slot) * stride;
}

namespace detail {

template <class T>
FIVSIM_HD inline void push_point(double* points, int kind, long& seen, int capacity, int n, double t, double code,
                                 const T* q, const T* u) {
  if (capacity <= 0) return;
  const int stride = point_stride(n);
  double* row = points + (static_cast<long>(kind) * capacity + seen % capacity) * stride;
  row[0] = t;
  row[1] = code;
  for (int i = 0; i < n; ++i) {
    row[2 + i] = static_cast<double>(q[i]);
    row[2 + n + i] = static_cast<double>(u[i]);
  }
  ++seen;
}

}  // namespace detail

// the position in the ring of the j-th oldest kept point whose code is `code` (any code when
// code < −1), or −1
FIVSIM_HD inline int nth_with_code(const double* points, int kind, long seen, int capacity, int stride, double code,
                                   int j) {
  const int kept = static_cast<int>(seen < capacity ? seen : capacity);
  for (int i = 0; i < kept; ++i) {
    if (code >= -1.0 && ring_point(points, kind, seen, capacity, stride, i)[1] != code) continue;
    if (j-- == 0) return i;
  }
  return -1;
}

// smallest N ≤ max_period with p_i ≈ p_{i+N} over the kept points of ring `kind` that carry
// `code`; 0 when none. `count` is the number of such points. Two samples match when each
// component differs by at most tol × its range over the trajectory plus its largest change over
// one step: a sample taken at a step rather than at the exact event moves by up to that much
// with the phase of the time grid.
template <class D>
FIVSIM_HD inline int recurrence_period(const double* points, int kind, long seen, double code, int count,
                                       const SweepAnalysis& an, int n_dof, const CaseResult<D>& r) {
  const int stride = point_stride(n_dof);
  for (int N = 1; N <= an.max_period; ++N) {
    if (count < 2 * N + 2) return 0;
    bool repeats = true;
    for (int i = 0; i + N < count && repeats; ++i) {
      const double* a =
          ring_point(points, kind, seen, an.capacity, stride, nth_with_code(points, kind, seen, an.capacity, stride, code, i));
      const double* b = ring_point(points, kind, seen, an.capacity, stride,
                                   nth_with_code(points, kind, seen, an.capacity, stride, code, i + N));
      for (int c = 0; c < 2 * n_dof && repeats; ++c) {
        const RunningStats& st = r.series[c];
        const double range = st.max - st.min;
        const double floor = 1e-12 * (1.0 + fabs(st.max));
        repeats = fabs(a[2 + c] - b[2 + c]) <= an.periodic_tol * (range > floor ? range : floor) + r.max_step_change[c];
      }
    }
    if (repeats) return N;
  }
  return 0;
}

// classification from the kept section samples; without enough of them (a contact that never
// sticks, a section never crossed), from the stick→slip points of all contacts, else from all
// transition points
template <class D>
FIVSIM_HD inline void classify_case(const double* points, const SweepAnalysis& an, int n_dof, int n_contacts,
                                    CaseResult<D>& r) {
  r.period_n = 0;
  r.period_s = 0.0;
  if (r.status != Status::ok) {
    r.klass = CaseClass::diverged;
    return;
  }
  if (r.transitions == 0) {
    r.klass = CaseClass::no_stick_slip;
    return;
  }
  const int stride = point_stride(n_dof);
  int kind = 1;
  double code = -2.0;  // any
  long seen = r.points_seen[1];
  int count = static_cast<int>(seen < an.capacity ? seen : an.capacity);
  if (count < 4) {
    kind = 0;
    seen = r.points_seen[0];
    const int kept = static_cast<int>(seen < an.capacity ? seen : an.capacity);
    // stick→slip of whichever contact sticks: its points recur with the orbit
    for (int c = 0; c < n_contacts; ++c) {
      const double cc = static_cast<double>(static_cast<int>(EventKind::stick_to_slip) * 64 + c);
      int n = 0;
      for (int i = 0; i < kept; ++i) n += ring_point(points, 0, seen, an.capacity, stride, i)[1] == cc ? 1 : 0;
      if (n >= 4) {
        code = cc;
        count = n;
        break;
      }
    }
    if (code < -1.0) count = kept;
  }
  const int N = recurrence_period(points, kind, seen, code, count, an, n_dof, r);
  r.klass = N > 0 ? CaseClass::periodic : CaseClass::chaotic;
  r.period_n = N;
  if (N > 0) {
    const double t0 = ring_point(points, kind, seen, an.capacity, stride,
                                 nth_with_code(points, kind, seen, an.capacity, stride, code, 0))[0];
    const double t1 = ring_point(points, kind, seen, an.capacity, stride,
                                 nth_with_code(points, kind, seen, an.capacity, stride, code, count - 1))[0];
    r.period_s = (t1 - t0) / static_cast<double>(count - 1) * N;
  }
}

// scratch of the two steppers
template <class D>
struct CaseWorkspace {
  MoreauWorkspace<D> moreau;
  RkLcpWorkspace<D> rk;
};

// the perturbed twin of a case for the Lyapunov estimate
template <class D>
struct LyapunovTwin {
  State<D> s;
  CaseWorkspace<D> ws;
};

namespace detail {

template <class D>
FIVSIM_HD inline void reset_workspace(CaseWorkspace<D>& ws) {
  ws.moreau.has_basis = false;
  ws.rk.has_basis = false;
  ws.rk.ramp_ready = false;
}

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

}  // namespace detail

// the classical steppers of a case and its twin (which = 0, 1): Moreau's, or the Runge–Kutta LCP
// stepper of rk_map when it is given. run_case_with takes any type with these two members (the
// PINN steppers of a sweep are another, batch/pinn_case.hpp).
template <class D>
struct ClassicalCaseStepper {
  const Model<D>* m;
  const RkStepMap<D>* rk_map;
  typename D::scalar dt;
  const StepOptions* opt;
  CaseWorkspace<D>* ws[2];
  FIVSIM_HD StepReport step(int which, State<D>& s) {
    return rk_map ? rk_lcp_step(*m, *rk_map, s, *opt, ws[which]->rk) : moreau_step(*m, s, dt, *opt, ws[which]->moreau);
  }
  FIVSIM_HD void reset(int which) { detail::reset_workspace(*ws[which]); }
};

// runs one case with `stepper` (step(which, state), reset(which); which 0 is the case, 1 its
// twin); `points` holds kPointKinds × capacity rows for the case; with a twin state (and
// an.lyapunov_every > 0) it also estimates the largest Lyapunov exponent
template <class D, class Stepper>
FIVSIM_HD inline void run_case_with(const CaseSetup<D>& setup, const SweepAnalysis& an, const StepOptions& opt,
                                    Stepper& stepper, State<D>& s, CaseResult<D>& r, double* points,
                                    State<D>* twin = nullptr) {
  using T = typename D::scalar;
  const Model<D>& m = setup.model;
  const int nq = dof_count(m), nc = contact_count(m);
  const unsigned obs = an.observers;
  s = setup.start;
  stepper.reset(0);
  r = CaseResult<D>();
  if (an.lyapunov_every <= 0) twin = nullptr;
  double lyapunov_sum = 0.0;
  if (twin) {
    *twin = setup.start;
    twin->q[0] += T(an.lyapunov_d0);
    stepper.reset(1);
  }
  Vec<T, D::max_dof> q_prev, u_prev;
  ContactState last[D::max_contacts] = {};
  long stick_from = 0;  // step at which the section contact last began to stick
  for (int i = 0; i < nc; ++i) last[i] = s.contact[i];
  const double t0 = static_cast<double>(s.t);
  const double dt = setup.dt;
  double next_strobe = setup.t_transient;

  for (long k = 1; k <= setup.steps; ++k) {
    q_prev = s.q;
    u_prev = s.u;
    const double t_prev = static_cast<double>(s.t);
    // the case and its twin go through one call site, so that the stepper is inlined once
    StepReport rep;
    bool twin_failed = false;
    for (int w = 0; w < (twin ? 2 : 1); ++w) {
      const StepReport rw = stepper.step(w, w == 0 ? s : *twin);
      if (w == 0) rep = rw;
      else twin_failed = rw.status != Status::ok;
    }
    if (rep.status != Status::ok) {
      r.status = rep.status;
      r.failed_at = t0 + static_cast<double>(k - 1) * dt;
      break;
    }
    // time from the step count, as the host driver does (simulation.hpp)
    const double t = t0 + static_cast<double>(k) * dt;
    s.t = T(t);
    r.steps = k;
    if ((obs & kObserveLcpResidual) && rep.lcp_residual > r.max_lcp_residual) r.max_lcp_residual = rep.lcp_residual;
    const bool settled = t >= setup.t_transient;
    if (twin) {
      // the twin stops (and the estimate with it) if its own step fails
      if (twin_failed) {
        twin = nullptr;
        r.lyapunov_time = 0.0;
      } else {
        twin->t = T(t);
        if (k % an.lyapunov_every == 0) {
          const double d = detail::renormalise_twin(s, *twin, nq, an.lyapunov_d0);
          // intervals that start after the transient count
          if (t - an.lyapunov_every * dt >= setup.t_transient - 0.5 * dt && d > 0.0) {
            lyapunov_sum += log(d / an.lyapunov_d0);
            r.lyapunov_time += an.lyapunov_every * dt;
          }
        }
      }
    }

    bool break_away = false;
    if (obs & (kObserveTransitions | kObservePoincare)) {
      for (int i = 0; i < nc; ++i) {
        const EventKind e = classify_transition(last[i], s.contact[i]);
        if (e != EventKind::none && settled) {
          if (obs & kObserveTransitions) {
            ++r.transitions;
            detail::push_point(points, 0, r.points_seen[0], an.capacity, nq, t, static_cast<double>(int(e) * 64 + i),
                               s.q.v, s.u.v);
          }
          // a stick of a single step is the velocity grazing the belt's, not a stick phase
          break_away = break_away || (e == EventKind::stick_to_slip && i == an.contact && k - stick_from > 1);
        }
        if (i == an.contact && s.contact[i] == ContactState::stick && last[i] != ContactState::stick) stick_from = k;
        last[i] = s.contact[i];
      }
    }
    if (!settled) continue;

    if (obs & kObserveMinMax) {
      int c = 0;
      for (int i = 0; i < nq; ++i) r.series[c++].add(static_cast<double>(s.q[i]));
      for (int i = 0; i < nq; ++i) r.series[c++].add(static_cast<double>(s.u[i]));
      for (int i = 0; i < nq; ++i) {
        const double dq = fabs(static_cast<double>(s.q[i] - q_prev[i])), du = fabs(static_cast<double>(s.u[i] - u_prev[i]));
        if (dq > r.max_step_change[i]) r.max_step_change[i] = dq;
        if (du > r.max_step_change[nq + i]) r.max_step_change[nq + i] = du;
      }
      for (int i = 0; i < nc; ++i) r.series[2 * nq + i].add(static_cast<double>(s.lamN[i]));
      for (int i = 0; i < nc; ++i) r.series[2 * nq + nc + i].add(static_cast<double>(s.lamT[i]));
    } else {
      int c = 0;
      for (int i = 0; i < nq; ++i) r.series[c++].add_square(static_cast<double>(s.q[i]));
      for (int i = 0; i < nq; ++i) r.series[c++].add_square(static_cast<double>(s.u[i]));
      for (int i = 0; i < nc; ++i) r.series[c++].add_square(static_cast<double>(s.lamN[i]));
      for (int i = 0; i < nc; ++i) r.series[c++].add_square(static_cast<double>(s.lamT[i]));
    }
    if (obs & kObserveFractions)
      for (int i = 0; i < nc; ++i) ++r.in_state[static_cast<int>(s.contact[i])];
    if (!(obs & kObservePoincare)) continue;

    // Poincaré section: the break-away state, or the crossing point by linear interpolation inside
    // the step
    double theta = -1.0;
    if (an.section == SectionKind::stick_to_slip && break_away) {
      theta = 1.0;
    } else if (an.section == SectionKind::velocity) {
      const double eps = opt.stick_tol;
      const double a = static_cast<double>(u_prev[an.dof]) - an.value;
      const double b = static_cast<double>(s.u[an.dof]) - an.value;
      const bool down = a > -eps && b <= -eps;
      const bool up = a < eps && b >= eps;
      if ((an.direction <= 0 && down) || (an.direction >= 0 && up)) theta = a / (a - b);
    } else if (an.section == SectionKind::stroboscopic && t >= next_strobe) {
      theta = t > t_prev ? (next_strobe - t_prev) / (t - t_prev) : 1.0;
      next_strobe += an.period;
    }
    if (theta >= 0.0 && t_prev >= setup.t_transient) {
      theta = theta > 1.0 ? 1.0 : theta;
      T qs[D::max_dof] = {}, us[D::max_dof] = {};
      for (int i = 0; i < nq; ++i) {
        qs[i] = q_prev[i] + T(theta) * (s.q[i] - q_prev[i]);
        us[i] = u_prev[i] + T(theta) * (s.u[i] - u_prev[i]);
      }
      ++r.section_hits;
      detail::push_point(points, 1, r.points_seen[1], an.capacity, nq, t_prev + theta * dt, -1.0, qs, us);
    }
  }
  // not asked for: 0; asked for but no window (or the twin failed): NaN
  r.lyapunov = r.lyapunov_time > 0.0 ? lyapunov_sum / r.lyapunov_time : (an.lyapunov_every > 0 ? nan("") : 0.0);
  if (observes_class(obs)) classify_case(points, an, nq, nc, r);
  else r.klass = r.status == Status::ok ? CaseClass::unclassified : CaseClass::diverged;
}

// runs one case with Moreau time stepping, or with the Runge–Kutta LCP stepper of `rk_map` when
// it is given (run_case_with with the classical steppers)
template <class D>
FIVSIM_HD inline void run_case(const CaseSetup<D>& setup, const RkStepMap<D>* rk_map, const SweepAnalysis& an,
                               const StepOptions& opt, CaseWorkspace<D>& ws, State<D>& s, CaseResult<D>& r,
                               double* points, LyapunovTwin<D>* twin = nullptr) {
  ClassicalCaseStepper<D> stepper{&setup.model, rk_map, typename D::scalar(setup.dt), &opt,
                                  {&ws, twin ? &twin->ws : nullptr}};
  run_case_with(setup, an, opt, stepper, s, r, points, twin ? &twin->s : nullptr);
}

}  // namespace fivsim
