// fivsim/cases/belt_runner.hpp — the specialised step of the sweep engine for belt models: every
// contact pressed with a given normal force against a surface moving along its own DoF (w_N = 0,
// w_T = e_i), with a diagonal mass matrix — the slider chains of seed 001, seed 000's Model I, the
// base-excited and torsion oscillators. Their friction LCPs are decoupled and solved in closed form
// (moreau.hpp, decoupled_friction_impulses), so a step needs no LCP workspace: the case's state,
// its own values (normal forces, surface speeds, friction constants) and its running statistics
// are a few numbers each, and W cases step side by side in lanes (W = 1 in a CUDA thread, a vector
// register's width on the CPU, where each phase of the step is one loop over the lanes).
//
// The arithmetic is Moreau's step (seed 000 Eq. 8 with the LCP of Eq. 28) as moreau_step does it
// for such a model, operation for operation; only the terms that the belt's structure makes
// exact zeros and ones (w_N, the off-diagonal w_T and M⁻¹, G_TN) are left out, which changes no
// finite result. The observers are case_runner.hpp's, compiled in as the mask Obs asks
// (analysis/observers.hpp). tests/cases/belt_runner_test.cpp holds both paths to the same bits.
#pragma once

#include "fivsim/cases/case_runner.hpp"
#include "fivsim/cases/case_batch.hpp"

namespace fivsim {

// the part of a belt model every case shares
template <class D>
struct BeltModel {
  using T = typename D::scalar;
  static constexpr int N = D::max_dof;
  T minv[N];  // the diagonal of M⁻¹, also G_TT,ii
  T C[N][N], K[N][N];
  T f0[N], f_sin[N], f_cos[N];
  T omega = T(0);
  T f_still[N];        // f(t) of an unforced model (ω = 0): f0 + f_sin·0 + f_cos·1, as external_force sums it
  FrictionLaw law[N];  // the laws before a case's own friction constants
  T Fn[N], v_surface[N];
  T q0[N], u0[N];
  // the time grid every case shares
  double dt = 0.0, t_transient = 0.0;
  long steps = 0;
};

// whether a setup is a belt model this runner steps exactly as moreau_step would ("" or why not)
template <class D>
FIVSIM_HD inline bool belt_eligible(const CaseSetup<D>& s, const StepOptions& opt) {
  using T = typename D::scalar;
  const Model<D>& m = s.model;
  if (!D::exact || D::max_dof != D::max_contacts || !opt.closed_form_decoupled || !m.decoupled_friction) return false;
  const int n = D::max_dof;
  for (int i = 0; i < n; ++i) {
    if (m.kind[i] != ContactKind::given_normal) return false;
    for (int j = 0; j < n; ++j) {
      const T unit = i == j ? T(1) : T(0);
      if (m.WN(i, j) != T(0) || m.WT(i, j) != unit || m.GTN(j, i) != T(0)) return false;
      if (i != j && m.Minv(i, j) != T(0)) return false;
    }
    if (m.GTT(i, i) != m.Minv(i, i)) return false;
  }
  return true;
}

template <class D>
FIVSIM_HD inline void make_belt_model(const CaseSetup<D>& s, BeltModel<D>& b) {
  using T = typename D::scalar;
  const Model<D>& m = s.model;
  constexpr int N = D::max_dof;
  for (int i = 0; i < N; ++i) {
    b.minv[i] = m.Minv(i, i);
    for (int j = 0; j < N; ++j) {
      b.C[i][j] = m.C(i, j);
      b.K[i][j] = m.K(i, j);
    }
    b.f0[i] = m.f0[i];
    b.f_sin[i] = m.f_sin[i];
    b.f_cos[i] = m.f_cos[i];
    b.f_still[i] = m.f0[i] + m.f_sin[i] * T(0) + m.f_cos[i] * T(1);
    b.law[i] = m.law[i];
    b.Fn[i] = m.Fn[i];
    b.v_surface[i] = m.v_surface[i];
    b.q0[i] = s.start.q[i];
    b.u0[i] = s.start.u[i];
  }
  b.omega = m.omega;
  b.dt = s.dt;
  b.steps = s.steps;
  b.t_transient = s.t_transient;
}

// W cases side by side: their state, their own values, and what the observers keep of them
template <class D, int W>
struct BeltLanes {
  using T = typename D::scalar;
  static constexpr int N = D::max_dof;
  static constexpr int NS = 4 * N;  // series: q, u, lamN, lamT
  // state
  T q[N][W], u[N][W], lamT[N][W];
  int contact[N][W];
  // each case's own values
  T Fn[N][W], vs[N][W], pn[N][W], lamN[N][W];
  double law_p[N][kFrictionMaxParams][W];  // each contact's law parameters (its kind is the model's)
  // the step's scratch
  T q_prev[N][W], u_prev[N][W], uf[N][W], mu_plus[N][W], mu_minus[N][W];
  // observers (a sweep keeps each series' RMS, minimum and maximum: no plain sum)
  double sum_sq[NS][W], lo[NS][W], hi[NS][W], change[2 * N][W];
  long in_state[4][W];
  int last[N][W];
  long stick_from[W];
  int events[W];  // the step's events: contacts that changed mode, and a crossing of the velocity section
  double margin_1[W], margin_2[W];   // the section contact's stick margins, the last two stick steps
  double mu0_plus[W], mu0_minus[W];  // its static friction coefficients
  bool failed[W];
};

namespace detail {

// the lane loop of one phase: vectorised on the CPU, a single pass on the GPU
#if defined(__CUDA_ARCH__)
#define FIVSIM_LANES(l, W) for (int l = 0; l < W; ++l)
#define FIVSIM_LANES_SUM(l, W, ...) for (int l = 0; l < W; ++l)
#else
#define FIVSIM_LANES(l, W) _Pragma("omp simd") for (int l = 0; l < W; ++l)
// the same with the variables after W summed over the lanes (the pragma's text made after they are
// expanded)
#define FIVSIM_PRAGMA_TEXT(x) #x
#define FIVSIM_PRAGMA_OF(x) FIVSIM_PRAGMA_TEXT(x)
#define FIVSIM_LANES_SUM(l, W, ...) \
  _Pragma(FIVSIM_PRAGMA_OF(omp simd reduction(+ : __VA_ARGS__))) for (int l = 0; l < W; ++l)
#endif

// lane l's case (index c of the batch): the shared values with its row written in, its start state
template <class D, int W>
FIVSIM_HD inline void belt_load_lane(const BeltModel<D>& b, const CaseBatch<D>& cases, long c, int l, double stick_tol,
                                     typename D::scalar dt, BeltLanes<D, W>& x) {
  using T = typename D::scalar;
  constexpr int N = D::max_dof;
  for (int i = 0; i < N; ++i) {
    x.q[i][l] = b.q0[i];
    x.u[i][l] = b.u0[i];
    x.Fn[i][l] = b.Fn[i];
    x.vs[i][l] = b.v_surface[i];
    for (int p = 0; p < kFrictionMaxParams; ++p) x.law_p[i][p][l] = b.law[i].p[p];
  }
  // every index a constant of the unrolled loops, never the target's own: an array indexed at run
  // time lives in local memory, and these are read every step
  for (int k = 0; k < cases.targets.n; ++k) {
    const SlotTarget& t = cases.targets.t[k];
    const double v = cases.rows[t.column * cases.row_stride + c];
    for (int i = 0; i < N; ++i) {
      if (t.index != i) continue;
      switch (t.kind) {
        case SlotKind::normal_force:
          x.Fn[i][l] = T(v);
          break;
        case SlotKind::surface_velocity:
          x.vs[i][l] = T(v);
          break;
        case SlotKind::friction:
          for (int p = 0; p < kFrictionMaxParams; ++p)
            if (t.param == p) x.law_p[i][p][l] = v;
          break;
        case SlotKind::start_q:
          x.q[i][l] = T(v);
          break;
        case SlotKind::start_u:
          x.u[i][l] = T(v);
          break;
        case SlotKind::contact_stiffness:
        case SlotKind::contact_gap:
          break;  // a given normal force has no gap
      }
    }
  }
  for (int i = 0; i < N; ++i) {
    // the kinematic state of events.hpp for a given normal force
    const T v = x.u[i][l] - x.vs[i][l];
    x.contact[i][l] = static_cast<int>(!(x.Fn[i][l] > T(0)) ? ContactState::free
                                       : v > T(stick_tol)   ? ContactState::slip_pos
                                       : v < -T(stick_tol)  ? ContactState::slip_neg
                                                            : ContactState::stick);
    x.last[i][l] = x.contact[i][l];
    x.pn[i][l] = x.Fn[i][l] * dt;
    x.lamN[i][l] = x.pn[i][l] / dt;
    x.lamT[i][l] = T(0);
  }
  for (int s = 0; s < BeltLanes<D, W>::NS; ++s) {
    x.sum_sq[s][l] = 0.0;
    x.lo[s][l] = HUGE_VAL;
    x.hi[s][l] = -HUGE_VAL;
  }
  for (int s = 0; s < 2 * N; ++s) x.change[s][l] = 0.0;
  for (int s = 0; s < 4; ++s) x.in_state[s][l] = 0;
  x.stick_from[l] = 0;
  x.margin_1[l] = x.margin_2[l] = -1.0;
  x.failed[l] = false;
}

// one lane's parameters of a contact's law, as a law reads them (p[q])
template <int W>
struct LaneParameters {
  const double (&p)[kFrictionMaxParams][W];
  int lane;
  FIVSIM_HD double operator[](int q) const { return p[q][lane]; }
};

// the friction bounds of contact i (Every: of every contact, the law's kind theirs alike) in
// every lane at the start-of-step slip velocity, for the law K: the law's kind a constant, its
// switch folds away, and a law of arithmetic alone (reproducible_exp, _tanh, _sech and _log included)
// leaves a loop the compiler vectorises over the lanes; every contact in one loop gives the core
// their chains side by side (a lane's exponential is a chain of dependent operations, too long to
// overlap otherwise)
template <FrictionLawKind K, bool Every, class D, int W>
FIVSIM_HD inline void belt_friction_lanes(int i, BeltLanes<D, W>& x) {
  constexpr int N = D::max_dof;
  FIVSIM_LANES(l, W) {
    FIVSIM_UNROLL for (int j = 0; j < (Every ? N : 1); ++j) {
      const int c = Every ? j : i;
      // the lane's parameters read in place (a law copied per lane would be an array the loop stores to)
      const LaneParameters<W> p{x.law_p[c], l};
      friction_bounds_of(K, p, x.u[c][l] - x.vs[c][l], x.mu_plus[c][l], x.mu_minus[c][l]);
    }
  }
}

// belt_friction_lanes for the law K, of contact i or (i < 0) of every contact
template <FrictionLawKind K, class D, int W>
FIVSIM_HD inline void belt_friction_lanes_of(int i, BeltLanes<D, W>& x) {
  i < 0 ? belt_friction_lanes<K, true>(0, x) : belt_friction_lanes<K, false>(i, x);
}

// the same for any law, of contact i (or of every contact where i < 0, all of the law `kind`):
// every law is arithmetic and the reproducible functions in double, so each kind vectorises
template <class D, int W>
FIVSIM_HD inline void belt_friction_lanes(FrictionLawKind kind, int i, BeltLanes<D, W>& x) {
  switch (kind) {
    case FrictionLawKind::coulomb:
      return belt_friction_lanes_of<FrictionLawKind::coulomb>(i, x);
    case FrictionLawKind::coulomb_viscous:
      return belt_friction_lanes_of<FrictionLawKind::coulomb_viscous>(i, x);
    case FrictionLawKind::coulomb_tanh:
      return belt_friction_lanes_of<FrictionLawKind::coulomb_tanh>(i, x);
    case FrictionLawKind::stribeck_rational:
      return belt_friction_lanes_of<FrictionLawKind::stribeck_rational>(i, x);
    case FrictionLawKind::stribeck_exp:
      return belt_friction_lanes_of<FrictionLawKind::stribeck_exp>(i, x);
    case FrictionLawKind::stribeck:
      return belt_friction_lanes_of<FrictionLawKind::stribeck>(i, x);
    case FrictionLawKind::asymmetric:
      return belt_friction_lanes_of<FrictionLawKind::asymmetric>(i, x);
    case FrictionLawKind::coulomb_static:
      return belt_friction_lanes_of<FrictionLawKind::coulomb_static>(i, x);
  }
}

// lane l's velocity on the velocity section (its DoF's) before and after the step, less the
// section's value: a sum weighted 1 and 0, not u[an.dof] or a pick by index, which the device
// compiler turns into one load at a run-time index and so puts every lane array in local memory;
// the zero terms add ±0 to a finite value (a case that is not finite has failed)
template <class D, int W>
FIVSIM_HD inline void belt_section_velocity(const BeltLanes<D, W>& x, int l, const SweepAnalysis& an, double& before,
                                            double& after) {
  using T = typename D::scalar;
  T b = T(0), a = T(0);
  for (int j = 0; j < D::max_dof; ++j) {
    const T w = j == an.dof ? T(1) : T(0);
    b += w * x.u_prev[j][l];
    a += w * x.u[j][l];
  }
  before = static_cast<double>(b) - an.value;
  after = static_cast<double>(a) - an.value;
}

// lane l's running numbers into its CaseResult (what run_case_with keeps), after `count` settled
// steps
template <class D, int W>
FIVSIM_HD inline void belt_store_lane(const BeltLanes<D, W>& x, int l, long count, bool extremes, CaseResult<D>& r) {
  constexpr int N = D::max_dof;
  for (int s = 0; s < BeltLanes<D, W>::NS; ++s) {
    RunningStats& st = r.series[s];
    st.sum = 0.0;  // no sweep column reads a series' mean
    st.sum_sq = x.sum_sq[s][l];
    st.count = count;
    st.min = count > 0 && extremes ? x.lo[s][l] : 0.0;
    st.max = count > 0 && extremes ? x.hi[s][l] : 0.0;
  }
  for (int s = 0; s < 2 * N; ++s) r.max_step_change[s] = x.change[s][l];
  for (int s = 0; s < 4; ++s) r.in_state[s] = x.in_state[s][l];
}

}  // namespace detail

// runs `lanes` (≤ W) cases of a batch, cases first … first + lanes − 1, together: Moreau steps of
// the belt model, the observers of Obs, results[l] and the point rings of each case (`points` + l ×
// per_case) as run_case would leave them. Reciprocal: the quotients by the step and the masses
// from their reciprocals by fused multiply-adds (quotient_from_reciprocal: the same bits, no
// divider; for targets with an FMA unit)
template <class D, int W, unsigned Obs, bool Reciprocal = false>
FIVSIM_HD inline void run_belt_lanes(const BeltModel<D>& b, const CaseBatch<D>& cases, long first, int lanes,
                                     const SweepAnalysis& an, const StepOptions& opt, BeltLanes<D, W>& x,
                                     CaseResult<D>* results, double* points, long per_case) {
  using T = typename D::scalar;
  constexpr int N = D::max_dof;
  const int nq = N;
  const BeltModel<D>& grid = b;
  const T dt = T(grid.dt);
  const double dtd = grid.dt;
  const T stick_tol = T(opt.stick_tol);
  const T impulse_tol = T(opt.force_tol) * dt;
  // the reciprocals of the step and of the masses' inverses, for quotient_from_reciprocal
  const T dt_reciprocal = T(1) / dt;
  T minv_reciprocal[N];
  for (int i = 0; i < N; ++i) minv_reciprocal[i] = T(1) / b.minv[i];
  // what the observers read besides the state: the state before the step (a section crossing's
  // interpolation, the largest change), the contacts' modes (events, a stick phase's margins, time
  // fractions); the lean observers neither
  constexpr bool kKeepsPrevious = (Obs & (kObservePoincare | kObserveMinMax)) != 0;
  constexpr bool kKeepsStates = (Obs & (kObserveTransitions | kObservePoincare | kObserveFractions)) != 0;
  // lanes past `lanes` run copies of the last case, so that every lane does finite work; every
  // loop over lanes is bounded by W too, so that with W = 1 the lane is a constant and the lanes'
  // arrays stay in registers
  for (int l = 0; l < W; ++l)
    detail::belt_load_lane(b, cases, first + (l < lanes ? l : lanes - 1), l, opt.stick_tol, dt, x);
  // the section contact's static friction, once per case (the index a constant of the unrolled loop)
  for (int l = 0; l < W; ++l) {
    x.mu0_plus[l] = x.mu0_minus[l] = 0.0;
    FIVSIM_UNROLL for (int i = 0; i < N; ++i) {
      if (i != an.contact || an.section != SectionKind::stick_to_slip) continue;
      FrictionLaw law;
      law.kind = b.law[i].kind;
      for (int p = 0; p < kFrictionMaxParams; ++p) law.p[p] = x.law_p[i][p][l];
      const fivsim::detail::StaticFriction mu = fivsim::detail::static_friction(law);
      x.mu0_plus[l] = mu.plus;
      x.mu0_minus[l] = mu.minus;
    }
  }
  // whether every contact has the same law's kind (then their laws are evaluated together)
  bool one_law = true;
  for (int i = 1; i < N; ++i) one_law = one_law && b.law[i].kind == b.law[0].kind;
  for (int l = 0; l < W && l < lanes; ++l) results[l] = CaseResult<D>();
  long settled_steps = 0;
  double next_strobe = grid.t_transient;
  T f[N];
  for (int i = 0; i < N; ++i) f[i] = b.f_still[i];

  for (long k = 1; k <= grid.steps; ++k) {
    const double t_prev = static_cast<double>(T(static_cast<double>(k - 1) * dtd));
    if (b.omega != T(0)) {
      // the forcing at the start of the step, as external_force evaluates it
      const T ts = T(static_cast<double>(k - 1) * dtd);
      const T sw = sin(b.omega * ts), cw = cos(b.omega * ts);
      for (int i = 0; i < N; ++i) f[i] = b.f0[i] + b.f_sin[i] * sw + b.f_cos[i] * cw;
    }
    // the free flight: h = f − C u − K q, u_free = u + dt M⁻¹ h; the slip velocity at the start
    for (int i = 0; i < N; ++i) {
      FIVSIM_LANES(l, W) {
        if constexpr (kKeepsPrevious) {
          x.q_prev[i][l] = x.q[i][l];
          x.u_prev[i][l] = x.u[i][l];
        }
        T acc = f[i];
        for (int j = 0; j < N; ++j) acc -= b.C[i][j] * x.u[j][l] + b.K[i][j] * x.q[j][l];
        x.uf[i][l] = acc;  // h for now
      }
    }
    for (int i = 0; i < N; ++i) {
      FIVSIM_LANES(l, W) { x.uf[i][l] = x.u[i][l] + dt * (T(0) + b.minv[i] * x.uf[i][l]); }
    }
    // the friction coefficients at the start-of-step slip velocity
    if (one_law)
      detail::belt_friction_lanes(b.law[0].kind, -1, x);
    else
      FIVSIM_UNROLL for (int i = 0; i < N; ++i) detail::belt_friction_lanes(b.law[i].kind, i, x);
    // the closed-form friction impulse, the velocity and position update
    for (int i = 0; i < N; ++i) {
      FIVSIM_LANES(l, W) {
        const T pn = x.pn[i][l];
        const T gamma_free = x.uf[i][l] - x.vs[i][l];
        const T g = b.minv[i];
        const T lo = -x.mu_plus[i][l] * pn, hi = x.mu_minus[i][l] * pn;
        T pt = Reciprocal ? quotient_from_reciprocal(-gamma_free, g, minv_reciprocal[i]) : -gamma_free / g;
        pt = pt < lo ? lo : (pt > hi ? hi : pt);
        const T gamma_end = gamma_free + g * pt;
        x.lamT[i][l] = Reciprocal ? quotient_from_reciprocal(pt, dt, dt_reciprocal) : pt / dt;
        if constexpr (kKeepsStates)
          x.contact[i][l] = static_cast<int>(!(pn > impulse_tol)      ? ContactState::free
                                             : gamma_end > stick_tol  ? ContactState::slip_pos
                                             : gamma_end < -stick_tol ? ContactState::slip_neg
                                                                      : ContactState::stick);
        const T force = T(0) + pt;
        x.u[i][l] = x.uf[i][l] + (T(0) + b.minv[i] * force);
        x.q[i][l] += dt * x.u[i][l];
      }
    }
    // x − x is 0 for a finite x and NaN otherwise: their sum over every lane's q and u is NaN
    // where a lane has left the finite numbers (a failed lane stays there), with no branch per
    // value, so that the check vectorises; the lanes are told apart only then
    T lanes_zero = T(0);
    FIVSIM_LANES_SUM(l, W, lanes_zero) {
      for (int i = 0; i < N; ++i) lanes_zero += (x.u[i][l] - x.u[i][l]) + (x.q[i][l] - x.q[i][l]);
    }
    const bool any_failed = lanes_zero != lanes_zero;
    if (any_failed)
      for (int l = 0; l < W && l < lanes; ++l) {
        bool finite = true;
        for (int i = 0; i < N; ++i) finite = finite && is_finite(x.u[i][l]) && is_finite(x.q[i][l]);
        if (finite || x.failed[l]) continue;
        // the case ends here as run_case_with ends it: what was kept before this step
        x.failed[l] = true;
        CaseResult<D>& r = results[l];
        r.status = Status::nonfinite;
        r.failed_at = static_cast<double>(k - 1) * dtd;
        r.steps = k - 1;
        detail::belt_store_lane(x, l, settled_steps, (Obs & kObserveMinMax) != 0, r);
      }
    const double t = static_cast<double>(k) * dtd;
    const bool settled = t >= grid.t_transient;

    if constexpr ((Obs & (kObserveTransitions | kObservePoincare)) != 0) {
      // what vectorises of the observers' per-lane work: the section contact's stick margins (the
      // index a constant of the unrolled loop), and whether any lane had an event this step (a
      // contact's mode changed, the velocity section crossed, a stroboscopic sample due); only then
      // are the lanes looked at one by one
      FIVSIM_UNROLL for (int i = 0; i < N; ++i) {
        if (i != an.contact || an.section != SectionKind::stick_to_slip) continue;
        FIVSIM_LANES(l, W) {
          const bool stick = x.contact[i][l] == static_cast<int>(ContactState::stick);
          const double m = fivsim::detail::stick_margin(
              {x.mu0_plus[l], x.mu0_minus[l]}, static_cast<double>(x.lamN[i][l]), static_cast<double>(x.lamT[i][l]));
          x.margin_2[l] = stick ? x.margin_1[l] : x.margin_2[l];
          x.margin_1[l] = stick ? m : x.margin_1[l];
        }
      }
      int events = 0;
      FIVSIM_LANES_SUM(l, W, events) {
        int e = 0;
        for (int i = 0; i < N; ++i) e += x.contact[i][l] != x.last[i][l] ? 1 : 0;
        x.events[l] = e;
        events += e;
      }
      if constexpr ((Obs & kObservePoincare) != 0)
        if (settled && an.section == SectionKind::velocity) {
          FIVSIM_LANES_SUM(l, W, events) {
            double a, bb;
            detail::belt_section_velocity(x, l, an, a, bb);
            const int e = fivsim::detail::velocity_crosses(a, bb, opt.stick_tol, an.direction) ? 1 : 0;
            x.events[l] += e;
            events += e;
          }
        }
      const bool strobe =
          (Obs & kObservePoincare) != 0 && settled && an.section == SectionKind::stroboscopic && t >= next_strobe;
      for (int l = 0; l < W && l < lanes && (events > 0 || strobe); ++l) {
        if (x.failed[l] || (x.events[l] == 0 && !strobe)) continue;
        bool break_away = false;
        CaseResult<D>& r = results[l];
        FIVSIM_UNROLL for (int i = 0; i < N; ++i) {
          const ContactState from = static_cast<ContactState>(x.last[i][l]),
                             to = static_cast<ContactState>(x.contact[i][l]);
          const EventKind e = classify_transition(from, to);
          if (e != EventKind::none && settled) {
            if constexpr ((Obs & kObserveTransitions) != 0) {
              ++r.transitions;
              T qv[N], uv[N];
              for (int j = 0; j < N; ++j) {
                qv[j] = x.q[j][l];
                uv[j] = x.u[j][l];
              }
              fivsim::detail::push_point(points + l * per_case, 0, r.points_seen[0], an.capacity, nq, t,
                                         static_cast<double>(static_cast<int>(e) * 64 + i), qv, uv);
            }
            break_away = break_away || (e == EventKind::stick_to_slip && i == an.contact && k - x.stick_from[l] > 1);
          }
          if (i == an.contact && to == ContactState::stick && from != ContactState::stick) x.stick_from[l] = k;
        }
        if constexpr ((Obs & kObservePoincare) != 0) {
          if (!settled) continue;
          // the section: the break-away state, or the crossing by linear interpolation in the step
          double theta = -1.0;
          if (an.section == SectionKind::stick_to_slip && break_away) {
            theta = fivsim::detail::break_away_fraction(x.margin_1[l], x.margin_2[l]);
          } else if (an.section == SectionKind::velocity) {
            double a, bb;
            detail::belt_section_velocity(x, l, an, a, bb);
            if (fivsim::detail::velocity_crosses(a, bb, opt.stick_tol, an.direction)) theta = a / (a - bb);
          } else if (strobe) {
            theta = t > t_prev ? (next_strobe - t_prev) / (t - t_prev) : 1.0;
          }
          if (theta >= 0.0 && t_prev >= grid.t_transient) {
            theta = theta > 1.0 ? 1.0 : theta;
            T qs[N], us[N];
            for (int j = 0; j < N; ++j) {
              qs[j] = x.q_prev[j][l] + T(theta) * (x.q[j][l] - x.q_prev[j][l]);
              us[j] = x.u_prev[j][l] + T(theta) * (x.u[j][l] - x.u_prev[j][l]);
            }
            ++r.section_hits;
            fivsim::detail::push_point(points + l * per_case, 1, r.points_seen[1], an.capacity, nq,
                                       t_prev + theta * dtd, -1.0, qs, us);
          }
        }
      }
      if (strobe) next_strobe += an.period;
      // the modes after the step are the next step's modes before it (every lane's: a lane that
      // failed, or a copy past `lanes`, would otherwise count as an event at every step)
      if (events > 0)
        for (int i = 0; i < N; ++i) {
          FIVSIM_LANES(l, W) { x.last[i][l] = x.contact[i][l]; }
        }
    }
    if (!settled) continue;
    ++settled_steps;
    // the running statistics of q, u, lamN, lamT (and the largest change over a step)
    FIVSIM_UNROLL for (int i = 0; i < N; ++i) {
      FIVSIM_LANES(l, W) {
        const double v[4] = {static_cast<double>(x.q[i][l]), static_cast<double>(x.u[i][l]),
                             static_cast<double>(x.lamN[i][l]), static_cast<double>(x.lamT[i][l])};
        for (int g = 0; g < 4; ++g) {
          const int s = g * N + i;
          x.sum_sq[s][l] += v[g] * v[g];
          if constexpr ((Obs & kObserveMinMax) != 0) {
            x.lo[s][l] = min_value(x.lo[s][l], v[g]);
            x.hi[s][l] = max_value(x.hi[s][l], v[g]);
          }
        }
        if constexpr ((Obs & kObserveMinMax) != 0) {
          const double dq = fabs(static_cast<double>(x.q[i][l] - x.q_prev[i][l]));
          const double du = fabs(static_cast<double>(x.u[i][l] - x.u_prev[i][l]));
          x.change[i][l] = dq > x.change[i][l] ? dq : x.change[i][l];
          x.change[N + i][l] = du > x.change[N + i][l] ? du : x.change[N + i][l];
        }
        if constexpr ((Obs & kObserveFractions) != 0)
          for (int s = 0; s < 4; ++s) x.in_state[s][l] += x.contact[i][l] == s ? 1 : 0;
      }
    }
  }
  for (int l = 0; l < W && l < lanes; ++l) {
    CaseResult<D>& r = results[l];
    if (!x.failed[l]) {
      r.steps = grid.steps;
      detail::belt_store_lane(x, l, settled_steps, (Obs & kObserveMinMax) != 0, r);
    }
    r.lyapunov = 0.0;
    if constexpr (observes_class(Obs))
      classify_case(points + l * per_case, an, nq, N, r);
    else
      r.klass = r.status == Status::ok ? CaseClass::unclassified : CaseClass::diverged;
  }
}

// the three observer sets compiled into the belt runner, and the smallest of them that holds a mask
inline constexpr unsigned kBeltObserverSets[3] = {kObserveLean, kObserveStatistics, kObserveBifurcation};
FIVSIM_HD constexpr unsigned belt_observer_set(unsigned mask) {
  return (mask & kObserveLean) == mask         ? kObserveLean
         : (mask & kObserveStatistics) == mask ? kObserveStatistics
                                               : kObserveBifurcation;
}

}  // namespace fivsim
