// fivsim/sweep/sweep_pinn_backend.hpp — the two backends of a PINN sweep over a chunk of cases,
// both the lockstep orchestration of pinn_case.hpp (all cases one time step at a time, their
// trainings advanced together) with each case's networks in its own memory blocks: CPU (OpenMP
// loops per phase, src/sweep/cpu_backend.cpp) and CUDA (a kernel per phase, kernels/sweep_pinn.cu;
// its training rounds' kernels specialised at run time where they can be).
// Plain structs only, so that nvcc compiles this header.
#pragma once

#include <memory>
#include <string>

#include "fivsim/cases/pinn_case.hpp"
#include "fivsim/sweep/kernel_options.hpp"
#include "fivsim/sweep/sweep_backend.hpp"

namespace fivsim::sweep {

class SpecialisedKernels;  // sweep/specialised_kernels.hpp (a build with CUDA)

// the training rounds' two heavy kernels as cudaLaunchKernel takes them (cases/pinn_rows.hpp):
// specialised to the sweep's network, or null for the prebuilt ones
struct PinnRoundKernels {
  const void* evaluate = nullptr;
  const void* tell = nullptr;
};

// a PINN sweep's round kernels specialised to its settings (sweep/kernel_source.hpp
// pinn_kernel_source), compiled or loaded from the kernel cache once for the whole sweep; their
// module stays loaded while `library` lives. Where none can be had, kernels is null and the
// report says why.
struct PinnSpecialised {
  std::shared_ptr<SpecialisedKernels> library;
  PinnRoundKernels kernels;
  KernelReport report;
};
#define FIVSIM_SPECIALISE_PINN_ROUNDS \
  PinnSpecialised specialise_pinn_rounds(const PinnStepSettings& set, const KernelOptions& options)
FIVSIM_SPECIALISE_PINN_ROUNDS;

// how the CUDA backend launches a chunk's lockstep: graph — every time step and training round of
// the chunk in one CUDA graph whose while nodes test the device's counts (no host round trip);
// launches — kernel by kernel, the host reading the counts back (the reference the graph is tested
// against, bit for bit)
enum class PinnRounds : int { graph = 0, launches = 1 };

// a chunk of a PINN sweep: the cases with their Gauss step maps (none for pinn_central), and
// what they share
struct PinnChunk {
  CaseBatch<PinnSweepDims> cases;
  PinnStepSettings set;
  StageTable<double> tab;  // host arrays (R² + 2R values from tab.a on)
  int n_dof = 0;
  PinnRounds rounds = PinnRounds::graph;
  PinnRoundKernels kernels;  // the CUDA backend's round kernels (null: the prebuilt ones)
};

// the block layout of one case's stepper (tab.R is 0 for pinn_central)
inline PinnBlockLayout pinn_chunk_layout(const PinnChunk& ch) {
  return pinn_block_layout<PinnSweepDims>(ch.set, ch.n_dof, ch.tab.R);
}

// runs the chunk on `threads` CPU threads (0: all); totals[c] gets case c's trainings
void run_chunk_cpu_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,
                        CaseResult<PinnSweepDims>* results, double* points, PinnTotals* totals, int threads);

// runs the chunk on the CUDA device in lockstep; kernel_s gets the device time of all its phases.
// In a build without CUDA it returns why.
#define FIVSIM_RUN_CHUNK_CUDA_PINN                                                                          \
  DeviceOutcome run_chunk_cuda_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,   \
                                    CaseResult<PinnSweepDims>* results, double* points, PinnTotals* totals, \
                                    double& kernel_s)
FIVSIM_RUN_CHUNK_CUDA_PINN;

}  // namespace fivsim::sweep
