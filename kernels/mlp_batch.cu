// kernels/mlp_batch.cu — the CUDA backend of the batched networks (pinn/mlp_batch.hpp): fused
// forward + backward passes of many small MLPs (seed 000 Eq. 15) and the batched LCP-PINN
// residuals (Eqs. 17–19 and the natural-map residual). Two mappings of networks onto threads:
//
//   - one thread per network: the batch is structure of arrays on the device (value k of network b
//     at k·B + b, for the parameters, gradients, inputs, targets, activation caches and scratch
//     alike), so a warp's 32 threads touch 32 consecutive words at every step of the per-network
//     code, which runs unchanged (mlp_least_squares, lcp_pinn_residuals) through Strided views;
//   - one group of lanes per network (least-squares fits with layers of at most 32 neurons): the
//     batch stays network-major, lane j of the group holds neuron j of the layer at hand, a row of
//     W_l or of its gradient is read or written by the group in one coalesced access, and the sums
//     over a layer's inputs are shuffle reductions. A network's gradient sums over its points in
//     shared memory.
//
// The numbers are the CPU backend's up to rounding (nvcc is told not to contract to FMA;
// CMakeLists.txt): the backward pass adds in the CPU's order, the forward sums as a tree.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda_util.cuh"
#include "mlp_group.cuh"
#include "fivsim/pinn/mlp_batch.hpp"

namespace fivsim {
namespace {

using cuda::device_alloc;
using cuda::DevicePtr;
using cuda::timed_launches;

template <class T>
FIVSIM_HD Strided<T> column(T* base, long b, long networks) {
  return Strided<T>{base + b, networks};
}

template <class T>
__global__ void mlp_fit_kernel(MlpLayout L, long networks, int points, const T* __restrict__ params,
                               const T* __restrict__ inputs, const T* __restrict__ targets, T* __restrict__ loss,
                               T* __restrict__ grad, T* __restrict__ cache, T* __restrict__ scratch) {
  const long b = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= networks) return;
  loss[b] = mlp_least_squares<T>(L, points, column(params, b, networks), column(inputs, b, networks),
                                 column(targets, b, networks), column(grad, b, networks), column(cache, b, networks),
                                 column(scratch, b, networks));
}

// one group of lanes per network (network-major batch; mlp_group.cuh). A group past the batch's
// end computes network 0 alongside (its warp's other groups may share shared memory with it) and
// stores nothing. With shared_sum the gradient is summed over the points in shared memory (np
// values per network) and written once at the end; without it (one point, or too little shared
// memory) it is summed in place in `grad`.
template <class T>
__global__ void mlp_fit_group_kernel(MlpLayout L, long networks, int points, int group, bool shared_sum,
                                     const T* __restrict__ params, const T* __restrict__ inputs,
                                     const T* __restrict__ targets, T* __restrict__ loss, T* __restrict__ grad) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int lane = static_cast<int>(threadIdx.x) & (group - 1);
  const int slot = static_cast<int>(threadIdx.x) / group;
  const long b = static_cast<long>(blockIdx.x) * (blockDim.x / group) + slot;
  const bool live = b < networks;
  const long net = live ? b : 0;
  const int np = L.param_count(), nin0 = L.inputs(), nout = L.outputs();
  const T* P = params + net * np;
  T* sum = shared_sum ? reinterpret_cast<T*>(shared_raw) + static_cast<long>(slot) * np : grad + net * np;
  const bool store = live || shared_sum;
  T a_at[kMlpMaxLayers + 1], z_at[kMlpMaxLayers + 1];
  T loss_part = T(0);
  for (int p = 0; p < points; ++p) {
    const bool first = p == 0;
    const T a_in = lane < nin0 ? inputs[(net * points + p) * nin0 + lane] : T(0);
    const T a = cuda::group_forward(L, P, a_in, lane, group, a_at, z_at);
    T d = T(0);
    if (lane < nout) {
      d = a - targets[(net * points + p) * nout + lane];
      loss_part += T(0.5) * d * d;
    }
    cuda::group_backward(L, P, d, a_at, z_at, lane, group, [&](int k, T v) {
      if (store) sum[k] = first ? v : sum[k] + v;
    });
  }
  const T total = cuda::group_sum(loss_part, group);
  __syncwarp();  // the group's shared sums are complete (before any lane of the warp leaves)
  if (!live) return;
  if (lane == 0) loss[b] = total;
  if (shared_sum) {
    for (int k = lane; k < np; k += group) grad[b * np + k] = sum[k];
  }
}

template <class T>
__global__ void lcp_pinn_kernel(MlpLayout L, long networks, int n, const T* __restrict__ params,
                                const T* __restrict__ A, const T* __restrict__ b, T* __restrict__ loss,
                                T* __restrict__ grad, T* __restrict__ residual, T* __restrict__ cache,
                                T* __restrict__ scratch) {
  const long k = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= networks) return;
  LcpMatrix<T, kLcpBatchMax> Ak;
  LcpVector<T, kLcpBatchMax> bk;
  lcp_batch_problem(column(A, k, networks), column(b, k, networks), n, Ak, bk);
  T r = T(0);
  loss[k] = lcp_pinn_residuals(L, Ak, bk, column(params, k, networks), column(grad, k, networks),
                               column(cache, k, networks), column(scratch, k, networks), r);
  residual[k] = r;
}

// network-major host values (networks × per) to a device structure of arrays (per × networks)
template <class T>
DevicePtr<T> upload_columns(const T* host, long networks, long per, cudaError_t& err) {
  DevicePtr<T> d = device_alloc<T>(static_cast<std::size_t>(networks * per), err);
  if (err != cudaSuccess) return d;
  std::vector<T> soa(static_cast<std::size_t>(networks * per));
  for (long b = 0; b < networks; ++b)
    for (long k = 0; k < per; ++k) soa[static_cast<std::size_t>(k * networks + b)] = host[b * per + k];
  err = cudaMemcpy(d.get(), soa.data(), soa.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

// the inverse of upload_columns
template <class T>
void download_columns(T* host, const T* device, long networks, long per, cudaError_t& err) {
  if (err != cudaSuccess) return;
  std::vector<T> soa(static_cast<std::size_t>(networks * per));
  err = cudaMemcpy(soa.data(), device, soa.size() * sizeof(T), cudaMemcpyDeviceToHost);
  for (long b = 0; b < networks && err == cudaSuccess; ++b)
    for (long k = 0; k < per; ++k) host[b * per + k] = soa[static_cast<std::size_t>(k * networks + b)];
}

constexpr int kBlock = 128;

unsigned grid_for(long networks) { return static_cast<unsigned>((networks + kBlock - 1) / kBlock); }

// the group mapping: network-major arrays copied as they are
template <class T>
std::string mlp_fit_batch_cuda_group(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s) {
  const long B = batch.networks, np = L.param_count(), P = batch.points;
  cudaError_t err = cudaSuccess;
  const auto upload = [&](const T* host, long count) {
    DevicePtr<T> d = device_alloc<T>(static_cast<std::size_t>(count), err);
    if (err == cudaSuccess) err = cudaMemcpy(d.get(), host, sizeof(T) * count, cudaMemcpyHostToDevice);
    return d;
  };
  auto params = upload(batch.params, B * np);
  auto inputs = upload(batch.inputs, B * P * L.inputs());
  auto targets = upload(batch.targets, B * P * L.outputs());
  auto loss = device_alloc<T>(static_cast<std::size_t>(B), err);
  auto grad = device_alloc<T>(static_cast<std::size_t>(B * np), err);
  if (err != cudaSuccess) return cudaGetErrorString(err);
  const int group = cuda::group_lanes(L);
  // two warps a block when a network fills one, else 128 threads
  const int block = group == 32 ? 64 : 128, per_block = block / group;
  const std::size_t shared = sizeof(T) * static_cast<std::size_t>(per_block * np);
  const bool shared_sum = P > 1 && shared <= 48 * 1024;
  const unsigned grid = static_cast<unsigned>((B + per_block - 1) / per_block);
  err = timed_launches(repeats, [&] {
    mlp_fit_group_kernel<T><<<grid, block, shared_sum ? shared : 0>>>(L, B, static_cast<int>(P), group, shared_sum,
                                                                       params.get(), inputs.get(), targets.get(),
                                                                       loss.get(), grad.get());
  }, kernel_s);
  if (err == cudaSuccess) err = cudaMemcpy(batch.loss, loss.get(), sizeof(T) * B, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpy(batch.grad, grad.get(), sizeof(T) * B * np, cudaMemcpyDeviceToHost);
  return err == cudaSuccess ? std::string() : std::string(cudaGetErrorString(err));
}

}  // namespace

template <class T>
std::string mlp_fit_batch_cuda(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s,
                               MlpCudaMapping mapping) {
  kernel_s = 0.0;
  const long B = batch.networks, np = L.param_count(), P = batch.points;
  if (B <= 0) return {};
  const int wmax = L.max_width();
  if (mapping == MlpCudaMapping::automatic)
    mapping = wmax <= 32 ? MlpCudaMapping::group : MlpCudaMapping::thread;
  if (mapping == MlpCudaMapping::group) {
    if (wmax > 32) return "mlp_fit_batch_cuda: the group mapping takes layers of at most 32 neurons";
    return mlp_fit_batch_cuda_group(L, batch, repeats, kernel_s);
  }
  cudaError_t err = cudaSuccess;
  auto params = upload_columns(batch.params, B, np, err);
  auto inputs = upload_columns(batch.inputs, B, P * L.inputs(), err);
  auto targets = upload_columns(batch.targets, B, P * L.outputs(), err);
  auto loss = device_alloc<T>(static_cast<std::size_t>(B), err);
  auto grad = device_alloc<T>(static_cast<std::size_t>(B * np), err);
  auto cache = device_alloc<T>(static_cast<std::size_t>(B * L.cache_size()), err);
  auto scratch = device_alloc<T>(static_cast<std::size_t>(B * mlp_batch_scratch_size(L)), err);
  if (err != cudaSuccess) return cudaGetErrorString(err);
  err = timed_launches(repeats, [&] {
    mlp_fit_kernel<T><<<grid_for(B), kBlock>>>(L, B, batch.points, params.get(), inputs.get(), targets.get(),
                                               loss.get(), grad.get(), cache.get(), scratch.get());
  }, kernel_s);
  download_columns(batch.loss, loss.get(), B, 1, err);
  download_columns(batch.grad, grad.get(), B, np, err);
  return err == cudaSuccess ? std::string() : std::string(cudaGetErrorString(err));
}

template <class T>
std::string lcp_pinn_batch_cuda(const MlpLayout& L, const LcpPinnBatch<T>& batch, int repeats, double& kernel_s) {
  kernel_s = 0.0;
  const long B = batch.networks, np = L.param_count(), n = batch.n;
  if (B <= 0) return {};
  if (n < 1 || n > kLcpBatchMax) return "lcp_pinn_batch_cuda: n must be 1.." + std::to_string(kLcpBatchMax);
  cudaError_t err = cudaSuccess;
  auto params = upload_columns(batch.params, B, np, err);
  auto A = upload_columns(batch.A, B, n * n, err);
  auto b = upload_columns(batch.b, B, n, err);
  auto loss = device_alloc<T>(static_cast<std::size_t>(B), err);
  auto residual = device_alloc<T>(static_cast<std::size_t>(B), err);
  auto grad = device_alloc<T>(static_cast<std::size_t>(B * np), err);
  auto cache = device_alloc<T>(static_cast<std::size_t>(B * L.cache_size()), err);
  auto scratch = device_alloc<T>(static_cast<std::size_t>(B * mlp_batch_scratch_size(L)), err);
  if (err != cudaSuccess) return cudaGetErrorString(err);
  err = timed_launches(repeats, [&] {
    lcp_pinn_kernel<T><<<grid_for(B), kBlock>>>(L, B, static_cast<int>(n), params.get(), A.get(), b.get(), loss.get(),
                                                grad.get(), residual.get(), cache.get(), scratch.get());
  }, kernel_s);
  download_columns(batch.loss, loss.get(), B, 1, err);
  download_columns(batch.residual, residual.get(), B, 1, err);
  download_columns(batch.grad, grad.get(), B, np, err);
  return err == cudaSuccess ? std::string() : std::string(cudaGetErrorString(err));
}

template std::string mlp_fit_batch_cuda<double>(const MlpLayout&, const MlpFitBatch<double>&, int, double&,
                                                MlpCudaMapping);
template std::string mlp_fit_batch_cuda<float>(const MlpLayout&, const MlpFitBatch<float>&, int, double&,
                                               MlpCudaMapping);
template std::string lcp_pinn_batch_cuda<double>(const MlpLayout&, const LcpPinnBatch<double>&, int, double&);
template std::string lcp_pinn_batch_cuda<float>(const MlpLayout&, const LcpPinnBatch<float>&, int, double&);

}  // namespace fivsim
