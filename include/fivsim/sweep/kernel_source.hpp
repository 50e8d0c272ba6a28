// fivsim/sweep/kernel_source.hpp — the CUDA source of a sweep's kernel specialised to its scenario:
// the belt runner's per-case code (cases/belt_runner.hpp), included, not copied, with the chunk's
// model, time grid, analysis and step options folded in as constants (their bytes, bit-cast in the
// kernel, so that NVRTC's optimiser sees every value: zero dampings vanish, the friction law's
// switch is decided, the section and observers are known). Only the swept rows are read per case.
// Compiled at run time by NVRTC (sweep/kernel_compiler.hpp), as JAX and DiffEqGPU compile the
// user's model into the kernel.
#pragma once

#include <string>

#include "fivsim/cases/belt_runner.hpp"

namespace fivsim::sweep {

// the name the specialised kernel has in its module, and its parameters, as the generic belt
// kernel's less what is folded: (CaseBatch<D> cases, const double* reference, CaseResult<D>*
// results, double* points, long per_case)
inline constexpr const char* kSpecialisedKernelName = "fivsim_specialised_belt";
// threads a block of the specialised kernel, its launch bounds
inline constexpr int kSpecialisedBlock = 128;

// the source of the belt kernel of model `b` (the chunk's shared setup), analysis `an` (its
// reference series passed at launch) and step options `opt`
template <class D>
std::string belt_kernel_source(const BeltModel<D>& b, const SweepAnalysis& an, const StepOptions& opt);

#define FIVSIM_KERNEL_SOURCE_EXTERN(D) \
  extern template std::string belt_kernel_source<D>(const BeltModel<D>&, const SweepAnalysis&, const StepOptions&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_KERNEL_SOURCE_EXTERN)
#undef FIVSIM_KERNEL_SOURCE_EXTERN

}  // namespace fivsim::sweep
