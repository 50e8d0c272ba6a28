// fivsim/pinn/mlp_gemm.hpp — one network's least-squares loss and gradient over all its points at
// once, each layer's products as Eigen matrix products (the CPU backend's `gemm` mapping,
// mlp_batch_policy.hpp): the same loss and gradient as mlp_least_squares (mlp_batch.hpp), which
// walks the points one after another, up to the order of the sums. Host only.
#pragma once

#include <vector>

#include <Eigen/Dense>

#include "fivsim/pinn/mlp.hpp"

namespace fivsim {

// the matrices one network's pass keeps (a thread's own, reused from network to network)
template <class T>
struct MlpGemmWork {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  std::vector<Matrix> a, z;  // activations a_0 … a_L and pre-activations z_1 … z_L, width × points
  Matrix delta, delta_prev;
};

// ½ Σ_p ‖net(x_p) − t_p‖² and, into grad (overwritten), its gradient; inputs: points × inputs and
// targets: points × outputs, row-major as mlp_least_squares reads them
template <class T>
T mlp_least_squares_gemm(const MlpLayout& L, int points, const T* params, const T* inputs, const T* targets, T* grad,
                         MlpGemmWork<T>& work);

extern template double mlp_least_squares_gemm<double>(const MlpLayout&, int, const double*, const double*,
                                                      const double*, double*, MlpGemmWork<double>&);
extern template float mlp_least_squares_gemm<float>(const MlpLayout&, int, const float*, const float*, const float*,
                                                    float*, MlpGemmWork<float>&);

}  // namespace fivsim
