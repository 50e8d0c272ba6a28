// fivsim/integrate/switching_orbit.hpp — periodic orbits of the switching model by shooting: the
// Poincaré return map P (the N-th crossing of a velocity section, or N periods of a stroboscopic
// one), its Jacobian from the variational equations (switching_tangent.hpp), and Newton on
// P(x) − x, as per-case FIVSIM_HD code.
//
// For a velocity section Σ = {u_d = c} of an autonomous model the return time varies with the
// state, so DP = (I − f(x⁺) nᵀ / (nᵀ f(x⁺))) Φ(T) with n the section's normal (Parker & Chua,
// Practical Numerical Algorithms for Chaotic Systems, 1989, §3.5; Leine & Nijmeijer 2004 §3.5);
// Newton then runs on the section's own coordinates (u_d dropped), and the eigenvalues of that
// reduced DP are the orbit's Floquet multipliers without the trivial one along the flow. A
// stroboscopic section (the forcing's period) gives DP = Φ(N·T_f) directly. Sticking phases make
// multipliers exactly zero: a stick forgets every perturbation across the sticking direction.
#pragma once

#include "fivsim/core/small_eigenvalues.hpp"
#include "fivsim/integrate/switching_tangent.hpp"

namespace fivsim {

template <class D>
struct OrbitWork {
  using T = typename D::scalar;
  static constexpr int NY = 2 * D::max_dof;
  SwitchingWorkspace<D> ws;
  SwitchingTangent<D> tan;
  T dp[NY][NY];  // the return map's Jacobian, full state
  T x_end[NY];   // P(x)
  double t_end = 0.0;
  // break-away sections: the modes just after the N-th break-away, and the section's two
  // constraints (γ_c = 0, the stick margin = 0) with their gradients at the last point asked
  ContactState modes_end[D::max_contacts];
  T constraint[2], constraint_grad[2][NY];
  // the mode changes the last map met before its N-th crossing or break-away (an orbit's event
  // sequence, by count: a stick phase or a slip reversal that appears adds two)
  int events = 0;
  T crossing_speed = T(0);  // velocity sections: the section coordinate's rate at the last crossing
  // scratch of a Newton step on the break-away section (the bordered system) and of its
  // multipliers (a basis of the section's tangent space, DP on it): here rather than on the stack,
  // which on a device is local memory reserved for every resident thread (20 and 37 kB at 24 DoF)
  Mat<T, NY + 2, NY + 2> bordered;
  Vec<T, NY + 2> bordered_rhs;
  T basis[NY + 2][NY];
  Mat<T, NY, NY> reduced;
};

// the section's normal coordinate in the state (velocity sections), or −1 (stroboscopic)
FIVSIM_HD inline int section_coordinate(const SwitchingSection& s, int nq) {
  return s.kind == SwitchingSectionKind::velocity ? nq + s.dof : -1;
}

namespace orbit_detail {

// the started run on from t0 in slices of the step cap's hundredfold until done() (or max_time has
// passed), its events to the sink and its steps to the hooks given; false on a failed step
template <class D, class Done, class Sink, class... Hooks>
FIVSIM_HD inline bool advance_until(const Model<D>& m, const SwitchingSettings& set, const SwitchingSection& section,
                                    SwitchingWorkspace<D>& ws, double t0, double max_time, Done&& done, Sink& sink,
                                    Hooks&... hooks) {
  const double slice = 100.0 * ws.max_step;
  for (double t = t0; !done() && t < t0 + max_time;) {
    t = t + slice < t0 + max_time ? t + slice : t0 + max_time;
    if (switching_advance(m, set, section, ws, t, sink, hooks...) != Status::ok) return false;
  }
  return true;
}

// Φ from the run's start, then the run on until the sink has seen `crossings` returns (or
// max_time has passed)
template <class D, class Sink>
FIVSIM_HD inline bool run_to_return(const Model<D>& m, const SwitchingSettings& set, const SwitchingSection& section,
                                    OrbitWork<D>& w, double t0, double max_time, const int& seen, int crossings,
                                    Sink& sink, bool& hooks_ok) {
  tangent_reset(m, w.tan);
  TangentHooks<D> hooks{w.tan};
  if (!advance_until(
          m, set, section, w.ws, t0, max_time, [&] { return seen >= crossings; }, sink, hooks))
    return false;
  hooks_ok = hooks.ok;
  return seen >= crossings;
}

}  // namespace orbit_detail

// P^N(x) from (t0, x) into w.x_end at w.t_end, and DP into w.dp; x lies on the section. False when
// the run failed or met no N-th crossing before t0 + max_time
template <class D>
FIVSIM_HD inline bool switching_return_map(const Model<D>& m, const SwitchingSettings& set,
                                           const SwitchingSection& section, OrbitWork<D>& w, double t0,
                                           const typename D::scalar* x, int crossings, double max_time) {
  using T = typename D::scalar;
  namespace sd = switching_detail;
  const int nq = dof_count(m), ny = 2 * nq;
  w.ws.started = false;
  int seen = 0;
  bool ok = true;
  w.events = 0;
  auto sink = [&](const SwitchingEvent<T>& e) {
    if (seen >= crossings) return;
    if (!e.section) {
      ++w.events;
      return;
    }
    if (++seen < crossings) return;
    w.t_end = e.t;
    for (int i = 0; i < nq; ++i) {
      w.x_end[i] = e.q[i];
      w.x_end[nq + i] = e.u[i];
    }
    ok = tangent_at(m, w.ws, w.tan, e.t, w.dp) && ok;
    const int k = section_coordinate(section, nq);
    if (k < 0) return;
    // the return time's dependence: DP = (I − f nᵀ/(nᵀf)) Φ, f the field at the crossing
    T f[2 * D::max_dof];
    ok = sd::derivative(m, w.ws, e.t, w.x_end, f) && ok;
    if (!(f[k] != T(0))) {
      ok = false;
      return;
    }
    T normal[2 * D::max_dof] = {};
    normal[k] = T(1);
    const T speed = f[k];
    w.crossing_speed = speed;
    for (int i = 0; i < ny; ++i) f[i] = -f[i];
    sd::rank_one_update(w.dp, f, normal, speed, ny, ny);
  };
  if (switching_start(m, set, section, w.ws, t0, x, x + nq, true, sink) != Status::ok) return false;
  bool hooks_ok = true;
  return orbit_detail::run_to_return(m, set, section, w, t0, max_time, seen, crossings, sink, hooks_ok) && ok &&
         hooks_ok;
}

struct OrbitSettings {
  int crossings = 1;        // N: the orbit's period in section crossings
  int max_iterations = 20;  // Newton steps
  double tol = 1e-10;       // converged when max|P(x) − x| ≤ tol·(1 + max|x|)
  double max_time = 1e3;    // a return must come within this (s)
  // give up once a step from the third on leaves more than this share of the last residual (0:
  // never): Newton near an orbit contracts it quadratically, from a chaotic point it wanders
  double give_up_ratio = 0.0;
};

template <class D>
struct OrbitResult {
  using T = typename D::scalar;
  bool converged = false;
  int iterations = 0;
  double residual = 0.0;  // max|P(x) − x| at the last x
  double period = 0.0;    // the return time of the N crossings
  T x[2 * D::max_dof];    // the orbit's point on the section
};

namespace orbit_detail {

// Newton step `it`'s return: its residual max|P(x) − x|, period and count into out; whether it is
// within tol·(1 + max|x|)
template <class D>
FIVSIM_HD inline bool note_return(OrbitResult<D>& out, const OrbitWork<D>& w, int ny, double t0, int it, double tol) {
  double res = 0.0, scale = 1.0;
  for (int i = 0; i < ny; ++i) {
    const double d = fabs(static_cast<double>(w.x_end[i] - out.x[i]));
    res = d > res ? d : res;
    const double a = fabs(static_cast<double>(out.x[i]));
    scale = 1.0 + a > scale ? 1.0 + a : scale;
  }
  out.residual = res;
  out.period = w.t_end - t0;
  out.iterations = it;
  return res <= tol * scale;
}

}  // namespace orbit_detail

// Newton on P^N(x) − x from x0 (on the section); w.dp then holds the Jacobian at the orbit. Newton
// runs on the section's coordinates, so for a velocity section row and column k of the reduced
// system are dropped and x[k] stays the section's value
template <class D>
FIVSIM_HD inline OrbitResult<D> switching_periodic_orbit(const Model<D>& m, const SwitchingSettings& set,
                                                         const SwitchingSection& section, const OrbitSettings& os,
                                                         OrbitWork<D>& w, double t0, const typename D::scalar* x0) {
  using T = typename D::scalar;
  constexpr int NY = 2 * D::max_dof;
  const int nq = dof_count(m), ny = 2 * nq, k = section_coordinate(section, nq);
  OrbitResult<D> out;
  for (int i = 0; i < ny; ++i) out.x[i] = x0[i];
  if (k >= 0) out.x[k] = T(section.value);
  for (int it = 0; it <= os.max_iterations; ++it) {
    if (!switching_return_map(m, set, section, w, t0, out.x, os.crossings, os.max_time)) return out;
    const bool closed = orbit_detail::note_return(out, w, ny, t0, it, os.tol);
    if (closed) {
      out.converged = true;
      return out;
    }
    if (it == os.max_iterations) break;
    // (DP − I) δ = −(P(x) − x) on the section's coordinates
    Mat<T, NY, NY> A;
    Vec<T, NY> r;
    int row = 0;
    for (int i = 0; i < ny; ++i) {
      if (i == k) continue;
      int col = 0;
      for (int j = 0; j < ny; ++j) {
        if (j == k) continue;
        A(row, col++) = w.dp[i][j] - (i == j ? T(1) : T(0));
      }
      r[row++] = out.x[i] - w.x_end[i];
    }
    if (!solve_dense_inplace(A, r, row, T(1e-14))) return out;
    row = 0;
    for (int i = 0; i < ny; ++i)
      if (i != k) out.x[i] += r[row++];
  }
  return out;
}

// The break-away section of contact c — the moments its stick ends, the sweeps' default section —
// is an event surface: the state there lies on {γ_c = 0, margin_c = 0} (two conditions), and the
// run from it starts in the modes just after the event. At the N-th break-away the tangent has
// applied the saltation S, and (I − f⁺∇hᵀ/(∇h·f⁺ + ∂h/∂t))·SΦ⁻ = (I − f⁻∇hᵀ/(∇h·f⁻ + ∂h/∂t))·Φ⁻, the
// section's projection of the flow before the event: DP from Φ after it and the field after it.
// DP maps the section's tangent space into itself; its eigenvalues there are the multipliers.
template <class D>
FIVSIM_HD_NOINLINE inline bool switching_breakaway_map(const Model<D>& m, const SwitchingSettings& set, OrbitWork<D>& w,
                                                       double t0, const typename D::scalar* x,
                                                       const ContactState* modes, int contact, int crossings,
                                                       double max_time) {
  using T = typename D::scalar;
  namespace sd = switching_detail;
  const int nq = dof_count(m), ny = 2 * nq, nc = contact_count(m);
  w.ws.started = false;
  int seen = 0;
  bool ok = true;
  w.events = 0;
  auto sink = [&](const SwitchingEvent<T>& e) {
    if (seen >= crossings) return;
    // every mode change before the N-th break-away, the earlier break-aways included
    if (e.section || e.contact != contact || e.from != ContactState::stick || e.to == ContactState::free ||
        ++seen < crossings) {
      ++w.events;
      return;
    }
    w.t_end = e.t;
    for (int i = 0; i < nq; ++i) {
      w.x_end[i] = e.q[i];
      w.x_end[nq + i] = e.u[i];
    }
    for (int i = 0; i < nc; ++i) w.modes_end[i] = w.ws.mode[i];
    ok = tangent_at(m, w.ws, w.tan, e.t, w.dp) && ok;
    // DP = (I − f⁺gᵀ/(g·f⁺ + g_t)) Φ⁺, g the margin's gradient before the event
    T f[2 * D::max_dof];
    ok = ok && sd::derivative(m, w.ws, e.t, w.x_end, f);
    T speed = w.tan.grad_t;
    for (int i = 0; i < ny; ++i) speed += w.tan.grad[i] * f[i];
    if (!ok || !(speed != T(0)) || w.tan.last_slot / 3 != contact) {
      ok = false;
      return;
    }
    for (int i = 0; i < ny; ++i) f[i] = -f[i];
    sd::rank_one_update(w.dp, f, w.tan.grad, speed, ny, ny);
  };
  if (switching_start(m, set, SwitchingSection{}, w.ws, t0, x, x + nq, false, sink, modes) != Status::ok) return false;
  bool hooks_ok = true;
  return orbit_detail::run_to_return(m, set, SwitchingSection{}, w, t0, max_time, seen, crossings, sink, hooks_ok) &&
         ok && hooks_ok;
}

// the first break-away of contact c after t0 from any state x (its modes found from the state, as
// a run starts): its time, state and the modes just after it into w.t_end, w.x_end, w.modes_end —
// a point on the section to shoot from. A break-away at t0 itself (x on the section already) is
// passed over: it is where x lies, not where the flow returns. False when the run failed or met
// none before t0 + max_time
template <class D>
FIVSIM_HD_NOINLINE inline bool switching_land_on_breakaway(const Model<D>& m, const SwitchingSettings& set,
                                                           OrbitWork<D>& w, double t0, const typename D::scalar* x,
                                                           int contact, double max_time) {
  using T = typename D::scalar;
  const int nq = dof_count(m), nc = contact_count(m);
  w.ws.started = false;
  bool landed = false;
  auto sink = [&](const SwitchingEvent<T>& e) {
    if (landed || e.section || e.contact != contact || e.from != ContactState::stick || e.to == ContactState::free ||
        !(e.t > t0))
      return;
    landed = true;
    w.t_end = e.t;
    for (int i = 0; i < nq; ++i) {
      w.x_end[i] = e.q[i];
      w.x_end[nq + i] = e.u[i];
    }
    for (int i = 0; i < nc; ++i) w.modes_end[i] = w.ws.mode[i];
  };
  if (switching_start(m, set, SwitchingSection{}, w.ws, t0, x, x + nq, false, sink) != Status::ok) return false;
  return orbit_detail::advance_until(
             m, set, SwitchingSection{}, w.ws, t0, max_time, [&] { return landed; }, sink) &&
         landed;
}

// the break-away section's conditions at (t, x) — γ_c and the stick margin that fires into
// `after` (slip− : μ⁻(0)λ_N − λ_T, slip+ : λ_T + μ⁺(0)λ_N), contact c sticking and the others in
// `modes` — with their gradients, into w.constraint / constraint_grad
template <class D>
FIVSIM_HD inline bool breakaway_constraints(const Model<D>& m, const SwitchingSettings& set, OrbitWork<D>& w, double t,
                                            const typename D::scalar* x, const ContactState* modes, int contact) {
  using T = typename D::scalar;
  namespace sd = switching_detail;
  const int nq = dof_count(m), ny = 2 * nq, nc = contact_count(m);
  sd::prepare(m, set, w.ws);
  for (int i = 0; i < nc; ++i) w.ws.mode[i] = i == contact ? ContactState::stick : modes[i];
  if (!sd::mode_jacobian(m, w.ws, w.tan, t, x)) return false;
  const int slot = 3 * contact + (modes[contact] == ContactState::slip_neg ? 1 : 2);
  sd::event_values(m, w.ws, w.ws.fn);
  sd::event_gradient(m, w.ws, w.tan, slot);
  w.constraint[0] = w.ws.gamma[contact];
  w.constraint[1] = w.ws.fn[slot];
  for (int i = 0; i < ny; ++i) {
    w.constraint_grad[0][i] = i >= nq ? m.WT(i - nq, contact) : T(0);
    w.constraint_grad[1][i] = w.tan.grad[i];
  }
  return true;
}

// Newton on P^N(x) − x on the break-away section of contact c, from x0 with the modes just after
// that break-away: each step solves the bordered system [[DP − I, Aᵀ], [A, 0]] [δ; ν] = [x − P(x);
// −C(x)] (A the conditions' gradients, C their values), which keeps δ on the section to first
// order and pulls x back onto it; w.dp and w.constraint_grad then hold the orbit's
template <class D>
FIVSIM_HD_NOINLINE inline OrbitResult<D> switching_breakaway_orbit(const Model<D>& m, const SwitchingSettings& set,
                                                                   const OrbitSettings& os, OrbitWork<D>& w, double t0,
                                                                   const typename D::scalar* x0,
                                                                   const ContactState* modes, int contact) {
  using T = typename D::scalar;
  constexpr int NB = 2 * D::max_dof + 2;
  const int ny = 2 * dof_count(m), nc = contact_count(m);
  OrbitResult<D> out;
  for (int i = 0; i < ny; ++i) out.x[i] = x0[i];
  for (int it = 0; it <= os.max_iterations; ++it) {
    if (!switching_breakaway_map(m, set, w, t0, out.x, modes, contact, os.crossings, os.max_time)) return out;
    for (int i = 0; i < nc; ++i)
      if (w.modes_end[i] != modes[i]) return out;  // another sequence of modes: not this orbit
    const double last = out.residual;
    const bool closed = orbit_detail::note_return(out, w, ny, t0, it, os.tol);
    if (!breakaway_constraints(m, set, w, t0, out.x, modes, contact)) return out;
    if (closed) {
      out.converged = true;
      return out;
    }
    if (it == os.max_iterations || (os.give_up_ratio > 0.0 && it >= 2 && out.residual > os.give_up_ratio * last)) break;
    Mat<T, NB, NB>& A = w.bordered;
    Vec<T, NB>& r = w.bordered_rhs;
    for (int i = 0; i < ny + 2; ++i)
      for (int j = 0; j < ny + 2; ++j) A(i, j) = T(0);
    for (int i = 0; i < ny; ++i) {
      for (int j = 0; j < ny; ++j) A(i, j) = w.dp[i][j] - (i == j ? T(1) : T(0));
      for (int k = 0; k < 2; ++k) A(i, ny + k) = w.constraint_grad[k][i];
      r[i] = out.x[i] - w.x_end[i];
    }
    for (int k = 0; k < 2; ++k) {
      for (int j = 0; j < ny; ++j) A(ny + k, j) = w.constraint_grad[k][j];
      r[ny + k] = -w.constraint[k];
    }
    if (!solve_dense_inplace(A, r, ny + 2, T(1e-14))) return out;
    for (int i = 0; i < ny; ++i) out.x[i] += r[i];
  }
  return out;
}

// the Floquet multipliers of the orbit whose return map's Jacobian w.dp holds (after
// switching_periodic_orbit converged): the eigenvalues of DP on the section's coordinates, largest
// modulus first; returns how many (NY − 1 for a velocity section, NY for a stroboscopic one), or
// −1 when the QR iteration failed
template <class D>
FIVSIM_HD inline int orbit_multipliers(const Model<D>& m, const SwitchingSection& section, const OrbitWork<D>& w,
                                       typename D::scalar* re, typename D::scalar* im) {
  using T = typename D::scalar;
  constexpr int NY = 2 * D::max_dof;
  const int ny = 2 * dof_count(m), k = section_coordinate(section, dof_count(m));
  Mat<T, NY, NY> A;
  int n = 0;
  for (int i = 0; i < ny; ++i) {
    if (i == k) continue;
    int c = 0;
    for (int j = 0; j < ny; ++j)
      if (j != k) A(n, c++) = w.dp[i][j];
    ++n;
  }
  if (!small_eigenvalues(A, n, re, im)) return -1;
  sort_by_modulus(re, im, n);
  return n;
}

// the Floquet multipliers of a break-away orbit (after switching_breakaway_orbit converged): the
// eigenvalues of DP on the section's tangent space, an orthonormal basis Z of the complement of the
// two conditions' gradients, Zᵀ DP Z; largest modulus first; returns how many (NY − 2) or −1
template <class D>
FIVSIM_HD inline int breakaway_multipliers(const Model<D>& m, OrbitWork<D>& w, typename D::scalar* re,
                                           typename D::scalar* im) {
  using T = typename D::scalar;
  const int ny = 2 * dof_count(m);
  // Gram–Schmidt over the two gradients, then the unit vectors; the vectors after the gradients'
  // span the tangent space
  T(&basis)[2 * D::max_dof + 2][2 * D::max_dof] = w.basis;
  int nb = 0, kept = 0;
  for (int v = 0; v < ny + 2 && nb < ny; ++v) {
    T* b = basis[nb];
    for (int i = 0; i < ny; ++i) b[i] = v < 2 ? w.constraint_grad[v][i] : (i == v - 2 ? T(1) : T(0));
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < nb; ++k) {
        T dot = T(0);
        for (int i = 0; i < ny; ++i) dot += basis[k][i] * b[i];
        for (int i = 0; i < ny; ++i) b[i] -= dot * basis[k][i];
      }
    T norm = T(0);
    for (int i = 0; i < ny; ++i) norm += b[i] * b[i];
    norm = sqrt(norm);
    if (!(norm > T(1e-10))) {
      if (v < 2) return -1;  // the conditions are not independent
      continue;
    }
    for (int i = 0; i < ny; ++i) b[i] /= norm;
    ++nb;
    if (v >= 2) ++kept;
  }
  const int n = ny - 2;
  if (kept != n) return -1;
  Mat<T, 2 * D::max_dof, 2 * D::max_dof>& B = w.reduced;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      T s = T(0);
      for (int i = 0; i < ny; ++i) {
        T dpz = T(0);
        for (int j = 0; j < ny; ++j) dpz += w.dp[i][j] * basis[2 + b][j];
        s += basis[2 + a][i] * dpz;
      }
      B(a, b) = s;
    }
  if (!small_eigenvalues(B, n, re, im)) return -1;
  sort_by_modulus(re, im, n);
  return n;
}

// Multiple shooting on the switching model (one segment per mode between events, the hybrid
// periodic orbits of COCO: Dankowicz & Schilder, Recipes for Continuation, 2013, ch. 14; Leine &
// Nijmeijer 2004 §3.5). An orbit is a cyclic sequence of segments: segment i starts at x_i, runs
// its modes' smooth flow φ_i for a time T_i and ends where the event function h_i of its boundary
// vanishes; the next segment starts there in the modes after the event. The segments' flows hold
// their modes (no event ends them early), so that Newton on
//   φ_i(x_i, T_i) − x_{i+1} = 0,  h_i(φ_i(x_i, T_i)) = 0  (x_m = x_0)
// sees each mode's smooth field alone. The functions here are one segment's flow and one
// boundary's event function, fields and saltation matrix; the host assembles them
// (app/continuation.cpp).

// a boundary's event function: one of switching.hpp's (3 per contact: gap, then the two
// tangential ones) or, this value, the velocity section u_d = c
constexpr int kSectionBoundary = -2;

// the flow of the modes `modes` held from x for `duration` > 0 (no event ends it): the end state
// into w.x_end and Φ = ∂y(T)/∂x into w.dp; false where a step failed
template <class D>
FIVSIM_HD_NOINLINE inline bool switching_segment(const Model<D>& m, const SwitchingSettings& set, OrbitWork<D>& w,
                                                 const typename D::scalar* x, const ContactState* modes,
                                                 double duration) {
  using T = typename D::scalar;
  const int nq = dof_count(m), ny = 2 * nq;
  if (!(duration > 0.0)) return false;
  auto sink = [](const SwitchingEvent<T>&) {};
  w.ws.started = false;
  w.ws.hold_modes = true;
  w.ws.hold_until = duration;
  bool ok = switching_start(m, set, SwitchingSection{}, w.ws, 0.0, x, x + nq, false, sink, modes) == Status::ok;
  if (ok) {
    tangent_reset(m, w.tan);
    TangentHooks<D> hooks{w.tan};
    ok = orbit_detail::advance_until(
             m, set, SwitchingSection{}, w.ws, 0.0, duration, [] { return false; }, sink, hooks) &&
         hooks.ok && tangent_at(m, w.ws, w.tan, duration, w.dp);
    switching_detail::state_at(w.ws, ny, duration, w.x_end);
  }
  w.ws.hold_modes = false;
  return ok;
}

// a boundary at the state y: the event function `slot` of the modes `before` (or the velocity
// section's u_d − c) and its gradient, the fields of `before` and `after` there
template <class D>
struct SegmentBoundary {
  using T = typename D::scalar;
  T h = T(0);
  T grad[2 * D::max_dof];
  T f_before[2 * D::max_dof], f_after[2 * D::max_dof];
};

template <class D>
FIVSIM_HD_NOINLINE inline bool switching_boundary(const Model<D>& m, const SwitchingSettings& set,
                                                  const SwitchingSection& section, OrbitWork<D>& w,
                                                  const typename D::scalar* y, const ContactState* before, int slot,
                                                  const ContactState* after, SegmentBoundary<D>& out) {
  using T = typename D::scalar;
  namespace sd = switching_detail;
  const int nq = dof_count(m), ny = 2 * nq, nc = contact_count(m);
  sd::prepare(m, set, w.ws);
  for (int i = 0; i < nc; ++i) w.ws.mode[i] = before[i];
  if (!sd::mode_jacobian(m, w.ws, w.tan, 0.0, y)) return false;
  for (int i = 0; i < nq; ++i) {
    out.f_before[i] = y[nq + i];
    out.f_before[nq + i] = w.ws.acc[i];
  }
  if (slot == kSectionBoundary) {
    const int k = section_coordinate(section, nq);
    for (int i = 0; i < ny; ++i) out.grad[i] = i == k ? T(1) : T(0);
    out.h = y[k] - T(section.value);
  } else {
    sd::event_values(m, w.ws, w.ws.fn);
    sd::event_gradient(m, w.ws, w.tan, slot);
    out.h = w.ws.fn[slot];
    for (int i = 0; i < ny; ++i) out.grad[i] = w.tan.grad[i];
  }
  for (int i = 0; i < nc; ++i) w.ws.mode[i] = after[i];
  if (!sd::evaluate(m, w.ws, 0.0, y)) return false;
  for (int i = 0; i < nq; ++i) {
    out.f_after[i] = y[nq + i];
    out.f_after[nq + i] = w.ws.acc[i];
  }
  return true;
}

}  // namespace fivsim
