// fivsim/batch/sweep.hpp — the batch engine of `fivsim sweep`: cases of one scenario built from its
// sweep block, grouped in chunks, run by the CPU backend (OpenMP) or the CUDA backend on the same
// FIVSIM_HD case runner (case_runner.hpp), one fixed-size instantiation per model size.
#pragma once

#include <string>
#include <vector>

#include "fivsim/batch/sweep_backend.hpp"
#include "fivsim/batch/sweep_pinn_backend.hpp"
#include "fivsim/batch/sweep_spec.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim::batch {

// the instantiation that runs a model: 1, 2 or 5 for the exact ones (n DoF and n contacts), else
// 102, 108 or 124 for the capacities 2, 8 and 24 DoF; 0 when none holds it
int sweep_dims_size(int n_dof, int n_contacts);

// the section and classification settings of a scenario
SweepAnalysis sweep_analysis(const Scenario& sc);

// step options of the batch path for a precision (float needs looser LCP tolerances)
StepOptions sweep_step_options(const Scenario& sc, bool single_precision);

// the scenario of case `index`: the base document with the case's values; throws an InputError
// naming the case and the swept values when the case is not a valid scenario
Scenario case_scenario(const json& base, const SweepSpec& spec, long index, std::vector<double>& values);

// model, start state and time grid of a case
template <class D>
void make_case_setup(const Scenario& sc, double stick_tol, CaseSetup<D>& setup);

// the Runge–Kutta step map of a case whose method is rk4lcp or irk (rk_step_map.hpp), or the Gauss
// map of an IRK-PINN framework
template <class D>
void make_case_rk_map(const Scenario& sc, const Model<D>& m, RkStepMap<D>& map);

#define FIVSIM_SWEEP_EXTERN(D)                                                             \
  extern template void make_case_setup<D>(const Scenario&, double, CaseSetup<D>&); \
  extern template void make_case_rk_map<D>(const Scenario&, const Model<D>&, RkStepMap<D>&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_EXTERN)
#undef FIVSIM_SWEEP_EXTERN

}  // namespace fivsim::batch
