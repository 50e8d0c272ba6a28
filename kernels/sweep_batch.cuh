// kernels/sweep_batch.cuh — the CUDA backend of `fivsim sweep`: one thread per case runs the shared
// case runner (batch/case_runner.hpp: Moreau steps of seed 000 Eq. 8 with the LCPs of Eqs. 12, 14,
// 28, and the on-the-fly aggregation). Each thread copies its case into local memory, never
// writes the trajectory, and leaves only its CaseResult and its point rings in device memory.
// Included by one translation unit per precision (sweep_batch_double.cu, sweep_batch_float.cu),
// which compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "cuda_util.cuh"
#include "device_batch.cuh"
#include "fivsim/batch/sweep_backend.hpp"

namespace fivsim::batch {
namespace {

using cuda::device_alloc;

// the plain Moreau kernel's stepper (run_case_with's stepper concept): Moreau's step over a
// workspace without the Runge–Kutta scratch, and no twin; the per-thread stack holds only what
// this stepper uses
template <class D>
struct MoreauKernelStepper {
  const Model<D>* m;
  typename D::scalar dt;
  const StepOptions* opt;
  MoreauWorkspace<D>* ws;
  __device__ StepReport step(int, State<D>& s) { return moreau_step(*m, s, dt, *opt, *ws); }
  __device__ void reset(int) { ws->has_basis = false; }
};

// two kernels: the plain Moreau sweep, and the general one (Moreau or Runge–Kutta, with or
// without the Lyapunov twin)
template <class D, bool General>
__global__ void sweep_kernel(CaseBatch<D> cases, SweepAnalysis an, StepOptions opt, CaseResult<D>* __restrict__ results,
                             double* __restrict__ points, long per_case) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cases.n) return;
  CaseSetup<D> scratch;
  const CaseSetup<D> setup = cases.setup(c, scratch);
  State<D> s;
  CaseResult<D> r;
  if constexpr (General) {
    CaseWorkspace<D> ws;
    LyapunovTwin<D> twin;
    run_case(setup, cases.map(c), an, opt, ws, s, r, points + c * per_case, &twin);
  } else {
    MoreauWorkspace<D> ws;
    MoreauKernelStepper<D> stepper{&setup.model, typename D::scalar(setup.dt), &opt, &ws};
    run_case_with(setup, an, opt, stepper, s, r, points + c * per_case);
  }
  results[c] = r;
}

}  // namespace

template <class D>
CudaOutcome run_chunk_cuda(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt,
                           CaseResult<D>* results, double* points, double& kernel_s) {
  kernel_s = 0.0;
  // the runtime keeps a failed call's error (an allocation that failed before a retry on fewer
  // cases) as its last error, which the launch check below would take for this call's
  cudaGetLastError();
  const long n = cases.n;
  if (n <= 0) return {};
  const long per_case = case_points_size(cases.setups[0].model.n_dof, an.capacity);
  const std::size_t n_points = static_cast<std::size_t>(per_case) * static_cast<std::size_t>(n);
  DeviceBatch<D> dev;
  cudaError_t err = dev.upload(cases);
  auto d_results = device_alloc<CaseResult<D>>(static_cast<std::size_t>(n), err);
  auto d_points = device_alloc<double>(n_points, err);
  if (err != cudaSuccess) return cuda_outcome(err);
  const int block = 128;
  const long grid = (n + block - 1) / block;
  err = cuda::timed_launches(1, [&] {
    if (cases.maps || an.lyapunov_every > 0)
      sweep_kernel<D, true><<<static_cast<unsigned>(grid), block>>>(dev.batch, an, opt, d_results.get(), d_points.get(),
                                                                    per_case);
    else
      sweep_kernel<D, false><<<static_cast<unsigned>(grid), block>>>(dev.batch, an, opt, d_results.get(), d_points.get(),
                                                                     per_case);
  }, kernel_s);
  if (err == cudaSuccess)
    err = cudaMemcpy(results, d_results.get(), sizeof(CaseResult<D>) * n, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && n_points > 0)
    err = cudaMemcpy(points, d_points.get(), sizeof(double) * n_points, cudaMemcpyDeviceToHost);
  return cuda_outcome(err);
}

}  // namespace fivsim::batch
