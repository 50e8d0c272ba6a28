// fivsim/integrate/pinn_step.hpp — the PINN time steppers of seed 000 (§2.3.3–2.3.4, §4.2) and
// seed 001 (§2.3).
//
// IRK-PINN frameworks (pinn_single, pinn_dual, pinn_adv_single, pinn_adv_dual), one step:
//   1. the contact LCP of the step, written on the impulse-free end state of the same q-stage
//      Gauss map as the IRK-LCP stepper (rk_lcp.hpp; seed 000 Eqs. 12, 14, 28), is solved by a
//      classical solver (single) or by the LCP-PINN trained on it in this step (dual, lcp_pinn.hpp);
//   2. the contact force is held over the stages (single, dual) or interpolated from the previous
//      step's force, F_k = F_prev + c_k (F − F_prev) (advanced variants, Eqs. 30–31; held in a step
//      whose contact regime changes, as in irkQ-interp);
//   3. the dynamic network (irk_pinn.hpp) is trained on the step from the previous step's weights
//      and its outputs give the end state.
// At zero training loss step 3 reproduces the Gauss collocation step, so pinn_single → irkQ and
// pinn_adv_single → irkQ-interp as the tolerance shrinks: the difference between them measures
// the training, which is the honest comparison the seeds invite (docs/METHODS.md).
//
// pinn_central (seed 001 Eqs. 13–14): a central-difference update, q_M = q_A + dt/2 u_A,
// u_E = u_A + M⁻¹(h(q_M, u_A) dt + W Λ), q_E = q_M + dt/2 u_E, with the contact LCP of the
// velocity update (Moreau's, written at q_M) solved by the LCP-PINN.
#pragma once

#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/pinn/irk_pinn.hpp"
#include "fivsim/pinn/lcp_pinn.hpp"

namespace fivsim {

enum class PinnFramework : int { single = 0, dual = 1, adv_single = 2, adv_dual = 3, central = 4 };

FIVSIM_HD inline bool pinn_uses_lcp_pinn(PinnFramework f) {
  return f == PinnFramework::dual || f == PinnFramework::adv_dual || f == PinnFramework::central;
}
FIVSIM_HD inline bool pinn_interpolates(PinnFramework f) {
  return f == PinnFramework::adv_single || f == PinnFramework::adv_dual;
}

// what a PINN step reports besides the StepReport: the two trainings
struct PinnStepReport {
  OptimizerResult dynamics;  // the IRK-PINN (not run by pinn_central)
  OptimizerResult lcp;       // the LCP-PINN (dual variants, central)
};

// the trainings of a PINN run (or of one case of a sweep), summed over its steps
struct PinnTotals {
  long iterations = 0;      // optimizer iterations of the dynamic networks
  long lcp_iterations = 0;  // optimizer iterations of the LCP-PINNs
  double max_loss = 0.0;    // the worst final loss of a dynamic training
  long unconverged = 0;     // steps whose dynamic training stopped above its tolerance
  FIVSIM_HD void count(const PinnStepReport& pr, PinnFramework f) {
    iterations += pr.dynamics.iterations;
    lcp_iterations += pr.lcp.iterations;
    if (pr.dynamics.loss > max_loss) max_loss = pr.dynamics.loss;
    if (f != PinnFramework::central && !pr.dynamics.converged) ++unconverged;
  }
  FIVSIM_HD void add(const PinnTotals& o) {
    iterations += o.iterations;
    lcp_iterations += o.lcp_iterations;
    max_loss = o.max_loss > max_loss ? o.max_loss : max_loss;
    unconverged += o.unconverged;
  }
};

// the LCP-PINN as a solver functor for the steppers
template <class D>
struct LcpPinnSolver {
  const LcpPinnSettings* settings;
  LcpPinnWorkspace<typename D::scalar, D::max_lcp>* ws;
  FIVSIM_HD LcpResult operator()(const LcpMatrix<typename D::scalar, D::max_lcp>& A,
                                 const LcpVector<typename D::scalar, D::max_lcp>& b,
                                 LcpVector<typename D::scalar, D::max_lcp>& x,
                                 LcpVector<typename D::scalar, D::max_lcp>& y, const LcpOptions& o) const {
    return lcp_pinn_solve(A, b, x, y, o, *settings, *ws);
  }
};

// the settings of a PINN stepper (immutable over a run; simulate_pinn fills them from the
// scenario's PinnConfig, which holds the defaults)
struct PinnStepSettings {
  PinnFramework framework = PinnFramework::single;
  MlpLayout dynamics;  // q → n(R+1) stage and end velocities
  OptimizerOptions dynamics_optimizer;
  LcpPinnSettings lcp;
  double lcp_tolerance = 0.0;  // natural-map residual the LCP-PINN's answer must meet
  uint64_t seed = 1;           // the dynamic network's initialisation
};

// where a PINN step is between its parts (PinnStepper::begin / evaluate / tell / end): training
// the LCP-PINN on the step's contact LCP, training the dynamic network, or done
enum class PinnStage : int { contact = 0, dynamics = 1, done = 2 };

template <class T>
struct PinnStepRun {
  PinnStage stage = PinnStage::done;
  StepReport rep;
  PinnStepReport pr;
  bool ramp = false;         // IRK frameworks: the stage forces interpolate (rk_lcp.hpp)
  bool has_lcp = false;      // the step has a contact LCP (contacts, and no closed form)
  OptimizerRun<T> dynamics;  // the dynamic network's training
  FIVSIM_HD bool training() const { return stage != PinnStage::done; }
};

// the stage loads of an IRK-PINN step (R × n values): the contact force of the step, held or
// interpolated from the previous step's (Eq. 30), plus the external loads
template <class D>
FIVSIM_HD inline void irk_pinn_stage_loads(const Model<D>& m, const RkStepMap<D>& map,
                                           const StageTable<typename D::scalar>& tab, const RkLcpWorkspace<D>& rk,
                                           bool ramp, typename D::scalar t, typename D::scalar* stage_load) {
  const int n = m.n_dof;
  for (int k = 0; k < tab.R; ++k)
    for (int d = 0; d < n; ++d)
      stage_load[k * n + d] = ramp ? rk.force_prev[d] + tab.c[k] * (rk.force[d] - rk.force_prev[d]) : rk.force[d];
  irk_pinn_add_external_loads(m, tab, t, map.dt, stage_load);
}

// the dynamic network's training data of the step from s
template <class D>
FIVSIM_HD inline IrkPinnStep<typename D::scalar> irk_pinn_step_data(const RkStepMap<D>& map, const State<D>& s,
                                                                    const typename D::scalar* stage_load) {
  IrkPinnStep<typename D::scalar> st;
  st.dt = map.dt;
  st.q = s.q.v;
  st.u = s.u.v;
  st.load = stage_load;
  return st;
}

// the last part, after the training: the end state from the trained network's outputs
template <class D>
FIVSIM_HD inline void irk_pinn_step_end(const Model<D>& m, const RkStepMap<D>& map,
                                        const StageTable<typename D::scalar>& tab, const PinnStepSettings& set,
                                        State<D>& s, const StepOptions& opt, RkLcpWorkspace<D>& rk,
                                        const IrkPinnBuffers<typename D::scalar>& buf,
                                        const typename D::scalar* stage_load, StepReport& rep) {
  using T = typename D::scalar;
  const int n = m.n_dof;
  const IrkPinnStep<T> st = irk_pinn_step_data(map, s, stage_load);
  const T* out = mlp_forward(set.dynamics, buf.params, st.q, buf.cache);
  T q_end[D::max_dof], u_end[D::max_dof];
  irk_pinn_end_state(n, tab, st, out, q_end, u_end);
  for (int d = 0; d < n; ++d) {
    s.q[d] = q_end[d];
    s.u[d] = u_end[d];
  }
  rk_lcp_finish(m, map, opt, rk, s, rep);
}

// ---- one PINN stepper over one block of memory --------------------------------------------
// The stepper's state — the classical scratch, the LCP-PINN's workspace, the dynamic network's
// weights and training buffers — lives in one caller-provided block, laid out by
// pinn_block_layout for the settings. fivsim run keeps one block on the heap (simulation.hpp);
// a sweep gives each case a slice of one arena, on the host or on the device, and drives the
// steppers' parts in lockstep (cases/pinn_case.hpp): all run this same code.

// byte offsets of the parts of a block (64-byte aligned) and the sizes of the value arrays
struct PinnBlockLayout {
  long moreau = 0, rk = 0, lcp = 0, solver = 0, values = 0, bytes = 0;
  int params = 0, work = 0, cache = 0, scratch = 0, d_out = 0, loss_scratch = 0, stage_load = 0;
};

namespace detail {
FIVSIM_HD inline long align64(long b) { return (b + 63) / 64 * 64; }
}  // namespace detail

// the layout for a model of n DoF and R Gauss stages (R unused by pinn_central)
template <class D>
FIVSIM_HD inline PinnBlockLayout pinn_block_layout(const PinnStepSettings& set, int n, int R) {
  using T = typename D::scalar;
  PinnBlockLayout L;
  long at = 0;
  L.moreau = at;
  at = detail::align64(at + static_cast<long>(sizeof(MoreauWorkspace<D>)));
  L.rk = at;
  at = detail::align64(at + static_cast<long>(sizeof(RkLcpWorkspace<D>)));
  L.lcp = at;
  at = detail::align64(at + static_cast<long>(sizeof(LcpPinnWorkspace<T, D::max_lcp>)));
  L.solver = at;
  at = detail::align64(at + static_cast<long>(sizeof(LcpScratch<T, D::max_lcp>)));
  L.values = at;
  if (set.framework != PinnFramework::central) {
    const MlpLayout& M = set.dynamics;
    L.params = M.param_count();
    L.work = optimizer_work_size(L.params, set.dynamics_optimizer);
    L.cache = M.cache_size();
    L.scratch = 2 * M.max_width();
    L.d_out = M.outputs();
    L.loss_scratch = irk_pinn_scratch_size(n, R);
    L.stage_load = R * n;
  }
  const long values = 2L * L.params + L.work + L.cache + L.scratch + L.d_out + L.loss_scratch + L.stage_load;
  L.bytes = detail::align64(at + values * static_cast<long>(sizeof(T)));
  return L;
}

// a PINN stepper over one block: model, step map (IRK frameworks), stage table and settings are
// shared and read-only; the block is this stepper's alone
template <class D>
struct PinnStepper {
  using T = typename D::scalar;
  const Model<D>* m = nullptr;
  const RkStepMap<D>* map = nullptr;  // null for pinn_central
  StageTable<T> tab;
  const PinnStepSettings* set = nullptr;
  T dt = T(0);
  MoreauWorkspace<D>* moreau = nullptr;
  RkLcpWorkspace<D>* rk = nullptr;
  LcpPinnWorkspace<T, D::max_lcp>* lcp = nullptr;
  // the contact solvers' temporaries: in the block, not on the stack, which a device reserves for
  // every thread it can hold (lcp.hpp)
  LcpScratch<T, D::max_lcp>* solver = nullptr;
  IrkPinnBuffers<T> buf;
  T* stage_load = nullptr;

  // points the stepper's parts into `block` (layout from pinn_block_layout)
  FIVSIM_HD void bind(unsigned char* block, const PinnBlockLayout& L) {
    moreau = reinterpret_cast<MoreauWorkspace<D>*>(block + L.moreau);
    rk = reinterpret_cast<RkLcpWorkspace<D>*>(block + L.rk);
    lcp = reinterpret_cast<LcpPinnWorkspace<T, D::max_lcp>*>(block + L.lcp);
    solver = reinterpret_cast<LcpScratch<T, D::max_lcp>*>(block + L.solver);
    T* v = reinterpret_cast<T*>(block + L.values);
    buf.params = v;
    buf.grad = v += L.params;
    buf.work = v += L.params;
    buf.cache = v += L.work;
    buf.scratch = v += L.cache;
    buf.d_out = v += L.scratch;
    buf.loss_scratch = v += L.d_out;
    stage_load = v + L.loss_scratch;
  }
  // a fresh start: no warm starts, the dynamic network at its initialisation
  FIVSIM_HD void reset() {
    moreau->has_basis = false;
    rk->has_basis = false;
    rk->ramp_ready = false;
    lcp->trained = false;
    lcp->restarts_used = 0;
    if (set->framework != PinnFramework::central) mlp_init(set->dynamics, set->seed, 0, buf.params);
  }
  // one whole step: the parts below in a plain loop
  FIVSIM_HD StepReport step(State<D>& s, const StepOptions& opt, PinnStepReport& pr) const {
    PinnStepRun<T> r;
    begin(s, opt, r);
    while (r.training() && tell(s, opt, r, evaluate(s, r))) {
    }
    end(s, opt, r);
    pr = r.pr;
    return r.rep;
  }

  // A step in parts, for an orchestrator that trains many steppers' networks together
  // (cases/pinn_case.hpp): begin builds the step's contact LCP and solves it, or starts the
  // LCP-PINN's training on it; while r.training(), evaluate gives the loss of the network in
  // training (the LCP-PINN, then the dynamic network) at its optimizer's point, its gradient beside
  // that point, and tell hands the loss back; end takes the end state from the trained network.
  // s stays the start state from begin to end; pinn_central, which has no dynamic network, ends its
  // step when its contact stage ends (s its end state from then on).
  FIVSIM_HD bool trains() const { return set->framework != PinnFramework::central; }  // a dynamic network
  FIVSIM_HD void begin(State<D>& s, const StepOptions& opt, PinnStepRun<T>& r) const {
    r = PinnStepRun<T>();
    if (trains()) {
      r.ramp = map->forces == StageForces::ramp && rk->ramp_ready;
    } else {
      // pinn_central: the velocity update of Moreau's step, taken at the midpoint q_M
      for (int d = 0; d < m->n_dof; ++d) s.q[d] += T(0.5) * dt * s.u[d];
    }
    LcpResult lr;
    if (solve_contact(s, opt, r, lr)) return;
    contact_solved(s, opt, r, lr);
  }
  FIVSIM_HD T evaluate(const State<D>& s, const PinnStepRun<T>& r) const {
    if (r.stage == PinnStage::contact) return lcp_pinn_evaluate(*lcp);
    const int np = set->dynamics.param_count();
    return irk_pinn_objective(*m, tab, data(s), set->dynamics, buf, optimizer_eval_x(np, buf.work),
                              optimizer_eval_grad(np, buf.work));
  }
  // whether the step wants another evaluation
  FIVSIM_HD bool tell(State<D>& s, const StepOptions& opt, PinnStepRun<T>& r, T loss) const {
    if (r.stage == PinnStage::contact) {
      const ContactProblem c = contact_problem();
      if (lcp_pinn_tell(c.lcp->A, c.lcp->b, *c.x, *c.y, set->lcp, *lcp, loss, solver)) return true;
      contact_solved(s, opt, r, lcp->run.res);
    } else if (r.stage == PinnStage::dynamics) {
      if (tell_dynamics(r.dynamics, loss)) return true;
      dynamics_trained(r);
    }
    return r.training();
  }
  // the dynamic network's optimizer step alone (a group of device lanes may share it) and the
  // stage's end once it stops
  template <class Lanes = SerialLanes>
  FIVSIM_HD bool tell_dynamics(OptimizerRun<T>& run, T loss, const Lanes& lanes = Lanes()) const {
    return tell_dynamics_with(set->dynamics, set->dynamics_optimizer, run, loss, lanes);
  }
  // the same with the network's layout and optimizer given (a specialised kernel's constants, which
  // are the settings' values)
  template <class Lanes = SerialLanes>
  FIVSIM_HD bool tell_dynamics_with(const MlpLayout& L, const OptimizerOptions& o, OptimizerRun<T>& run, T loss,
                                    const Lanes& lanes = Lanes()) const {
    return optimizer_tell(L.param_count(), buf.params, buf.grad, loss, o, run, buf.work, lanes);
  }
  FIVSIM_HD void dynamics_trained(PinnStepRun<T>& r) const {
    r.pr.dynamics = r.dynamics.res;
    r.stage = PinnStage::done;
  }
  FIVSIM_HD void end(State<D>& s, const StepOptions& opt, PinnStepRun<T>& r) const {
    if (trains() && r.rep.status == Status::ok)
      irk_pinn_step_end(*m, *map, tab, *set, s, opt, *rk, buf, stage_load, r.rep);
  }
  FIVSIM_HD IrkPinnStep<T> data(const State<D>& s) const { return irk_pinn_step_data(*map, s, stage_load); }

 private:
  struct ContactProblem {
    ContactLcp<D>* lcp;
    LcpVector<T, D::max_lcp>*x, *y;
  };
  FIVSIM_HD ContactProblem contact_problem() const {
    return trains() ? ContactProblem{&rk->lcp, &rk->x, &rk->y} : ContactProblem{&moreau->lcp, &moreau->x, &moreau->y};
  }
  // the options of the step's contact solve: the LCP-PINN's answer is judged against its own tolerance
  FIVSIM_HD StepOptions contact_options(const StepOptions& opt) const {
    StepOptions o = opt;
    if (pinn_uses_lcp_pinn(set->framework)) {
      o.lcp.tolerance = set->lcp_tolerance;
      o.closed_form_decoupled = false;
    }
    return o;
  }
  // builds the step's contact LCP (IRK frameworks: with r.ramp) and solves it with the classical
  // solver, lr then its answer; or starts the LCP-PINN's training on it and returns true
  FIVSIM_HD bool solve_contact(State<D>& s, const StepOptions& opt, PinnStepRun<T>& r, LcpResult& lr) const {
    const StepOptions o = contact_options(opt);
    LcpOptions lo = o.lcp;
    if (trains()) {
      lo = rk_lcp_build(*m, *map, s, o, r.ramp, *rk);
      r.has_lcp = m->n_contacts > 0;
    } else {
      r.has_lcp = moreau_build(*m, s, dt, o, *moreau, lo);
    }
    lr = LcpResult{};
    if (!r.has_lcp) return false;
    const ContactProblem c = contact_problem();
    if (!pinn_uses_lcp_pinn(set->framework)) {
      lr = ClassicalLcpSolverIn<T, D::max_lcp>{opt.solver, solver}(c.lcp->A, c.lcp->b, *c.x, *c.y, lo);
      return false;
    }
    if (lcp_pinn_start(c.lcp->A, c.lcp->b, *c.x, *c.y, lo, set->lcp, *lcp)) {
      r.stage = PinnStage::contact;
      return true;
    }
    lr = lcp->run.res;
    return false;
  }
  // the contact solve's answer lr is in: an interpolating step whose regime changed is solved again
  // with the force held; otherwise the contact force, then (IRK frameworks) the stage loads and the
  // dynamic network's optimizer, or (pinn_central) the rest of the step
  FIVSIM_HD void contact_solved(State<D>& s, const StepOptions& opt, PinnStepRun<T>& r, LcpResult lr) const {
    r.stage = PinnStage::done;
    if (!trains()) {
      r.rep = moreau_finish(*m, s, dt, contact_options(opt), *moreau, r.has_lcp, lr);
      r.pr.lcp = lcp->last;
      // moreau_finish moved q by dt·u_E; the second half-step moves it by dt/2·u_E only. A failed
      // LCP left u as it was: undo the first half-step, so the state is the start state again
      for (int d = 0; d < m->n_dof; ++d) s.q[d] -= T(0.5) * dt * s.u[d];
      return;
    }
    if (rk_lcp_regime_changed(lr, r.ramp, *rk)) {
      r.ramp = false;
      if (solve_contact(s, opt, r, lr)) return;
    }
    r.rep = rk_lcp_apply_force(*m, *map, lr, *rk);
    if (pinn_uses_lcp_pinn(set->framework)) r.pr.lcp = lcp->last;
    if (r.rep.status != Status::ok) return;
    irk_pinn_stage_loads(*m, *map, tab, *rk, r.ramp, s.t, stage_load);
    optimizer_start(set->dynamics.param_count(), buf.params, set->dynamics_optimizer, r.dynamics, buf.work);
    r.stage = PinnStage::dynamics;
  }
};

}  // namespace fivsim
