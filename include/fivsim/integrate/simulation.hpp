// fivsim/integrate/simulation.hpp — drives a time stepper (Moreau, Runge–Kutta LCP) over a whole
// run on the host: the initial state, the step loop, and what is reported back (no trajectory is
// kept; observers see each state as it is produced).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/analysis/events.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/integrate/pinn_step.hpp"
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

// the trainings of a PINN run, summed over its steps
struct PinnTotals {
  long iterations = 0;      // optimizer iterations of the dynamic networks
  long lcp_iterations = 0;  // optimizer iterations of the LCP-PINNs
  double max_loss = 0.0;    // the worst final loss of a dynamic training
  long unconverged = 0;     // steps whose dynamic training stopped above its tolerance
};

struct RunOutcome {
  Status status = Status::ok;
  long steps = 0;                  // steps completed (and observed)
  double max_lcp_residual = 0.0;
  long lcp_iterations = 0;         // summed over all steps
  int max_lcp_iterations = 0;
  double failed_at = 0.0;          // start time of the step that failed
  PinnTotals pinn;                 // PINN methods
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
enum class MethodKind { moreau, rk4lcp, irk, event_driven, pinn };

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
  int stages = 4;                           // irk, pinn: Gauss–Legendre stages
  StageForces forces = StageForces::held;  // rk4lcp, irk
  PinnFramework framework = PinnFramework::single;  // pinn
  PinnConfig pinn;                                   // pinn
  // "moreau", "rk4lcp", "irk10", "irk10-interp", "switching", "pinn_dual10", "pinn_central"
  std::string label() const;
};

// the step map of a Runge–Kutta stepper spec (RK4-LCP: the classical tableau; irk: Gauss–Legendre
// with spec.stages stages) for a model and dt
template <class D>
void make_method_step_map(const MethodSpec& spec, const Model<D>& m, double dt, RkStepMap<D>& map) {
  const ButcherTableau tab = spec.kind == MethodKind::rk4lcp ? classical_rk4() : gauss_legendre(spec.stages);
  make_rk_step_map(m, tab, dt, spec.forces, map);
}

// a PINN stepper (pinn_step.hpp) for one model and dt, with its networks and training memory
// allocated once and the weights carried from step to step; host-owned, one per run or per case
// of a sweep. step(s, opt) advances s by one step and adds the trainings to totals().
template <class D>
class PinnRunStepper {
 public:
  using T = typename D::scalar;

  PinnRunStepper(const MethodSpec& spec, const Model<D>& m, double dt) : m_(m), dt_(T(dt)) {
    set_.framework = spec.framework;
    set_.lcp = spec.pinn.lcp;
    set_.lcp_tolerance = spec.pinn.lcp_tolerance;
    set_.dynamics_optimizer = spec.pinn.optimizer;
    lcp_ws_ = std::make_unique<LcpPinnWorkspace<T, D::max_lcp>>();
    if (spec.framework == PinnFramework::central) {
      moreau_ws_ = std::make_unique<MoreauWorkspace<D>>();
      return;
    }
    const int n = m.n_dof, R = spec.stages;
    const ButcherTableau tab = gauss_legendre(R);
    a_.assign(tab.a.begin(), tab.a.end());
    b_.assign(tab.b.begin(), tab.b.end());
    c_.assign(tab.c.begin(), tab.c.end());
    table_ = StageTable<T>{R, a_.data(), b_.data(), c_.data()};
    map_ = std::make_unique<RkStepMap<D>>();
    make_rk_step_map(m, tab, dt, pinn_interpolates(spec.framework) ? StageForces::ramp : StageForces::held, *map_);
    set_.dynamics = make_mlp_layout(n, spec.pinn.hidden, n * (R + 1), spec.pinn.activation, OutputMap::linear);
    const int np = set_.dynamics.param_count();
    params_.resize(np);
    grad_.resize(np);
    work_.resize(optimizer_work_size(np, set_.dynamics_optimizer));
    cache_.resize(set_.dynamics.cache_size());
    scratch_.resize(2 * set_.dynamics.max_width());
    d_out_.resize(set_.dynamics.outputs());
    loss_scratch_.resize(irk_pinn_scratch_size(n, R));
    stage_load_.resize(static_cast<std::size_t>(R * n));
    mlp_init(set_.dynamics, spec.pinn.seed, 0, params_.data());
    buf_ = IrkPinnBuffers<T>{params_.data(), grad_.data(), work_.data(), cache_.data(),
                             scratch_.data(), d_out_.data(), loss_scratch_.data()};
    rk_ws_ = std::make_unique<RkLcpWorkspace<D>>();
  }
  PinnRunStepper(const PinnRunStepper&) = delete;
  PinnRunStepper& operator=(const PinnRunStepper&) = delete;

  StepReport step(State<D>& s, const StepOptions& opt) {
    PinnStepReport pr;
    const StepReport r =
        set_.framework == PinnFramework::central
            ? central_pinn_step(m_, s, dt_, set_, opt, *moreau_ws_, *lcp_ws_, pr)
            : irk_pinn_step(m_, *map_, table_, set_, s, opt, *rk_ws_, *lcp_ws_, buf_, stage_load_.data(), pr);
    totals_.iterations += pr.dynamics.iterations;
    totals_.lcp_iterations += pr.lcp.iterations;
    if (pr.dynamics.loss > totals_.max_loss) totals_.max_loss = pr.dynamics.loss;
    if (set_.framework != PinnFramework::central && !pr.dynamics.converged) ++totals_.unconverged;
    return r;
  }
  const PinnTotals& totals() const { return totals_; }

 private:
  const Model<D>& m_;
  T dt_;
  PinnStepSettings set_;
  std::vector<T> a_, b_, c_;
  StageTable<T> table_{};
  std::unique_ptr<RkStepMap<D>> map_;
  std::vector<T> params_, grad_, work_, cache_, scratch_, d_out_, loss_scratch_, stage_load_;
  IrkPinnBuffers<T> buf_{};
  std::unique_ptr<RkLcpWorkspace<D>> rk_ws_;
  std::unique_ptr<MoreauWorkspace<D>> moreau_ws_;
  std::unique_ptr<LcpPinnWorkspace<T, D::max_lcp>> lcp_ws_;
  PinnTotals totals_;
};

// the PINN steppers over `steps` steps of dt
template <class D, class Observer>
RunOutcome simulate_pinn(const MethodSpec& spec, const Model<D>& m, State<D>& s, double dt, long steps,
                         const StepOptions& opt, Observer&& observe) {
  PinnRunStepper<D> stepper(spec, m, dt);
  RunOutcome out = simulate_steps(s, dt, steps, [&](State<D>& st) { return stepper.step(st, opt); }, observe);
  out.pinn = stepper.totals();
  return out;
}

// a time stepper of `spec` (Moreau, RK4-LCP, Gauss IRK-LCP or a PINN framework) over `steps` steps of dt
template <class D, class Observer>
RunOutcome simulate_time_stepper(const MethodSpec& spec, const Model<D>& m, State<D>& s, double dt, long steps,
                                 const StepOptions& opt, Observer&& observe) {
  if (spec.kind == MethodKind::event_driven)
    throw std::invalid_argument("simulate_time_stepper: the event-driven reference is not a time stepper");
  if (spec.kind == MethodKind::moreau) return simulate_moreau(m, s, dt, steps, opt, observe);
  if (spec.kind == MethodKind::pinn) return simulate_pinn(spec, m, s, dt, steps, opt, observe);
  auto map = std::make_unique<RkStepMap<D>>();
  make_method_step_map(spec, m, dt, *map);
  return simulate_rk_lcp(m, *map, s, steps, opt, observe);
}

}  // namespace fivsim
