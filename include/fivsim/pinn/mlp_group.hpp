// fivsim/pinn/mlp_group.hpp — one small MLP evaluated by a group of lanes (seed 000 Eq. 15): lane j
// of the group holds neuron j of the layer at hand, a row of W_l (or of its gradient) is read or
// written by the group in one coalesced access, and the sums over a layer's inputs are shuffle
// reductions. Shared by the batched least-squares fits (kernels/mlp_batch.cu), the lockstep PINN
// sweep (cases/pinn_rows.hpp) and its kernels specialised at run time. A group is a power of two of
// at most 32 lanes, aligned within its warp; its shuffles name only its own lanes, so a group past a
// batch's end may leave early. Device code only (nvcc and NVRTC).
#pragma once

#if defined(__CUDACC__)

#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>
#endif

#include "fivsim/pinn/mlp.hpp"

namespace fivsim::cuda {

// the lanes of the group that this thread belongs to, as a shuffle mask
__device__ inline unsigned group_mask(int group) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned first = lane / static_cast<unsigned>(group) * static_cast<unsigned>(group);
  return group == 32 ? 0xffffffffu : ((1u << group) - 1u) << first;
}

// the sum of v over the lanes of a group, in every lane
template <class T>
__device__ T group_sum(T v, int group) {
  const unsigned mask = group_mask(group);
  for (int off = group / 2; off > 0; off /= 2) v += __shfl_xor_sync(mask, v, off, group);
  return v;
}

// the largest v over the lanes of a group, in every lane
template <class T>
__device__ T group_max(T v, int group) {
  const unsigned mask = group_mask(group);
  for (int off = group / 2; off > 0; off /= 2) {
    const T o = __shfl_xor_sync(mask, v, off, group);
    v = o > v ? o : v;
  }
  return v;
}

// a group's lanes sharing the vectors of an optimizer run (pinn/optimizer.hpp's Lanes)
struct GroupLanes {
  int lane, group;
  __device__ int first() const { return lane; }
  __device__ int stride() const { return group; }
  template <class T>
  __device__ T sum(T v) const {
    return group_sum(v, group);
  }
  template <class T>
  __device__ T max(T v) const {
    return group_max(v, group);
  }
};

// forward pass: lane `lane` enters with input a_in (lanes past the inputs with 0) and leaves with
// its neuron's output (lanes past the outputs with 0); a_at, z_at keep the lane's activation and
// pre-activation of every layer for the backward pass
template <class T>
__device__ T group_forward(const MlpLayout& L, const T* P, T a_in, int lane, int group, T* a_at, T* z_at) {
  T a = a_in;
  a_at[0] = a;
  for (int l = 0; l < L.layers; ++l) {
    const int nin = L.width[l], no = L.width[l + 1];
    const T* W = P + L.weight_offset(l);
    // z_i = Σ_j W_ij a_j + b_i as a group sum per output i, kept by lane i
    T z = T(0);
    for (int i = 0; i < no; ++i) {
      const T s = group_sum(lane < nin ? W[i * nin + lane] * a : T(0), group);
      if (lane == i) z = s;
    }
    const bool last = l + 1 == L.layers;
    if (lane < no) {
      z += W[no * nin + lane];
      a = last ? detail::output_map(L, z) : detail::activate(L.hidden, z);
    } else {
      z = a = T(0);
    }
    z_at[l + 1] = z;
    a_at[l + 1] = a;
  }
  return a;
}

// backward pass after group_forward: lane i of the outputs enters with dLoss/da_i (d_out); add(k, v)
// takes the gradient's part v for parameter k (each k once for one point). Lane j adds δ_i a_j to
// gW_ij and sums W_ij δ_i over i, δ_i handed round by shuffle.
template <class T, class Add>
__device__ void group_backward(const MlpLayout& L, const T* P, T d_out, const T* a_at, const T* z_at, int lane,
                               int group, Add&& add) {
  const unsigned mask = group_mask(group);
  T delta = lane < L.outputs() ? d_out * detail::output_slope(L, z_at[L.layers]) : T(0);
  for (int l = L.layers - 1; l >= 0; --l) {
    const int nin = L.width[l], no = L.width[l + 1];
    const int off = L.weight_offset(l);
    const T* W = P + off;
    const T a_in = a_at[l];
    T back = T(0);
    for (int i = 0; i < no; ++i) {
      const T d_i = __shfl_sync(mask, delta, i, group);
      if (lane < nin) {
        add(off + i * nin + lane, d_i * a_in);
        back += W[i * nin + lane] * d_i;
      }
    }
    if (lane < no) add(off + no * nin + lane, delta);
    if (l == 0) break;
    delta = lane < nin ? back * detail::activate_slope(L.hidden, z_at[l]) : T(0);
  }
}

// lanes per network: the power of two at or above the widest layer (more than 32: no group fits)
FIVSIM_HD inline int group_lanes(const MlpLayout& L) {
  int g = 1;
  while (g < L.max_width()) g *= 2;
  return g;
}

}  // namespace fivsim::cuda

#endif  // __CUDACC__
