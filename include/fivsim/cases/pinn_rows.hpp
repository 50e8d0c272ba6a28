// fivsim/cases/pinn_rows.hpp — the two phases of a PINN sweep's training round that carry its
// weight, as device functions over the round's rows (cases/pinn_case.hpp; docs/DESIGN.md "Lockstep
// PINN training"): the dynamic networks' evaluations, a group of lanes a row (pinn/mlp_group.hpp),
// and their optimizer's tells, a warp a row. The prebuilt kernels (kernels/sweep_pinn.cu) read each
// row's network layout and optimizer from its stepper; a kernel specialised at run time
// (sweep/kernel_source.hpp) hands them in as constants folded into its source, so that the
// compiler knows every layer's width. Device code only (nvcc and NVRTC).
#pragma once

#if defined(__CUDACC__)

#include "fivsim/cases/pinn_case.hpp"
#include "fivsim/pinn/mlp_group.hpp"

namespace fivsim {

// a row's dynamic network and optimizer as its stepper's settings say (the prebuilt kernels)
struct PinnRowsFromSteppers {
  template <class D>
  __device__ const MlpLayout& layout(const PinnStepper<D>& p) const {
    return p.set->dynamics;
  }
  template <class D>
  __device__ const OptimizerOptions& optimizer(const PinnStepper<D>& p) const {
    return p.set->dynamics_optimizer;
  }
};

// every row's the same, given (the sweep's settings, folded into a specialised kernel)
struct PinnRowsGiven {
  MlpLayout L;
  OptimizerOptions opt;
  template <class D>
  __device__ const MlpLayout& layout(const PinnStepper<D>&) const {
    return L;
  }
  template <class D>
  __device__ const OptimizerOptions& optimizer(const PinnStepper<D>&) const {
    return opt;
  }
};

// one network's loss and gradient at xe by a group of lanes: the forward pass from the lane's
// input, the loss of the outputs formed by lane 0 in the row's scratch (loss_of(out, d_out) writes
// dLoss/dout), the backward pass writing the gradient to ge. The loss is lane 0's.
template <class T, class LossOf>
__device__ T pinn_group_objective(const MlpLayout& L, const T* xe, T* ge, T input, T* out, T* d_out, int lane,
                                  int group, LossOf&& loss_of) {
  T a_at[kMlpMaxLayers + 1], z_at[kMlpMaxLayers + 1];
  const T a = cuda::group_forward(L, xe, input, lane, group, a_at, z_at);
  if (lane < L.outputs()) out[lane] = a;
  __syncwarp(cuda::group_mask(group));
  T loss = T(0);
  if (lane == 0) loss = loss_of(static_cast<const T*>(out), d_out);
  __syncwarp(cuda::group_mask(group));
  const T d = lane < L.outputs() ? d_out[lane] : T(0);
  cuda::group_backward(L, xe, d, a_at, z_at, lane, group, [&](int k, T v) { ge[k] = v; });
  return loss;
}

// rows training their dynamic network: one group of lanes a row (rows[slot] for slot < *nr), the
// IRK-PINN's forward pass from q_A, loss (Eqs. 21–26) and backward pass; loss[slot] the row's loss
template <class D, class Settings>
__device__ void pinn_evaluate_rows(PinnCase<D>* run, const int* rows, const int* nr, int group,
                                   typename D::scalar* loss, const Settings& of) {
  using T = typename D::scalar;
  const int lane = static_cast<int>(threadIdx.x) & (group - 1);
  const int slot = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / group);
  if (slot >= *nr) return;  // the whole group leaves: its shuffles name its own lanes only
  const int row = rows[slot];
  PinnCase<D>& x = run[row / 2];
  const int w = row % 2;
  const PinnStepper<D>& p = x.st[w];
  const MlpLayout& L = of.layout(p);
  const int np = L.param_count();
  const IrkPinnStep<T> st = p.data(pinn_case_state(x, w));
  const T v = pinn_group_objective(
      L, optimizer_eval_x(np, p.buf.work), optimizer_eval_grad(np, p.buf.work), lane < L.inputs() ? st.q[lane] : T(0),
      p.buf.cache + L.activation_offset(L.layers), p.buf.d_out, lane, group,
      [&](const T* out, T* d_out) { return irk_pinn_loss(*p.m, p.tab, st, out, d_out, p.buf.loss_scratch); });
  if (lane == 0) loss[slot] = v;
}

// rows training their dynamic network: one warp a row, the optimizer's step with its vectors shared
// by the 32 lanes; the rows that go on are listed for the next round (next, count[1])
template <class D, class Settings>
__device__ void pinn_tell_rows(PinnCase<D>* run, const int* rows, const int* nr, const typename D::scalar* loss,
                               int* next, int* count, const Settings& of) {
  using T = typename D::scalar;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int slot = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  if (slot >= *nr) return;
  const int row = rows[slot];
  PinnCase<D>& x = run[row / 2];
  const int w = row % 2;
  const PinnStepper<D>& p = x.st[w];
  PinnStepRun<T>& r = x.step[w];
  OptimizerRun<T> o = r.dynamics;
  const bool more = p.tell_dynamics_with(of.layout(p), of.optimizer(p), o, loss[slot], cuda::GroupLanes{lane, 32});
  __syncwarp();
  if (lane != 0) return;
  r.dynamics = o;
  if (more)
    next[atomicAdd(&count[1], 1)] = row;
  else
    p.dynamics_trained(r);
}

}  // namespace fivsim

#endif  // __CUDACC__
