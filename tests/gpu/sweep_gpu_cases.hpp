// tests/gpu/sweep_gpu_cases.hpp — the device tests' sweeps: a scenario's cases prepared as `fivsim
// sweep` prepares a chunk of them, run on both backends, and a model each instantiation holds.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "fivsim/sweep/chunk_backend.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "source_tree.hpp"

namespace fivsim::gpu_test {

// a sweep's cases prepared as `fivsim sweep` prepares a chunk of them
template <class D>
struct Prepared {
  Scenario base;
  SweepSpec spec;
  std::unique_ptr<sweep::SweepPlan> plan;
  std::unique_ptr<sweep::SweepShared<D>> shared;
  sweep::PreparedCases<D> cases;
  SweepAnalysis an;
  StepOptions opt;
};

template <class D>
Prepared<D> prepare(const json& doc, bool single) {
  Prepared<D> p;
  p.base = parse_scenario(doc);
  p.spec = parse_sweep(doc);
  p.plan = std::make_unique<sweep::SweepPlan>(p.base, p.spec);
  p.an = sweep::sweep_analysis(p.base);
  p.opt = sweep::sweep_step_options(p.base, single);
  p.shared = std::make_unique<sweep::SweepShared<D>>(*p.plan, p.opt.stick_tol);
  sweep::prepare_cases(*p.plan, *p.shared, 0, p.spec.n_cases(), p.cases);
  return p;
}

template <class D>
struct Batch {
  std::vector<CaseResult<D>> cpu, gpu;
  std::vector<double> points_cpu, points_gpu;
  SweepAnalysis an;
};

// the n cases of `doc`'s sweep on both backends
template <class D>
Batch<D> run_both(const json& doc, long n, bool single) {
  const Prepared<D> p = prepare<D>(doc, single);
  Batch<D> b;
  b.an = p.an;
  const long per_case = case_points_size(D::max_dof, b.an);
  b.cpu.resize(n);
  b.gpu.resize(n);
  b.points_cpu.assign(n * per_case, 0.0);
  b.points_gpu.assign(n * per_case, 0.0);
  sweep::run_chunk_cpu(p.cases.batch(), b.an, p.opt, b.cpu.data(), b.points_cpu.data(), 0);
  double kernel_s = 0.0;
  const DeviceOutcome out =
      sweep::run_chunk_cuda(p.cases.batch(), b.an, p.opt, b.gpu.data(), b.points_gpu.data(), kernel_s);
  EXPECT_EQ(out.error, "");
  return b;
}

// a model each instantiation holds, swept over 96 cases
template <class D>
json model_for() {
  const auto scenario = [](const char* file) { return load_json_file(scenario_path(file)); };
  json doc;
  if constexpr (D::exact && D::max_dof == 1) {
    doc = scenario("model1_v0_delta_grid.json");
    doc["sweep"]["parameters"][1]["linspace"] = {0.0, 5.0, 2};
    doc["sweep"]["parameters"][0]["linspace"] = {0.05, 1.5, 48};
  } else if constexpr (D::exact && D::max_dof == 5) {
    doc = scenario("chain5_F15.json");
    doc["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"linspace", {5, 25, 96}}}}}};
  } else if constexpr (D::exact) {
    doc = scenario("chain2_load_sweep.json");
    doc["sweep"]["parameters"][0]["linspace"] = {1.0, 30.0, 96};
  } else if constexpr (D::max_dof == 2) {
    doc = scenario("model2_mu_scan.json");
    doc["sweep"]["parameters"][0]["linspace"] = {0.8, 1.4, 96};
  } else {
    // 3 sliders (up to 8 DoF), or a 9-mass chain with two sliders on a belt (up to 24)
    const int n = D::max_dof == 8 ? 3 : 9;
    json m = json::array(), k = json::array(), contacts = json::array();
    doc = {{"name", "typed"}, {"friction", {{"law", "stribeck_exp"}, {"mu_s", 0.12}, {"mu_d", 0.045}, {"alpha", 3.0}}}};
    json M = json::array(), K = json::array();
    for (int i = 0; i < n; ++i) {
      json mr = json::array(), kr = json::array();
      for (int j = 0; j < n; ++j) {
        mr.push_back(i == j ? 1.0 : 0.0);
        kr.push_back(i == j ? (i + 1 < n ? 2.0 : 1.0) : (std::abs(i - j) == 1 ? -1.0 : 0.0));
      }
      M.push_back(mr);
      K.push_back(kr);
    }
    for (int c = 0; c < (n == 3 ? 3 : 2); ++c) {
      json wt = json::array();
      for (int j = 0; j < n; ++j) wt.push_back(j == (n == 3 ? c : 4 * c) ? 1.0 : 0.0);
      contacts.push_back({{"kind", "given_normal"}, {"w_T", wt}, {"Fn", 15.0}, {"v_surface", 0.3}});
    }
    doc["model"] = {{"type", "linear_multibody"}, {"M", M}, {"K", K}, {"contacts", contacts}};
    doc["initial"] = {{"q", json(std::vector<double>(static_cast<std::size_t>(n), 0.5))}};
    doc["integrator"] = {{"method", "moreau"}, {"dt", 1e-3}, {"t_end", 40.0}};
    doc["analysis"] = {{"t_transient", 10.0}};
    doc["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/model/contacts/0/Fn"}, {"linspace", {1, 30, 96}}}}}};
  }
  doc["integrator"]["t_end"] = 40.0;
  doc["analysis"]["t_transient"] = 10.0;
  return doc;
}

}  // namespace fivsim::gpu_test
