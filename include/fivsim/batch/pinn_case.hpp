// fivsim/batch/pinn_case.hpp — one case of a PINN sweep (seed 000 §2.3.3–2.3.4, seed 001 §2.3) in
// the parts a lockstep orchestrator drives: the case's runner (case_runner.hpp's CaseRun) and its
// PINN steppers (pinn_step.hpp), one for the case and one for its Lyapunov twin, over the case's own
// memory blocks.
//
// A time step of a PINN sweep is three phases over all active cases (docs/METHODS.md "Lockstep
// PINN training"):
//   1. pinn_case_step_begin — per case: the contact force of the step (classical LCP or LCP-PINN)
//      and the stage loads, then the dynamic network's optimizer started from its last weights;
//   2. the trainings — every training row (case or twin) that has not stopped is evaluated
//      (pinn_case_evaluate: one forward + backward pass at the point its optimizer names) and told
//      the result (pinn_case_tell: its own L-BFGS history, line search and stopping test), until
//      no row wants another evaluation;
//   3. pinn_case_step_end — per case: the end state from the trained network, the runner's
//      observers, and whether the case goes on.
// Written once as FIVSIM_HD code over plain structs: the CPU backend runs the phases in OpenMP
// loops (src/batch/sweep.cpp), the CUDA backend as kernels over all cases at once, its training
// rows evaluated by groups of lanes (kernels/sweep_pinn.cu). The optimizer is the same reverse-
// communication code either way (pinn/optimizer.hpp), so the schedule does not change the answer.
#pragma once

#include "fivsim/batch/case_runner.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim {

// PINN sweeps run one instantiation: models up to 8 DoF and 8 contacts, double precision
using PinnSweepDims = Dims<double, 8, 8>;

// one case of a PINN sweep between phases. Not movable once started (its runner points into it).
template <class D>
struct PinnCase {
  using T = typename D::scalar;
  CaseSetup<D> setup;
  CaseRun<D> run;
  PinnStepper<D> st[2];  // the case's stepper and its twin's
  const StepOptions* opt = nullptr;
  State<D> s, twin;
  StepReport rep[2];     // this step's, per copy
  PinnStepReport pr[2];
  OptimizerRun<T> train[2];
  int copies = 1;        // this step's steppers: 2 while the twin runs
  bool active = false;   // still stepping
  PinnTotals totals;     // the case's own trainings
};

// starts a case: its runner at the setup's start, its steppers bound to `blocks` (layout L; a second
// block after the first for the twin when an.lyapunov_every > 0) and reset; map is the case's Gauss
// step map (null for pinn_central)
template <class D>
FIVSIM_HD inline void pinn_case_start(PinnCase<D>& x, const CaseSetup<D>& setup, const RkStepMap<D>* map,
                                      const PinnStepSettings& set, const StageTable<typename D::scalar>& tab,
                                      const PinnBlockLayout& L, unsigned char* blocks, const SweepAnalysis& an,
                                      const StepOptions& opt, CaseResult<D>& r, double* points) {
  x.setup = setup;
  x.opt = &opt;
  x.totals = PinnTotals();
  x.run = CaseRun<D>();
  x.run.begin(x.setup, an, opt, x.s, r, points, &x.twin);
  x.copies = x.run.twin ? 2 : 1;
  for (int w = 0; w < x.copies; ++w) {
    PinnStepper<D>& p = x.st[w];
    p.m = &x.setup.model;
    p.map = map;
    p.tab = tab;
    p.set = &set;
    p.dt = typename D::scalar(x.setup.dt);
    p.bind(blocks + w * L.bytes, L);
    p.reset();
  }
  x.active = x.run.running();
  if (!x.active) x.run.finish();
}

template <class D>
FIVSIM_HD inline State<D>& pinn_case_state(PinnCase<D>& x, int w) {
  return w == 0 ? x.s : x.twin;
}

// phase 1: the step's contact force and stage loads for the case and its twin; each copy whose
// begin succeeded and that trains a dynamic network has its optimizer started
template <class D>
FIVSIM_HD inline void pinn_case_step_begin(PinnCase<D>& x) {
  x.run.before_step();
  x.copies = x.run.twin ? 2 : 1;
  for (int w = 0; w < x.copies; ++w) {
    const PinnStepper<D>& p = x.st[w];
    x.rep[w] = p.begin(pinn_case_state(x, w), *x.opt, x.pr[w]);
    x.train[w] = OptimizerRun<typename D::scalar>();
    if (x.rep[w].status == Status::ok && p.trains())
      optimizer_start(p.set->dynamics.param_count(), p.buf.params, p.set->dynamics_optimizer, x.train[w], p.buf.work);
  }
}

// whether copy w of the case is training (wants an evaluation)
template <class D>
FIVSIM_HD inline bool pinn_case_training(const PinnCase<D>& x, int w) {
  return x.active && w < x.copies && !x.train[w].done();
}

// phase 2, one evaluation: the loss of copy w's network at its optimizer's evaluation point, its
// gradient left beside that point
template <class D>
FIVSIM_HD inline typename D::scalar pinn_case_evaluate(PinnCase<D>& x, int w) {
  const PinnStepper<D>& p = x.st[w];
  const int np = p.set->dynamics.param_count();
  return irk_pinn_objective(*p.m, p.tab, p.data(pinn_case_state(x, w)), p.set->dynamics, p.buf,
                            optimizer_eval_x(np, p.buf.work), optimizer_eval_grad(np, p.buf.work));
}

// phase 2, one tell: copy w's optimizer takes the loss; whether it wants another evaluation
template <class D>
FIVSIM_HD inline bool pinn_case_tell(PinnCase<D>& x, int w, typename D::scalar loss) {
  const PinnStepper<D>& p = x.st[w];
  return optimizer_tell(p.set->dynamics.param_count(), p.buf.params, p.buf.grad, loss, p.set->dynamics_optimizer,
                        x.train[w], p.buf.work);
}

// phase 3: the end states from the trained networks, the runner's observers; false when the case
// has stopped (failed, decided, or at its last step), its result then complete
template <class D>
FIVSIM_HD inline bool pinn_case_step_end(PinnCase<D>& x) {
  for (int w = 0; w < x.copies; ++w) {
    const PinnStepper<D>& p = x.st[w];
    if (x.rep[w].status != Status::ok || !p.trains()) continue;
    x.pr[w].dynamics = x.train[w].res;
    p.end(pinn_case_state(x, w), *x.opt, x.rep[w]);
  }
  x.totals.count(x.pr[0], x.st[0].set->framework);
  const bool twin_failed = x.copies == 2 && x.rep[1].status != Status::ok;
  x.active = x.run.template after_step<false>(x.rep[0], twin_failed) && x.run.running();
  if (!x.active) x.run.finish();
  return x.active;
}

}  // namespace fivsim
