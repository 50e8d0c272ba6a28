// fivsim/pinn/mlp_batch.hpp — many small networks of one layout evaluated together: the batched
// forward + backward passes and the batched LCP residuals of the PINN engine (seed 000 §2.3,
// Eqs. 15–19; seed 001 Eqs. 8–12), one network per case (or per case and time step).
//
// Two per-network evaluations, written once as FIVSIM_HD code over any array view (mlp.hpp's
// Strided or a plain pointer):
//   - mlp_least_squares: loss ½ Σ_p ‖net(x_p) − t_p‖² over a network's points and its gradient for
//     the parameters (a fit of collocation data; the benchmark's workload);
//   - lcp_pinn_residuals: the LCP-PINN loss of Eq. 19 for the network's own LCP (constant input 1,
//     outputs x and y), its gradient, and the natural-map residual ‖min(x, A x + b)‖∞ of the x it
//     outputs (lcp.hpp's shared residual).
// Host arrays are network-major (network b's values contiguous). The CPU backend runs networks in
// an OpenMP loop on them; the CUDA backend (kernels/mlp_batch.cu) stores the batch as structure of
// arrays on the device (value k of network b at k·B + b), one thread per network, so that the
// threads of a warp read and write consecutive words, and runs the same functions through Strided
// views. Plain structs only: nvcc compiles this header.
#pragma once

#include "fivsim/core/cuda_device.hpp"

#include <string>

#include "fivsim/lcp/lcp.hpp"
#include "fivsim/pinn/lcp_pinn.hpp"
#include "fivsim/pinn/mlp.hpp"
#include "fivsim/pinn/mlp_batch_policy.hpp"

namespace fivsim {

// scratch one network needs besides its cache: two delta vectors and d_out
FIVSIM_HD inline int mlp_batch_scratch_size(const MlpLayout& L) { return 2 * L.max_width() + L.outputs(); }

// ½ Σ_p ‖net(x_p) − t_p‖² and, into grad (overwritten), its gradient; inputs: points × inputs,
// targets: points × outputs; cache: L.cache_size(); scratch: mlp_batch_scratch_size(L)
template <class T, class Params, class In, class Tgt, class Grad, class Cache, class Scratch>
FIVSIM_HD inline T mlp_least_squares(const MlpLayout& L, int points, Params params, In inputs, Tgt targets, Grad grad,
                                     Cache cache, Scratch scratch) {
  const int np = L.param_count(), nin = L.inputs(), nout = L.outputs();
  for (int k = 0; k < np; ++k) grad[k] = T(0);
  const Scratch d_out = scratch + 2 * L.max_width();
  T loss = T(0);
  for (int p = 0; p < points; ++p) {
    const Cache out = mlp_forward(L, params, inputs + p * nin, cache);
    for (int i = 0; i < nout; ++i) {
      const T d = out[i] - targets[p * nout + i];
      d_out[i] = d;
      loss += T(0.5) * d * d;
    }
    mlp_backward(L, params, cache, d_out, grad, scratch);
  }
  return loss;
}

// the LCP-PINN of an LCP(A, b) with n = A.rows unknowns: Eq. 19's loss (returned), its gradient
// into grad (overwritten), and the natural-map residual of the network's x
template <class T, int Cap, class Params, class Grad, class Cache, class Scratch>
FIVSIM_HD inline T lcp_pinn_residuals(const MlpLayout& L, const LcpMatrix<T, Cap>& A, const LcpVector<T, Cap>& b,
                                      Params params, Grad grad, Cache cache, Scratch scratch, T& natural_residual) {
  const int np = L.param_count(), n = A.rows;
  for (int k = 0; k < np; ++k) grad[k] = T(0);
  const Scratch d_out = scratch + 2 * L.max_width();
  const T one = T(1);
  const Cache out = mlp_forward(L, params, &one, cache);
  const T loss = lcp_pinn_loss(A, b, out, d_out);
  mlp_backward(L, params, cache, d_out, grad, scratch);
  LcpVector<T, Cap> x;
  x.n = n;
  for (int i = 0; i < n; ++i) x[i] = out[i];
  natural_residual = lcp_residual(A, b, x);
  return loss;
}

// one network trained by `steps` optimizer steps on its least-squares loss: each step one forward +
// backward pass at the point the optimizer names and one tell (pinn/optimizer.hpp, reverse
// communication); params end at the optimizer's point, the last evaluated loss is returned.
// grad: np values, work: optimizer_work_size(np, opt) (the CUDA group kernel runs the same tells
// over a group of lanes, kernels/mlp_batch.cu)
template <class T>
FIVSIM_HD inline T mlp_train_network(const MlpLayout& L, int points, T* params, const T* inputs, const T* targets,
                                     int steps, const OptimizerOptions& opt, T* grad, T* work, T* cache, T* scratch) {
  const int np = L.param_count();
  OptimizerRun<T> run;
  optimizer_start(np, static_cast<const T*>(params), opt, run, work);
  T loss = T(0);
  for (int s = 0; s < steps; ++s) {
    loss = mlp_least_squares<T>(L, points, static_cast<const T*>(optimizer_eval_x(np, work)), inputs, targets,
                                optimizer_eval_grad(np, work), cache, scratch);
    if (!optimizer_tell(np, params, grad, loss, opt, run, work)) break;
  }
  return loss;
}

inline constexpr int kLcpBatchMax = 8;  // LCP unknowns in a batched LCP-PINN (a sweep's contacts)

// one LCP of a batch (A row-major n × n, b) read into fixed-size storage
template <class T, class ASrc, class BSrc>
FIVSIM_HD inline void lcp_batch_problem(ASrc A_src, BSrc b_src, int n, LcpMatrix<T, kLcpBatchMax>& A,
                                        LcpVector<T, kLcpBatchMax>& b) {
  A.resize(n, n);
  b.resize(n);
  for (int i = 0; i < n; ++i) {
    b[i] = b_src[i];
    for (int j = 0; j < n; ++j) A(i, j) = A_src[i * n + j];
  }
}

// a batch of least-squares fits, host arrays, network-major
template <class T>
struct MlpFitBatch {
  long networks = 0;
  int points = 0;              // per network
  const T* params = nullptr;   // networks × L.param_count()
  const T* inputs = nullptr;   // networks × points × L.inputs()
  const T* targets = nullptr;  // networks × points × L.outputs()
  T* loss = nullptr;           // networks
  T* grad = nullptr;           // networks × L.param_count()
};

// a batch of LCP-PINNs, one LCP each, host arrays, network-major; A row-major n × n
template <class T>
struct LcpPinnBatch {
  long networks = 0;
  int n = 0;                  // unknowns per LCP (≤ kLcpBatchMax)
  const T* params = nullptr;  // networks × L.param_count()
  const T* A = nullptr;       // networks × n × n
  const T* b = nullptr;       // networks × n
  T* loss = nullptr;          // networks
  T* grad = nullptr;          // networks × L.param_count()
  T* residual = nullptr;      // networks
};

// a batch of least-squares fits trained together (the issue-22 benchmark's workload: forward +
// backward + optimizer step of every network, each with its own optimizer state), host arrays,
// network-major
template <class T>
struct MlpTrainBatch {
  long networks = 0;
  int points = 0;
  T* params = nullptr;         // networks × L.param_count(), trained in place
  const T* inputs = nullptr;   // networks × points × L.inputs()
  const T* targets = nullptr;  // networks × points × L.outputs()
  T* loss = nullptr;           // networks: the last evaluated loss
};

// CPU backend: OpenMP over the networks on `threads` threads (0: all), each network's points by
// `mapping` (mlp_batch_policy.hpp; automatic: the policy table's choice)
template <class T>
void mlp_fit_batch_cpu(const MlpLayout& L, const MlpFitBatch<T>& batch, int threads,
                       MlpCpuMapping mapping = MlpCpuMapping::automatic);
template <class T>
void lcp_pinn_batch_cpu(const MlpLayout& L, const LcpPinnBatch<T>& batch, int threads);
// every network trained by `steps` steps of the optimizer `opt` (mlp_train_network)
template <class T>
void mlp_train_batch_cpu(const MlpLayout& L, const MlpTrainBatch<T>& batch, int steps, const OptimizerOptions& opt,
                         int threads);

// CUDA backend: copies the batch to the device, evaluates it `repeats` times (the same answer
// each time; for timing), copies the answers back. Returns "" or the error; kernel_s gets the
// device time of all repeats (CUDA events). In a build without CUDA it returns why.
#define FIVSIM_MLP_FIT_BATCH_CUDA(T)                                                                               \
  DeviceOutcome mlp_fit_batch_cuda(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s, \
                                   MlpCudaMapping mapping)
template <class T>
FIVSIM_MLP_FIT_BATCH_CUDA(T);
// the mapping of the policy table (mlp_batch_policy.hpp)
template <class T>
DeviceOutcome mlp_fit_batch_cuda(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s) {
  return mlp_fit_batch_cuda(L, batch, repeats, kernel_s, MlpCudaMapping::automatic);
}
#define FIVSIM_LCP_PINN_BATCH_CUDA(T) \
  DeviceOutcome lcp_pinn_batch_cuda(const MlpLayout& L, const LcpPinnBatch<T>& batch, int repeats, double& kernel_s)
template <class T>
FIVSIM_LCP_PINN_BATCH_CUDA(T);
// CUDA backend of mlp_train_batch_cpu, each network with its optimizer state in device memory, by
// `mapping`: group — one group of lanes per network (layers of at most 32 neurons) runs all `steps`
// steps in one launch (forward and backward passes over the network's points, the gradient summed
// in shared memory, the optimizer's tell over the group's lanes); gemm — each step the gemm
// mapping's products and passes at every network's evaluation point, then every network's tell, as
// one graph launched once a step (any width); automatic — group where the layers fit a warp, else
// gemm. kernel_s gets the device time of the steps.
#define FIVSIM_MLP_TRAIN_BATCH_CUDA(T)                                                             \
  DeviceOutcome mlp_train_batch_cuda(const MlpLayout& L, const MlpTrainBatch<T>& batch, int steps, \
                                     const OptimizerOptions& opt, double& kernel_s, MlpCudaMapping mapping)
template <class T>
FIVSIM_MLP_TRAIN_BATCH_CUDA(T);
template <class T>
DeviceOutcome mlp_train_batch_cuda(const MlpLayout& L, const MlpTrainBatch<T>& batch, int steps,
                                   const OptimizerOptions& opt, double& kernel_s) {
  return mlp_train_batch_cuda(L, batch, steps, opt, kernel_s, MlpCudaMapping::automatic);
}
// every CUDA entry point of the batched networks, for T
#define FIVSIM_MLP_BATCH_CUDA_ENTRIES(PREFIX, T) \
  PREFIX FIVSIM_MLP_FIT_BATCH_CUDA(T);           \
  PREFIX FIVSIM_LCP_PINN_BATCH_CUDA(T);          \
  PREFIX FIVSIM_MLP_TRAIN_BATCH_CUDA(T);

#define FIVSIM_MLP_BATCH_EXTERN(T)                                                                                     \
  extern template void mlp_fit_batch_cpu<T>(const MlpLayout&, const MlpFitBatch<T>&, int, MlpCpuMapping);              \
  extern template void lcp_pinn_batch_cpu<T>(const MlpLayout&, const LcpPinnBatch<T>&, int);                           \
  extern template void mlp_train_batch_cpu<T>(const MlpLayout&, const MlpTrainBatch<T>&, int, const OptimizerOptions&, \
                                              int);                                                                    \
  FIVSIM_MLP_BATCH_CUDA_ENTRIES(extern template, T)
FIVSIM_MLP_BATCH_EXTERN(double)
FIVSIM_MLP_BATCH_EXTERN(float)
#undef FIVSIM_MLP_BATCH_EXTERN

}  // namespace fivsim
