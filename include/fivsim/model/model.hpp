// fivsim/model/model.hpp — the immutable model and the per-case state of the step path.
//
// Equation of motion (seed 000 Eq. 6, linear form Eq. 23):
//   M q̈ = h(t, q, u) + W_N λ_N + W_T λ_T,   h = f(t) − C u − K q,
//   f(t) = f0 + f_sin·sin(ωt) + f_cos·cos(ωt)   (base excitation, seed 003 Eq. 11).
// Contact i has a normal column w_N,i (gap g_N,i = w_N,iᵀ q + gap0_i) and a tangential column
// w_T,i (relative velocity γ_T,i = w_T,iᵀ u − v_surface_i). Its kind is rigid (0 ≤ g_N ⊥ λ_N ≥ 0,
// seed 000 Eq. 12), spring (λ_N = k_c·max(0, −g_N) enforced as 0 ≤ Ω_N ⊥ λ_N ≥ 0 with
// Ω_N = λ_N + k_c g_N, seed 000 Eq. 14) or given_normal (λ_N = Fn known, seed 000 Eq. 28).
// Everything that depends only on M and the W's (M⁻¹ and the Delassus blocks G_XY = W_Xᵀ M⁻¹ W_Y)
// is computed once when the model is made (model_description.hpp), never per step.
#pragma once

#include "fivsim/core/small_linalg.hpp"
#include "fivsim/friction/static_laws.hpp"

namespace fivsim {

enum class ContactKind : int { rigid = 0, spring = 1, given_normal = 2 };

// contact state after a step: separated, sticking, or sliding with γ_T < 0 / γ_T > 0
enum class ContactState : int { free = 0, stick = 1, slip_neg = 2, slip_pos = 3 };

FIVSIM_HD inline const char* contact_state_name(ContactState s) {
  switch (s) {
    case ContactState::free:
      return "free";
    case ContactState::stick:
      return "stick";
    case ContactState::slip_neg:
      return "slip-";
    case ContactState::slip_pos:
      return "slip+";
  }
  return "?";
}

template <class D>
struct Model {
  using T = typename D::scalar;
  static constexpr int NQ = D::max_dof;
  static constexpr int NC = D::max_contacts;

  int n_dof = 0;
  int n_contacts = 0;
  int n_normal = 0;  // contacts with an unknown normal force (rigid or spring)

  Mat<T, NQ, NQ> M, Minv, C, K;
  Vec<T, NQ> f0, f_sin, f_cos;
  T omega = T(0);

  Mat<T, NQ, NC> WN, WT;              // column i is contact i's direction
  Mat<T, NC, NC> GNN, GNT, GTN, GTT;  // Delassus blocks W_Xᵀ M⁻¹ W_Y

  ContactKind kind[NC];
  T kc[NC];         // spring contact stiffness
  T v_surface[NC];  // tangential velocity of the surface (the belt)
  T Fn[NC];         // known normal force of a given_normal contact
  T gap0[NC];       // gap at q = 0
  FrictionLaw law[NC];
  int normal_slot[NC];  // position of the contact's Λ_N among the LCP unknowns, −1 if given
  // every normal force is given and G_TT is diagonal: each contact's friction LCP stands alone
  // (moreau.hpp solves it in closed form)
  bool decoupled_friction = false;
};

template <class D>
struct State {
  using T = typename D::scalar;
  T t = T(0);
  Vec<T, D::max_dof> q, u;
  Vec<T, D::max_contacts> lamN, lamT;  // contact forces over the last step (impulse / dt)
  ContactState contact[D::max_contacts];
};

// the model's sizes: compile-time constants in an exact instantiation (config.hpp)
template <class D>
FIVSIM_HD inline int dof_count(const Model<D>& m) {
  if constexpr (D::exact)
    return D::max_dof;
  else
    return m.n_dof;
}

template <class D>
FIVSIM_HD inline int contact_count(const Model<D>& m) {
  if constexpr (D::exact)
    return D::max_contacts;
  else
    return m.n_contacts;
}

// external force f(t)
template <class D, int Cap>
FIVSIM_HD inline void external_force(const Model<D>& m, typename D::scalar t, Vec<typename D::scalar, Cap>& f) {
  using T = typename D::scalar;
  const int nq = dof_count(m);
  f.n = nq;
  const T s = m.omega != T(0) ? sin(m.omega * t) : T(0);
  const T c = m.omega != T(0) ? cos(m.omega * t) : T(1);
  for (int i = 0; i < nq; ++i) f[i] = m.f0[i] + m.f_sin[i] * s + m.f_cos[i] * c;
}

// h = f(t) − C u − K q   (seed 000 Eq. 25 without the contact forces)
template <class D, int Cap>
FIVSIM_HD inline void smooth_force(const Model<D>& m, const State<D>& s, Vec<typename D::scalar, Cap>& h) {
  using T = typename D::scalar;
  external_force(m, s.t, h);
  const int nq = dof_count(m);
  for (int i = 0; i < nq; ++i) {
    T acc = h[i];
    for (int j = 0; j < nq; ++j) acc -= m.C(i, j) * s.u[j] + m.K(i, j) * s.q[j];
    h[i] = acc;
  }
}

// gap g_N,i = w_N,iᵀ q + gap0_i, for positions q (its first n_dof entries)
template <class D, int Cap>
FIVSIM_HD inline typename D::scalar contact_gap(const Model<D>& m, const Vec<typename D::scalar, Cap>& q, int i) {
  typename D::scalar g = m.gap0[i];
  for (int k = 0; k < dof_count(m); ++k) g += m.WN(k, i) * q[k];
  return g;
}

template <class D>
FIVSIM_HD inline typename D::scalar contact_gap(const Model<D>& m, const State<D>& s, int i) {
  return contact_gap(m, s.q, i);
}

// relative tangential velocity γ_T,i = w_T,iᵀ u − v_surface_i
template <class D, int Cap>
FIVSIM_HD inline typename D::scalar contact_slip_velocity(const Model<D>& m, const Vec<typename D::scalar, Cap>& u,
                                                          int i) {
  typename D::scalar g = -m.v_surface[i];
  for (int k = 0; k < dof_count(m); ++k) g += m.WT(k, i) * u[k];
  return g;
}

}  // namespace fivsim
