// fivsim/batch/sweep_backend.hpp — the two backends of the batch engine over chunks of prepared
// cases: CPU (OpenMP over the case runner) and CUDA (kernels/sweep_batch.cu, one thread per case).
// Plain structs only (no Eigen, no JSON), so that nvcc never compiles host-only libraries.
#pragma once

#include <cstddef>
#include <string>

#include "fivsim/batch/case_runner.hpp"
#include "fivsim/batch/cuda_device.hpp"

namespace fivsim::batch {

// the instantiations of the batch path: models up to 1, 2, 5 or 8 DoF and contacts, and a
// generic one for up to 24 DoF and 8 contacts (24 LCP unknowns, DESIGN.md §3)
// exact sizes (as many contacts as DoF: sliders on a belt) unroll every loop; the others hold
// any model up to their capacity
template <class T>
using SweepDims1 = Dims<T, 1, 1, true>;
template <class T>
using SweepDimsExact2 = Dims<T, 2, 2, true>;
template <class T>
using SweepDimsExact5 = Dims<T, 5, 5, true>;
template <class T>
using SweepDims2 = Dims<T, 2, 2>;
template <class T>
using SweepDims8 = Dims<T, 8, 8>;
template <class T>
using SweepDimsGeneric = Dims<T, 24, 8>;

// runs n cases on `threads` CPU threads (0: all); points holds n × kPointKinds × capacity rows;
// rk_maps: one Runge–Kutta step map per case, or null for Moreau
template <class D>
void run_chunk_cpu(const CaseSetup<D>* setups, const RkStepMap<D>* rk_maps, long n, const SweepAnalysis& an,
                   const StepOptions& opt, CaseResult<D>* results, double* points, int threads);

// what a CUDA backend call reports: success, or its error and whether that was a lack of device
// memory (the caller then runs the cases in smaller parts)
struct CudaOutcome {
  std::string error;  // "" on success
  bool out_of_memory = false;
  bool ok() const { return error.empty(); }
};
#ifdef __CUDACC__
inline CudaOutcome cuda_outcome(cudaError_t err) {
  if (err == cudaSuccess) return {};
  return {cudaGetErrorString(err), err == cudaErrorMemoryAllocation};
}
#endif

// runs n cases on the CUDA device, one thread per case. kernel_s gets the kernel's own time
// (device events)
template <class D>
CudaOutcome run_chunk_cuda(const CaseSetup<D>* setups, const RkStepMap<D>* rk_maps, long n, const SweepAnalysis& an,
                           const StepOptions& opt, CaseResult<D>* results, double* points, double& kernel_s);

#define FIVSIM_SWEEP_DIMS_DOUBLE(X)                                                               \
  X(SweepDims1<double>) X(SweepDimsExact2<double>) X(SweepDimsExact5<double>) X(SweepDims2<double>) \
  X(SweepDims8<double>) X(SweepDimsGeneric<double>)
#define FIVSIM_SWEEP_DIMS_FLOAT(X)                                                                                   \
  X(SweepDims1<float>) X(SweepDimsExact2<float>) X(SweepDimsExact5<float>) X(SweepDims2<float>) X(SweepDims8<float>) \
  X(SweepDimsGeneric<float>)
#define FIVSIM_SWEEP_FOR_EACH_DIMS(X) FIVSIM_SWEEP_DIMS_DOUBLE(X) FIVSIM_SWEEP_DIMS_FLOAT(X)

// the CUDA backend's instantiation for D: in kernels/sweep_batch_{double,float}.cu, or in
// src/batch/cuda_unavailable.cpp for a build without CUDA
#define FIVSIM_SWEEP_CUDA_INSTANCE(D)                                                                             \
  template CudaOutcome run_chunk_cuda<D>(const CaseSetup<D>*, const RkStepMap<D>*, long, const SweepAnalysis&, \
                                         const StepOptions&, CaseResult<D>*, double*, double&);

#define FIVSIM_SWEEP_EXTERN(D)                                                                          \
  extern template void run_chunk_cpu<D>(const CaseSetup<D>*, const RkStepMap<D>*, long, const SweepAnalysis&, \
                                        const StepOptions&, CaseResult<D>*, double*, int);               \
  extern FIVSIM_SWEEP_CUDA_INSTANCE(D)
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_EXTERN)
#undef FIVSIM_SWEEP_EXTERN

}  // namespace fivsim::batch
