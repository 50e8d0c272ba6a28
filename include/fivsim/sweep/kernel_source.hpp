// fivsim/sweep/kernel_source.hpp — the CUDA source of a sweep's kernel specialised to its scenario:
// the belt runner's per-case code (cases/belt_runner.hpp), the general one's
// (cases/sweep_case.hpp) or a PINN sweep's training rounds (cases/pinn_rows.hpp), included, not copied, with the
// chunk's shared setup (model, start, time grid), analysis, step options and swept targets folded in as constants
// (their bytes, bit-cast in the kernel, so that NVRTC's optimiser sees every value: zero dampings vanish, the friction
// law's switch is decided, the section, observers and stepper are known). Only the swept rows (or, where each case has
// its own, the setups) are read per case. Compiled at run time by NVRTC (sweep/kernel_compiler.hpp), as JAX and
// DiffEqGPU compile the user's model into the kernel.
#pragma once

#include <string>

#include "fivsim/cases/belt_runner.hpp"
#include "fivsim/cases/sweep_case.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim::sweep {

// the name the specialised belt kernel has in its module, and its parameters, as the generic belt
// kernel's less what is folded: (CaseBatch<D> cases, const double* reference, CaseResult<D>*
// results, double* points, long per_case)
inline constexpr const char* kSpecialisedBeltKernelName = "fivsim_specialised_belt";
// the general kernel's name, its parameters the prebuilt sweep_kernel's (kernels/sweep_batch.cuh),
// of which it reads only the chunk's own: (CaseBatch<D> chunk, SweepAnalysis (its reference),
// StepOptions (unread), CaseResult<D>* results, double* points, long per_case, unsigned long long*
// queue, OrbitWork<D>* orbit_work, SwitchingTangent<D>* tangent_work)
inline constexpr const char* kSpecialisedCaseKernelName = "fivsim_specialised_cases";
// the orbit observer's pass in the same module (double precision, with the orbit observer), its
// parameters the prebuilt orbit_kernel's: (CaseBatch<D> chunk, SweepAnalysis (its reference),
// CaseResult<D>* results, const double* points, long per_case, unsigned long long* queue,
// OrbitWork<D>* orbit_work)
inline constexpr const char* kSpecialisedOrbitKernelName = "fivsim_specialised_orbits";
// a PINN sweep's two round kernels (cases/pinn_rows.hpp) with its dynamic network's layout and
// optimizer folded in, their parameters the prebuilt evaluate_kernel's and tell_kernel's
// (kernels/sweep_pinn.cu): (PinnCase<PinnSweepDims>* run, const int* rows, const int* nr, int
// group, double* loss) and (PinnCase<PinnSweepDims>* run, const int* rows, const int* nr, const
// double* loss, int* next, int* count)
inline constexpr const char* kSpecialisedPinnEvaluateName = "fivsim_specialised_pinn_evaluate";
inline constexpr const char* kSpecialisedPinnTellName = "fivsim_specialised_pinn_tell";
// threads a block of the specialised kernels, their launch bounds
inline constexpr int kSpecialisedBlock = 128;

// the source of the belt kernel of model `b` (the chunk's shared setup), analysis `an` (its
// reference series passed at launch) and step options `opt`
template <class D>
std::string belt_kernel_source(const BeltModel<D>& b, const SweepAnalysis& an, const StepOptions& opt);

// the source of the general kernel of a chunk `cases` (what every chunk shares is folded: the setup
// where the cases share one, the swept targets, the stepper), analysis `an` and step options `opt`
template <class D>
std::string case_kernel_source(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt);

// the source of a PINN sweep's round kernels for its settings `set`
std::string pinn_kernel_source(const PinnStepSettings& set);

#define FIVSIM_KERNEL_SOURCE_EXTERN(D)                                                                              \
  extern template std::string belt_kernel_source<D>(const BeltModel<D>&, const SweepAnalysis&, const StepOptions&); \
  extern template std::string case_kernel_source<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_KERNEL_SOURCE_EXTERN)
#undef FIVSIM_KERNEL_SOURCE_EXTERN

}  // namespace fivsim::sweep
