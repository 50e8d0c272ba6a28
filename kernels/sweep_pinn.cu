// kernels/sweep_pinn.cu — the CUDA backend of a PINN sweep: one thread per case runs
// run_pinn_case (batch/pinn_case.hpp), the code the CPU backend runs, training the case's own
// networks step by step (L-BFGS over the dynamic IRK-PINN of seed 000 Eqs. 21–26 and the
// LCP-PINN of Eq. 19). Each case's networks, optimizer histories and scratch live in its slice of
// one device arena (PinnBlockLayout per block), zeroed before the launch and set up by the
// stepper's reset; only CaseResults, point rings and training totals come back.
#include <cuda_runtime.h>

#include <string>

#include "cuda_util.cuh"
#include "device_batch.cuh"
#include "fivsim/batch/sweep_pinn_backend.hpp"

namespace fivsim::batch {
namespace {

using cuda::device_alloc;
using D = PinnSweepDims;

__global__ void pinn_sweep_kernel(CaseBatch<D> cases, PinnStepSettings set, StageTable<double> tab, PinnBlockLayout L,
                                  int copies, SweepAnalysis an, StepOptions opt, CaseResult<D>* __restrict__ results,
                                  double* __restrict__ points, long per_case, unsigned char* __restrict__ arena,
                                  PinnTotals* __restrict__ totals) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cases.n) return;
  State<D> s, twin;
  CaseResult<D> r;
  PinnTotals t;
  CaseSetup<D> scratch;
  run_pinn_case(cases.setup(c, scratch), cases.map(c), set, tab, L, arena + c * copies * L.bytes, an, opt, s, &twin, r,
                points + c * per_case, t);
  results[c] = r;
  totals[c] = t;
}

}  // namespace

CudaOutcome run_chunk_cuda_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,
                                CaseResult<D>* results, double* points, PinnTotals* totals, double& kernel_s) {
  kernel_s = 0.0;
  // the runtime keeps a failed call's error (an allocation that failed before a retry on fewer
  // cases) as its last error, which the launch check below would take for this call's
  cudaGetLastError();
  const long n = ch.cases.n;
  if (n <= 0) return {};
  const PinnBlockLayout L = pinn_chunk_layout(ch);
  const int copies = an.lyapunov_every > 0 ? 2 : 1;
  const long per_case = case_points_size(ch.n_dof, an.capacity);
  const std::size_t n_points = static_cast<std::size_t>(per_case) * static_cast<std::size_t>(n);
  const int R = ch.tab.R;
  const std::size_t n_stage = static_cast<std::size_t>(R * R + 2 * R);
  DeviceBatch<D> dev;
  cudaError_t err = dev.upload(ch.cases);
  auto d_stage = device_alloc<double>(n_stage, err);
  auto d_results = device_alloc<CaseResult<D>>(static_cast<std::size_t>(n), err);
  auto d_points = device_alloc<double>(n_points, err);
  auto d_totals = device_alloc<PinnTotals>(static_cast<std::size_t>(n), err);
  auto d_arena = device_alloc<unsigned char>(static_cast<std::size_t>(n * copies * L.bytes), err);
  if (err == cudaSuccess && n_stage > 0)
    err = cudaMemcpy(d_stage.get(), ch.tab.a, sizeof(double) * n_stage, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemset(d_arena.get(), 0, static_cast<std::size_t>(n * copies * L.bytes));
  if (err != cudaSuccess) return cuda_outcome(err);
  // the deep call chain (optimizer → loss → network) needs more stack than the default. The
  // runtime reserves that stack for every thread the device can hold, so raising it can fail for
  // want of memory: that is reported (and the part halved, freeing this call's buffers) rather than
  // launched on a stack too small, which would end in an illegal address that poisons the context
  cudaFuncAttributes attr{};
  err = cudaFuncGetAttributes(&attr, pinn_sweep_kernel);
  std::size_t limit = 0;
  if (err == cudaSuccess) err = cudaDeviceGetLimit(&limit, cudaLimitStackSize);
  if (err == cudaSuccess && attr.localSizeBytes + 4096 > limit)
    err = cudaDeviceSetLimit(cudaLimitStackSize, attr.localSizeBytes + 4096);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return cuda_outcome(err);
  }
  const StageTable<double> tab = R > 0 ? stage_table_of(static_cast<const double*>(d_stage.get()), R) : StageTable<double>{};
  const int block = 64;
  const long grid = (n + block - 1) / block;
  err = cuda::timed_launches(1, [&] {
    pinn_sweep_kernel<<<static_cast<unsigned>(grid), block>>>(dev.batch, ch.set, tab, L, copies, an, opt,
                                                              d_results.get(), d_points.get(), per_case, d_arena.get(),
                                                              d_totals.get());
  }, kernel_s);
  if (err == cudaSuccess)
    err = cudaMemcpy(results, d_results.get(), sizeof(CaseResult<D>) * n, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && n_points > 0)
    err = cudaMemcpy(points, d_points.get(), sizeof(double) * n_points, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpy(totals, d_totals.get(), sizeof(PinnTotals) * n, cudaMemcpyDeviceToHost);
  return cuda_outcome(err);
}

}  // namespace fivsim::batch
