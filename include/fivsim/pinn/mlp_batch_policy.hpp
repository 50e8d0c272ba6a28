// fivsim/pinn/mlp_batch_policy.hpp — how a batch of least-squares fits (mlp_batch.hpp) is mapped
// onto a backend's threads: one description of the batch (MlpBatchShape) that both backends read,
// and one table per backend whose first matching row chooses the mapping. Each row says which
// measurement put it there (BENCHMARKS.md "PINN against PyTorch"). Plain constexpr data: nvcc
// compiles this header.
#pragma once

#include "fivsim/pinn/mlp.hpp"

namespace fivsim {

// CUDA (kernels/mlp_batch.cu):
//   thread     one thread per network, the batch as structure of arrays (any layout);
//   group      one group of lanes per network (a power of two ≥ the widest layer, at most a warp),
//              lane j holding neuron j, the batch network-major (layers of at most 32 neurons);
//   points     one warp per network, lane p holding point p of each chunk of 32 points and running
//              the whole network for it, the weight gradient summed over the chunk in shared
//              memory (layers of at most 32 neurons);
//   gemm       each layer's products for all networks as one cuBLAS strided-batched GEMM, the
//              element-wise work in kernels of their own, the whole pass one CUDA graph
//              (pinn/mlp_gemm_plan.hpp, kernels/mlp_gemm.cu; any width);
//   automatic  the table's choice.
enum class MlpCudaMapping : int { automatic = 0, thread = 1, group = 2, points = 3, gemm = 4 };
// CPU (src/pinn/mlp_batch.cpp), one network per OpenMP iteration either way:
//   network    the network's points one after another through the FIVSIM_HD forward and backward
//              passes (what a CUDA thread runs);
//   gemm       each layer's products over all the network's points as one Eigen matrix product
//              (src/pinn/mlp_gemm.cpp);
//   automatic  the table's choice.
enum class MlpCpuMapping : int { automatic = 0, network = 1, gemm = 2 };

// what the mapping is chosen by: the same for both backends
struct MlpBatchShape {
  int max_width = 0;  // the widest layer, inputs and outputs included
  int points = 0;     // points per network
};
inline MlpBatchShape mlp_batch_shape(const MlpLayout& L, int points) { return {L.max_width(), points}; }

// a row: layers of at most `width_at_most` neurons and at least `points_from` points per network
template <class Mapping>
struct MlpPolicyRow {
  int width_at_most;
  int points_from;
  Mapping mapping;
};

// CUDA: at 32 points the points mapping ran 3.8× (IRK-PINN 7 × 20) and 3.6× (LCP-PINN 3 × 5)
// faster than group on an H200, at 1 point 17× and 6× slower (2026-11-26); group 2–5× faster than
// thread for the seeds' networks below 32 points (H100); thread for wider layers, which group and
// points cannot hold
inline constexpr MlpPolicyRow<MlpCudaMapping> kMlpCudaPolicy[] = {
    {32, 32, MlpCudaMapping::points},
    {32, 0, MlpCudaMapping::group},
    {kMlpMaxWidth, 0, MlpCudaMapping::thread},
};

// CPU (2-core development VM, fivsim_bench_mlp, 10^4 networks, 2026-11-29): the matrix products
// against the point-by-point passes 0.87× at 1 point, 0.83× at 2, 1.20× at 4, 1.33× at 8 and 1.58×
// at 32 for 7 × 20 in double (1.71× in float at 32); 1.31× and 1.33× at 4 and 32 points for 3 × 5;
// 0.89×, 1.21× and 1.80× at 2, 4 and 32 points for 2 × 64 — from 4 points at every width
inline constexpr MlpPolicyRow<MlpCpuMapping> kMlpCpuPolicy[] = {
    {kMlpMaxWidth, 4, MlpCpuMapping::gemm},
    {kMlpMaxWidth, 0, MlpCpuMapping::network},
};

// the first row of `table` that the shape meets (every table ends with a row any shape meets)
template <class Mapping, int N>
inline Mapping mlp_policy_choice(const MlpPolicyRow<Mapping> (&table)[N], const MlpBatchShape& s) {
  for (const auto& row : table)
    if (s.max_width <= row.width_at_most && s.points >= row.points_from) return row.mapping;
  return table[N - 1].mapping;
}

inline MlpCudaMapping choose_cuda_mapping(const MlpBatchShape& s) { return mlp_policy_choice(kMlpCudaPolicy, s); }
inline MlpCpuMapping choose_cpu_mapping(const MlpBatchShape& s) { return mlp_policy_choice(kMlpCpuPolicy, s); }

}  // namespace fivsim
