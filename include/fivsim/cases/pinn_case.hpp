// fivsim/cases/pinn_case.hpp — one case of a PINN sweep (seed 000 §2.3.3–2.3.4, seed 001 §2.3) in
// the parts a lockstep orchestrator drives: each time step's begin (the contact LCP, classical or
// the LCP-PINN's training started), the training rounds of every row (pinn_case_evaluate,
// pinn_case_tell) and its end (the end state, the runner's observers), for the case and its
// Lyapunov twin over their own memory blocks (docs/DESIGN.md "Lockstep PINN training"). FIVSIM_HD
// code: the CPU's OpenMP loops and the device's kernels (kernels/sweep_pinn.cu) run it alike.
#pragma once

#include "fivsim/cases/case_runner.hpp"
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
  PinnStepRun<T> step[2];  // this step's, per copy
  int copies = 1;          // this step's steppers: 2 while the twin runs
  bool active = false;     // still stepping
  PinnTotals totals;       // the case's own trainings
};

// starts a case: its runner at the setup's start, its steppers bound to `blocks` (layout L; a second
// block after the first for the twin when an.lyapunov_every > 0) and reset; map is the case's Gauss
// step map (null for pinn_central)
template <class D>
FIVSIM_HD inline void pinn_case_start(PinnCase<D>& x, const CaseSetup<D>& setup, const RkStepMap<D>* map,
                                      const PinnStepSettings& set, const StageTable<typename D::scalar>& tab,
                                      const PinnBlockLayout& L, unsigned char* blocks, const SweepAnalysis& an,
                                      const StepOptions& opt, CaseResult<D>& r, double* points) {
  if (&setup != &x.setup) x.setup = setup;  // a batch may have made the setup in place
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

// phase 1: the step's contact LCP for the case and its twin, solved or handed to the LCP-PINN
template <class D>
FIVSIM_HD inline void pinn_case_step_begin(PinnCase<D>& x) {
  x.run.before_step();
  x.copies = x.run.twin ? 2 : 1;
  for (int w = 0; w < x.copies; ++w) x.st[w].begin(pinn_case_state(x, w), *x.opt, x.step[w]);
}

// whether copy w of the case is training (wants an evaluation)
template <class D>
FIVSIM_HD inline bool pinn_case_training(const PinnCase<D>& x, int w) {
  return x.active && w < x.copies && x.step[w].training();
}

// phase 2, one evaluation: the loss of copy w's network in training at its optimizer's evaluation
// point, its gradient left beside that point
template <class D>
FIVSIM_HD inline typename D::scalar pinn_case_evaluate(PinnCase<D>& x, int w) {
  return x.st[w].evaluate(pinn_case_state(x, w), x.step[w]);
}

// phase 2, one tell: copy w's training takes the loss; whether it wants another evaluation
template <class D>
FIVSIM_HD inline bool pinn_case_tell(PinnCase<D>& x, int w, typename D::scalar loss) {
  return x.st[w].tell(pinn_case_state(x, w), *x.opt, x.step[w], loss);
}

// phase 3: the end states from the trained networks, the runner's observers; false when the case
// has stopped (failed, decided, or at its last step), its result then complete
template <class D>
FIVSIM_HD inline bool pinn_case_step_end(PinnCase<D>& x) {
  for (int w = 0; w < x.copies; ++w) x.st[w].end(pinn_case_state(x, w), *x.opt, x.step[w]);
  x.totals.count(x.step[0].pr, x.st[0].set->framework);
  const bool twin_failed = x.copies == 2 && x.step[1].rep.status != Status::ok;
  x.active = x.run.template after_step<false>(x.step[0].rep, twin_failed) && x.run.running();
  if (!x.active) x.run.finish();
  return x.active;
}

}  // namespace fivsim
