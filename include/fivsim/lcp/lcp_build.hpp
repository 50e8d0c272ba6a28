// fivsim/lcp/lcp_build.hpp — the one-step contact LCP of mixed-level time stepping.
//
// Builds (A, b) of seed 000 Eq. 12 (rigid contact), Eq. 14 (spring contact) and Eq. 28 (given
// normal force) for any mix of contacts, from the free-flight velocity u_free = u_A + dt·M⁻¹h_A
// that the integrator supplies. Friction is split as in seed 000 Eqs. 3–4 with a coefficient per
// sliding direction: Λ_R = μ⁺Λ_N + Λ_T ⊥ γ_R, Λ_L = μ⁻Λ_N − Λ_T ⊥ γ_L, γ_T = γ_R − γ_L
// (so Λ_R + Λ_L = (μ⁺ + μ⁻)Λ_N; the seed's 2μ when μ⁺ = μ⁻).
//
// Unknowns, in impulse (Λ = λ·dt) and velocity units — the seed's Eqs. 12/14 rows scaled by
// positive factors, which leaves the solution unchanged:
//   x = [Λ_N of rigid/spring contacts (k) | Λ_L (m) | γ_R (m)]
//   y = [g_N^E/dt  (+ Λ_N/(k_c dt²) for springs) | γ_L (m) | Λ_R (m)]
// A spring row is a rigid row plus the compliance 1/(k_c dt²) on its diagonal: Ω_N/(k_c dt) with
// Ω_N = λ_N + k_c g_N^E (seed 000 Eq. 13).
//
// The integrator supplies the end-of-step state without contact impulses (g_N^free/dt, u_free)
// and how that state responds to them (ContactResponse): g_N^E/dt = g_N^free/dt + N_N Λ_N + N_T Λ_T
// and γ_T^E = γ_T^free + T_N Λ_N + T_T Λ_T. For Moreau the four blocks are the Delassus blocks
// G = Wᵀ M⁻¹ W of the model (seed 000 Eqs. 10–11); Runge–Kutta steppers pass their own.
#pragma once

#include "fivsim/lcp/lcp.hpp"
#include "fivsim/model/model.hpp"

namespace fivsim {

template <class D>
struct ContactLcp {
  using T = typename D::scalar;
  static constexpr int NC = D::max_contacts;
  static constexpr int NL = D::max_lcp;

  LcpMatrix<T, NL> A;
  LcpVector<T, NL> b;
  Vec<T, NC> mu_plus, mu_minus;  // friction coefficients used in this step
  Vec<T, NC> impulse_known;      // Λ_N = Fn·dt of given_normal contacts (0 for the others)
};

// friction coefficients from the start-of-step relative velocity (docs/DESIGN.md §7) and the
// known normal impulses
template <class D>
FIVSIM_HD inline void contact_lcp_coefficients(const Model<D>& m, const State<D>& s, typename D::scalar dt,
                                               ContactLcp<D>& lcp) {
  using T = typename D::scalar;
  const int nc = contact_count(m);
  lcp.mu_plus.n = lcp.mu_minus.n = lcp.impulse_known.n = nc;
  for (int i = 0; i < nc; ++i) {
    const T v = contact_slip_velocity(m, s.u, i);
    friction_bounds(m.law[i], v, lcp.mu_plus[i], lcp.mu_minus[i]);
    lcp.impulse_known[i] = m.kind[i] == ContactKind::given_normal ? m.Fn[i] * dt : T(0);
  }
}

// how the end-of-step gaps (rows N) and slip velocities (rows T) respond to the contact impulses
// (columns N, T); references, so that Moreau passes the model's blocks without a copy
template <class D>
struct ContactResponse {
  using Block = Mat<typename D::scalar, D::max_contacts, D::max_contacts>;
  const Block& NN;
  const Block& NT;
  const Block& TN;
  const Block& TT;
};

// Moreau's response: the Delassus blocks of the model
template <class D>
FIVSIM_HD inline ContactResponse<D> delassus_response(const Model<D>& m) {
  return ContactResponse<D>{m.GNN, m.GNT, m.GTN, m.GTT};
}

// (A, b) for a step whose impulse-free end state has gap rates gap_rate_free (g_N^free/dt, per
// contact; read for rigid and spring contacts only) and velocity u_free; the coefficients of
// contact_lcp_coefficients must be set first
template <class D, int CapG, int Cap>
FIVSIM_HD inline void build_contact_lcp(const Model<D>& m, const ContactResponse<D>& r,
                                        const Vec<typename D::scalar, CapG>& gap_rate_free,
                                        const Vec<typename D::scalar, Cap>& u_free, typename D::scalar dt,
                                        ContactLcp<D>& lcp) {
  using T = typename D::scalar;
  const int k = m.n_normal;
  const int nc = contact_count(m);
  const int n = k + 2 * nc;
  auto& A = lcp.A;
  auto& b = lcp.b;
  A.resize(n, n);
  b.resize(n);
  const auto& mum = lcp.mu_minus;
  const auto& pk = lcp.impulse_known;

  for (int i = 0; i < nc; ++i) {
    const int si = m.normal_slot[i];
    // normal row of a rigid or spring contact
    if (si >= 0) {
      T bi = gap_rate_free[i];
      for (int j = 0; j < nc; ++j) {
        const T coupling = r.NN(i, j) + r.NT(i, j) * mum[j];
        const int sj = m.normal_slot[j];
        if (sj >= 0) {
          A(si, sj) = coupling;
        } else {
          bi += coupling * pk[j];
        }
        A(si, k + j) = -r.NT(i, j);
      }
      if (m.kind[i] == ContactKind::spring) A(si, si) += T(1) / (m.kc[i] * dt * dt);
      b[si] = bi;
    }
    // γ_L row: γ_L = γ_R − γ_T^E
    {
      T gamma_free = contact_slip_velocity(m, u_free, i);
      for (int j = 0; j < nc; ++j) {
        const T coupling = r.TN(i, j) + r.TT(i, j) * mum[j];
        const int sj = m.normal_slot[j];
        if (sj >= 0) {
          A(k + i, sj) = -coupling;
        } else {
          gamma_free += coupling * pk[j];
        }
        A(k + i, k + j) = r.TT(i, j);
      }
      A(k + i, k + nc + i) = T(1);
      b[k + i] = -gamma_free;
    }
    // Λ_R row: Λ_R = (μ⁺ + μ⁻)Λ_N − Λ_L
    {
      const T mu_sum = lcp.mu_plus[i] + mum[i];
      A(k + nc + i, k + i) = T(-1);
      if (si >= 0) {
        A(k + nc + i, si) = mu_sum;
        b[k + nc + i] = T(0);
      } else {
        b[k + nc + i] = mu_sum * pk[i];
      }
    }
  }
}

// Moreau's impulse-free gap rates: q_E = q_A + dt·u_E, so g_N^free/dt = g_N(q_A)/dt + w_Nᵀ u_free
template <class D, int CapG, int Cap>
FIVSIM_HD inline void moreau_gap_rates(const Model<D>& m, const State<D>& s, const Vec<typename D::scalar, Cap>& u_free,
                                       typename D::scalar dt, Vec<typename D::scalar, CapG>& gap_rate) {
  using T = typename D::scalar;
  const int nc = contact_count(m);
  gap_rate.n = nc;
  for (int i = 0; i < nc; ++i) {
    if (m.normal_slot[i] < 0) {
      gap_rate[i] = T(0);
      continue;
    }
    T g = contact_gap(m, s, i) / dt;
    for (int d = 0; d < dof_count(m); ++d) g += m.WN(d, i) * u_free[d];
    gap_rate[i] = g;
  }
}

// contact impulses Λ_N, Λ_T from an LCP solution x
template <class D, int Cap, int CapOut>
FIVSIM_HD inline void contact_impulses(const Model<D>& m, const ContactLcp<D>& lcp,
                                       const LcpVector<typename D::scalar, Cap>& x, Vec<typename D::scalar, CapOut>& PN,
                                       Vec<typename D::scalar, CapOut>& PT) {
  const int k = m.n_normal;
  const int nc = contact_count(m);
  PN.n = PT.n = nc;
  for (int i = 0; i < nc; ++i) {
    const int si = m.normal_slot[i];
    PN[i] = si >= 0 ? x[si] : lcp.impulse_known[i];
    PT[i] = lcp.mu_minus[i] * PN[i] - x[k + i];
  }
}

// contact state from an LCP solution: free when the normal force vanishes, otherwise slip±
// when γ_R or γ_L exceeds stick_tol, else stick
template <class D, int Cap>
FIVSIM_HD inline ContactState contact_state_from_lcp(const Model<D>& m, const LcpVector<typename D::scalar, Cap>& x,
                                                     const LcpVector<typename D::scalar, Cap>& y,
                                                     typename D::scalar normal_impulse, int i,
                                                     typename D::scalar impulse_tol, typename D::scalar stick_tol) {
  const int k = m.n_normal;
  const int nc = contact_count(m);
  if (!(normal_impulse > impulse_tol)) return ContactState::free;
  if (x[k + nc + i] > stick_tol) return ContactState::slip_pos;
  if (y[k + i] > stick_tol) return ContactState::slip_neg;
  return ContactState::stick;
}

}  // namespace fivsim
