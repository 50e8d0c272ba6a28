// fivsim/batch/pinn_case.hpp — one case of a PINN sweep (seed 000 §2.3.3–2.3.4, seed 001 §2.3):
// the case runner (case_runner.hpp) driven by PinnSteppers (pinn_step.hpp) over the case's own
// memory blocks, one for the case and one for its Lyapunov twin. Written once as FIVSIM_HD code:
// the CPU backend calls it from an OpenMP loop (src/batch/sweep.cpp), the CUDA backend from one
// thread per case (kernels/sweep_pinn.cu), so both train the same networks the same way.
#pragma once

#include "fivsim/batch/case_runner.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim {

// PINN sweeps run one instantiation: models up to 8 DoF and 8 contacts, double precision
using PinnSweepDims = Dims<double, 8, 8>;

// the steppers of a case (which = 0) and its twin (1), for run_case_with; totals counts the
// case's own trainings
template <class D>
struct PinnCaseStepper {
  PinnStepper<D> st[2];
  const StepOptions* opt = nullptr;
  PinnTotals totals;
  FIVSIM_HD StepReport step(int which, State<D>& s) {
    PinnStepReport pr;
    const StepReport r = st[which].step(s, *opt, pr);
    if (which == 0) totals.count(pr, st[0].set->framework);
    return r;
  }
  FIVSIM_HD void reset(int which) { st[which].reset(); }
};

// runs one case of a PINN sweep. blocks: one block (layout L) for the case, a second one after it
// for the twin when an.lyapunov_every > 0; map: the case's Gauss step map (null for pinn_central);
// tab: the shared stage table
template <class D>
FIVSIM_HD inline void run_pinn_case(const CaseSetup<D>& setup, const RkStepMap<D>* map, const PinnStepSettings& set,
                                    const StageTable<typename D::scalar>& tab, const PinnBlockLayout& L,
                                    unsigned char* blocks, const SweepAnalysis& an, const StepOptions& opt,
                                    State<D>& s, State<D>* twin, CaseResult<D>& r, double* points,
                                    PinnTotals& totals) {
  PinnCaseStepper<D> stepper;
  stepper.opt = &opt;
  const int copies = an.lyapunov_every > 0 && twin ? 2 : 1;
  for (int w = 0; w < copies; ++w) {
    PinnStepper<D>& p = stepper.st[w];
    p.m = &setup.model;
    p.map = map;
    p.tab = tab;
    p.set = &set;
    p.dt = typename D::scalar(setup.dt);
    p.bind(blocks + w * L.bytes, L);
  }
  run_case_with(setup, an, opt, stepper, s, r, points, copies == 2 ? twin : nullptr);
  totals = stepper.totals;
}

}  // namespace fivsim
