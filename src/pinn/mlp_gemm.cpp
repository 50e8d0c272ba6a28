// src/pinn/mlp_gemm.cpp — a network's forward and backward passes over all its points as matrix
// products (pinn/mlp_gemm.hpp): with A_l the activations of layer l, one column per point,
//   Z_{l+1} = W_l A_l + b_l 1ᵀ,  A_{l+1} = σ(Z_{l+1}),  Δ_L = (A_L − Tgt) ∘ g′(Z_L),
//   ∂W_l = Δ_{l+1} A_lᵀ,  ∂b_l = Δ_{l+1} 1,  Δ_l = (W_lᵀ Δ_{l+1}) ∘ σ′(Z_l).
#include "fivsim/pinn/mlp_gemm.hpp"

namespace fivsim {

template <class T>
T mlp_least_squares_gemm(const MlpLayout& L, int points, const T* params, const T* inputs, const T* targets, T* grad,
                         MlpGemmWork<T>& w) {
  using Matrix = typename MlpGemmWork<T>::Matrix;
  using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  const int P = points, n = L.layers;
  w.a.resize(static_cast<std::size_t>(n + 1));
  w.z.resize(static_cast<std::size_t>(n + 1));
  // points × inputs row-major is inputs × points column-major: one column a point
  w.a[0] = Eigen::Map<const Matrix>(inputs, L.inputs(), P);
  for (int l = 0; l < n; ++l) {
    const int nin = L.width[l], nout = L.width[l + 1];
    const T* W = params + L.weight_offset(l);
    const Eigen::Map<const RowMajor> Wl(W, nout, nin);
    const Eigen::Map<const Vector> bl(W + nout * nin, nout);
    Matrix& z = w.z[static_cast<std::size_t>(l + 1)];
    z.noalias() = Wl * w.a[static_cast<std::size_t>(l)];
    z.colwise() += bl;
    const bool last = l + 1 == n;
    w.a[static_cast<std::size_t>(l + 1)] =
        z.unaryExpr([&](T v) { return last ? detail::output_map(L, v) : detail::activate(L.hidden, v); });
  }
  const Eigen::Map<const Matrix> target(targets, L.outputs(), P);
  w.delta = w.a[static_cast<std::size_t>(n)] - target;
  const T loss = T(0.5) * w.delta.squaredNorm();
  w.delta =
      w.delta.cwiseProduct(w.z[static_cast<std::size_t>(n)].unaryExpr([&](T v) { return detail::output_slope(L, v); }));
  for (int l = n - 1; l >= 0; --l) {
    const int nin = L.width[l], nout = L.width[l + 1];
    const int off = L.weight_offset(l);
    Eigen::Map<RowMajor> gW(grad + off, nout, nin);
    Eigen::Map<Vector> gb(grad + off + nout * nin, nout);
    gW.noalias() = w.delta * w.a[static_cast<std::size_t>(l)].transpose();
    gb = w.delta.rowwise().sum();
    if (l == 0) break;
    const Eigen::Map<const RowMajor> Wl(params + off, nout, nin);
    w.delta_prev.noalias() = Wl.transpose() * w.delta;
    w.delta = w.delta_prev.cwiseProduct(
        w.z[static_cast<std::size_t>(l)].unaryExpr([&](T v) { return detail::activate_slope(L.hidden, v); }));
  }
  return loss;
}

template double mlp_least_squares_gemm<double>(const MlpLayout&, int, const double*, const double*, const double*,
                                               double*, MlpGemmWork<double>&);
template float mlp_least_squares_gemm<float>(const MlpLayout&, int, const float*, const float*, const float*, float*,
                                             MlpGemmWork<float>&);

}  // namespace fivsim
