// tests/pinn/mlp_batch_problems.hpp — deterministic batches for the batched-network tests (CPU and
// GPU): least-squares fits of 7 × 20 networks and LCP-PINNs of 3 × 5 networks on random LCPs.
#pragma once

#include <cmath>
#include <vector>

#include "fivsim/pinn/mlp_batch.hpp"

namespace fivsim::test {

// owns the arrays of a batch; view() hands them out as the backends' struct
template <class T>
struct FitBatchData {
  MlpLayout L;
  long networks = 0;
  int points = 0;
  std::vector<T> params, inputs, targets, loss, grad;
  MlpFitBatch<T> view() {
    return {networks, points, params.data(), inputs.data(), targets.data(), loss.data(), grad.data()};
  }
  // the batch's fits trained from `trained` (a copy of params, updated in place), losses to `last_loss`
  MlpTrainBatch<T> train_view(std::vector<T>& trained, std::vector<T>& last_loss) const {
    return {networks, points, trained.data(), inputs.data(), targets.data(), last_loss.data()};
  }
};

template <class T>
struct LcpBatchData {
  MlpLayout L;
  long networks = 0;
  int n = 0;
  std::vector<T> params, A, b, loss, grad, residual;
  LcpPinnBatch<T> view() {
    return {networks, n, params.data(), A.data(), b.data(), loss.data(), grad.data(), residual.data()};
  }
};

// networks of `hidden` tanh layers, in → out, each initialised from its own stream and fitted
// to smooth targets at `points` inputs
template <class T>
FitBatchData<T> make_fit_batch(long networks, int points, int in, const std::vector<int>& hidden, int out) {
  FitBatchData<T> d;
  d.L = make_mlp_layout(in, hidden, out, Activation::tanh_fn, OutputMap::linear);
  d.networks = networks;
  d.points = points;
  const long np = d.L.param_count();
  d.params.resize(static_cast<std::size_t>(networks * np));
  std::vector<double> p(static_cast<std::size_t>(np));
  for (long b = 0; b < networks; ++b) {
    mlp_init(d.L, 7, static_cast<uint64_t>(b), p.data());
    for (long k = 0; k < np; ++k)
      d.params[static_cast<std::size_t>(b * np + k)] = T(p[k] + 0.01 * std::sin(0.3 * k + b));
  }
  for (long b = 0; b < networks; ++b)
    for (int q = 0; q < points; ++q) {
      for (int i = 0; i < in; ++i) d.inputs.push_back(T(std::sin(1.3 * (b + 1) + 0.7 * q + 0.5 * i)));
      for (int i = 0; i < out; ++i) d.targets.push_back(T(std::cos(0.9 * b + 0.4 * q + 0.3 * i)));
    }
  d.loss.assign(static_cast<std::size_t>(networks), T(0));
  d.grad.assign(static_cast<std::size_t>(networks * np), T(0));
  return d;
}

// 3 × 5 LCP-PINNs (modified ReLU outputs) on LCPs with A = MᵀM + I (P-matrices) and b mixed in
// sign, n unknowns each
template <class T>
LcpBatchData<T> make_lcp_batch(long networks, int n) {
  LcpBatchData<T> d;
  LcpPinnSettings s;
  d.L = lcp_pinn_layout(s, n);
  d.networks = networks;
  d.n = n;
  const long np = d.L.param_count();
  std::vector<double> p(static_cast<std::size_t>(np));
  for (long k = 0; k < networks; ++k) {
    mlp_init(d.L, 11, static_cast<uint64_t>(k), p.data());
    for (long i = 0; i < np; ++i) d.params.push_back(T(p[i] + 0.05 * std::cos(0.7 * i + k)));
    std::vector<double> M(static_cast<std::size_t>(n * n));
    for (int i = 0; i < n * n; ++i) M[i] = std::sin(0.37 * (i + 1) * (k + 2));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double a = i == j ? 1.0 : 0.0;
        for (int r = 0; r < n; ++r) a += M[r * n + i] * M[r * n + j];
        d.A.push_back(T(a));
      }
    for (int i = 0; i < n; ++i) d.b.push_back(T(std::sin(2.1 * i + 0.9 * k)));
  }
  d.loss.assign(static_cast<std::size_t>(networks), T(0));
  d.residual.assign(static_cast<std::size_t>(networks), T(0));
  d.grad.assign(static_cast<std::size_t>(networks * np), T(0));
  return d;
}

}  // namespace fivsim::test
