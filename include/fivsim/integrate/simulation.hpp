// fivsim/integrate/simulation.hpp — drives a time stepper (Moreau, Runge–Kutta LCP) over a whole
// run on the host: the initial state, the step loop, and what is reported back (no trajectory is
// kept; observers see each state as it is produced).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>

#include "fivsim/analysis/events.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/integrate/rk_step_map.hpp"

namespace fivsim {

// a state at t0 from q0, u0; contact states from kinematics (events.hpp) and, for given_normal
// contacts, λ_N = Fn
template <class D>
void make_initial_state(const Model<D>& m, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0,
                        double t0, double stick_tol, State<D>& s) {
  using T = typename D::scalar;
  s.t = T(t0);
  s.q.resize(m.n_dof);
  s.u.resize(m.n_dof);
  for (int i = 0; i < m.n_dof; ++i) {
    s.q[i] = T(q0(i));
    s.u[i] = T(u0(i));
  }
  s.lamN.resize(m.n_contacts);
  s.lamT.resize(m.n_contacts);
  for (int i = 0; i < m.n_contacts; ++i) {
    if (m.kind[i] == ContactKind::given_normal) s.lamN[i] = m.Fn[i];
    s.contact[i] = kinematic_contact_state(m, s, i, T(stick_tol));
  }
}

struct RunOutcome {
  Status status = Status::ok;
  long steps = 0;                  // steps completed (and observed)
  double max_lcp_residual = 0.0;
  long lcp_iterations = 0;         // summed over all steps
  int max_lcp_iterations = 0;
  double failed_at = 0.0;          // start time of the step that failed
};

// runs `steps` steps of size dt with step(state) -> StepReport; observe(state, step_index, report)
// after each step. Stops at the first failing step: an LCP failure leaves the state as it was
// before the step, a non-finite state is not passed to the observer.
template <class D, class Stepper, class Observer>
RunOutcome simulate_steps(State<D>& s, double dt, long steps, Stepper&& step, Observer&& observe) {
  using T = typename D::scalar;
  RunOutcome out;
  const double t0 = static_cast<double>(s.t);
  for (long k = 1; k <= steps; ++k) {
    const StepReport r = step(s);
    out.lcp_iterations += r.lcp_iterations;
    if (r.lcp_iterations > out.max_lcp_iterations) out.max_lcp_iterations = r.lcp_iterations;
    if (r.status != Status::ok) {
      out.status = r.status;
      out.failed_at = t0 + static_cast<double>(k - 1) * dt;
      return out;
    }
    if (r.lcp_residual > out.max_lcp_residual) out.max_lcp_residual = r.lcp_residual;
    // time from the step count, so that long runs do not accumulate rounding in t
    s.t = T(t0 + static_cast<double>(k) * dt);
    out.steps = k;
    observe(static_cast<const State<D>&>(s), k, r);
  }
  return out;
}

// Moreau time stepping (moreau.hpp)
template <class D, class Observer>
RunOutcome simulate_moreau(const Model<D>& m, State<D>& s, double dt, long steps, const StepOptions& opt,
                           Observer&& observe) {
  using T = typename D::scalar;
  auto ws = std::make_unique<MoreauWorkspace<D>>();
  return simulate_steps(s, dt, steps, [&](State<D>& st) { return moreau_step(m, st, T(dt), opt, *ws); },
                        observe);
}

// Runge–Kutta LCP time stepping (rk_lcp.hpp) with a map made for this model and step size
template <class D, class Observer>
RunOutcome simulate_rk_lcp(const Model<D>& m, const RkStepMap<D>& map, State<D>& s, long steps,
                           const StepOptions& opt, Observer&& observe) {
  auto ws = std::make_unique<RkLcpWorkspace<D>>();
  return simulate_steps(s, static_cast<double>(map.dt), steps,
                        [&](State<D>& st) { return rk_lcp_step(m, map, st, opt, *ws); }, observe);
}

// the integration methods of fivsim (method.hpp runs them all; the event-driven reference is not a
// time stepper and has its own driver, event_driven.hpp)
enum class MethodKind { moreau, rk4lcp, irk, event_driven };

struct MethodSpec {
  MethodKind kind = MethodKind::moreau;
  int stages = 4;                           // irk: Gauss–Legendre stages
  StageForces forces = StageForces::held;  // rk4lcp, irk
  std::string label() const;               // "moreau", "rk4lcp", "irk10", "irk10-interp", "switching"
};

// the step map of a Runge–Kutta stepper spec (RK4-LCP: the classical tableau; irk: Gauss–Legendre
// with spec.stages stages) for a model and dt
template <class D>
void make_method_step_map(const MethodSpec& spec, const Model<D>& m, double dt, RkStepMap<D>& map) {
  const ButcherTableau tab = spec.kind == MethodKind::rk4lcp ? classical_rk4() : gauss_legendre(spec.stages);
  make_rk_step_map(m, tab, dt, spec.forces, map);
}

// a time stepper of `spec` (Moreau, RK4-LCP or Gauss IRK-LCP) over `steps` steps of dt
template <class D, class Observer>
RunOutcome simulate_time_stepper(const MethodSpec& spec, const Model<D>& m, State<D>& s, double dt, long steps,
                                 const StepOptions& opt, Observer&& observe) {
  if (spec.kind == MethodKind::event_driven)
    throw std::invalid_argument("simulate_time_stepper: the event-driven reference is not a time stepper");
  if (spec.kind == MethodKind::moreau) return simulate_moreau(m, s, dt, steps, opt, observe);
  auto map = std::make_unique<RkStepMap<D>>();
  make_method_step_map(spec, m, dt, *map);
  return simulate_rk_lcp(m, *map, s, steps, opt, observe);
}

}  // namespace fivsim
