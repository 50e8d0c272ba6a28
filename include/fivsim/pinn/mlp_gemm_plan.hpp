// fivsim/pinn/mlp_gemm_plan.hpp — a batch of least-squares fits (mlp_batch.hpp) as a list of
// strided-batched matrix products and element-wise passes over every network at once: the CUDA
// backend's `gemm` mapping (mlp_batch_policy.hpp) hands the products to cuBLAS and the passes to
// its own kernels (kernels/mlp_gemm.cu). The equations are mlp_gemm.hpp's, with A_l the
// activations of layer l, one column per point:
//   Z_{l+1} = W_l A_l + b_l 1ᵀ,  Δ_L = (g(Z_L) − Tgt) ∘ g′(Z_L),
//   ∂W_l = Δ_{l+1} A_lᵀ,  ∂b_l = Δ_{l+1} 1,  Δ_l = (W_lᵀ Δ_{l+1}) ∘ σ′(Z_l).
// Every matrix is column-major, as BLAS reads it: a network's points × inputs row-major inputs are
// its inputs × points matrix, its row-major W_l (out × in) is the in × out matrix W_lᵀ, and its
// ∂W_l is written as the in × out matrix A_l Δ_{l+1}ᵀ. The plan is plain data that any executor
// runs, so the CPU tests run the very steps the device runs (tests/pinn/mlp_gemm_plan_test.cpp).
// Plain structs and FIVSIM_HD functions only: nvcc compiles this header.
#pragma once

#include <vector>

#include "fivsim/pinn/mlp.hpp"

namespace fivsim {

// the arrays a plan reads and writes, each `MlpGemmPlan::per_network` values a network, the
// networks one after another (network-major, as the host batch is)
enum class MlpBuffer : int { params = 0, inputs, targets, grad, pre, act, delta0, delta1 };
inline constexpr int kMlpBuffers = 8;

// a matrix inside every network's part of a buffer: network b's starts at b · per_network + offset
struct MlpSlice {
  MlpBuffer buffer = MlpBuffer::params;
  long offset = 0;
};

// every network's C (m × n, leading dimension ldc) = op(A) op(B), op(X) = Xᵀ when trans_X; op(A)
// is m × k, op(B) k × n (cublasGemmStridedBatchedEx with alpha 1, beta 0)
struct MlpGemmStep {
  bool trans_a = false, trans_b = false;
  int m = 0, n = 0, k = 0;
  MlpSlice a, b, c;
  int lda = 0, ldb = 0, ldc = 0;
};

// the element-wise passes, each over `count` elements of every network:
//   bias_activate  z[e] += bias[e mod rows]; a[e] = σ(z[e]) unless the layer is the output layer
//   output_delta   d = g(z[e]) − target[e]; delta[e] = d · g′(z[e]); the network's loss sums ½ d²
//   bias_gradient  out[i] = Σ_p delta[i + p · rows] over the points (count = rows)
//   hidden_delta   delta[e] *= σ′(z[e])
enum class MlpPass : int { bias_activate = 0, output_delta, bias_gradient, hidden_delta };

struct MlpPassStep {
  MlpPass pass = MlpPass::bias_activate;
  int rows = 0;                             // the layer's width: a column of `rows` values a point
  int points = 0;                           // columns
  int count = 0;                            // elements a network: rows · points, or rows for bias_gradient
  bool output = false;                      // bias_activate of the output layer: no activation stored
  MlpSlice z, a, delta, bias, target, out;  // those the pass reads or writes
};

struct MlpGemmOp {
  bool is_gemm = true;
  MlpGemmStep gemm;
  MlpPassStep pass;
};

struct MlpGemmPlan {
  MlpLayout L;
  int points = 0;
  long per_network[kMlpBuffers] = {};  // values a network in each buffer
  std::vector<MlpGemmOp> ops;          // in order: the forward pass, the output's deltas, the backward pass
};

// the plan of a least-squares fit of `points` points a network
MlpGemmPlan mlp_gemm_plan(const MlpLayout& L, int points);

// where a plan's buffers are (device or host memory): each one's first network, and the distance
// from a network's part to the next one's, at least the plan's per_network (a trained batch's
// parameters and gradient lie inside each network's optimizer state)
template <class T>
struct MlpGemmBuffers {
  T* base[kMlpBuffers] = {};
  long per_network[kMlpBuffers] = {};
  FIVSIM_HD T* at(const MlpSlice& s, long network) const {
    const int k = static_cast<int>(s.buffer);
    return base[k] + network * per_network[k] + s.offset;
  }
};

// one element e of a pass for network b; returns output_delta's ½ d² (0 for the other passes)
template <class T>
FIVSIM_HD inline T mlp_pass_element(const MlpLayout& L, const MlpPassStep& s, const MlpGemmBuffers<T>& buf, long b,
                                    int e) {
  switch (s.pass) {
    case MlpPass::bias_activate: {
      T* z = buf.at(s.z, b);
      const T v = z[e] + buf.at(s.bias, b)[e % s.rows];
      z[e] = v;
      if (!s.output) buf.at(s.a, b)[e] = detail::activate(L.hidden, v);
      return T(0);
    }
    case MlpPass::output_delta: {
      const T z = buf.at(s.z, b)[e];
      const T d = detail::output_map(L, z) - buf.at(s.target, b)[e];
      buf.at(s.delta, b)[e] = d * detail::output_slope(L, z);
      return T(0.5) * d * d;
    }
    case MlpPass::bias_gradient: {
      const T* delta = buf.at(s.delta, b);
      T sum = T(0);
      for (int p = 0; p < s.points; ++p) sum += delta[e + p * s.rows];
      buf.at(s.out, b)[e] = sum;
      return T(0);
    }
    case MlpPass::hidden_delta:
    default:
      buf.at(s.delta, b)[e] *= detail::activate_slope(L.hidden, buf.at(s.z, b)[e]);
      return T(0);
  }
}

}  // namespace fivsim
