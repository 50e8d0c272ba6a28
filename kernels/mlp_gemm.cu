// kernels/mlp_gemm.cu — the `gemm` mapping of the batched least-squares fits (pinn/mlp_batch.hpp):
// the plan of pinn/mlp_gemm_plan.hpp run on the device, its matrix products as cuBLAS
// strided-batched GEMMs over all networks at once (FP64 tensor cores on Hopper take them; float
// computes in FP32, TF32 off), its element-wise passes as kernels over every network's elements,
// the output's deltas and each network's loss reduced by one warp a network. The whole plan is
// captured once into a CUDA graph and replayed, so an evaluation is one launch from the host.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda_util.cuh"
#include "mlp_gemm.cuh"
#include "fivsim/pinn/mlp_gemm_plan.hpp"
#include "fivsim/pinn/mlp_group.hpp"

namespace fivsim {
namespace {

using cuda::device_alloc;
using cuda::DevicePtr;

// the buffers are __grid_constant__: indexed by a pass's run-time buffer names, they are read where
// the launch put them rather than copied into each thread's local frame
template <class T>
__global__ void mlp_pass_kernel(MlpLayout L, MlpPassStep s, const __grid_constant__ MlpGemmBuffers<T> buf,
                                long networks) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= networks * s.count) return;
  const long b = i / s.count;
  mlp_pass_element(L, s, buf, b, static_cast<int>(i - b * s.count));
}

// the output's deltas: one warp a network, its loss the warp's sum of ½ d²
template <class T>
__global__ void mlp_output_delta_kernel(MlpLayout L, MlpPassStep s, const __grid_constant__ MlpGemmBuffers<T> buf,
                                        long networks, T* __restrict__ loss) {
  const long b = (static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (b >= networks) return;  // the whole warp leaves
  T part = T(0);
  for (int e = lane; e < s.count; e += 32) part += mlp_pass_element(L, s, buf, b, e);
  const T total = cuda::group_sum(part, 32);
  if (lane == 0) loss[b] = total;
}

// each network's optimizer run begun at its parameters x: a warp a network shares the copy into
// the evaluation point (pinn/optimizer.hpp, pinn/mlp_group.hpp's GroupLanes)
template <class T>
__global__ void mlp_optimizer_start_kernel(long networks, int np, OptimizerOptions opt, const T* __restrict__ x,
                                           T* __restrict__ work, long work_per, OptimizerRun<T>* __restrict__ runs) {
  const long b = (static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (b >= networks) return;
  OptimizerRun<T> run;
  optimizer_start(np, x + b * np, opt, run, work + b * work_per, cuda::GroupLanes{lane, 32});
  if (lane == 0) runs[b] = run;
}

// each network's optimizer told the loss and gradient evaluated at its point, a warp a network
// (every lane holds the run; lane 0 writes it back); a run that has ended is left as it is, with
// the loss of its last evaluation
template <class T>
__global__ void mlp_optimizer_tell_kernel(long networks, int np, OptimizerOptions opt, T* __restrict__ x,
                                          T* __restrict__ grad, T* __restrict__ work, long work_per,
                                          OptimizerRun<T>* __restrict__ runs, const T* __restrict__ loss,
                                          T* __restrict__ last_loss) {
  const long b = (static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (b >= networks) return;
  OptimizerRun<T> run = runs[b];
  if (run.done()) return;
  optimizer_tell(np, x + b * np, grad + b * np, loss[b], opt, run, work + b * work_per, cuda::GroupLanes{lane, 32});
  __syncwarp();  // every lane has read the run before lane 0 writes it
  if (lane == 0) {
    runs[b] = run;
    last_loss[b] = loss[b];
  }
}

template <class T>
struct BlasType;
template <>
struct BlasType<double> {
  static constexpr cudaDataType data = CUDA_R_64F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
};
template <>
struct BlasType<float> {
  static constexpr cudaDataType data = CUDA_R_32F;
  static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;  // not _FAST_TF32: float's own bits
};

std::string blas_error(const char* what, cublasStatus_t status) {
  return std::string("the gemm mapping: ") + what + ": " + cublasGetStatusString(status);
}

constexpr int kPassBlock = 256;
// cuBLAS's workspace (its guide asks for 32 MiB on Hopper), given so that no product allocates
// while a graph is captured
constexpr std::size_t kBlasWorkspace = std::size_t(32) << 20;

// everything the mapping holds on the device, created once: the cuBLAS handle on its own stream
// with its workspace, every buffer of the plan for the whole batch, and the captured graph
template <class T>
struct MlpGemmDevice {
  MlpGemmPlan plan;
  long networks = 0;
  cublasHandle_t blas = nullptr;
  cudaStream_t stream = nullptr;
  cudaGraphExec_t graph = nullptr;
  DevicePtr<T> data[kMlpBuffers], loss;
  DevicePtr<unsigned char> workspace;
  MlpGemmBuffers<T> buffers;

  ~MlpGemmDevice() {
    if (graph) cudaGraphExecDestroy(graph);
    if (blas) cublasDestroy(blas);
    if (stream) cudaStreamDestroy(stream);
  }

  // every buffer allocated but, where `borrowed` says so, the parameters and the gradient, which
  // the caller points into memory of its own
  DeviceOutcome open(const MlpLayout& L, long B, int points, bool borrowed = false) {
    if (B > 2147483647L) return DeviceOutcome("the gemm mapping: more networks than cuBLAS batches take");
    plan = mlp_gemm_plan(L, points);
    networks = B;
    cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    for (int k = 0; k < kMlpBuffers; ++k) {
      const bool lent =
          borrowed && (k == static_cast<int>(MlpBuffer::params) || k == static_cast<int>(MlpBuffer::grad));
      if (!lent) data[k] = device_alloc<T>(static_cast<std::size_t>(B * plan.per_network[k]), err);
      buffers.base[k] = data[k].get();
      buffers.per_network[k] = plan.per_network[k];
    }
    loss = device_alloc<T>(static_cast<std::size_t>(B), err);
    workspace = device_alloc<unsigned char>(kBlasWorkspace, err);
    if (err != cudaSuccess) return device_outcome(err);
    cublasStatus_t st = cublasCreate(&blas);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetStream(blas, stream);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetWorkspace(blas, workspace.get(), kBlasWorkspace);
    if (st != CUBLAS_STATUS_SUCCESS) return DeviceOutcome(blas_error("creating the handle", st));
    return {};
  }

  T* at(MlpBuffer k) const { return data[static_cast<int>(k)].get(); }

  // the plan's steps issued on the stream (captured by `capture`)
  DeviceOutcome issue() {
    const T one = T(1), zero = T(0);
    const int batch = static_cast<int>(networks);
    for (const MlpGemmOp& op : plan.ops) {
      if (op.is_gemm) {
        const MlpGemmStep& g = op.gemm;
        const auto stride = [&](const MlpSlice& s) {
          return static_cast<long long>(buffers.per_network[static_cast<int>(s.buffer)]);
        };
        const cublasStatus_t st = cublasGemmStridedBatchedEx(
            blas, g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k, &one,
            buffers.at(g.a, 0), BlasType<T>::data, g.lda, stride(g.a), buffers.at(g.b, 0), BlasType<T>::data, g.ldb,
            stride(g.b), &zero, buffers.at(g.c, 0), BlasType<T>::data, g.ldc, stride(g.c), batch, BlasType<T>::compute,
            CUBLAS_GEMM_DEFAULT);
        if (st != CUBLAS_STATUS_SUCCESS) return DeviceOutcome(blas_error("a strided-batched product", st));
      } else if (op.pass.pass == MlpPass::output_delta) {
        const long threads = networks * 32;
        mlp_output_delta_kernel<T>
            <<<static_cast<unsigned>((threads + kPassBlock - 1) / kPassBlock), kPassBlock, 0, stream>>>(
                plan.L, op.pass, buffers, networks, loss.get());
      } else {
        const long threads = networks * op.pass.count;
        mlp_pass_kernel<T><<<static_cast<unsigned>((threads + kPassBlock - 1) / kPassBlock), kPassBlock, 0, stream>>>(
            plan.L, op.pass, buffers, networks);
      }
    }
    return device_outcome(cudaGetLastError());
  }

  // the plan, then `after` (more work on the stream), captured into one graph instantiated once
  template <class After>
  DeviceOutcome capture(After&& after) {
    cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) return device_outcome(err);
    DeviceOutcome issued = issue();
    if (issued.error.empty()) {
      after();
      issued = device_outcome(cudaGetLastError());
    }
    cudaGraph_t g = nullptr;
    err = cudaStreamEndCapture(stream, &g);
    if (!issued.error.empty()) {
      if (g) cudaGraphDestroy(g);
      return issued;
    }
    if (err == cudaSuccess) err = cudaGraphInstantiate(&graph, g, 0);
    if (g) cudaGraphDestroy(g);
    return device_outcome(err);
  }
};

}  // namespace

template <class T>
DeviceOutcome mlp_fit_batch_cuda_gemm(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s) {
  const long B = batch.networks;
  MlpGemmDevice<T> d;
  DeviceOutcome out = d.open(L, B, batch.points);
  if (!out.error.empty()) return out;
  const auto upload = [&](MlpBuffer k, const T* host, cudaError_t& err) {
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(B * d.plan.per_network[static_cast<int>(k)]);
    if (err == cudaSuccess) err = cudaMemcpyAsync(d.at(k), host, bytes, cudaMemcpyHostToDevice, d.stream);
  };
  cudaError_t err = cudaSuccess;
  upload(MlpBuffer::params, batch.params, err);
  upload(MlpBuffer::inputs, batch.inputs, err);
  upload(MlpBuffer::targets, batch.targets, err);
  if (err == cudaSuccess) err = cudaStreamSynchronize(d.stream);
  if (err != cudaSuccess) return device_outcome(err);
  out = d.capture([] {});
  if (!out.error.empty()) return out;
  err = cuda::timed_launches(
      repeats, [&] { cudaGraphLaunch(d.graph, d.stream); }, kernel_s, d.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(batch.loss, d.loss.get(), sizeof(T) * B, cudaMemcpyDeviceToHost, d.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(batch.grad, d.at(MlpBuffer::grad), sizeof(T) * B * L.param_count(), cudaMemcpyDeviceToHost,
                          d.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(d.stream);
  return device_outcome(err);
}

template <class T>
DeviceOutcome mlp_train_batch_cuda_gemm(const MlpLayout& L, const MlpTrainBatch<T>& batch, int steps,
                                        const OptimizerOptions& opt, double& kernel_s) {
  const long B = batch.networks, np = L.param_count();
  const long work_per = optimizer_work_size(static_cast<int>(np), opt);
  MlpGemmDevice<T> d;
  DeviceOutcome out = d.open(L, B, batch.points, true);
  if (!out.error.empty()) return out;
  cudaError_t err = cudaSuccess;
  auto x = device_alloc<T>(static_cast<std::size_t>(B * np), err);
  auto grad = device_alloc<T>(static_cast<std::size_t>(B * np), err);
  auto work = device_alloc<T>(static_cast<std::size_t>(B * work_per), err);
  auto last_loss = device_alloc<T>(static_cast<std::size_t>(B), err);
  auto runs = device_alloc<OptimizerRun<T>>(static_cast<std::size_t>(B), err);
  if (err != cudaSuccess) return device_outcome(err);
  // the plan evaluates each network at its optimizer's evaluation point, its gradient written
  // where the optimizer reads it
  const int params = static_cast<int>(MlpBuffer::params), g = static_cast<int>(MlpBuffer::grad);
  d.buffers.base[params] = optimizer_eval_x(static_cast<int>(np), work.get());
  d.buffers.base[g] = optimizer_eval_grad(static_cast<int>(np), work.get());
  d.buffers.per_network[params] = d.buffers.per_network[g] = work_per;
  const auto upload = [&](T* to, const T* host, long count) {
    if (err == cudaSuccess) err = cudaMemcpyAsync(to, host, sizeof(T) * count, cudaMemcpyHostToDevice, d.stream);
  };
  upload(x.get(), batch.params, B * np);
  upload(d.at(MlpBuffer::inputs), batch.inputs, B * batch.points * L.inputs());
  upload(d.at(MlpBuffer::targets), batch.targets, B * batch.points * L.outputs());
  const unsigned warps = static_cast<unsigned>((B * 32 + kPassBlock - 1) / kPassBlock);
  if (err == cudaSuccess) {
    mlp_optimizer_start_kernel<T>
        <<<warps, kPassBlock, 0, d.stream>>>(B, static_cast<int>(np), opt, x.get(), work.get(), work_per, runs.get());
    err = cudaStreamSynchronize(d.stream);
  }
  if (err != cudaSuccess) return device_outcome(err);
  out = d.capture([&] {
    mlp_optimizer_tell_kernel<T><<<warps, kPassBlock, 0, d.stream>>>(B, static_cast<int>(np), opt, x.get(), grad.get(),
                                                                     work.get(), work_per, runs.get(), d.loss.get(),
                                                                     last_loss.get());
  });
  if (!out.error.empty()) return out;
  err = cuda::timed_launches(
      steps, [&] { cudaGraphLaunch(d.graph, d.stream); }, kernel_s, d.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(batch.loss, last_loss.get(), sizeof(T) * B, cudaMemcpyDeviceToHost, d.stream);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(batch.params, x.get(), sizeof(T) * B * np, cudaMemcpyDeviceToHost, d.stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(d.stream);
  return device_outcome(err);
}

template DeviceOutcome mlp_train_batch_cuda_gemm<double>(const MlpLayout&, const MlpTrainBatch<double>&, int,
                                                         const OptimizerOptions&, double&);
template DeviceOutcome mlp_train_batch_cuda_gemm<float>(const MlpLayout&, const MlpTrainBatch<float>&, int,
                                                        const OptimizerOptions&, double&);
template DeviceOutcome mlp_fit_batch_cuda_gemm<double>(const MlpLayout&, const MlpFitBatch<double>&, int, double&);
template DeviceOutcome mlp_fit_batch_cuda_gemm<float>(const MlpLayout&, const MlpFitBatch<float>&, int, double&);

}  // namespace fivsim
