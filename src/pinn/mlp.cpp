// src/pinn/mlp.cpp — host helpers of the small MLP (pinn/mlp.hpp): layouts and activation names.
#include "fivsim/pinn/mlp.hpp"

#include <stdexcept>

namespace fivsim {

MlpLayout make_mlp_layout(int inputs, const std::vector<int>& hidden, int outputs, Activation activation,
                          OutputMap output, double c1, double c2) {
  if (hidden.size() + 1 > static_cast<std::size_t>(kMlpMaxLayers))
    throw std::invalid_argument("at most " + std::to_string(kMlpMaxLayers - 1) + " hidden layers");
  auto check = [](int w, const char* what) {
    if (w < 1 || w > kMlpMaxWidth)
      throw std::invalid_argument(std::string(what) + " must be 1.." + std::to_string(kMlpMaxWidth) + " (got " +
                                  std::to_string(w) + ")");
  };
  check(inputs, "inputs");
  check(outputs, "outputs");
  MlpLayout L;
  L.layers = static_cast<int>(hidden.size()) + 1;
  L.width[0] = inputs;
  for (std::size_t l = 0; l < hidden.size(); ++l) {
    check(hidden[l], "a hidden layer's width");
    L.width[l + 1] = hidden[l];
  }
  L.width[L.layers] = outputs;
  L.hidden = activation;
  L.output = output;
  L.c1 = c1;
  L.c2 = c2;
  return L;
}

Activation parse_activation(const std::string& name) {
  if (name == "tanh") return Activation::tanh_fn;
  if (name == "mish") return Activation::mish;
  if (name == "relu") return Activation::relu;
  throw std::invalid_argument("unknown activation '" + name + "' (tanh, mish, relu)");
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::mish:
      return "mish";
    case Activation::relu:
      return "relu";
    case Activation::tanh_fn:
    default:
      return "tanh";
  }
}

}  // namespace fivsim
