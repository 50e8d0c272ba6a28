// fivsim/integrate/rk_lcp.hpp — Runge–Kutta LCP time stepping: the seeds' "conventional RK4 LCP
// method" (seed 000 §3–4) and Gauss–Legendre implicit Runge–Kutta LCP steppers of any order, the
// classical counterpart of the IRK-PINN (seed 000 Eqs. 21–22), with the contact forces held or
// ramped over the stages within one contact regime (seed 000 Eqs. 30–31). A step is an affine map
// of [q; u] computed once per model and dt (rk_step_map.hpp), one contact LCP on the end state and
// the end state with its force (docs/METHODS.md "Time steppers: one LCP per step"). As seed 000
// writes its conventional RK4 (§2.3.3: the forces from the conventional LCP, then the dynamics), the
// LCP may instead be posed on Moreau's first-order prediction and its force held over the stages.
#pragma once

#include "fivsim/integrate/moreau.hpp"

namespace fivsim {

enum class StageForces : int { held = 0, ramp = 1 };

template <class D>
struct RkStepMap {
  using T = typename D::scalar;
  static constexpr int NQ = D::max_dof;
  static constexpr int NY = 2 * D::max_dof;
  static constexpr int NC = D::max_contacts;
  using Block = Mat<T, NC, NC>;

  T dt = T(0);
  StageForces forces = StageForces::held;
  // the LCP on Moreau's prediction u_A + dt·M⁻¹h_A with the Delassus response, not on the
  // stepper's own impulse-free end state (held forces only)
  bool lcp_on_euler = false;
  Mat<T, NY, NY> Phi;  // y = [q_0 … q_{n−1}, u_0 … u_{n−1}]
  Vec<T, NY> P0, Ps, Pc;
  Mat<T, NY, NQ> R_held, R_ramp, R_prev;  // R_prev = R_held − R_ramp
  // the contact LCP's response blocks (lcp_build.hpp) of a held and of a ramped force
  Block held_NN, held_NT, held_TN, held_TT;
  Block ramp_NN, ramp_NT, ramp_TN, ramp_TT;
};

template <class D>
struct RkLcpWorkspace {
  using T = typename D::scalar;
  ContactLcp<D> lcp;
  LcpVector<T, D::max_lcp> x, y;
  Vec<T, 2 * D::max_dof> y_free;  // [q; u] at the end of the step without contact impulses
  Vec<T, D::max_dof> u_free, force, force_prev, h;
  Vec<T, D::max_contacts> PN, PT, gap_rate;
  bool has_basis = false;
  uint64_t basis = 0;
  bool ramp_ready = false;  // ramp: the previous step ended in the regime it started in
};

// the impulse-free end state and the contact LCP (A, b) of the step in ws (none without contacts);
// ramp: the stage forces interpolate from ws.force_prev. Returns the options of its solve (the
// previous step's active set as the basis hint).
template <class D>
FIVSIM_HD inline LcpOptions rk_lcp_build(const Model<D>& m, const RkStepMap<D>& map, const State<D>& s,
                                         const StepOptions& opt, bool ramp, RkLcpWorkspace<D>& ws) {
  using T = typename D::scalar;
  const int n = m.n_dof;
  const int nc = m.n_contacts;
  const T dt = map.dt;
  const T sw = sin(m.omega * s.t), cw = cos(m.omega * s.t);
  ws.y_free.n = 2 * n;
  for (int i = 0; i < 2 * n; ++i) {
    T acc = map.P0[i] + sw * map.Ps[i] + cw * map.Pc[i];
    for (int j = 0; j < n; ++j) acc += map.Phi(i, j) * s.q[j] + map.Phi(i, n + j) * s.u[j];
    if (ramp)
      for (int j = 0; j < n; ++j) acc += map.R_prev(i, j) * ws.force_prev[j];
    ws.y_free[i] = acc;
  }
  ws.u_free.n = n;
  for (int i = 0; i < n; ++i) ws.u_free[i] = ws.y_free[n + i];
  LcpOptions lcp_opt = opt.lcp;
  if (nc == 0) return lcp_opt;
  contact_lcp_coefficients(m, s, dt, ws.lcp);
  if (map.lcp_on_euler) {
    moreau_free_velocity(m, s, dt, ws.h, ws.u_free);
    moreau_gap_rates(m, s, ws.u_free, dt, ws.gap_rate);
    build_contact_lcp(m, delassus_response(m), ws.gap_rate, ws.u_free, dt, ws.lcp);
  } else {
    ws.gap_rate.n = nc;
    for (int i = 0; i < nc; ++i) ws.gap_rate[i] = contact_gap(m, ws.y_free, i) / dt;
    const ContactResponse<D> r = ramp ? ContactResponse<D>{map.ramp_NN, map.ramp_NT, map.ramp_TN, map.ramp_TT}
                                      : ContactResponse<D>{map.held_NN, map.held_NT, map.held_TN, map.held_TT};
    build_contact_lcp(m, r, ws.gap_rate, ws.u_free, dt, ws.lcp);
  }
  lcp_opt.use_basis_hint = ws.has_basis;
  lcp_opt.basis_hint = ws.basis;
  return lcp_opt;
}

// whether the step's solve must be redone with the force held: a regime change inside an
// interpolating step
template <class D>
FIVSIM_HD inline bool rk_lcp_regime_changed(const LcpResult& lr, bool ramp, const RkLcpWorkspace<D>& ws) {
  return ramp && lr.status == Status::ok && lr.basis != ws.basis;
}

// the step's report and generalised contact force ws.force (impulse / dt) from the accepted solve
// lr of the LCP in ws
template <class D>
FIVSIM_HD inline StepReport rk_lcp_apply_force(const Model<D>& m, const RkStepMap<D>& map, const LcpResult& lr,
                                               RkLcpWorkspace<D>& ws) {
  StepReport rep;
  const int n = m.n_dof;
  const int nc = m.n_contacts;
  const auto dt = map.dt;
  rep.lcp_iterations = lr.iterations;
  rep.lcp_residual = lr.residual;
  if (lr.status != Status::ok) {
    rep.status = lr.status;
    return rep;
  }
  ws.force.resize(n);
  ws.PN.resize(nc);
  ws.PT.resize(nc);
  if (nc > 0) {
    const bool same_regime = ws.has_basis && lr.basis == ws.basis;
    ws.ramp_ready = same_regime;
    ws.has_basis = true;
    ws.basis = lr.basis;
    contact_impulses(m, ws.lcp, ws.x, ws.PN, ws.PT);
    for (int i = 0; i < nc; ++i)
      for (int d = 0; d < n; ++d) ws.force[d] += (m.WN(d, i) * ws.PN[i] + m.WT(d, i) * ws.PT[i]) / dt;
  }
  return rep;
}

namespace detail {

// the step's LCP built and solved by `solve`
template <class D, class Solver>
FIVSIM_HD inline LcpResult rk_lcp_solve(const Model<D>& m, const RkStepMap<D>& map, const State<D>& s,
                                        const StepOptions& opt, bool ramp, RkLcpWorkspace<D>& ws, const Solver& solve) {
  const LcpOptions lcp_opt = rk_lcp_build(m, map, s, opt, ramp, ws);
  if (m.n_contacts == 0) return LcpResult{};
  return solve(ws.lcp.A, ws.lcp.b, ws.x, ws.y, lcp_opt);
}

}  // namespace detail

// the first half of a step: the contact LCP solved by `solve` and the generalised contact force
// ws.force (impulse / dt); `ramp` says whether the force is interpolated over the stages
template <class D, class Solver>
FIVSIM_HD inline StepReport rk_lcp_contact_force(const Model<D>& m, const RkStepMap<D>& map, const State<D>& s,
                                                 const StepOptions& opt, RkLcpWorkspace<D>& ws, const Solver& solve,
                                                 bool& ramp) {
  ramp = map.forces == StageForces::ramp && ws.ramp_ready;
  LcpResult lr = detail::rk_lcp_solve(m, map, s, opt, ramp, ws, solve);
  if (rk_lcp_regime_changed(lr, ramp, ws)) {
    ramp = false;
    lr = detail::rk_lcp_solve(m, map, s, opt, false, ws, solve);
  }
  return rk_lcp_apply_force(m, map, lr, ws);
}

// the last part of a step, after the end state is in s.q, s.u: contact forces and states, the
// force kept for the next step's interpolation, the time
template <class D>
FIVSIM_HD inline void rk_lcp_finish(const Model<D>& m, const RkStepMap<D>& map, const StepOptions& opt,
                                    RkLcpWorkspace<D>& ws, State<D>& s, StepReport& rep) {
  bool finite = true;
  for (int i = 0; i < m.n_dof; ++i) finite = finite && is_finite(s.q[i]) && is_finite(s.u[i]);
  record_contacts(m, ws.x, ws.y, ws.PN, ws.PT, map.dt, opt, s);
  ws.force_prev = ws.force;
  s.t += map.dt;
  if (!finite) rep.status = Status::nonfinite;
}

// one step with the contact LCP solved by `solver` (shared signature, lcp_solve.hpp)
template <class D, class Solver>
FIVSIM_HD inline StepReport rk_lcp_step_with(const Model<D>& m, const RkStepMap<D>& map, State<D>& s,
                                             const StepOptions& opt, RkLcpWorkspace<D>& ws, const Solver& solver) {
  using T = typename D::scalar;
  const int n = m.n_dof;
  bool ramp = false;
  StepReport rep = rk_lcp_contact_force(m, map, s, opt, ws, solver, ramp);
  if (rep.status != Status::ok) return rep;
  // the end state with the contact force
  const auto& R = ramp ? map.R_ramp : map.R_held;
  for (int i = 0; i < 2 * n; ++i) {
    T acc = ws.y_free[i];
    for (int j = 0; j < n; ++j) acc += R(i, j) * ws.force[j];
    if (i < n) {
      s.q[i] = acc;
    } else {
      s.u[i - n] = acc;
    }
  }
  rk_lcp_finish(m, map, opt, ws, s, rep);
  return rep;
}

// one step with the classical LCP solver of opt.solver
template <class D>
FIVSIM_HD inline StepReport rk_lcp_step(const Model<D>& m, const RkStepMap<D>& map, State<D>& s, const StepOptions& opt,
                                        RkLcpWorkspace<D>& ws) {
  return rk_lcp_step_with(m, map, s, opt, ws, ClassicalLcpSolver{opt.solver});
}

}  // namespace fivsim
