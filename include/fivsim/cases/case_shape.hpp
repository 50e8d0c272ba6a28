// fivsim/cases/case_shape.hpp — a case moved from the capacity instantiation its model was made in
// (Dims<T, 2, 2>: any model up to 2 DoF and 2 contacts) to the exact instantiation of its shape
// (Dims<T, 2, 1, true>), and its result moved back.
//
// In an exact instantiation the model's sizes are compile-time constants (config.hpp), so the
// step's loops unroll and a value just stored is read back from a register rather than through a
// store the core must forward (BENCHMARKS.md, "The general runner in the exact instantiation of its
// model's shape"). The numbers are the same: entries are stored by their index within the model's
// sizes in both (model.hpp, rk_lcp.hpp, case_runner.hpp), and every loop runs the same operations
// in the same order.
#pragma once

#include "fivsim/cases/case_runner.hpp"

namespace fivsim {

namespace detail {

template <class T, int RA, int CA, int RB, int CB>
FIVSIM_HD inline void copy_leading(const Mat<T, RA, CA>& a, Mat<T, RB, CB>& b) {
  b.rows = a.rows;
  b.cols = a.cols;
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) b(i, j) = a(i, j);
}

template <class T, int CA, int CB>
FIVSIM_HD inline void copy_leading(const Vec<T, CA>& a, Vec<T, CB>& b) {
  b.n = a.n;
  for (int i = 0; i < a.n; ++i) b[i] = a[i];
}

template <class X>
FIVSIM_HD inline void copy_leading(const X* a, X* b, int n) {
  for (int i = 0; i < n; ++i) b[i] = a[i];
}

}  // namespace detail

// the model in another instantiation (every field of Model; a field added there is added here)
template <class To, class From>
FIVSIM_HD inline void copy_model(const Model<From>& a, Model<To>& b) {
  using detail::copy_leading;
  const int nc = a.n_contacts;
  b.n_dof = a.n_dof;
  b.n_contacts = a.n_contacts;
  b.n_normal = a.n_normal;
  copy_leading(a.M, b.M);
  copy_leading(a.Minv, b.Minv);
  copy_leading(a.C, b.C);
  copy_leading(a.K, b.K);
  copy_leading(a.f0, b.f0);
  copy_leading(a.f_sin, b.f_sin);
  copy_leading(a.f_cos, b.f_cos);
  b.omega = a.omega;
  copy_leading(a.WN, b.WN);
  copy_leading(a.WT, b.WT);
  copy_leading(a.GNN, b.GNN);
  copy_leading(a.GNT, b.GNT);
  copy_leading(a.GTN, b.GTN);
  copy_leading(a.GTT, b.GTT);
  copy_leading(a.kind, b.kind, nc);
  copy_leading(a.kc, b.kc, nc);
  copy_leading(a.v_surface, b.v_surface, nc);
  copy_leading(a.Fn, b.Fn, nc);
  copy_leading(a.gap0, b.gap0, nc);
  copy_leading(a.law, b.law, nc);
  copy_leading(a.normal_slot, b.normal_slot, nc);
  b.decoupled_friction = a.decoupled_friction;
}

template <class To, class From>
FIVSIM_HD inline void copy_state(const State<From>& a, State<To>& b, int n_contacts) {
  using detail::copy_leading;
  b.t = a.t;
  copy_leading(a.q, b.q);
  copy_leading(a.u, b.u);
  copy_leading(a.lamN, b.lamN);
  copy_leading(a.lamT, b.lamT);
  copy_leading(a.contact, b.contact, n_contacts);
}

template <class To, class From>
FIVSIM_HD inline void copy_case_setup(const CaseSetup<From>& a, CaseSetup<To>& b) {
  copy_model(a.model, b.model);
  copy_state(a.start, b.start, a.model.n_contacts);
  b.dt = a.dt;
  b.steps = a.steps;
  b.t_transient = a.t_transient;
}

// a Runge–Kutta step map (rk_lcp.hpp: y = [q_0 … q_{n−1}, u_0 … u_{n−1}], packed by the model's n)
template <class To, class From>
FIVSIM_HD inline void copy_rk_step_map(const RkStepMap<From>& a, RkStepMap<To>& b) {
  using detail::copy_leading;
  b.dt = a.dt;
  b.forces = a.forces;
  copy_leading(a.Phi, b.Phi);
  copy_leading(a.P0, b.P0);
  copy_leading(a.Ps, b.Ps);
  copy_leading(a.Pc, b.Pc);
  copy_leading(a.R_held, b.R_held);
  copy_leading(a.R_ramp, b.R_ramp);
  copy_leading(a.R_prev, b.R_prev);
  copy_leading(a.held_NN, b.held_NN);
  copy_leading(a.held_NT, b.held_NT);
  copy_leading(a.held_TN, b.held_TN);
  copy_leading(a.held_TT, b.held_TT);
  copy_leading(a.ramp_NN, b.ramp_NN);
  copy_leading(a.ramp_NT, b.ramp_NT);
  copy_leading(a.ramp_TN, b.ramp_TN);
  copy_leading(a.ramp_TT, b.ramp_TT);
}

// a result of a model of n_dof DoF and n_contacts contacts in another instantiation: its findings
// and its series (packed by the model's sizes: q.., u.., lamN.., lamT..), the rest zero as a run
// in To would leave them
template <class To, class From>
FIVSIM_HD inline void copy_case_result(const CaseResult<From>& a, CaseResult<To>& b, int n_dof, int n_contacts) {
  b = CaseResult<To>();
  static_cast<CaseFindings&>(b) = a;
  detail::copy_leading(a.series, b.series, 2 * n_dof + 2 * n_contacts);
  detail::copy_leading(a.max_step_change, b.max_step_change, 2 * n_dof);
}

}  // namespace fivsim
