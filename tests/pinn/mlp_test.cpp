// tests/pinn/mlp_test.cpp — the small MLP (pinn/mlp.hpp): the analytic backward pass against central
// finite differences for every activation and output map, the layout arithmetic, and the
// deterministic initialisation.
#include "fivsim/pinn/mlp.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace fivsim {
namespace {

// loss = Σ_k w_k · out_k with fixed weights w, so dLoss/dout = w
double weighted_output(const MlpLayout& L, const std::vector<double>& p, const std::vector<double>& in,
                       const std::vector<double>& w) {
  std::vector<double> cache(L.cache_size());
  const double* out = mlp_forward(L, p.data(), in.data(), cache.data());
  double s = 0.0;
  for (int k = 0; k < L.outputs(); ++k) s += w[k] * out[k];
  return s;
}

struct GradientCase {
  Activation hidden;
  OutputMap output;
};

class MlpGradient : public ::testing::TestWithParam<GradientCase> {};

TEST_P(MlpGradient, BackwardMatchesFiniteDifferences) {
  const MlpLayout L = make_mlp_layout(3, {7, 6, 5}, 4, GetParam().hidden, GetParam().output, 0.3, 0.2);
  std::vector<double> p(L.param_count());
  mlp_init(L, 42, 0, p.data());
  // biases off zero so that every unit sees a generic pre-activation
  for (std::size_t i = 0; i < p.size(); ++i) p[i] += 0.05 * std::sin(1.7 * double(i));
  const std::vector<double> in = {0.4, -1.1, 0.7};
  const std::vector<double> w = {1.0, -0.5, 0.25, 2.0};

  std::vector<double> cache(L.cache_size()), grad(p.size(), 0.0), scratch(2 * L.max_width());
  mlp_forward(L, p.data(), in.data(), cache.data());
  mlp_backward(L, p.data(), cache.data(), w.data(), grad.data(), scratch.data());

  const double h = 1e-6;
  double worst = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    auto plus = p, minus = p;
    plus[i] += h;
    minus[i] -= h;
    const double fd = (weighted_output(L, plus, in, w) - weighted_output(L, minus, in, w)) / (2 * h);
    worst = std::max(worst, std::abs(fd - grad[i]) / (1.0 + std::abs(fd)));
  }
  // central differences in double: truncation h² ≈ 1e-12, rounding ε/h ≈ 1e-10
  EXPECT_LT(worst, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Activations, MlpGradient,
                         ::testing::Values(GradientCase{Activation::tanh_fn, OutputMap::linear},
                                           GradientCase{Activation::mish, OutputMap::linear},
                                           GradientCase{Activation::relu, OutputMap::linear},
                                           GradientCase{Activation::tanh_fn, OutputMap::shifted_relu},
                                           GradientCase{Activation::tanh_fn, OutputMap::scaled_relu}));

TEST(Mlp, LayoutCountsAndForwardByHand) {
  // 2 → 3 → 1 tanh network: 2·3+3 + 3·1+1 = 13 parameters
  const MlpLayout L = make_mlp_layout(2, {3}, 1, Activation::tanh_fn, OutputMap::linear);
  ASSERT_EQ(L.param_count(), 13);
  std::vector<double> p(13);
  for (int i = 0; i < 13; ++i) p[i] = 0.1 * (i + 1);
  std::vector<double> cache(L.cache_size());
  const double in[2] = {0.5, -0.25};
  const double out = *mlp_forward(L, p.data(), in, cache.data());
  double expect = p[12];
  for (int k = 0; k < 3; ++k) {
    const double z = p[6 + k] + p[2 * k] * in[0] + p[2 * k + 1] * in[1];
    expect += p[9 + k] * std::tanh(z);
  }
  EXPECT_NEAR(out, expect, 1e-15);
}

TEST(Mlp, ModifiedReluOutputsAreNonNegativeAndMishMatchesItsFormula) {
  MlpLayout L = make_mlp_layout(1, {2}, 1, Activation::mish, OutputMap::shifted_relu, 0.0, 0.0);
  EXPECT_DOUBLE_EQ(detail::output_map(L, -3.0), 0.0);
  EXPECT_DOUBLE_EQ(detail::output_map(L, 2.0), 2.0);
  L.c2 = 0.5;  // seed 000 Eq. 20 adds c2 after the clamp
  EXPECT_DOUBLE_EQ(detail::output_map(L, -3.0), 0.5);
  L.output = OutputMap::scaled_relu;  // seed 001 Eq. 9 multiplies by c2
  L.c1 = 1.0;
  EXPECT_DOUBLE_EQ(detail::output_map(L, 1.0), 1.0);
  const double z = 0.8;
  EXPECT_NEAR(detail::activate(Activation::mish, z), z * std::tanh(std::log(1 + std::exp(z))), 1e-15);
}

TEST(Mlp, InitialisationIsDeterministicPerStream) {
  const MlpLayout L = make_mlp_layout(1, {20, 20}, 3, Activation::tanh_fn, OutputMap::linear);
  std::vector<double> a(L.param_count()), b(L.param_count()), c(L.param_count());
  mlp_init(L, 7, 3, a.data());
  mlp_init(L, 7, 3, b.data());
  mlp_init(L, 7, 4, c.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Glorot bound of the 20 → 20 layer: √(6/40)
  const int off = L.weight_offset(1);
  for (int i = 0; i < 400; ++i) EXPECT_LE(std::abs(a[off + i]), std::sqrt(6.0 / 40.0));
}

TEST(Mlp, LayoutRejectsWhatDoesNotFit) {
  EXPECT_THROW(make_mlp_layout(0, {5}, 1, Activation::tanh_fn, OutputMap::linear), std::invalid_argument);
  EXPECT_THROW(make_mlp_layout(1, std::vector<int>(kMlpMaxLayers, 5), 1, Activation::tanh_fn, OutputMap::linear),
               std::invalid_argument);
  EXPECT_THROW(make_mlp_layout(1, {kMlpMaxWidth + 1}, 1, Activation::tanh_fn, OutputMap::linear),
               std::invalid_argument);
  EXPECT_EQ(parse_activation("mish"), Activation::mish);
  EXPECT_THROW(parse_activation("sigmoid"), std::invalid_argument);
}

}  // namespace
}  // namespace fivsim
