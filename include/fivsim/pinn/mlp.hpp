// fivsim/pinn/mlp.hpp — small fully connected networks for the PINNs: layout, deterministic
// initialisation, forward pass and analytic backward pass (seed 000 Eq. 15, seed 001 Eq. 8).
//
//   a_0 = input,  a_l = σ(W_{l−1} a_{l−1} + b_{l−1})  (hidden layers),  a_L = g(W_{L−1} a_{L−1} + b_{L−1})
// with σ ∈ {tanh, mish, ReLU} and g the identity or the modified ReLU on outputs that must be
// non-negative: g = max(0, z + c1) + c2 (seed 000 Eq. 20) or g = ReLU(z + c1)·c2 (seed 001 Eq. 9).
//
// Parameters of one network are one flat array (W_0 row-major, b_0, W_1, b_1, …), so an optimizer
// sees a plain vector and a batch is N such arrays. Everything here is FIVSIM_HD over raw pointers
// and runtime sizes (no heap): the caller owns the parameters, the cache and the scratch.
#pragma once

#include "fivsim/core/c_library.hpp"

#ifndef __CUDACC_RTC__
#include <string>
#include <vector>
#endif

#include "fivsim/core/config.hpp"
#include "fivsim/core/random.hpp"

namespace fivsim {

enum class Activation : int { tanh_fn = 0, mish = 1, relu = 2 };
enum class OutputMap : int { linear = 0, shifted_relu = 1, scaled_relu = 2 };

inline constexpr int kMlpMaxLayers = 16;  // weight layers: hidden layers + the output layer
inline constexpr int kMlpMaxWidth = 256;  // widest layer, inputs and outputs included

struct MlpLayout {
  int layers = 0;                     // weight layers (hidden layers + 1)
  int width[kMlpMaxLayers + 1] = {};  // width[0] inputs … width[layers] outputs
  Activation hidden = Activation::tanh_fn;
  OutputMap output = OutputMap::linear;
  double c1 = 0.0, c2 = 0.0;  // modified-ReLU correction factors

  FIVSIM_HD int inputs() const { return width[0]; }
  FIVSIM_HD int outputs() const { return width[layers]; }
  // offset of W_l (width[l+1] × width[l], row-major); b_l follows it
  FIVSIM_HD int weight_offset(int l) const {
    int off = 0;
    for (int k = 0; k < l; ++k) off += width[k + 1] * (width[k] + 1);
    return off;
  }
  FIVSIM_HD int param_count() const { return weight_offset(layers); }
  // activations a_0 … a_L, then pre-activations z_1 … z_L
  FIVSIM_HD int activation_offset(int l) const {
    int off = 0;
    for (int k = 0; k < l; ++k) off += width[k];
    return off;
  }
  FIVSIM_HD int pre_offset(int l) const { return activation_offset(layers + 1) + activation_offset(l) - width[0]; }
  FIVSIM_HD int cache_size() const { return pre_offset(layers + 1); }
  FIVSIM_HD int max_width() const {
    int w = 0;
    for (int l = 0; l <= layers; ++l) w = width[l] > w ? width[l] : w;
    return w;
  }
};

#ifndef __CUDACC_RTC__
// host: a layout of `inputs` → hidden widths → `outputs`; std::invalid_argument when it does not
// fit the compile-time limits
MlpLayout make_mlp_layout(int inputs, const std::vector<int>& hidden, int outputs, Activation activation,
                          OutputMap output, double c1 = 0.0, double c2 = 0.0);
// "tanh", "mish", "relu"
Activation parse_activation(const std::string& name);
const char* activation_name(Activation a);
#endif

namespace detail {

// the type of the values an array view's operator[] gives (a reference, maybe to const) — NVRTC,
// which compiles this header in specialised kernels, has no <type_traits>
template <class X>
struct value_of {
  using type = X;
};
template <class X>
struct value_of<X&> : value_of<X> {};
template <class X>
struct value_of<const X> {
  using type = X;
};

template <class T>
FIVSIM_HD inline T softplus(T z) {
  // log(1 + e^z) without overflow
  return z > T(20) ? z : log1p(exp(z));
}

template <class T>
FIVSIM_HD inline T activate(Activation a, T z) {
  switch (a) {
    case Activation::mish:
      return z * tanh(softplus(z));
    case Activation::relu:
      return z > T(0) ? z : T(0);
    case Activation::tanh_fn:
    default:
      return tanh(z);
  }
}

// dσ/dz at z
template <class T>
FIVSIM_HD inline T activate_slope(Activation a, T z) {
  switch (a) {
    case Activation::mish: {
      const T t = tanh(softplus(z));
      const T sig = T(1) / (T(1) + exp(-z));
      return t + z * (T(1) - t * t) * sig;
    }
    case Activation::relu:
      return z > T(0) ? T(1) : T(0);
    case Activation::tanh_fn:
    default: {
      const T t = tanh(z);
      return T(1) - t * t;
    }
  }
}

template <class T>
FIVSIM_HD inline T output_map(const MlpLayout& L, T z) {
  const T s = z + T(L.c1);
  switch (L.output) {
    case OutputMap::shifted_relu:
      return (s > T(0) ? s : T(0)) + T(L.c2);
    case OutputMap::scaled_relu:
      return (s > T(0) ? s : T(0)) * T(L.c2);
    case OutputMap::linear:
    default:
      return z;
  }
}

template <class T>
FIVSIM_HD inline T output_slope(const MlpLayout& L, T z) {
  const bool on = z + T(L.c1) > T(0);
  switch (L.output) {
    case OutputMap::shifted_relu:
      return on ? T(1) : T(0);
    case OutputMap::scaled_relu:
      return on ? T(L.c2) : T(0);
    case OutputMap::linear:
    default:
      return T(1);
  }
}

}  // namespace detail

// Glorot-uniform weights, zero biases; each weight drawn from (seed, stream, its index), so a
// network's start does not depend on the others of its batch
template <class T>
FIVSIM_HD inline void mlp_init(const MlpLayout& L, uint64_t seed, uint64_t stream, T* params) {
  for (int l = 0; l < L.layers; ++l) {
    const int fan_in = L.width[l], fan_out = L.width[l + 1];
    const int off = L.weight_offset(l);
    const double bound = sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    for (int i = 0; i < fan_out * fan_in; ++i)
      params[off + i] = T((2.0 * unit_draw(seed, stream, static_cast<uint64_t>(off + i)) - 1.0) * bound);
    for (int i = 0; i < fan_out; ++i) params[off + fan_out * fan_in + i] = T(0);
  }
}

// a strided view of an array: element i at p[i · stride]. A batch in structure of arrays (value
// k of network b at k·B + b, mlp_batch.hpp) is read by the per-network code through this view;
// a plain pointer is the stride-1 case, and every function below takes either.
template <class T>
struct Strided {
  T* p;
  long stride;
  FIVSIM_HD T& operator[](long i) const { return p[i * stride]; }
  FIVSIM_HD Strided operator+(long k) const { return {p + k * stride, stride}; }
};

// forward pass: cache (L.cache_size()) keeps what the backward pass needs; returns the outputs
// inside the cache (a pointer or view like `cache`)
template <class Params, class Input, class Cache>
FIVSIM_HD inline Cache mlp_forward(const MlpLayout& L, Params params, Input input, Cache cache) {
  using T = typename detail::value_of<decltype(cache[0])>::type;
  Cache a0 = cache + L.activation_offset(0);
  for (int i = 0; i < L.width[0]; ++i) a0[i] = input[i];
  for (int l = 0; l < L.layers; ++l) {
    const int nin = L.width[l], nout = L.width[l + 1];
    const Params W = params + L.weight_offset(l);
    const Params b = W + nout * nin;
    const Cache a = cache + L.activation_offset(l);
    const Cache z = cache + L.pre_offset(l + 1);
    const Cache next = cache + L.activation_offset(l + 1);
    const bool last = l + 1 == L.layers;
    for (int i = 0; i < nout; ++i) {
      T acc = b[i];
      for (int j = 0; j < nin; ++j) acc += W[i * nin + j] * a[j];
      z[i] = acc;
      next[i] = last ? detail::output_map(L, acc) : detail::activate(L.hidden, acc);
    }
  }
  return cache + L.activation_offset(L.layers);
}

// backward pass after mlp_forward: adds dLoss/dparams to grad, given dLoss/doutputs (d_out).
// scratch holds 2·L.max_width() values.
template <class Params, class Cache, class DOut, class Grad, class Scratch>
FIVSIM_HD inline void mlp_backward(const MlpLayout& L, Params params, Cache cache, DOut d_out, Grad grad,
                                   Scratch scratch) {
  using T = typename detail::value_of<decltype(scratch[0])>::type;
  const int wmax = L.max_width();
  Scratch delta = scratch;  // dLoss/dz of the layer being processed
  Scratch delta_prev = scratch + wmax;
  {
    const Cache z = cache + L.pre_offset(L.layers);
    for (int i = 0; i < L.outputs(); ++i) delta[i] = d_out[i] * detail::output_slope(L, T(z[i]));
  }
  for (int l = L.layers - 1; l >= 0; --l) {
    const int nin = L.width[l], nout = L.width[l + 1];
    const Params W = params + L.weight_offset(l);
    const Grad gW = grad + L.weight_offset(l);
    const Grad gb = gW + nout * nin;
    const Cache a = cache + L.activation_offset(l);
    for (int i = 0; i < nout; ++i) {
      const T d = delta[i];
      for (int j = 0; j < nin; ++j) gW[i * nin + j] += d * a[j];
      gb[i] += d;
    }
    if (l == 0) break;
    const Cache z = cache + L.pre_offset(l);
    for (int j = 0; j < nin; ++j) {
      T acc = T(0);
      for (int i = 0; i < nout; ++i) acc += W[i * nin + j] * delta[i];
      delta_prev[j] = acc * detail::activate_slope(L.hidden, T(z[j]));
    }
    const Scratch t = delta;
    delta = delta_prev;
    delta_prev = t;
  }
}

}  // namespace fivsim
