// fivsim/integrate/simulation.hpp — drives a time stepper (Moreau, Runge–Kutta LCP) over a whole
// run on the host: the initial state, the step loop, and what is reported back (no trajectory is
// kept; observers see each state as it is produced).
#pragma once

#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/model/events.hpp"
#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/integrate/pinn_step.hpp"
#include "fivsim/integrate/rk_step_map.hpp"

namespace fivsim {

// a state at t0 from q0, u0; contact states from kinematics (events.hpp) and, for given_normal
// contacts, λ_N = Fn
template <class D>
void make_initial_state(const Model<D>& m, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0, double t0,
                        double stick_tol, State<D>& s) {
  using T = typename D::scalar;
  s.t = T(t0);
  s.q.resize(m.n_dof);
  s.u.resize(m.n_dof);
  for (int i = 0; i < m.n_dof; ++i) {
    s.q[i] = T(q0(i));
    s.u[i] = T(u0(i));
  }
  initial_contact_states(m, s, T(stick_tol));
}

struct RunOutcome {
  Status status = Status::ok;
  long steps = 0;  // steps completed (and observed)
  double max_lcp_residual = 0.0;
  long lcp_iterations = 0;  // summed over all steps
  int max_lcp_iterations = 0;
  double failed_at = 0.0;  // start time of the step that failed
  PinnTotals pinn;         // PINN methods
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
  return simulate_steps(
      s, dt, steps, [&](State<D>& st) { return moreau_step(m, st, T(dt), opt, *ws); }, observe);
}

// Runge–Kutta LCP time stepping (rk_lcp.hpp) with a map made for this model and step size
template <class D, class Observer>
RunOutcome simulate_rk_lcp(const Model<D>& m, const RkStepMap<D>& map, State<D>& s, long steps, const StepOptions& opt,
                           Observer&& observe) {
  auto ws = std::make_unique<RkLcpWorkspace<D>>();
  return simulate_steps(
      s, static_cast<double>(map.dt), steps, [&](State<D>& st) { return rk_lcp_step(m, map, st, opt, *ws); }, observe);
}

// the integration methods of fivsim (method.hpp runs them all; the event-driven reference is not a
// time stepper and has its own driver, event_driven.hpp)
enum class MethodKind { moreau, rk4lcp, irk, event_driven, pinn, smooth };

// the networks and trainings of the PINN methods (scenario /integrator/pinn)
struct PinnConfig {
  std::vector<int> hidden = {20, 20, 20, 20, 20, 20, 20};  // dynamic network (seed 000 §3.3.2: 7 × 20)
  Activation activation = Activation::tanh_fn;
  OptimizerOptions optimizer{OptimizerKind::lbfgs, 500, 1e-24, 10};
  uint64_t seed = 1;
  LcpPinnSettings lcp;          // the LCP-PINN (3 × 5)
  double lcp_tolerance = 1e-9;  // natural-map residual its answers must meet
};

struct MethodSpec {
  MethodKind kind = MethodKind::moreau;
  int stages = 4;                                   // irk, pinn: Gauss–Legendre stages
  StageForces forces = StageForces::held;           // rk4lcp, irk
  PinnFramework framework = PinnFramework::single;  // pinn
  PinnConfig pinn;                                  // pinn, and lcp_pinn's settings
  bool lcp_pinn = false;            // moreau, rk4lcp, irk: the LCP-PINN (pinn.lcp) solves the contact LCPs
  bool lcp_on_euler = false;        // rk4lcp, irk (held forces): the LCP on Moreau's prediction (rk_lcp.hpp)
  EventDrivenOptions event_driven;  // the event-driven reference's tolerances
  // "moreau", "rk4lcp", "irk10", "irk10-interp", "switching", "pinn_dual10", "pinn_central"
  std::string label() const;
};

// the step map of a Runge–Kutta stepper spec (RK4-LCP: the classical tableau; irk: Gauss–Legendre
// with spec.stages stages) for a model and dt
template <class D>
void make_method_step_map(const MethodSpec& spec, const Model<D>& m, double dt, RkStepMap<D>& map) {
  const ButcherTableau tab = spec.kind == MethodKind::rk4lcp ? classical_rk4() : gauss_legendre(spec.stages);
  make_rk_step_map(m, tab, dt, spec.forces, map);
  map.lcp_on_euler = spec.lcp_on_euler;
}

// the settings of the PINN stepper of `spec` for a model of n DoF (the dynamic network maps q to
// the n(R+1) stage and end velocities)
inline PinnStepSettings make_pinn_step_settings(const MethodSpec& spec, int n) {
  PinnStepSettings set;
  set.framework = spec.framework;
  set.lcp = spec.pinn.lcp;
  set.lcp_tolerance = spec.pinn.lcp_tolerance;
  set.dynamics_optimizer = spec.pinn.optimizer;
  set.seed = spec.pinn.seed;
  if (spec.framework != PinnFramework::central)
    set.dynamics = make_mlp_layout(n, spec.pinn.hidden, n * (spec.stages + 1), spec.pinn.activation, OutputMap::linear);
  return set;
}

// the Gauss step map of an IRK-PINN framework (held or, for the advanced variants, ramped forces)
template <class D>
void make_pinn_step_map(const MethodSpec& spec, const Model<D>& m, double dt, RkStepMap<D>& map) {
  make_rk_step_map(m, gauss_legendre(spec.stages), dt,
                   pinn_interpolates(spec.framework) ? StageForces::ramp : StageForces::held, map);
}

// the Gauss–Legendre table of R stages as the plain arrays of a StageTable: a, b, c one after
// the other (R² + 2R values; stage_table_of reads them)
template <class T>
std::vector<T> gauss_stage_values(int R) {
  const ButcherTableau tab = gauss_legendre(R);
  std::vector<T> v(tab.a.begin(), tab.a.end());
  v.insert(v.end(), tab.b.begin(), tab.b.end());
  v.insert(v.end(), tab.c.begin(), tab.c.end());
  return v;
}

// `count` PinnStepper blocks of layout L one after the other in 64-byte aligned host memory, with
// their workspaces constructed
template <class D>
class PinnHostBlocks {
 public:
  PinnHostBlocks(const PinnBlockLayout& L, int count)
      : bytes_(static_cast<unsigned char*>(
            ::operator new(static_cast<std::size_t>(L.bytes* count), std::align_val_t(64)))) {
    for (int w = 0; w < count; ++w) {
      unsigned char* b = bytes_.get() + w * L.bytes;
      new (b + L.moreau) MoreauWorkspace<D>();
      new (b + L.rk) RkLcpWorkspace<D>();
      new (b + L.lcp) LcpPinnWorkspace<typename D::scalar, D::max_lcp>();
    }
  }
  unsigned char* get() const { return bytes_.get(); }

 private:
  struct AlignedFree {
    void operator()(unsigned char* p) const { ::operator delete(p, std::align_val_t(64)); }
  };
  std::unique_ptr<unsigned char, AlignedFree> bytes_;
};

// the PINN stepper of one run on the host: a PinnStepper (pinn_step.hpp) over a heap block, with
// its settings, stage table and step map; step(s, opt) advances s by one step and adds the
// trainings to totals()
template <class D>
class PinnRunStepper {
 public:
  using T = typename D::scalar;

  PinnRunStepper(const MethodSpec& spec, const Model<D>& m, double dt) : set_(make_pinn_step_settings(spec, m.n_dof)) {
    const bool central = spec.framework == PinnFramework::central;
    if (!central) {
      stages_ = gauss_stage_values<T>(spec.stages);
      map_ = std::make_unique<RkStepMap<D>>();
      make_pinn_step_map(spec, m, dt, *map_);
    }
    const PinnBlockLayout L = pinn_block_layout<D>(set_, m.n_dof, central ? 0 : spec.stages);
    block_ = std::make_unique<PinnHostBlocks<D>>(L, 1);
    stepper_.m = &m;
    stepper_.map = map_.get();
    if (!central) stepper_.tab = stage_table_of(stages_.data(), spec.stages);
    stepper_.set = &set_;
    stepper_.dt = T(dt);
    stepper_.bind(block_->get(), L);
    stepper_.reset();
  }
  PinnRunStepper(const PinnRunStepper&) = delete;
  PinnRunStepper& operator=(const PinnRunStepper&) = delete;

  StepReport step(State<D>& s, const StepOptions& opt) {
    PinnStepReport pr;
    const StepReport r = stepper_.step(s, opt, pr);
    totals_.count(pr, set_.framework);
    return r;
  }
  const PinnTotals& totals() const { return totals_; }

 private:
  PinnStepSettings set_;
  std::vector<T> stages_;
  std::unique_ptr<RkStepMap<D>> map_;
  std::unique_ptr<PinnHostBlocks<D>> block_;
  PinnStepper<D> stepper_;
  PinnTotals totals_;
};

// the PINN steppers over `steps` steps of dt
template <class D, class Observer>
RunOutcome simulate_pinn(const MethodSpec& spec, const Model<D>& m, State<D>& s, double dt, long steps,
                         const StepOptions& opt, Observer&& observe) {
  PinnRunStepper<D> stepper(spec, m, dt);
  RunOutcome out = simulate_steps(
      s, dt, steps, [&](State<D>& st) { return stepper.step(st, opt); }, observe);
  out.pinn = stepper.totals();
  return out;
}

// Moreau, RK4-LCP or Gauss IRK-LCP with the LCP-PINN (spec.pinn.lcp) as contact solver, its
// answers held to spec.pinn.lcp_tolerance; the LCP-PINN's trainings are counted in out.pinn
template <class D, class Observer>
RunOutcome simulate_with_lcp_pinn(const MethodSpec& spec, const Model<D>& m, State<D>& s, double dt, long steps,
                                  const StepOptions& opt, Observer&& observe) {
  using T = typename D::scalar;
  auto lcp_ws = std::make_unique<LcpPinnWorkspace<T, D::max_lcp>>();
  const LcpPinnSolver<D> solver{&spec.pinn.lcp, lcp_ws.get()};
  StepOptions o = opt;
  o.lcp.tolerance = spec.pinn.lcp_tolerance;
  o.closed_form_decoupled = false;  // every contact LCP goes to the network
  PinnTotals totals;
  auto counted = [&](const StepReport& r) {
    totals.lcp_iterations += lcp_ws->last.iterations;
    lcp_ws->last = OptimizerResult();
    return r;
  };
  RunOutcome out;
  if (spec.kind == MethodKind::moreau) {
    auto ws = std::make_unique<MoreauWorkspace<D>>();
    out = simulate_steps(
        s, dt, steps, [&](State<D>& st) { return counted(moreau_step_with(m, st, T(dt), o, *ws, solver)); }, observe);
  } else {
    auto map = std::make_unique<RkStepMap<D>>();
    make_method_step_map(spec, m, dt, *map);
    auto ws = std::make_unique<RkLcpWorkspace<D>>();
    out = simulate_steps(
        s, dt, steps, [&](State<D>& st) { return counted(rk_lcp_step_with(m, *map, st, o, *ws, solver)); }, observe);
  }
  out.pinn = totals;
  return out;
}

// a time stepper of `spec` (Moreau, RK4-LCP, Gauss IRK-LCP or a PINN framework) over `steps` steps of dt
template <class D, class Observer>
RunOutcome simulate_time_stepper(const MethodSpec& spec, const Model<D>& m, State<D>& s, double dt, long steps,
                                 const StepOptions& opt, Observer&& observe) {
  if (spec.kind == MethodKind::event_driven || spec.kind == MethodKind::smooth)
    throw std::invalid_argument("simulate_time_stepper: " + spec.label() + " is not a time stepper");
  if (spec.kind == MethodKind::pinn) return simulate_pinn(spec, m, s, dt, steps, opt, observe);
  if (spec.lcp_pinn) return simulate_with_lcp_pinn(spec, m, s, dt, steps, opt, observe);
  if (spec.kind == MethodKind::moreau) return simulate_moreau(m, s, dt, steps, opt, observe);
  auto map = std::make_unique<RkStepMap<D>>();
  make_method_step_map(spec, m, dt, *map);
  return simulate_rk_lcp(m, *map, s, steps, opt, observe);
}

}  // namespace fivsim
