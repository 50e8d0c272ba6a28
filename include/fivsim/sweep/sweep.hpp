// fivsim/sweep/sweep.hpp — the engine of `fivsim sweep`: the cases of one plan (one model
// plus N rows, sweep_plan.hpp) prepared chunk by chunk for the CPU backend (OpenMP) or the CUDA
// backend, both over the same FIVSIM_HD case runner (case_runner.hpp), one fixed-size
// instantiation per model size.
#pragma once

#include <string>
#include <vector>

#include "fivsim/sweep/sweep_backend.hpp"
#include "fivsim/sweep/sweep_pinn_backend.hpp"
#include "fivsim/sweep/sweep_plan.hpp"
#include "fivsim/sweep/sweep_spec.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim::sweep {

// the section and classification settings of a scenario
SweepAnalysis sweep_analysis(const Scenario& sc);

// step options of the batch path for a precision (float needs looser LCP tolerances)
StepOptions sweep_step_options(const Scenario& sc, bool single_precision);

// the Runge–Kutta step map of a model and dt for a method that has one (rk4lcp, irk), or the
// Gauss map of an IRK-PINN framework
template <class D>
void make_case_rk_map(const MethodSpec& spec, const Model<D>& m, double dt, RkStepMap<D>& map);

// whether a method's cases carry a Runge–Kutta step map: rk4lcp, irk and the IRK-PINN frameworks
bool method_has_step_map(const MethodSpec& spec);

// what every chunk of a sweep starts from: the uniform setup and, when all cases share it, the
// step map
template <class D>
struct SweepShared {
  CaseSetup<D> setup;
  std::vector<RkStepMap<D>> map;  // one map shared by every case, or none
  double stick_tol = 0.0;
  SweepShared(const SweepPlan& plan, double stick_tol);
};

// the cases [first, first + n) of a plan ready for a backend: their rows and, where the plan
// makes them on the host, their own setups and step maps
template <class D>
struct PreparedCases {
  long first = 0, n = 0;
  std::vector<double> rows;          // parameter k of case i at rows[k * n + i]
  std::vector<CaseSetup<D>> setups;  // one per case, or the shared one
  std::vector<RkStepMap<D>> maps;    // one per case, the shared one, or none (Moreau)
  SlotTargets targets;               // written per case by the backend (with a shared setup)
  double stick_tol = 0.0;
  bool switching = false;  // the switching integrator with these settings
  SwitchingSettings switching_settings;

  CaseBatch<D> batch() const;
};

// prepares cases [first, first + n) (OpenMP over the cases where each has its own setup); throws
// the InputError of the lowest case whose model its values make invalid
template <class D>
void prepare_cases(const SweepPlan& plan, const SweepShared<D>& shared, long first, long n, PreparedCases<D>& out);

#define FIVSIM_SWEEP_EXTERN(D)                                                                         \
  extern template void make_case_rk_map<D>(const MethodSpec&, const Model<D>&, double, RkStepMap<D>&); \
  extern template struct SweepShared<D>;                                                               \
  extern template struct PreparedCases<D>;                                                             \
  extern template void prepare_cases<D>(const SweepPlan&, const SweepShared<D>&, long, long, PreparedCases<D>&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_EXTERN)
#undef FIVSIM_SWEEP_EXTERN

}  // namespace fivsim::sweep
