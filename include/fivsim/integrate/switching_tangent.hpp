// fivsim/integrate/switching_tangent.hpp — the variational equations of the switching model: the
// state-transition matrix Φ(t) = ∂y(t)/∂y(t₀) of an event-driven run, through every mode change,
// as per-case FIVSIM_HD code (CPU and CUDA).
//
// Along a mode, Φ' = J(t, y) Φ with J = ∂f/∂y of that mode's vector field (switching.hpp): the
// contact forces of the mode enter J through the normal spring (λ_N = −k_c g_N), the slip law's
// slope dμ/dv (static_laws.hpp) and, for a sticking set S, the Schur complement that keeps
// w_Tᵀq̈ = 0 (q̈ = P M⁻¹h with P = I − M⁻¹W_S G_SS⁻¹ W_Sᵀ). Φ takes the run's own Dormand–Prince
// steps (the stages' states read on the step's continuous extension), so it is exact to the
// integrator's tolerance. At an event h(t, y) = 0 that switches the field from f⁻ to f⁺, Φ is
// multiplied by the saltation matrix (Aizerman & Gantmakher 1958; Leine & Nijmeijer, Dynamics and
// Bifurcations of Non-Smooth Mechanical Systems, 2004, Eq. 3.55; Müller 1995)
//   S = I + (f⁺ − f⁻) ∇hᵀ / (∇h·f⁻ + ∂h/∂t),
// with h the event function that fired (gap, slip velocity, or a stick margin μ(0)λ_N ∓ λ_T, whose
// gradient runs through the sticking set's solve). A new stick's projection onto γ_T = 0 is the
// identity on the event surface, so S alone carries it: S maps into w_Tᵀδu = 0, which the stick
// mode's J keeps.
#pragma once

#include "fivsim/integrate/switching.hpp"

namespace fivsim {

// Φ and the scratch of its propagation; Φ holds at the held step's start (ws.t)
template <class D>
struct SwitchingTangent {
  using T = typename D::scalar;
  static constexpr int NQ = D::max_dof, NC = D::max_contacts, NY = 2 * D::max_dof;
  T phi[NY][NY];
  T stage[6][NY][NY];  // Dormand–Prince stage slopes of Φ
  T jac[NY][NY];       // J of the mode at one time
  T dh[NQ][NY + 1];    // ∂h/∂(y, t), then M⁻¹ times it with the sticking set's correction: ∂q̈/∂(y, t)
  T dln[NC][NY];       // ∂λ_N/∂y of each contact
  T dlt[NC][NY + 1];   // ∂λ_T/∂(y, t) of each contact
  T y[NY], f_before[NY], grad[NY], tmp[NY];
  T grad_t = T(0);
  int cols = NY;        // Φ's columns followed (the first `cols`; a largest exponent needs one)
  int slot = -1;        // the event function of the pending saltation
  int last_slot = -1;   // the last event's function (grad and grad_t still hold its gradient)
  long saltations = 0;  // events carried through
  long grazing = 0;     // events whose crossing speed ∇h·f⁻ + ∂h/∂t vanished (S left out)
};

namespace switching_detail {

// J = ∂f/∂y of the current modes at (t, y) into tan.jac, and tan.dh / dln / dlt (see above);
// evaluates f there (ws.acc and the forces). False when the sticking set's system is singular
template <class D>
FIVSIM_HD_NOINLINE inline bool mode_jacobian(const Model<D>& m, SwitchingWorkspace<D>& ws, SwitchingTangent<D>& tan,
                                             double t, const typename D::scalar* y) {
  using T = typename D::scalar;
  const int nq = dof_count(m), nc = contact_count(m), ny = 2 * nq;
  if (!evaluate<D, true>(m, ws, t, y)) return false;
  const T om = m.omega;
  const T sn = om != T(0) ? sin(om * T(t)) : T(0), cs = om != T(0) ? cos(om * T(t)) : T(1);
  for (int i = 0; i < nq; ++i) {
    for (int j = 0; j < nq; ++j) {
      tan.dh[i][j] = -m.K(i, j);
      tan.dh[i][nq + j] = -m.C(i, j);
    }
    tan.dh[i][ny] = om * (m.f_sin[i] * cs - m.f_cos[i] * sn);
  }
  int stick[D::max_contacts];
  int ns = 0;
  for (int i = 0; i < nc; ++i) {
    for (int c = 0; c < ny; ++c) tan.dln[i][c] = T(0);
    for (int c = 0; c <= ny; ++c) tan.dlt[i][c] = T(0);
    const ContactState md = ws.mode[i];
    if (md == ContactState::free) continue;
    if (spring_contact(m, i))
      for (int c = 0; c < nq; ++c) tan.dln[i][c] = -m.kc[i] * m.WN(c, i);
    if (md == ContactState::stick) {
      stick[ns++] = i;
    } else {
      // λ_T = −μ(γ)λ_N with the mode's sign: ∂λ_T = (λ_T/λ_N)∂λ_N + (∂λ_T/∂γ) w_T
      const T v = ws.gamma[i], ln = ws.lamN[i];
      const T sg = v < T(0) ? T(-1) : T(1);
      // μ and its slope as evaluate found them
      T ratio, slope;
      if (smooth_law(m, i)) {
        ratio = -ws.mu[i];
        slope = -ws.mu_slope[i] * ln;
      } else {
        // the mode's sign carries the force; past v = 0 a held mode's odd continuation has the slope at |v|
        const T mode_sign = md == ContactState::slip_pos ? T(1) : T(-1);
        ratio = -mode_sign * ws.mu[i];
        slope = -mode_sign * ws.mu_slope[i] * (held_past_zero(ws, i, v) ? mode_sign : sg) * ln;
      }
      for (int c = 0; c < nq; ++c) {
        tan.dlt[i][c] = ratio * tan.dln[i][c];
        tan.dlt[i][nq + c] = slope * m.WT(c, i);
      }
    }
    for (int k = 0; k < nq; ++k)
      for (int c = 0; c < ny; ++c) {
        T a = m.WN(k, i) * tan.dln[i][c];
        if (md != ContactState::stick) a += m.WT(k, i) * tan.dlt[i][c];
        tan.dh[k][c] += a;
      }
  }
  // ∂q̈ = M⁻¹∂h, then the sticking set's forces: G_SS ∂λ_S = −W_Sᵀ M⁻¹∂h, ∂q̈ += M⁻¹W_S ∂λ_S
  for (int c = 0; c <= ny; ++c) {
    for (int i = 0; i < nq; ++i) {
      T a = T(0);
      for (int j = 0; j < nq; ++j) a += m.Minv(i, j) * tan.dh[j][c];
      tan.tmp[i] = a;
    }
    if (ns > 0) {
      Mat<T, D::max_contacts, D::max_contacts> S;
      Vec<T, D::max_contacts> r;
      for (int a = 0; a < ns; ++a) {
        T w = T(0);
        for (int k = 0; k < nq; ++k) w += m.WT(k, stick[a]) * tan.tmp[k];
        r[a] = -w;
        for (int b = 0; b < ns; ++b) S(a, b) = m.GTT(stick[a], stick[b]);
      }
      if (!solve_dense_inplace(S, r, ns, T(1e-14))) return false;
      for (int a = 0; a < ns; ++a) {
        tan.dlt[stick[a]][c] = r[a];
        for (int k = 0; k < nq; ++k) tan.tmp[k] += ws.minv_wt[k][stick[a]] * r[a];
      }
    }
    for (int i = 0; i < nq; ++i) tan.dh[i][c] = tan.tmp[i];
  }
  for (int i = 0; i < nq; ++i)
    for (int c = 0; c < ny; ++c) {
      tan.jac[i][c] = c == nq + i ? T(1) : T(0);
      tan.jac[nq + i][c] = tan.dh[i][c];
    }
  return true;
}

// Φ at b (ws.t < b within the held step) into out: one Dormand–Prince step of Φ' = JΦ from
// (ws.t, tan.phi), J at the stage times on the step's continuous extension; out may be tan.phi
template <class D>
FIVSIM_HD_NOINLINE inline bool tangent_propagate(const Model<D>& m, SwitchingWorkspace<D>& ws, SwitchingTangent<D>& tan,
                                                 double b, typename D::scalar (*out)[2 * D::max_dof]) {
  using T = typename D::scalar;
  using B = Dopri5;
  const int ny = 2 * dof_count(m);
  const double a = ws.t, h = b - a;
  if (!(h > 0.0)) {
    if (out != tan.phi)
      for (int i = 0; i < ny; ++i)
        for (int j = 0; j < tan.cols; ++j) out[i][j] = tan.phi[i][j];
    return true;
  }
  const long rhs = ws.rhs;  // the tangent's evaluations are not the run's
  const double c[6] = {0.0, B::c2, B::c3, B::c4, B::c5, 1.0};
  const double arow[6][5] = {{0, 0, 0, 0, 0},
                             {B::a21, 0, 0, 0, 0},
                             {B::a31, B::a32, 0, 0, 0},
                             {B::a41, B::a42, B::a43, 0, 0},
                             {B::a51, B::a52, B::a53, B::a54, 0},
                             {B::a61, B::a62, B::a63, B::a64, B::a65}};
  bool ok = true;
  for (int s = 0; s < 6 && ok; ++s) {
    state_at(ws, ny, a + c[s] * h, tan.y);
    ok = mode_jacobian(m, ws, tan, a + c[s] * h, tan.y);
    // K_s = J (Φ + h Σ a_sj K_j), a column at a time
    for (int col = 0; col < tan.cols; ++col) {
      for (int i = 0; i < ny; ++i) {
        T acc = T(0);
        for (int j = 0; j < s; ++j) acc += T(arow[s][j]) * tan.stage[j][i][col];
        tan.tmp[i] = tan.phi[i][col] + T(h) * acc;
      }
      for (int i = 0; i < ny; ++i) {
        T acc = T(0);
        for (int j = 0; j < ny; ++j) acc += tan.jac[i][j] * tan.tmp[j];
        tan.stage[s][i][col] = acc;
      }
    }
  }
  const double bw[6] = {B::b1, 0.0, B::b3, B::b4, B::b5, B::b6};
  for (int i = 0; i < ny; ++i)
    for (int col = 0; col < tan.cols; ++col) {
      T acc = T(0);
      for (int s = 0; s < 6; ++s) acc += T(bw[s]) * tan.stage[s][i][col];
      out[i][col] = tan.phi[i][col] + T(h) * acc;
    }
  ws.rhs = rhs;
  return ok;
}

// A ← A + a (gᵀA)/c on A's first `cols` columns: the saltation matrix's product with Φ
// (a = f⁺ − f⁻, c = ∇h·f⁻ + ∂h/∂t), and a return map's section correction (a = −f,
// c = ∇h·f + ∂h/∂t; switching_orbit.hpp)
template <class T, int NY>
FIVSIM_HD inline void rank_one_update(T (*A)[NY], const T* a, const T* g, T c, int ny, int cols) {
  for (int col = 0; col < cols; ++col) {
    T gp = T(0);
    for (int i = 0; i < ny; ++i) gp += g[i] * A[i][col];
    gp /= c;
    for (int i = 0; i < ny; ++i) A[i][col] += a[i] * gp;
  }
}

// ∇h and ∂h/∂t of event function `slot` (3 per contact: gap, then the two tangential ones) of the
// current modes, from the last mode_jacobian, into tan.grad / grad_t
template <class D>
FIVSIM_HD inline void event_gradient(const Model<D>& m, const SwitchingWorkspace<D>& ws, SwitchingTangent<D>& tan,
                                     int slot) {
  using T = typename D::scalar;
  const int nq = dof_count(m), ny = 2 * nq;
  const int i = slot / 3, which = slot % 3;
  const ContactState md = ws.mode[i];
  for (int c = 0; c < ny; ++c) tan.grad[c] = T(0);
  tan.grad_t = T(0);
  if (which == 0) {
    const T sign = md == ContactState::free ? T(1) : T(-1);  // h = ±g_N
    for (int c = 0; c < nq; ++c) tan.grad[c] = sign * m.WN(c, i);
  } else if (md == ContactState::stick) {
    // h = μ⁻(0)λ_N − λ_T, or λ_T + μ⁺(0)λ_N
    const T sign = which == 1 ? T(-1) : T(1);
    const T mu = which == 1 ? ws.mu_minus0[i] : ws.mu_plus0[i];
    for (int c = 0; c < ny; ++c) tan.grad[c] = sign * tan.dlt[i][c] + mu * tan.dln[i][c];
    tan.grad_t = sign * tan.dlt[i][ny];
  } else if (which == 1) {
    const T sign = md == ContactState::slip_pos ? T(1) : T(-1);  // h = ±γ_T
    for (int c = 0; c < nq; ++c) tan.grad[nq + c] = sign * m.WT(c, i);
  }
}

}  // namespace switching_detail

// the tangent's hooks in switching_advance: Φ follows each piece of a step, and crosses each event
template <class D>
struct TangentHooks {
  SwitchingTangent<D>& tan;
  bool ok = true;

  // Φ from ws.t to t_end (before the run moves ws.t there)
  FIVSIM_HD void piece(const Model<D>& m, SwitchingWorkspace<D>& ws, double t_end) {
    ok = switching_detail::tangent_propagate(m, ws, tan, t_end, tan.phi) && ok;
  }
  // at the event (ws.t = te, ws.y the state there, the old modes): f⁻ and the gradient of the
  // function that fired
  FIVSIM_HD void before_event(const Model<D>& m, SwitchingWorkspace<D>& ws, double te, int slot) {
    namespace sd = switching_detail;
    const int nq = dof_count(m);
    tan.slot = tan.last_slot = slot;
    if (slot < 0) return;
    ok = sd::mode_jacobian(m, ws, tan, te, ws.y) && ok;
    for (int i = 0; i < nq; ++i) {
      tan.f_before[i] = ws.y[nq + i];
      tan.f_before[nq + i] = ws.acc[i];
    }
    sd::event_gradient(m, ws, tan, slot);
  }
  // after the modes changed (ws.y the state after the event): Φ ← S Φ
  FIVSIM_HD void after_event(const Model<D>& m, SwitchingWorkspace<D>& ws, double te) {
    using T = typename D::scalar;
    const int nq = dof_count(m), ny = 2 * nq;
    if (tan.slot < 0) return;
    if (!switching_detail::evaluate(m, ws, te, ws.y)) {
      ok = false;
      return;
    }
    T speed = tan.grad_t, gnorm = T(0), fnorm = T(0);
    for (int c = 0; c < ny; ++c) {
      speed += tan.grad[c] * tan.f_before[c];
      gnorm += tan.grad[c] * tan.grad[c];
      fnorm += tan.f_before[c] * tan.f_before[c];
    }
    // jump of the field: (u⁺ − u⁻, q̈⁺ − q̈⁻)
    for (int i = 0; i < nq; ++i) {
      tan.tmp[i] = ws.y[nq + i] - tan.f_before[i];
      tan.tmp[nq + i] = ws.acc[i] - tan.f_before[nq + i];
    }
    tan.slot = -1;
    const T scale = sqrt(gnorm * fnorm) + (tan.grad_t < T(0) ? -tan.grad_t : tan.grad_t);
    if (!((speed < T(0) ? -speed : speed) > T(1e-12) * scale)) {
      ++tan.grazing;
      return;
    }
    ++tan.saltations;
    // Φ ← Φ + (f⁺ − f⁻)(∇hᵀΦ)/speed
    switching_detail::rank_one_update(tan.phi, tan.tmp, tan.grad, speed, ny, tan.cols);
  }
};

// the vector field f(y) = (u, q̈) at (t, y) of the modes a run started there takes (switching_start;
// given `modes`, those) and its Jacobian ∂f/∂y into tan.jac: what an equilibrium's continuation
// solves f(y) = 0 with (app/continuation.hpp). False where f is not finite or the sticking set's
// system is singular
template <class D>
FIVSIM_HD inline bool switching_field(const Model<D>& m, const SwitchingSettings& set, SwitchingWorkspace<D>& ws,
                                      SwitchingTangent<D>& tan, double t, const typename D::scalar* y,
                                      typename D::scalar* f, const ContactState* modes = nullptr) {
  const int nq = dof_count(m);
  auto sink = [](const SwitchingEvent<typename D::scalar>&) {};
  ws.started = false;
  if (switching_start(m, set, SwitchingSection{}, ws, t, y, y + nq, false, sink, modes) != Status::ok) return false;
  if (!switching_detail::mode_jacobian(m, ws, tan, t, y)) return false;
  for (int i = 0; i < nq; ++i) {
    f[i] = y[nq + i];
    f[nq + i] = ws.acc[i];
  }
  return true;
}

// Φ = I at the run's current time (after switching_start, or to restart the count anywhere)
template <class D>
FIVSIM_HD inline void tangent_reset(const Model<D>& m, SwitchingTangent<D>& tan) {
  using T = typename D::scalar;
  const int ny = 2 * dof_count(m);
  for (int i = 0; i < ny; ++i)
    for (int j = 0; j < ny; ++j) tan.phi[i][j] = i == j ? T(1) : T(0);
  tan.cols = ny;
  tan.slot = -1;
  tan.saltations = tan.grazing = 0;
}

// Φ at t (within what the last switching_advance made available, as switching_output reads y)
template <class D>
FIVSIM_HD inline bool tangent_at(const Model<D>& m, SwitchingWorkspace<D>& ws, SwitchingTangent<D>& tan, double t,
                                 typename D::scalar (*out)[2 * D::max_dof]) {
  return switching_detail::tangent_propagate(m, ws, tan, t, out);
}

}  // namespace fivsim
