// fivsim/integrate/switching.hpp — the event-driven switching model as per-case FIVSIM_HD code:
// the exact method of sweeps (`integrator.method: switching`), on the CPU and in the CUDA kernels.
//
// The physics is that of the host reference (event_driven.hpp; seed 001's switching model, seed
// 003 Eqs. 13–14, seed 000 §4.3): every contact is free, sticking, or slipping one way, and each
// mode is a smooth ODE
//   M q̈ = f(t) − C q̇ − K q + W_N λ_N + W_T λ_T,
// λ_N = Fn (given_normal) or −k_c g_N while a spring contact is closed; λ_T = ∓μ(|γ_T|)λ_N while
// slipping; a sticking contact's λ_T keeps w_Tᵀq̈ = 0 (the Schur complement of the sticking set,
// G_TT of model.hpp). Each smooth phase runs on the Dormand–Prince 5(4) pair with its continuous
// extension (Hairer, Nørsett & Wanner, Solving ODEs I, §II.5–6); after each accepted step the mode's
// event functions — gap (separation / reattachment), slip velocity (slip→stick or reversal),
// stick margins μ(0)λ_N ∓ λ_T (stick→slip) — are checked, and the earliest sign change is located
// on the dense output to `event_tol` in time by the Illinois method. The integrator is written
// apart from the runner: a caller asks for the state at an output time (advance), and hears of
// every mode change and section sample in between through a sink, at its exact time.
#pragma once

#include "fivsim/model/events.hpp"
#include "fivsim/core/reproducible_math.hpp"
#include "fivsim/core/status.hpp"
#include "fivsim/model/model.hpp"

namespace fivsim {

struct SwitchingSettings {
  double rel_tol = 1e-10;  // Dormand–Prince error control, per component
  double abs_tol = 1e-12;
  double event_tol = 1e-12;  // events and section samples are located to this in time (s)
  double max_step = 0.0;     // 0: 1/40 of the shortest natural or forcing period
};

// a Poincaré section the integrator locates itself, besides the mode events: a velocity crossing
// u[dof] = value, or stroboscopic times start + k·period
enum class SwitchingSectionKind : int { none = 0, velocity = 1, stroboscopic = 2 };
struct SwitchingSection {
  SwitchingSectionKind kind = SwitchingSectionKind::none;
  int dof = 0;
  double value = 0.0;
  int direction = -1;  // −1 crossing from above, +1 from below, 0 both
  double period = 0.0, start = 0.0;
};

// what the sink hears: a contact's mode change (section false), or a section sample (contact −1)
template <class T>
struct SwitchingEvent {
  double t = 0.0;
  int contact = -1;
  ContactState from = ContactState::free, to = ContactState::free;
  bool section = false;
  const T* q = nullptr;
  const T* u = nullptr;
};

template <class D>
struct SwitchingWorkspace {
  using T = typename D::scalar;
  static constexpr int NQ = D::max_dof, NC = D::max_contacts, NY = 2 * D::max_dof;
  static constexpr int kSlots = 3;         // event functions per contact: gap, and two tangential
  static constexpr int kSectionQueue = 4;  // section samples located in one step
  bool started = false;
  double t = 0.0, h = 0.0, max_step = 0.0;
  T y[NY];         // the state at t: q then u
  T k[7][NY];      // stage derivatives of the step from t; k[0] = f(t, y)
  T y_end[NY];     // the step's end
  T dense[5][NY];  // its continuous extension over [t, t_step_end]
  double t_step_end = 0.0;
  double valid_until = 0.0;  // the dense output holds up to here (the step's end, or its first event)
  bool has_step = false, event_pending = false;
  // the modes held whatever the event functions do: no function is armed (a segment of a
  // multiple-shooting orbit runs its mode's flow for a given time, switching_orbit.hpp)
  bool hold_modes = false;
  double hold_until = 0.0;  // while the modes are held: the flow's end, where its last step lands
  ContactState mode[NC];
  bool armed[kSlots * NC];
  T mu_plus0[NC], mu_minus0[NC];  // static friction bounds, found once
  T minv_wt[NQ][NC];              // M⁻¹ w_T,i (the sticking set's response)
  double section_time[kSectionQueue];
  int section_count = 0;
  double next_strobe = 0.0;
  int events_since_step = 0;  // mode changes without a smooth step between them (chattering)
  T q_out[NQ], u_out[NQ];     // the state last handed out (a caller that moves it restarts the case)
  // scratch of one evaluation
  T acc[NQ], lamN[NC], lamT[NC], gap[NC], gamma[NC], fn[kSlots * NC], fn_b[kSlots * NC], ytmp[NY];
  T mu[NC], mu_slope[NC];  // a slipping contact's coefficient (signed for smooth laws) and its slope
  long steps = 0, rejected = 0, rhs = 0;
};

// a run without variational equations (switching_tangent.hpp has the one with them)
struct NoTangent {
  template <class M, class W>
  FIVSIM_HD void piece(const M&, W&, double) {}
  template <class M, class W>
  FIVSIM_HD void before_event(const M&, W&, double, int) {}
  template <class M, class W>
  FIVSIM_HD void after_event(const M&, W&, double) {}
};

namespace switching_detail {

template <class D>
FIVSIM_HD inline bool spring_contact(const Model<D>& m, int i) {
  return m.kind[i] == ContactKind::spring;
}
// a given_normal contact without load never touches
template <class D>
FIVSIM_HD inline bool loaded(const Model<D>& m, int i) {
  return spring_contact(m, i) || m.Fn[i] > 0;
}
template <class D>
FIVSIM_HD inline bool smooth_law(const Model<D>& m, int i) {
  return friction_is_smooth(m.law[i].kind);
}
// whether contact i's held mode (a multiple-shooting segment, switching_orbit.hpp) has run past
// v = 0, onto its law's odd continuation (slip_magnitude)
template <class D>
FIVSIM_HD inline bool held_past_zero(const SwitchingWorkspace<D>& ws, int i, typename D::scalar v) {
  using T = typename D::scalar;
  return ws.hold_modes && (ws.mode[i] == ContactState::slip_pos ? v < T(0) : v > T(0));
}

// μ of contact i slipping in its mode at relative velocity v (the mode's sign, not v's): its law
// at |v|. A held mode that runs past v = 0 runs on the law's odd continuation 2μ(0) − μ(|v|), so
// that its field stays C¹ there (held_past_zero). WithSlope: dμ/d|v| of the law there into slope
template <bool WithSlope, class D>
FIVSIM_HD inline typename D::scalar slip_magnitude(const Model<D>& m, const SwitchingWorkspace<D>& ws, int i,
                                                   typename D::scalar v, typename D::scalar& slope) {
  using T = typename D::scalar;
  const bool pos = ws.mode[i] == ContactState::slip_pos;
  const T s = v < T(0) ? -v : v;
  const T side = pos ? s : -s;  // the mode's side (an asymmetric law)
  T mu;
  if constexpr (WithSlope)
    mu = sliding_magnitude_and_slope(m.law[i], side, slope);
  else
    mu = sliding_magnitude(m.law[i], side);
  return held_past_zero(ws, i, v) ? T(2) * sliding_magnitude(m.law[i], T(0)) - mu : mu;
}

FIVSIM_HD inline ContactState slip_state(double gamma) {
  return gamma > 0 ? ContactState::slip_pos : ContactState::slip_neg;
}

// forces of the current modes and the acceleration at (t, y), into ws.acc / lamN / lamT / gap /
// gamma / mu (and mu_slope WithSlope: the variational equations' evaluations); false when the
// sticking set's system is singular. Device code calls one copy (a dozen call sites would each
// inline it)
template <class D, bool WithSlope = false>
FIVSIM_HD_NOINLINE bool evaluate(const Model<D>& m, SwitchingWorkspace<D>& ws, double t, const typename D::scalar* y) {
  using T = typename D::scalar;
  ++ws.rhs;
  const int nq = dof_count(m), nc = contact_count(m);
  const T* q = y;
  const T* u = y + nq;
  const T sn = m.omega != T(0) ? sin(m.omega * T(t)) : T(0);
  const T cs = m.omega != T(0) ? cos(m.omega * T(t)) : T(1);
  T h[D::max_dof];
  for (int i = 0; i < nq; ++i) {
    T acc = m.f0[i] + m.f_sin[i] * sn + m.f_cos[i] * cs;
    for (int j = 0; j < nq; ++j) acc -= m.C(i, j) * u[j] + m.K(i, j) * q[j];
    h[i] = acc;
  }
  int stick[D::max_contacts];
  int ns = 0;
  for (int i = 0; i < nc; ++i) {
    T g = m.gap0[i], v = -m.v_surface[i];
    for (int k = 0; k < nq; ++k) {
      g += m.WN(k, i) * q[k];
      v += m.WT(k, i) * u[k];
    }
    ws.gap[i] = g;
    ws.gamma[i] = v;
    const ContactState md = ws.mode[i];
    T ln = T(0), lt = T(0);
    if (md != ContactState::free) ln = spring_contact(m, i) ? -m.kc[i] * g : m.Fn[i];
    if (md == ContactState::stick) {
      stick[ns++] = i;
    } else if (md != ContactState::free) {
      // the sign comes from the mode, so that the force stays smooth up to the event
      if (smooth_law(m, i)) {
        T mag;
        if constexpr (WithSlope)
          mag = friction_magnitude_and_slope(m.law[i], v, ws.mu_slope[i]);
        else
          mag = friction_magnitude(m.law[i], v);
        // friction_coefficient's signed curve
        ws.mu[i] = v > T(0) ? mag : (v < T(0) ? -mag : T(0));
        lt = -ws.mu[i] * ln;
      } else {
        ws.mu[i] = slip_magnitude<WithSlope>(m, ws, i, v, ws.mu_slope[i]);
        lt = (md == ContactState::slip_pos ? -ln : ln) * ws.mu[i];
      }
    }
    ws.lamN[i] = ln;
    ws.lamT[i] = lt;
    for (int k = 0; k < nq; ++k) h[k] += m.WN(k, i) * ln + m.WT(k, i) * lt;
  }
  for (int i = 0; i < nq; ++i) {
    T a = T(0);
    for (int j = 0; j < nq; ++j) a += m.Minv(i, j) * h[j];
    ws.acc[i] = a;
  }
  if (ns == 0) return true;
  // sticking contacts keep w_Tᵀ q̈ = 0: G_TT[S,S] λ_S = −W_Sᵀ a_free
  Mat<T, D::max_contacts, D::max_contacts> S;
  Vec<T, D::max_contacts> r;
  for (int a = 0; a < ns; ++a) {
    T w = T(0);
    for (int k = 0; k < nq; ++k) w += m.WT(k, stick[a]) * ws.acc[k];
    r[a] = -w;
    for (int b = 0; b < ns; ++b) S(a, b) = m.GTT(stick[a], stick[b]);
  }
  if (!solve_dense_inplace(S, r, ns, T(1e-14))) return false;
  for (int a = 0; a < ns; ++a) {
    ws.lamT[stick[a]] = r[a];
    for (int k = 0; k < nq; ++k) ws.acc[k] += ws.minv_wt[k][stick[a]] * r[a];
  }
  return true;
}

// the event functions of the current modes (positive while the mode holds), from the last
// evaluation; an unused slot holds 1
template <class D>
FIVSIM_HD inline void event_values(const Model<D>& m, const SwitchingWorkspace<D>& ws, typename D::scalar* v) {
  using T = typename D::scalar;
  const int nc = contact_count(m);
  for (int i = 0; i < nc; ++i) {
    const ContactState md = ws.mode[i];
    T* f = v + 3 * i;
    f[0] = spring_contact(m, i) ? (md == ContactState::free ? ws.gap[i] : -ws.gap[i]) : T(1);
    f[1] = f[2] = T(1);
    if (md == ContactState::stick) {
      f[1] = ws.mu_minus0[i] * ws.lamN[i] - ws.lamT[i];
      f[2] = ws.lamT[i] + ws.mu_plus0[i] * ws.lamN[i];
    } else if (md != ContactState::free) {
      f[1] = md == ContactState::slip_pos ? ws.gamma[i] : -ws.gamma[i];
    }
  }
}

// the state at time t of the current step's continuous extension (Hairer's dense output of
// DOPRI5, fourth order), or the step's start state when no step is held
template <class D>
FIVSIM_HD inline void state_at(const SwitchingWorkspace<D>& ws, int ny, double t, typename D::scalar* out) {
  using T = typename D::scalar;
  if (!ws.has_step || t <= ws.t) {
    for (int i = 0; i < ny; ++i) out[i] = ws.y[i];
    return;
  }
  const T th = T((t - ws.t) / (ws.t_step_end - ws.t)), th1 = T(1) - th;
  for (int i = 0; i < ny; ++i)
    out[i] =
        ws.dense[0][i] + th * (ws.dense[1][i] + th1 * (ws.dense[2][i] + th * (ws.dense[3][i] + th1 * ws.dense[4][i])));
}

// the rate of the continuous extension at time t (d/dt of state_at) in the current step
template <class D>
FIVSIM_HD inline void rate_at(const SwitchingWorkspace<D>& ws, int ny, double t, typename D::scalar* out) {
  using T = typename D::scalar;
  const T h = T(ws.t_step_end - ws.t);
  const T th = T((t - ws.t) / (ws.t_step_end - ws.t)), th1 = T(1) - th;
  for (int i = 0; i < ny; ++i) {
    const T S = ws.dense[3][i] + th1 * ws.dense[4][i], dS = -ws.dense[4][i];
    const T R = ws.dense[2][i] + th * S, dR = S + th * dS;
    const T Q = ws.dense[1][i] + th1 * R, dQ = -R + th1 * dR;
    out[i] = (Q + th * dQ) / h;
  }
}

// event function s when it is linear in the state — a spring contact's gap (slot 0), a slipping
// contact's velocity (slot 1) — as g(y) = sign·(c0 + Σ_k W(k, i) y[offset + k]); false otherwise
template <class D>
FIVSIM_HD inline bool linear_event(const Model<D>& m, const SwitchingWorkspace<D>& ws, int s, int& offset,
                                   typename D::scalar& sign, typename D::scalar& c0) {
  using T = typename D::scalar;
  const int i = s / 3, slot = s % 3;
  const ContactState md = ws.mode[i];
  if (slot == 0 && spring_contact(m, i)) {
    offset = 0;
    sign = md == ContactState::free ? T(1) : T(-1);
    c0 = m.gap0[i];
    return true;
  }
  if (slot == 1 && (md == ContactState::slip_pos || md == ContactState::slip_neg)) {
    offset = dof_count(m);
    sign = md == ContactState::slip_pos ? T(1) : T(-1);
    c0 = -m.v_surface[i];
    return true;
  }
  return false;
}

// the Dormand–Prince 5(4) tableau
struct Dopri5 {
  static constexpr double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
  static constexpr double a21 = 1.0 / 5;
  static constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
  static constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
  static constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
  static constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176,
                          a65 = -5103.0 / 18656;
  static constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
  // b − b̂ (the error estimate)
  static constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200,
                          e6 = 22.0 / 525, e7 = -1.0 / 40;
  // the continuous extension
  static constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                          d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                          d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;
};

// f(t, y) = (u, q̈) of the current modes into dy; false when the evaluation failed
template <class D>
FIVSIM_HD inline bool derivative(const Model<D>& m, SwitchingWorkspace<D>& ws, double t, const typename D::scalar* y,
                                 typename D::scalar* dy) {
  const int nq = dof_count(m);
  if (!evaluate(m, ws, t, y)) return false;
  for (int i = 0; i < nq; ++i) {
    dy[i] = y[nq + i];
    dy[nq + i] = ws.acc[i];
  }
  return true;
}

// one Dormand–Prince step of size h from (ws.t, ws.y), k[0] known: y_end and k[1..6]; returns the
// scaled error norm (≤ 1 accepts), or a negative value when an evaluation failed
template <class D>
FIVSIM_HD inline double dopri_step(const Model<D>& m, const SwitchingSettings& set, SwitchingWorkspace<D>& ws,
                                   double h) {
  using T = typename D::scalar;
  using B = Dopri5;
  const int ny = 2 * dof_count(m);
  T* y = ws.ytmp;
  const double t = ws.t;
  // stage s from the s stages before it (row s of the tableau)
  auto stage = [&](int s, double c, const double* a) {
    for (int i = 0; i < ny; ++i) {
      T acc = T(0);
      for (int j = 0; j < s; ++j) acc += T(a[j]) * ws.k[j][i];
      y[i] = ws.y[i] + T(h) * acc;
    }
    return derivative(m, ws, t + c * h, y, ws.k[s]);
  };
  const double a2[] = {B::a21}, a3[] = {B::a31, B::a32}, a4[] = {B::a41, B::a42, B::a43},
               a5[] = {B::a51, B::a52, B::a53, B::a54}, a6[] = {B::a61, B::a62, B::a63, B::a64, B::a65};
  if (!stage(1, B::c2, a2) || !stage(2, B::c3, a3) || !stage(3, B::c4, a4) || !stage(4, B::c5, a5) ||
      !stage(5, 1.0, a6))
    return -1.0;
  for (int i = 0; i < ny; ++i)
    ws.y_end[i] = ws.y[i] + T(h) * (T(B::b1) * ws.k[0][i] + T(B::b3) * ws.k[2][i] + T(B::b4) * ws.k[3][i] +
                                    T(B::b5) * ws.k[4][i] + T(B::b6) * ws.k[5][i]);
  if (!derivative(m, ws, t + h, ws.y_end, ws.k[6])) return -1.0;
  double err = 0.0;
  for (int i = 0; i < ny; ++i) {
    const double e =
        static_cast<double>(T(h) * (T(B::e1) * ws.k[0][i] + T(B::e3) * ws.k[2][i] + T(B::e4) * ws.k[3][i] +
                                    T(B::e5) * ws.k[4][i] + T(B::e6) * ws.k[5][i] + T(B::e7) * ws.k[6][i]));
    const double a = fabs(static_cast<double>(ws.y[i])), b = fabs(static_cast<double>(ws.y_end[i]));
    const double sc = set.abs_tol + set.rel_tol * (a > b ? a : b);
    err += (e / sc) * (e / sc);
  }
  err = sqrt(err / ny);
  return is_finite(err) ? err : -1.0;
}

// the continuous extension of the accepted step of size h
template <class D>
FIVSIM_HD inline void make_dense(SwitchingWorkspace<D>& ws, int ny, double h) {
  using T = typename D::scalar;
  using B = Dopri5;
  for (int i = 0; i < ny; ++i) {
    const T dy = ws.y_end[i] - ws.y[i];
    const T bspl = T(h) * ws.k[0][i] - dy;
    ws.dense[0][i] = ws.y[i];
    ws.dense[1][i] = dy;
    ws.dense[2][i] = bspl;
    ws.dense[3][i] = dy - T(h) * ws.k[6][i] - bspl;
    ws.dense[4][i] = T(h) * (T(B::d1) * ws.k[0][i] + T(B::d3) * ws.k[2][i] + T(B::d4) * ws.k[3][i] +
                             T(B::d5) * ws.k[4][i] + T(B::d6) * ws.k[5][i] + T(B::d7) * ws.k[6][i]);
  }
}

// a root of g on [lo, hi] with g(lo) > 0 ≥ g(hi), to `tol` in time: the Illinois variant of
// regula falsi, with a bisection every fourth step so that the bracket itself closes; returns the bracket's
// upper end (the first time at which the function has crossed)
template <class G>
FIVSIM_HD inline double locate_root(G&& g, double lo, double hi, double glo, double ghi, double tol) {
  int side = 0;
  for (int it = 0; it < 200 && hi - lo > tol; ++it) {
    double x = hi - ghi * (hi - lo) / (ghi - glo);
    if (!(x > lo && x < hi) || it % 4 == 3) x = 0.5 * (lo + hi);  // every fourth: a bisection
    if (!(x > lo && x < hi)) break;                               // adjacent doubles
    const double gx = g(x);
    if (!(gx > 0.0)) {
      hi = x;
      ghi = gx;
      if (side == -1) glo *= 0.5;
      side = -1;
    } else {
      lo = x;
      glo = gx;
      if (side == 1) ghi *= 0.5;
      side = 1;
    }
  }
  return hi;
}

// the static friction bounds, M⁻¹W_T and the step cap of a case (once per case)
template <class D>
FIVSIM_HD inline void prepare(const Model<D>& m, const SwitchingSettings& set, SwitchingWorkspace<D>& ws) {
  using T = typename D::scalar;
  const int nq = dof_count(m), nc = contact_count(m);
  for (int i = 0; i < nc; ++i) {
    T p, n;
    friction_bounds(m.law[i], T(0), p, n);
    ws.mu_plus0[i] = p;
    ws.mu_minus0[i] = n;
    for (int k = 0; k < nq; ++k) {
      T w = T(0);
      for (int j = 0; j < nq; ++j) w += m.Minv(k, j) * m.WT(j, i);
      ws.minv_wt[k][i] = w;
    }
  }
  // the fastest angular frequency, bounded by the row-sum norm of M⁻¹(K + Σ k_c w_N w_Nᵀ)
  double w2 = 0.0;
  for (int i = 0; i < nq; ++i) {
    double row = 0.0;
    for (int j = 0; j < nq; ++j) {
      double kij = 0.0;
      for (int l = 0; l < nq; ++l) {
        double kl = static_cast<double>(m.K(l, j));
        for (int c = 0; c < nc; ++c)
          if (spring_contact(m, c)) kl += static_cast<double>(m.kc[c] * m.WN(l, c) * m.WN(j, c));
        kij += static_cast<double>(m.Minv(i, l)) * kl;
      }
      row += fabs(kij);
    }
    w2 = row > w2 ? row : w2;
  }
  double w = sqrt(w2);
  const double om = fabs(static_cast<double>(m.omega));
  w = om > w ? om : w;
  ws.max_step = set.max_step > 0.0 ? set.max_step : (w > 0.0 ? 2.0 * 3.141592653589793 / w / 40.0 : 1.0);
}

// makes the modes consistent at (t, y): contacts marked in try_stick stick where their holding
// forces lie inside the static bounds; the worst violator slips the way its excess points and the
// rest are checked again, until all hold
template <class D>
FIVSIM_HD inline bool settle(const Model<D>& m, SwitchingWorkspace<D>& ws, double t, const typename D::scalar* y,
                             const bool* try_stick) {
  using T = typename D::scalar;
  const int nc = contact_count(m);
  for (int i = 0; i < nc; ++i)
    if (try_stick[i] && ws.mode[i] != ContactState::free && !smooth_law(m, i)) ws.mode[i] = ContactState::stick;
  for (int round = 0; round <= nc; ++round) {
    if (!evaluate(m, ws, t, y)) return false;
    int worst = -1;
    T worst_excess = T(0);
    ContactState worst_to = ContactState::stick;
    for (int i = 0; i < nc; ++i) {
      if (ws.mode[i] != ContactState::stick) continue;
      const T ln = ws.lamN[i] < T(0) ? -ws.lamN[i] : ws.lamN[i];
      const T scale = ln > T(1e-300) ? ln : T(1e-300);
      const T up = (ws.lamT[i] - ws.mu_minus0[i] * ws.lamN[i]) / scale;
      const T lo = (-ws.mu_plus0[i] * ws.lamN[i] - ws.lamT[i]) / scale;
      if (up > worst_excess) {
        worst = i;
        worst_excess = up;
        worst_to = ContactState::slip_neg;  // the surface cannot pull hard enough: falls behind
      }
      if (lo > worst_excess) {
        worst = i;
        worst_excess = lo;
        worst_to = ContactState::slip_pos;
      }
    }
    if (worst < 0) return true;
    ws.mode[worst] = worst_to;
  }
  return evaluate(m, ws, t, y);
}

// a new stick starts with γ_T exactly zero: u moves along w_T (as the host reference does)
template <class D>
FIVSIM_HD inline void project_stick(const Model<D>& m, typename D::scalar* u, int i) {
  using T = typename D::scalar;
  const int nq = dof_count(m);
  T wu = -m.v_surface[i], ww = T(0);
  for (int k = 0; k < nq; ++k) {
    wu += m.WT(k, i) * u[k];
    ww += m.WT(k, i) * m.WT(k, i);
  }
  if (ww > T(0))
    for (int k = 0; k < nq; ++k) u[k] -= m.WT(k, i) * (wu / ww);
}

template <class D, class Sink>
FIVSIM_HD inline void report_changes(const Model<D>& m, const SwitchingWorkspace<D>& ws, const ContactState* before,
                                     double t, Sink& sink) {
  const int nq = dof_count(m), nc = contact_count(m);
  for (int i = 0; i < nc; ++i) {
    if (ws.mode[i] == before[i]) continue;
    SwitchingEvent<typename D::scalar> e;
    e.t = t;
    e.contact = i;
    e.from = before[i];
    e.to = ws.mode[i];
    e.q = ws.y;
    e.u = ws.y + nq;
    sink(e);
  }
}

// after a restart: k[0] at the new modes, and every event function armed that is positive (one
// that starts at zero, its contact having just changed mode, waits until it is). A fresh start
// arms the zeros too: a state that begins on a boundary and leaves through it (a stick at its
// breakaway force) changes mode at once, where waiting would hold the mode for ever
template <class D>
FIVSIM_HD inline bool arm(const Model<D>& m, SwitchingWorkspace<D>& ws, bool arm_zeros = false) {
  const int nq = dof_count(m), nc = contact_count(m);
  if (!evaluate(m, ws, ws.t, ws.y)) return false;
  for (int i = 0; i < nq; ++i) {
    ws.k[0][i] = ws.y[nq + i];
    ws.k[0][nq + i] = ws.acc[i];
  }
  event_values(m, ws, ws.fn);
  for (int s = 0; s < 3 * nc; ++s) ws.armed[s] = !ws.hold_modes && (ws.fn[s] > 0 || (arm_zeros && ws.fn[s] == 0));
  ws.has_step = false;
  ws.event_pending = false;
  ws.section_count = 0;
  return true;
}

// a (re)start's bookkeeping: no run of events yet, and the first strobe at or after t
template <class D>
FIVSIM_HD inline void start_section(const SwitchingSection& section, SwitchingWorkspace<D>& ws, double t) {
  ws.events_since_step = 0;
  if (section.kind == SwitchingSectionKind::stroboscopic) {
    const double k = section.period > 0.0 ? ceil((t - section.start) / section.period - 1e-12) : 0.0;
    ws.next_strobe = section.start + (k > 0.0 ? k : 0.0) * section.period;
  }
}

}  // namespace switching_detail

// starts (or restarts) the integration at the state (t, q, u): the initial modes as the time
// steppers classify a state — free when unloaded or open, stick where γ_T is zero (at_rest: within
// 1e-9·(1 + |v_surface|), for a restart from a perturbed state), slipping its way otherwise —
// then settled; the mode changes of the settling reach the sink. Given `modes` (a restart just
// after an event whose modes are known, where a contact at its stick boundary would classify either
// way) the run starts in them as they are
template <class D, class Sink>
FIVSIM_HD inline Status switching_start(const Model<D>& m, const SwitchingSettings& set,
                                        const SwitchingSection& section, SwitchingWorkspace<D>& ws, double t,
                                        const typename D::scalar* q, const typename D::scalar* u, bool at_rest_tol,
                                        Sink&& sink, const ContactState* modes = nullptr) {
  using T = typename D::scalar;
  namespace sd = switching_detail;
  const int nq = dof_count(m), nc = contact_count(m);
  if (!ws.started) {
    sd::prepare(m, set, ws);
    ws.h = ws.max_step;
    ws.steps = ws.rejected = ws.rhs = 0;
  }
  ws.started = true;
  ws.t = t;
  for (int i = 0; i < nq; ++i) {
    ws.y[i] = q[i];
    ws.y[nq + i] = u[i];
  }
  for (int i = 0; i < nc; ++i)
    ws.mode[i] = modes ? modes[i] : (sd::loaded(m, i) ? ContactState::slip_pos : ContactState::free);
  if (!sd::evaluate(m, ws, t, ws.y)) return Status::nonfinite;
  if (modes) {
    sd::start_section(section, ws, t);
    return sd::arm(m, ws) ? Status::ok : Status::nonfinite;
  }
  ContactState kinematic[D::max_contacts] = {};
  bool try_stick[D::max_contacts] = {};
  for (int i = 0; i < nc; ++i) {
    try_stick[i] = false;
    if (!sd::loaded(m, i) || (sd::spring_contact(m, i) && ws.gap[i] > T(0))) {
      ws.mode[i] = ContactState::free;
    } else {
      const double g = static_cast<double>(ws.gamma[i]);
      const double vs = fabs(static_cast<double>(m.v_surface[i]));
      const bool rest = at_rest_tol ? fabs(g) <= 1e-9 * (1.0 + vs) : g == 0.0;
      ws.mode[i] = rest && !sd::smooth_law(m, i) ? ContactState::stick : sd::slip_state(g);
      try_stick[i] = rest;
    }
    kinematic[i] = ws.mode[i];
  }
  if (!sd::settle(m, ws, t, ws.y, try_stick)) return Status::nonfinite;
  for (int i = 0; i < nc; ++i)
    if (ws.mode[i] == ContactState::stick && at_rest_tol) sd::project_stick(m, ws.y + nq, i);
  sd::report_changes(m, ws, kinematic, t, sink);
  sd::start_section(section, ws, t);
  return sd::arm(m, ws, true) ? Status::ok : Status::nonfinite;
}

// integrates until the dense output holds t_target (read it with switching_state_at); every mode
// change and section sample up to t_target reaches the sink in time order, at its exact time. The
// tangent hears of each finished piece of a step and of each event (switching_tangent.hpp's
// TangentHooks carries Φ = ∂y/∂y₀ through them; NoTangent costs nothing)
template <class D, class Sink, class Tangent>
FIVSIM_HD inline Status switching_advance(const Model<D>& m, const SwitchingSettings& set,
                                          const SwitchingSection& section, SwitchingWorkspace<D>& ws, double t_target,
                                          Sink&& sink, Tangent& tangent) {
  using T = typename D::scalar;
  namespace sd = switching_detail;
  const int nq = dof_count(m), nc = contact_count(m), ny = 2 * nq, nf = 3 * nc;
  for (;;) {
    // section samples located in the held step, up to the target
    while (ws.section_count > 0 && ws.section_time[0] <= t_target) {
      const double ts = ws.section_time[0];
      sd::state_at(ws, ny, ts, ws.ytmp);
      SwitchingEvent<T> e;
      e.t = ts;
      e.section = true;
      e.q = ws.ytmp;
      e.u = ws.ytmp + nq;
      sink(e);
      for (int i = 1; i < ws.section_count; ++i) ws.section_time[i - 1] = ws.section_time[i];
      --ws.section_count;
    }
    if (ws.has_step ? t_target <= ws.valid_until : t_target <= ws.t) return Status::ok;

    if (ws.has_step) {
      if (!ws.event_pending) {
        // on to the step's end; its last stage is the next step's first (FSAL)
        tangent.piece(m, ws, ws.t_step_end);
        ws.t = ws.t_step_end;
        for (int i = 0; i < ny; ++i) {
          ws.y[i] = ws.y_end[i];
          ws.k[0][i] = ws.k[6][i];
        }
        ws.has_step = false;
      } else {
        // the event: the modes of every function at zero change, then settle together
        const double te = ws.valid_until;
        tangent.piece(m, ws, te);
        sd::state_at(ws, ny, te, ws.ytmp);
        ws.has_step = false;
        ws.t = te;
        for (int i = 0; i < ny; ++i) ws.y[i] = ws.ytmp[i];
        if (!sd::evaluate(m, ws, te, ws.y)) return Status::nonfinite;
        sd::event_values(m, ws, ws.fn);
        ContactState before[D::max_contacts] = {};
        bool try_stick[D::max_contacts] = {};
        for (int i = 0; i < nc; ++i) {
          before[i] = ws.mode[i];
          try_stick[i] = false;
        }
        const double fire = 1e3 * set.abs_tol;
        // the function that crossed (the lowest of those that fired) for the tangent's saltation
        int crossed = -1;
        for (int s = 0; s < nf; ++s)
          if (ws.armed[s] && static_cast<double>(ws.fn[s]) <= fire && (crossed < 0 || ws.fn[s] < ws.fn[crossed]))
            crossed = s;
        tangent.before_event(m, ws, te, crossed);
        for (int s = 0; s < nf; ++s) {
          if (!ws.armed[s] || static_cast<double>(ws.fn[s]) > fire) continue;
          const int i = s / 3, slot = s % 3;
          const double g = static_cast<double>(ws.gamma[i]);
          if (slot == 0) {
            if (before[i] != ContactState::free) {
              ws.mode[i] = ContactState::free;  // separation
            } else {
              ws.mode[i] = sd::slip_state(g);  // reattachment
              try_stick[i] = fabs(g) <= 1e-9 * (1.0 + fabs(static_cast<double>(m.v_surface[i])));
            }
          } else if (before[i] == ContactState::stick) {
            ws.mode[i] = slot == 1 ? ContactState::slip_neg : ContactState::slip_pos;
          } else if (sd::smooth_law(m, i)) {
            ws.mode[i] = before[i] == ContactState::slip_pos ? ContactState::slip_neg : ContactState::slip_pos;
          } else {
            try_stick[i] = true;  // slip→stick, or a reversal when the force cannot hold it
          }
        }
        if (!sd::settle(m, ws, te, ws.y, try_stick)) return Status::nonfinite;
        for (int i = 0; i < nc; ++i)
          if (ws.mode[i] == ContactState::stick && before[i] != ContactState::stick) sd::project_stick(m, ws.y + nq, i);
        tangent.after_event(m, ws, te);
        sd::report_changes(m, ws, before, te, sink);
        // events with no smooth motion between them: chattering or a Zeno point
        if (++ws.events_since_step > 8 * nc + 8) return Status::too_many_events;
        if (!sd::arm(m, ws)) return Status::nonfinite;
        continue;
      }
    }

    // one accepted Dormand–Prince step
    double h = ws.h < ws.max_step ? ws.h : ws.max_step;
    // a held flow's end on a step's end: its state and Φ there of the fifth-order step itself
    if (ws.hold_modes && ws.t + h > ws.hold_until && ws.hold_until > ws.t) h = ws.hold_until - ws.t;
    if (section.kind == SwitchingSectionKind::stroboscopic && section.period > 0.0 && h > section.period)
      h = section.period;
    for (;;) {
      const double err = sd::dopri_step(m, set, ws, h);
      if (err < 0.0) return Status::nonfinite;
      // err^(−1/5) rounded the same on the CPU and the GPU, so that both take the same steps
      double fac = err > 0.0 ? 0.9 * inverse_fifth_root(err) : 5.0;
      fac = fac < 0.2 ? 0.2 : (fac > 5.0 ? 5.0 : fac);
      if (err <= 1.0) {
        ++ws.steps;
        ws.h = h * fac;
        break;
      }
      ++ws.rejected;
      h *= fac < 1.0 ? fac : 1.0;
      if (!(h > 1e-15 * (1.0 + fabs(ws.t)))) return Status::nonfinite;
    }
    bool finite = true;
    for (int i = 0; i < ny; ++i) finite = finite && is_finite(ws.y_end[i]);
    if (!finite) return Status::nonfinite;
    ws.t_step_end = ws.t + h;
    sd::make_dense(ws, ny, h);
    ws.has_step = true;
    ws.event_pending = false;
    ws.valid_until = ws.t_step_end;

    // the earliest crossing among the armed functions (their values at the step's end first: the
    // step's last stage evaluated f at (t_step_end, y_end), so ws holds the forces, gaps and slip
    // velocities there)
    sd::event_values(m, ws, ws.fn_b);
    double t_event = HUGE_VAL;
    for (int s = 0; s < nf; ++s) {
      if (!ws.armed[s] || !(ws.fn_b[s] <= T(0))) continue;
      double hi = ws.t_step_end < t_event ? ws.t_step_end : t_event;
      double ghi = static_cast<double>(ws.fn_b[s]);
      auto g = [&](double x) {
        sd::state_at(ws, ny, x, ws.ytmp);
        sd::evaluate(m, ws, x, ws.ytmp);
        sd::event_values(m, ws, ws.fn);
        return static_cast<double>(ws.fn[s]);
      };
      // only a crossing before the earliest one found so far matters
      if (hi < ws.t_step_end) {
        ghi = g(hi);
        if (ghi > 0.0) continue;
      }
      // the value at the step's start: positive while armed, unless a restart left it at zero
      const double glo = g(ws.t);
      if (!(glo > 0.0)) {
        t_event = ws.t;
        continue;
      }
      t_event = sd::locate_root(g, ws.t, hi, glo, ghi, set.event_tol);
    }
    // a crossing and return inside the step (a grazing: the function positive at both ends) of the
    // functions linear in the state: where its rate turns from falling to rising inside the step,
    // its minimum on the continuous extension, and where that is not positive the first root
    // before it — the stick phase or contact a step would otherwise jump over
    for (int s = 0; s < nf; ++s) {
      int off = 0;
      T sign = T(0), c0 = T(0);
      if (!ws.armed[s] || !(ws.fn_b[s] > T(0)) || !sd::linear_event(m, ws, s, off, sign, c0)) continue;
      const int i = s / 3;
      // the function's direction applied to a state (c = c0) or to a rate (c = 0)
      const auto along = [&](const T* y, T c) {
        for (int k = 0; k < nq; ++k) c += (off == 0 ? m.WN(k, i) : m.WT(k, i)) * y[off + k];
        return static_cast<double>(sign * c);
      };
      const auto rate = [&](const T* dy) { return along(dy, T(0)); };
      const double r_lo = rate(ws.k[0]), r_hi = rate(ws.k[6]);
      if (!(r_lo < 0.0 && r_hi > 0.0)) continue;
      const auto falling = [&](double x) {
        sd::rate_at(ws, ny, x, ws.ytmp);
        return -rate(ws.ytmp);
      };
      const double hi = ws.t_step_end < t_event ? ws.t_step_end : t_event;
      const double t_min = sd::locate_root(falling, ws.t, ws.t_step_end, -r_lo, -r_hi, set.event_tol);
      if (!(t_min < hi)) continue;
      const auto value = [&](double x) {
        sd::state_at(ws, ny, x, ws.ytmp);
        return along(ws.ytmp, c0);
      };
      const double g_min = value(t_min), g_lo = along(ws.y, c0);
      if (g_min > 0.0 || !(g_lo > 0.0)) continue;
      t_event = sd::locate_root(value, ws.t, t_min, g_lo, g_min, set.event_tol);
    }
    // functions that rose from zero take part from now on
    for (int s = 0; s < nf; ++s)
      if (!ws.armed[s] && !ws.hold_modes && ws.fn_b[s] > T(0)) ws.armed[s] = true;
    if (t_event <= ws.t_step_end) {
      ws.valid_until = t_event;
      ws.event_pending = true;
    }
    // smooth motion between events ends a run of them
    if (ws.valid_until - ws.t > 10.0 * set.event_tol) ws.events_since_step = 0;

    // the section's samples inside [t, valid_until]
    if (section.kind == SwitchingSectionKind::velocity) {
      auto g = [&](double x) {
        sd::state_at(ws, ny, x, ws.ytmp);
        return static_cast<double>(ws.ytmp[nq + section.dof]) - section.value;
      };
      const double a = static_cast<double>(ws.y[nq + section.dof]) - section.value;
      const double b = g(ws.valid_until);
      const bool down = a > 0.0 && b <= 0.0, up = a < 0.0 && b >= 0.0;
      if ((section.direction <= 0 && down) || (section.direction >= 0 && up)) {
        // as a function positive before the crossing
        const double sg = down ? 1.0 : -1.0;
        auto gs = [&](double x) { return sg * g(x); };
        ws.section_time[ws.section_count++] = sd::locate_root(gs, ws.t, ws.valid_until, sg * a, sg * b, set.event_tol);
      }
    } else if (section.kind == SwitchingSectionKind::stroboscopic && section.period > 0.0) {
      while (ws.next_strobe <= ws.valid_until && ws.section_count < SwitchingWorkspace<D>::kSectionQueue) {
        ws.section_time[ws.section_count++] = ws.next_strobe;
        ws.next_strobe += section.period;
      }
    }
  }
}

// the plain run
template <class D, class Sink>
FIVSIM_HD inline Status switching_advance(const Model<D>& m, const SwitchingSettings& set,
                                          const SwitchingSection& section, SwitchingWorkspace<D>& ws, double t_target,
                                          Sink&& sink) {
  NoTangent none;
  return switching_advance(m, set, section, ws, t_target, sink, none);
}

// the state at t (within what the last switching_advance made available) and the contact forces
// and modes there, into s
template <class D>
FIVSIM_HD inline void switching_output(const Model<D>& m, SwitchingWorkspace<D>& ws, double t, State<D>& s) {
  namespace sd = switching_detail;
  const int nq = dof_count(m), nc = contact_count(m);
  sd::state_at(ws, 2 * nq, t, ws.ytmp);
  for (int i = 0; i < nq; ++i) {
    s.q[i] = ws.ytmp[i];
    s.u[i] = ws.ytmp[nq + i];
    ws.q_out[i] = s.q[i];
    ws.u_out[i] = s.u[i];
  }
  sd::evaluate(m, ws, t, ws.ytmp);
  for (int i = 0; i < nc; ++i) {
    s.lamN[i] = ws.lamN[i];
    s.lamT[i] = ws.lamT[i];
    s.contact[i] = ws.mode[i];
  }
}

}  // namespace fivsim
