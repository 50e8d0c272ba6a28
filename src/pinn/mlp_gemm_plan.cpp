// src/pinn/mlp_gemm_plan.cpp — the steps of a batch of least-squares fits as strided-batched
// matrix products and element-wise passes (pinn/mlp_gemm_plan.hpp). Per network: `pre` holds
// Z_1 … Z_L and `act` the hidden activations A_1 … A_{L−1} at the same offsets (A_0 is the inputs),
// each a width × points matrix; the deltas alternate between two buffers of max width × points.
#include "fivsim/pinn/mlp_gemm_plan.hpp"

namespace fivsim {

namespace {

MlpSlice slice(MlpBuffer buffer, long offset) { return MlpSlice{buffer, offset}; }

}  // namespace

MlpGemmPlan mlp_gemm_plan(const MlpLayout& L, int points) {
  MlpGemmPlan plan;
  plan.L = L;
  plan.points = points;
  const long P = points;
  const int n = L.layers;
  // layer l's pre-activations (1 ≤ l ≤ L) at pre_at[l]; its activations at the same offset in act
  long pre_at[kMlpMaxLayers + 2] = {};
  for (int l = 1; l <= n; ++l) pre_at[l + 1] = pre_at[l] + L.width[l] * P;
  const auto at = [&](int l) { return pre_at[l]; };
  auto& per = plan.per_network;
  per[static_cast<int>(MlpBuffer::params)] = L.param_count();
  per[static_cast<int>(MlpBuffer::inputs)] = L.inputs() * P;
  per[static_cast<int>(MlpBuffer::targets)] = L.outputs() * P;
  per[static_cast<int>(MlpBuffer::grad)] = L.param_count();
  per[static_cast<int>(MlpBuffer::pre)] = pre_at[n + 1];
  per[static_cast<int>(MlpBuffer::act)] = pre_at[n];
  per[static_cast<int>(MlpBuffer::delta0)] = L.max_width() * P;
  per[static_cast<int>(MlpBuffer::delta1)] = L.max_width() * P;
  const auto activations = [&](int l) { return l == 0 ? slice(MlpBuffer::inputs, 0) : slice(MlpBuffer::act, at(l)); };
  const auto gemm = [&](MlpGemmStep g) { plan.ops.push_back(MlpGemmOp{true, g, MlpPassStep{}}); };
  const auto pass = [&](MlpPassStep s) { plan.ops.push_back(MlpGemmOp{false, MlpGemmStep{}, s}); };
  for (int l = 0; l < n; ++l) {
    const int nin = L.width[l], nout = L.width[l + 1];
    const long w = L.weight_offset(l);
    // Z_{l+1} (nout × P) = (W_lᵀ)ᵀ A_l, W_lᵀ stored nin × nout
    gemm(MlpGemmStep{true, false, nout, points, nin, slice(MlpBuffer::params, w), activations(l),
                     slice(MlpBuffer::pre, at(l + 1)), nin, nin, nout});
    MlpPassStep s;
    s.pass = MlpPass::bias_activate;
    s.rows = nout;
    s.points = points;
    s.count = nout * points;
    s.output = l + 1 == n;
    s.z = slice(MlpBuffer::pre, at(l + 1));
    s.a = slice(MlpBuffer::act, at(l + 1));
    s.bias = slice(MlpBuffer::params, w + static_cast<long>(nout) * nin);
    pass(s);
  }
  MlpPassStep out;
  out.pass = MlpPass::output_delta;
  out.rows = L.outputs();
  out.points = points;
  out.count = L.outputs() * points;
  out.z = slice(MlpBuffer::pre, at(n));
  out.target = slice(MlpBuffer::targets, 0);
  out.delta = slice(MlpBuffer::delta0, 0);
  pass(out);
  MlpBuffer cur = MlpBuffer::delta0, next = MlpBuffer::delta1;
  for (int l = n - 1; l >= 0; --l) {
    const int nin = L.width[l], nout = L.width[l + 1];
    const long w = L.weight_offset(l);
    // ∂W_l as the in × out matrix A_l Δᵀ: the row-major out × in gradient
    gemm(MlpGemmStep{false, true, nin, nout, points, activations(l), slice(cur, 0), slice(MlpBuffer::grad, w), nin,
                     nout, nin});
    MlpPassStep gb;
    gb.pass = MlpPass::bias_gradient;
    gb.rows = nout;
    gb.points = points;
    gb.count = nout;
    gb.delta = slice(cur, 0);
    gb.out = slice(MlpBuffer::grad, w + static_cast<long>(nout) * nin);
    pass(gb);
    if (l == 0) break;
    // Δ_l (nin × P) = W_lᵀ Δ_{l+1}, then ∘ σ′(Z_l)
    gemm(MlpGemmStep{false, false, nin, points, nout, slice(MlpBuffer::params, w), slice(cur, 0), slice(next, 0), nin,
                     nout, nin});
    MlpPassStep hd;
    hd.pass = MlpPass::hidden_delta;
    hd.rows = nin;
    hd.points = points;
    hd.count = nin * points;
    hd.z = slice(MlpBuffer::pre, at(l));
    hd.delta = slice(next, 0);
    pass(hd);
    const MlpBuffer t = cur;
    cur = next;
    next = t;
  }
  return plan;
}

}  // namespace fivsim
