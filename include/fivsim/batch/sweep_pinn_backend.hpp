// fivsim/batch/sweep_pinn_backend.hpp — the two backends of a PINN sweep over a chunk of cases:
// CPU (OpenMP, src/batch/sweep.cpp) and CUDA (kernels/sweep_pinn.cu, one thread per case), both
// over run_pinn_case (pinn_case.hpp) with each case's networks in its own memory blocks. Plain
// structs only, so that nvcc compiles this header.
#pragma once

#include <string>

#include "fivsim/batch/pinn_case.hpp"
#include "fivsim/batch/sweep_backend.hpp"

namespace fivsim::batch {

// a chunk of a PINN sweep: the cases with their Gauss step maps (none for pinn_central), and
// what they share
struct PinnChunk {
  CaseBatch<PinnSweepDims> cases;
  PinnStepSettings set;
  StageTable<double> tab;  // host arrays (R² + 2R values from tab.a on)
  int n_dof = 0;
};

// the block layout of one case's stepper (tab.R is 0 for pinn_central)
inline PinnBlockLayout pinn_chunk_layout(const PinnChunk& ch) {
  return pinn_block_layout<PinnSweepDims>(ch.set, ch.n_dof, ch.tab.R);
}

// runs the chunk on `threads` CPU threads (0: all); totals[c] gets case c's trainings
void run_chunk_cpu_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,
                        CaseResult<PinnSweepDims>* results, double* points, PinnTotals* totals, int threads);

// runs the chunk on the CUDA device, one thread per case; kernel_s gets the kernel's own time. In
// a build without CUDA it returns why.
CudaOutcome run_chunk_cuda_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,
                                CaseResult<PinnSweepDims>* results, double* points, PinnTotals* totals,
                                double& kernel_s);

}  // namespace fivsim::batch
