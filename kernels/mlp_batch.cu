// kernels/mlp_batch.cu — the CUDA backend of the batched networks (pinn/mlp_batch.hpp): fused
// forward and backward passes of many small MLPs (seed 000 Eq. 15) and the batched LCP-PINN
// residuals (Eqs. 17–19). Three mappings of networks onto threads: a thread per network (structure
// of arrays), a group of lanes per network (a lane per neuron; trained batches take their
// optimizer steps there too), a warp per network with its points on the lanes (docs/DESIGN.md §3
// "Batched networks"); the fourth, every layer's products as batched GEMMs, is kernels/mlp_gemm.cu.
// The numbers are the CPU backend's up to rounding (no contraction to FMA).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda_util.cuh"
#include "mlp_gemm.cuh"
#include "fivsim/pinn/mlp_batch.hpp"
#include "fivsim/pinn/mlp_group.hpp"

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

// one group of lanes per network (network-major batch; pinn/mlp_group.hpp). A group past the batch's
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

// one group of lanes per network trained by `steps` optimizer steps in this one launch (network-
// major batch): each step the group's forward and backward passes over the network's points at the
// optimizer's evaluation point, the gradient summed over the points in the group's shared slot
// (shared_sum) or in place, and the optimizer's tell over the group's lanes (GroupLanes), its run
// kept in registers (every lane holds the same copy). A group past the batch's end leaves at once:
// its shuffles and syncs name its own lanes only.
template <class T>
__global__ void mlp_train_group_kernel(MlpLayout L, long networks, int points, int group, bool shared_sum, int steps,
                                       OptimizerOptions opt, T* __restrict__ params, const T* __restrict__ inputs,
                                       const T* __restrict__ targets, T* __restrict__ loss, T* __restrict__ grad,
                                       T* __restrict__ work, long work_per) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int lane = static_cast<int>(threadIdx.x) & (group - 1);
  const int slot = static_cast<int>(threadIdx.x) / group;
  const long b = static_cast<long>(blockIdx.x) * (blockDim.x / group) + slot;
  if (b >= networks) return;
  const unsigned mask = cuda::group_mask(group);
  const int np = L.param_count(), nin0 = L.inputs(), nout = L.outputs();
  T* x = params + b * np;
  T* g = grad + b * np;
  T* w = work + b * work_per;
  T* xe = optimizer_eval_x(np, w);
  T* ge = optimizer_eval_grad(np, w);
  T* sum = shared_sum ? reinterpret_cast<T*>(shared_raw) + static_cast<long>(slot) * np : ge;
  const cuda::GroupLanes lanes{lane, group};
  OptimizerRun<T> run;
  optimizer_start(np, static_cast<const T*>(x), opt, run, w, lanes);
  __syncwarp(mask);
  T a_at[kMlpMaxLayers + 1], z_at[kMlpMaxLayers + 1];
  T total = T(0);
  for (int s = 0; s < steps; ++s) {
    T loss_part = T(0);
    for (int p = 0; p < points; ++p) {
      const bool first = p == 0;
      const T a_in = lane < nin0 ? inputs[(b * points + p) * nin0 + lane] : T(0);
      const T a = cuda::group_forward(L, static_cast<const T*>(xe), a_in, lane, group, a_at, z_at);
      T d = T(0);
      if (lane < nout) {
        d = a - targets[(b * points + p) * nout + lane];
        loss_part += T(0.5) * d * d;
      }
      cuda::group_backward(L, static_cast<const T*>(xe), d, a_at, z_at, lane, group,
                           [&](int k, T v) { sum[k] = first ? v : sum[k] + v; });
    }
    total = cuda::group_sum(loss_part, group);
    __syncwarp(mask);  // the gradient is complete before the lanes read it in their own order
    if (shared_sum)
      for (int k = lane; k < np; k += group) ge[k] = sum[k];
    __syncwarp(mask);
    const bool more = optimizer_tell(np, x, g, total, opt, run, w, lanes);
    __syncwarp(mask);  // the next evaluation point is written before the next forward pass reads it
    if (!more) break;
  }
  if (lane == 0) loss[b] = total;
}

// the points mapping: one warp per network, lane p holding point p of each chunk of 32 points
// (layers of at most 32 neurons). Every lane runs the whole network for its own point, all lanes
// reading the same weights (broadcast loads); the chunk's pre-activations stay in the warp's shared
// memory, one column per lane (z: every layer's, layer 0 the inputs), beside the deltas of the
// layer at hand (two buffers) and its input activations. A weight's gradient for the chunk,
// Σ_p δ_i(p) a_j(p), is a 32-term sum over shared memory that the lanes take in turn (entry k by
// lane k mod 32), added to the network's gradient in device memory. `width_sum` is the sum of all
// layer widths; per warp the kernel uses 32 · (width_sum + 3 · max width) values.
template <class T>
__global__ void mlp_fit_points_kernel(MlpLayout L, long networks, int points, int width_sum,
                                      const T* __restrict__ params, const T* __restrict__ inputs,
                                      const T* __restrict__ targets, T* __restrict__ loss, T* __restrict__ grad) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const long b = static_cast<long>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (b >= networks) return;  // the whole warp leaves
  const int wmax = L.max_width(), np = L.param_count(), nin0 = L.inputs(), nout = L.outputs();
  T* zs = reinterpret_cast<T*>(shared_raw) + static_cast<long>(warp) * 32 * (width_sum + 3 * wmax);
  T* delta[2] = {zs + 32 * width_sum, zs + 32 * (width_sum + wmax)};
  T* act = zs + 32 * (width_sum + 2 * wmax);
  int at[kMlpMaxLayers + 1];  // layer l's first row in zs
  at[0] = 0;
  for (int l = 0; l < L.layers; ++l) at[l + 1] = at[l] + L.width[l];
  const auto z_of = [&](int l, int j) -> T& { return zs[32 * (at[l] + j) + lane]; };
  const T* P = params + b * np;
  T* G = grad + b * np;
  for (int k = lane; k < np; k += 32) G[k] = T(0);
  T loss_part = T(0);
  for (int c0 = 0; c0 < points; c0 += 32) {
    const int p = c0 + lane;
    const bool live = p < points;
    __syncwarp();  // the previous chunk's reads of shared memory are done
    for (int j = 0; j < nin0; ++j) z_of(0, j) = live ? inputs[(b * points + p) * nin0 + j] : T(0);
    // forward, this lane's point
    for (int l = 0; l < L.layers; ++l) {
      const int nin = L.width[l], no = L.width[l + 1];
      const T* W = P + L.weight_offset(l);
      for (int j = 0; j < nin; ++j) act[32 * j + lane] = l == 0 ? z_of(0, j) : detail::activate(L.hidden, z_of(l, j));
      for (int i = 0; i < no; ++i) {
        T z = W[no * nin + i];
        for (int j = 0; j < nin; ++j) z += W[i * nin + j] * act[32 * j + lane];
        z_of(l + 1, i) = z;
      }
    }
    // the loss and the output deltas
    int cur = 0;
    for (int i = 0; i < nout; ++i) {
      const T z = z_of(L.layers, i);
      T d = T(0);
      if (live) {
        d = detail::output_map(L, z) - targets[(b * points + p) * nout + i];
        loss_part += T(0.5) * d * d;
      }
      delta[cur][32 * i + lane] = d * detail::output_slope(L, z);
    }
    // backward: each layer's gradient entries over the chunk, then the deltas of its inputs
    for (int l = L.layers - 1; l >= 0; --l) {
      const int nin = L.width[l], no = L.width[l + 1];
      const T* W = P + L.weight_offset(l);
      T* Gl = G + L.weight_offset(l);
      for (int j = 0; j < nin; ++j) act[32 * j + lane] = l == 0 ? z_of(0, j) : detail::activate(L.hidden, z_of(l, j));
      __syncwarp();  // every lane's deltas and activations are in place
      for (int k = lane; k < no * nin + no; k += 32) {
        const bool weight = k < no * nin;
        const int i = weight ? k / nin : k - no * nin, j = weight ? k % nin : 0;
        const T* di = delta[cur] + 32 * i;
        T s = T(0);
        if (weight) {
          const T* aj = act + 32 * j;
          for (int q = 0; q < 32; ++q) s += di[q] * aj[q];
        } else {
          for (int q = 0; q < 32; ++q) s += di[q];
        }
        Gl[k] += s;
      }
      if (l == 0) break;
      for (int j = 0; j < nin; ++j) {
        T s = T(0);
        for (int i = 0; i < no; ++i) s += W[i * nin + j] * delta[cur][32 * i + lane];
        delta[cur ^ 1][32 * j + lane] = s * detail::activate_slope(L.hidden, z_of(l, j));
      }
      __syncwarp();  // the gradient's reads of this layer's deltas and activations are done
      cur ^= 1;
    }
  }
  const T total = cuda::group_sum(loss_part, 32);
  if (lane == 0) loss[b] = total;
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

// a least-squares batch on the device as it is on the host, network-major: parameters, inputs and
// targets copied, loss and gradient allocated
template <class T>
struct NetworkMajorFit {
  DevicePtr<T> params, inputs, targets, loss, grad;
  NetworkMajorFit(const MlpLayout& L, long B, long P, const T* host_params, const T* host_inputs, const T* host_targets,
                  cudaError_t& err) {
    const long np = L.param_count();
    const auto upload = [&](const T* host, long count) {
      DevicePtr<T> d = device_alloc<T>(static_cast<std::size_t>(count), err);
      if (err == cudaSuccess) err = cudaMemcpy(d.get(), host, sizeof(T) * count, cudaMemcpyHostToDevice);
      return d;
    };
    params = upload(host_params, B * np);
    inputs = upload(host_inputs, B * P * L.inputs());
    targets = upload(host_targets, B * P * L.outputs());
    loss = device_alloc<T>(static_cast<std::size_t>(B), err);
    grad = device_alloc<T>(static_cast<std::size_t>(B * np), err);
  }
};

// count values of a network-major device array back to the host
template <class T>
void copy_back(T* host, const DevicePtr<T>& device, long count, cudaError_t& err) {
  if (err == cudaSuccess) err = cudaMemcpy(host, device.get(), sizeof(T) * count, cudaMemcpyDeviceToHost);
}

// the thread mapping's arrays, column-major (a network's values strided by the batch): its
// parameters copied, loss and gradient allocated, and each thread's cache and scratch
template <class T>
struct ColumnMajorNetworks {
  DevicePtr<T> params, loss, grad, cache, scratch;
  ColumnMajorNetworks(const MlpLayout& L, long B, const T* host_params, cudaError_t& err)
      : params(upload_columns(host_params, B, L.param_count(), err)),
        loss(device_alloc<T>(static_cast<std::size_t>(B), err)),
        grad(device_alloc<T>(static_cast<std::size_t>(B * L.param_count()), err)),
        cache(device_alloc<T>(static_cast<std::size_t>(B * L.cache_size()), err)),
        scratch(device_alloc<T>(static_cast<std::size_t>(B * mlp_batch_scratch_size(L)), err)) {}
  // loss and gradient back, network-major
  void download(T* host_loss, T* host_grad, const MlpLayout& L, long B, cudaError_t& err) const {
    download_columns(host_loss, loss.get(), B, 1, err);
    download_columns(host_grad, grad.get(), B, L.param_count(), err);
  }
};

// the group mapping's launch: two warps a block when a network fills one, else 128 threads; the
// gradient summed over the points in shared memory when there are several and it fits
template <class T>
struct GroupLaunch {
  int group = 1, block = 128, per_block = 128;
  std::size_t shared = 0;
  bool shared_sum = false;
  unsigned grid = 0;
  GroupLaunch(const MlpLayout& L, long B, long P) {
    group = cuda::group_lanes(L);
    block = group == 32 ? 64 : 128;
    per_block = block / group;
    shared = sizeof(T) * static_cast<std::size_t>(per_block * L.param_count());
    shared_sum = P > 1 && shared <= 48 * 1024;
    grid = static_cast<unsigned>((B + per_block - 1) / per_block);
  }
  std::size_t shared_bytes() const { return shared_sum ? shared : 0; }
};

// the group mapping: network-major arrays copied as they are
template <class T>
DeviceOutcome mlp_fit_batch_cuda_group(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s) {
  const long B = batch.networks, P = batch.points;
  cudaError_t err = cudaSuccess;
  NetworkMajorFit<T> d(L, B, P, batch.params, batch.inputs, batch.targets, err);
  if (err != cudaSuccess) return device_outcome(err);
  const GroupLaunch<T> g(L, B, P);
  err = timed_launches(
      repeats,
      [&] {
        mlp_fit_group_kernel<T><<<g.grid, g.block, g.shared_bytes()>>>(L, B, static_cast<int>(P), g.group, g.shared_sum,
                                                                       d.params.get(), d.inputs.get(), d.targets.get(),
                                                                       d.loss.get(), d.grad.get());
      },
      kernel_s);
  copy_back(batch.loss, d.loss, B, err);
  copy_back(batch.grad, d.grad, B * L.param_count(), err);
  return device_outcome(err);
}

// the points mapping: network-major arrays copied as they are, a warp per network
template <class T>
DeviceOutcome mlp_fit_batch_cuda_points(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats,
                                        double& kernel_s) {
  const long B = batch.networks, P = batch.points;
  int width_sum = 0;
  for (int l = 0; l <= L.layers; ++l) width_sum += L.width[l];
  const std::size_t shared = sizeof(T) * 32 * static_cast<std::size_t>(width_sum + 3 * L.max_width());
  cudaError_t err = cudaSuccess;
  NetworkMajorFit<T> d(L, B, P, batch.params, batch.inputs, batch.targets, err);
  // one warp a block: the shared memory of a wide network (54 KB for the 7 × 20 one in double) may
  // exceed the default 48 KB
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(mlp_fit_points_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(shared));
  if (err != cudaSuccess) return device_outcome(err);
  err = timed_launches(
      repeats,
      [&] {
        mlp_fit_points_kernel<T><<<static_cast<unsigned>(B), 32, shared>>>(L, B, static_cast<int>(P), width_sum,
                                                                           d.params.get(), d.inputs.get(),
                                                                           d.targets.get(), d.loss.get(), d.grad.get());
      },
      kernel_s);
  copy_back(batch.loss, d.loss, B, err);
  copy_back(batch.grad, d.grad, B * L.param_count(), err);
  return device_outcome(err);
}

}  // namespace

template <class T>
FIVSIM_MLP_TRAIN_BATCH_CUDA(T) {
  kernel_s = 0.0;
  const long B = batch.networks, np = L.param_count(), P = batch.points;
  // no networks: nothing to launch (a grid of zero blocks is a launch error)
  if (B <= 0) return {};
  if (mapping == MlpCudaMapping::automatic)
    mapping = L.max_width() <= 32 ? MlpCudaMapping::group : MlpCudaMapping::gemm;
  if (mapping == MlpCudaMapping::gemm) return mlp_train_batch_cuda_gemm(L, batch, steps, opt, kernel_s);
  if (mapping != MlpCudaMapping::group) return "mlp_train_batch_cuda: trained batches take the group or gemm mapping";
  if (L.max_width() > 32) return "mlp_train_batch_cuda: the group mapping takes layers of at most 32 neurons";
  const long work_per = optimizer_work_size(static_cast<int>(np), opt);
  cudaError_t err = cudaSuccess;
  NetworkMajorFit<T> d(L, B, P, batch.params, batch.inputs, batch.targets, err);
  auto work = device_alloc<T>(static_cast<std::size_t>(B * work_per), err);
  if (err != cudaSuccess) return device_outcome(err);
  const GroupLaunch<T> g(L, B, P);
  err = timed_launches(
      1,
      [&] {
        mlp_train_group_kernel<T><<<g.grid, g.block, g.shared_bytes()>>>(
            L, B, static_cast<int>(P), g.group, g.shared_sum, steps, opt, d.params.get(), d.inputs.get(),
            d.targets.get(), d.loss.get(), d.grad.get(), work.get(), work_per);
      },
      kernel_s);
  copy_back(batch.loss, d.loss, B, err);
  copy_back(batch.params, d.params, B * np, err);
  return device_outcome(err);
}

template <class T>
FIVSIM_MLP_FIT_BATCH_CUDA(T) {
  kernel_s = 0.0;
  const long B = batch.networks, P = batch.points;
  if (B <= 0) return {};
  const int wmax = L.max_width();
  if (mapping == MlpCudaMapping::automatic) mapping = choose_cuda_mapping(mlp_batch_shape(L, static_cast<int>(P)));
  if (mapping == MlpCudaMapping::gemm) return mlp_fit_batch_cuda_gemm(L, batch, repeats, kernel_s);
  if (mapping == MlpCudaMapping::group) {
    if (wmax > 32) return "mlp_fit_batch_cuda: the group mapping takes layers of at most 32 neurons";
    return mlp_fit_batch_cuda_group(L, batch, repeats, kernel_s);
  }
  if (mapping == MlpCudaMapping::points) {
    if (wmax > 32) return "mlp_fit_batch_cuda: the points mapping takes layers of at most 32 neurons";
    return mlp_fit_batch_cuda_points(L, batch, repeats, kernel_s);
  }
  cudaError_t err = cudaSuccess;
  const ColumnMajorNetworks<T> d(L, B, batch.params, err);
  auto inputs = upload_columns(batch.inputs, B, P * L.inputs(), err);
  auto targets = upload_columns(batch.targets, B, P * L.outputs(), err);
  if (err != cudaSuccess) return device_outcome(err);
  err = timed_launches(
      repeats,
      [&] {
        mlp_fit_kernel<T><<<grid_for(B), kBlock>>>(L, B, batch.points, d.params.get(), inputs.get(), targets.get(),
                                                   d.loss.get(), d.grad.get(), d.cache.get(), d.scratch.get());
      },
      kernel_s);
  d.download(batch.loss, batch.grad, L, B, err);
  return device_outcome(err);
}

template <class T>
FIVSIM_LCP_PINN_BATCH_CUDA(T) {
  kernel_s = 0.0;
  const long B = batch.networks, n = batch.n;
  if (B <= 0) return {};
  if (n < 1 || n > kLcpBatchMax)
    return DeviceOutcome("lcp_pinn_batch_cuda: n must be 1.." + std::to_string(kLcpBatchMax));
  cudaError_t err = cudaSuccess;
  const ColumnMajorNetworks<T> d(L, B, batch.params, err);
  auto A = upload_columns(batch.A, B, n * n, err);
  auto b = upload_columns(batch.b, B, n, err);
  auto residual = device_alloc<T>(static_cast<std::size_t>(B), err);
  if (err != cudaSuccess) return device_outcome(err);
  err = timed_launches(
      repeats,
      [&] {
        lcp_pinn_kernel<T><<<grid_for(B), kBlock>>>(L, B, static_cast<int>(n), d.params.get(), A.get(), b.get(),
                                                    d.loss.get(), d.grad.get(), residual.get(), d.cache.get(),
                                                    d.scratch.get());
      },
      kernel_s);
  d.download(batch.loss, batch.grad, L, B, err);
  download_columns(batch.residual, residual.get(), B, 1, err);
  return device_outcome(err);
}

FIVSIM_MLP_BATCH_CUDA_ENTRIES(template, double)
FIVSIM_MLP_BATCH_CUDA_ENTRIES(template, float)

}  // namespace fivsim
