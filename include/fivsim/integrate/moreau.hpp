// fivsim/integrate/moreau.hpp — Moreau mixed-level time stepping (the seeds' "conventional LCP
// method", seed 000 Eq. 8 with the LCPs of Eqs. 12, 14, 28).
//
// One step from t_A to t_E = t_A + dt:
//   u_free = u_A + dt·M⁻¹h_A                         (h evaluated at the start of the step)
//   (A, b) = build_contact_lcp(...)                   (lcp_build.hpp; friction μ at γ_T(u_A))
//   x, y   = solve(A, b)                               (any solver of lcp_solve.hpp)
//   u_E    = u_free + M⁻¹(W_N Λ_N + W_T Λ_T),  q_E = q_A + dt·u_E
// The normal condition is on the end-of-step gap (displacement level), the friction condition on
// the end-of-step relative velocity (velocity level). First order in dt.
#pragma once

#include "fivsim/lcp/lcp_build.hpp"
#include "fivsim/lcp/lcp_solve.hpp"

namespace fivsim {

struct StepOptions {
  LcpSolverKind solver = LcpSolverKind::lemke;
  LcpOptions lcp;
  double stick_tol = 1e-9;  // |γ_T| below this counts as sticking (velocity units)
  double force_tol = 1e-9;  // a normal force below this counts as separated (force units)
  // solve the friction LCP of decoupled contacts (Model::decoupled_friction) in closed form
  // instead of by the chosen solver; the answer is the same up to rounding
  bool closed_form_decoupled = true;
};

struct StepReport {
  Status status = Status::ok;
  int lcp_iterations = 0;
  double lcp_residual = 0.0;
};

template <class D>
struct MoreauWorkspace {
  using T = typename D::scalar;
  ContactLcp<D> lcp;
  LcpVector<T, D::max_lcp> x, y;
  Vec<T, D::max_dof> h, u_free, force;
  Vec<T, D::max_contacts> PN, PT, gap_rate;
  // the previous step's LCP active set: consecutive steps mostly share it (warm start)
  bool has_basis = false;
  uint64_t basis = 0;
};

// the state's contact forces (impulse / dt) and contact states from a step's LCP solution
// (shared by every time stepper)
template <class D, int Cap, int CapC>
FIVSIM_HD inline void record_contacts(const Model<D>& m, const LcpVector<typename D::scalar, Cap>& x,
                                      const LcpVector<typename D::scalar, Cap>& y,
                                      const Vec<typename D::scalar, CapC>& PN, const Vec<typename D::scalar, CapC>& PT,
                                      typename D::scalar dt, const StepOptions& opt, State<D>& s) {
  using T = typename D::scalar;
  const T impulse_tol = T(opt.force_tol) * dt;
  const int nc = contact_count(m);
  for (int i = 0; i < nc; ++i) {
    s.lamN[i] = PN[i] / dt;
    s.lamT[i] = PT[i] / dt;
    s.contact[i] = contact_state_from_lcp(m, x, y, PN[i], i, impulse_tol, T(opt.stick_tol));
  }
  s.lamN.n = s.lamT.n = nc;
}

// Contacts with given normal impulses Λ_N whose slip velocities do not respond to each other's
// friction (G_TT diagonal): contact i's LCP rows (γ_L, Λ_R of lcp_build.hpp) involve only its
// own Λ_L, γ_R, and the solution is the clamp
//   Λ_T = clamp(−γ_T^free / G_TT,ii, −μ⁺Λ_N, μ⁻Λ_N),  γ_T^free = w_Tᵀu_free − v_s + Σ_j G_TN,ij Λ_N,j
// (stick inside the bounds, slip+ at −μ⁺Λ_N, slip− at μ⁻Λ_N) — Lemke's answer without the pivots.
template <class D>
FIVSIM_HD inline void decoupled_friction_impulses(const Model<D>& m, State<D>& s, typename D::scalar dt,
                                                  const StepOptions& opt, MoreauWorkspace<D>& ws) {
  using T = typename D::scalar;
  const int nc = contact_count(m);
  const T impulse_tol = T(opt.force_tol) * dt;
  const T stick_tol = T(opt.stick_tol);
  for (int i = 0; i < nc; ++i) {
    const T pn = ws.lcp.impulse_known[i];
    T gamma_free = contact_slip_velocity(m, ws.u_free, i);
    for (int j = 0; j < nc; ++j) gamma_free += m.GTN(i, j) * ws.lcp.impulse_known[j];
    const T g = m.GTT(i, i);
    const T lo = -ws.lcp.mu_plus[i] * pn, hi = ws.lcp.mu_minus[i] * pn;
    T pt = -gamma_free / g;
    pt = pt < lo ? lo : (pt > hi ? hi : pt);
    ws.PN[i] = pn;
    ws.PT[i] = pt;
    const T gamma_end = gamma_free + g * pt;
    s.lamN[i] = pn / dt;
    s.lamT[i] = pt / dt;
    s.contact[i] = !(pn > impulse_tol)      ? ContactState::free
                   : gamma_end > stick_tol  ? ContactState::slip_pos
                   : gamma_end < -stick_tol ? ContactState::slip_neg
                                            : ContactState::stick;
  }
  s.lamN.n = s.lamT.n = nc;
}

// Moreau's impulse-free end velocity u_A + dt·M⁻¹h_A, with h_A (the start-of-step smooth force)
// into h
template <class D>
FIVSIM_HD inline void moreau_free_velocity(const Model<D>& m, const State<D>& s, typename D::scalar dt,
                                           Vec<typename D::scalar, D::max_dof>& h,
                                           Vec<typename D::scalar, D::max_dof>& u_free) {
  using T = typename D::scalar;
  const int nq = dof_count(m);
  smooth_force(m, s, h);
  u_free.n = nq;
  for (int i = 0; i < nq; ++i) {
    T acc = T(0);
    for (int j = 0; j < nq; ++j) acc += m.Minv(i, j) * h[j];
    u_free[i] = s.u[i] + dt * acc;
  }
}

// the first part of a step: the free velocity, and the contact LCP of the step in ws when it has
// one (contacts, and no closed form); returns whether it has, lcp_opt then the options of its solve
template <class D>
FIVSIM_HD inline bool moreau_build(const Model<D>& m, State<D>& s, typename D::scalar dt, const StepOptions& opt,
                                   MoreauWorkspace<D>& ws, LcpOptions& lcp_opt) {
  const int nc = contact_count(m);
  moreau_free_velocity(m, s, dt, ws.h, ws.u_free);

  ws.PN.resize(nc);
  ws.PT.resize(nc);
  const bool closed_form = m.decoupled_friction && opt.closed_form_decoupled;
  if (nc > 0) contact_lcp_coefficients(m, s, dt, ws.lcp);
  if (closed_form) {
    decoupled_friction_impulses(m, s, dt, opt, ws);
    return false;
  }
  if (nc == 0) return false;
  moreau_gap_rates(m, s, ws.u_free, dt, ws.gap_rate);
  build_contact_lcp(m, delassus_response(m), ws.gap_rate, ws.u_free, dt, ws.lcp);
  lcp_opt = opt.lcp;
  lcp_opt.use_basis_hint = ws.has_basis;
  lcp_opt.basis_hint = ws.basis;
  return true;
}

// the rest of the step after moreau_build: the impulses from the LCP's solve r (when it had one),
// then the velocity and position update
template <class D>
FIVSIM_HD inline StepReport moreau_finish(const Model<D>& m, State<D>& s, typename D::scalar dt, const StepOptions& opt,
                                          MoreauWorkspace<D>& ws, bool has_lcp, const LcpResult& r) {
  using T = typename D::scalar;
  StepReport rep;
  const int nq = dof_count(m);
  const int nc = contact_count(m);
  if (has_lcp) {
    rep.lcp_iterations = r.iterations;
    rep.lcp_residual = r.residual;
    if (r.status != Status::ok) {
      rep.status = r.status;
      return rep;
    }
    ws.has_basis = true;
    ws.basis = r.basis;
    contact_impulses(m, ws.lcp, ws.x, ws.PN, ws.PT);
  }

  // contact impulses in generalised coordinates, then the velocity and position update
  ws.force.resize(nq);
  for (int i = 0; i < nc; ++i)
    for (int d = 0; d < nq; ++d) ws.force[d] += m.WN(d, i) * ws.PN[i] + m.WT(d, i) * ws.PT[i];
  bool finite = true;
  for (int i = 0; i < nq; ++i) {
    T acc = T(0);
    for (int j = 0; j < nq; ++j) acc += m.Minv(i, j) * ws.force[j];
    s.u[i] = ws.u_free[i] + acc;
    s.q[i] += dt * s.u[i];
    finite = finite && is_finite(s.u[i]) && is_finite(s.q[i]);
  }
  const bool closed_form = m.decoupled_friction && opt.closed_form_decoupled;
  if (!closed_form) record_contacts(m, ws.x, ws.y, ws.PN, ws.PT, dt, opt, s);
  s.t += dt;
  if (!finite) rep.status = Status::nonfinite;
  return rep;
}

// one step with the contact LCP solved by `solve` (a functor with the solvers' signature)
template <class D, class Solver>
FIVSIM_HD inline StepReport moreau_step_with(const Model<D>& m, State<D>& s, typename D::scalar dt,
                                             const StepOptions& opt, MoreauWorkspace<D>& ws, const Solver& solve) {
  LcpOptions lcp_opt;
  const bool has_lcp = moreau_build(m, s, dt, opt, ws, lcp_opt);
  const LcpResult r = has_lcp ? solve(ws.lcp.A, ws.lcp.b, ws.x, ws.y, lcp_opt) : LcpResult{};
  return moreau_finish(m, s, dt, opt, ws, has_lcp, r);
}

template <class D>
FIVSIM_HD inline StepReport moreau_step(const Model<D>& m, State<D>& s, typename D::scalar dt, const StepOptions& opt,
                                        MoreauWorkspace<D>& ws) {
  return moreau_step_with(m, s, dt, opt, ws, ClassicalLcpSolver{opt.solver});
}

}  // namespace fivsim
