// tests/bench/moreau_bench.cpp — steps per second of the CPU Moreau stepper (seed 000 Eq. 8) on
// the seed models, one case on one core. Run: build/fivsim_bench_moreau
#include <benchmark/benchmark.h>

#include <memory>

#include "fivsim/integrate/moreau.hpp"
#include "fivsim/model/presets.hpp"

namespace {

using namespace fivsim;

FrictionLaw stribeck(double mu_s, double delta) {
  FrictionLaw l;
  l.kind = FrictionLawKind::stribeck_rational;
  l.p[0] = mu_s;
  l.p[1] = delta;
  return l;
}

template <class D>
void step_model(benchmark::State& bs, const ModelDescription& desc, std::vector<double> q0,
                std::vector<double> u0, double dt) {
  auto m = std::make_unique<Model<D>>();
  make_model(desc, *m);
  State<D> s{};
  s.q.resize(m->n_dof);
  s.u.resize(m->n_dof);
  for (int i = 0; i < m->n_dof; ++i) {
    s.q[i] = q0[i];
    s.u[i] = u0[i];
  }
  const State<D> start = s;
  MoreauWorkspace<D> ws;
  const StepOptions opt;
  long steps = 0;
  for (auto _ : bs) {
    for (int k = 0; k < 1000; ++k) {
      const StepReport r = moreau_step(*m, s, dt, opt, ws);
      if (r.status != Status::ok) s = start;
    }
    steps += 1000;
    benchmark::DoNotOptimize(s.q[0]);
  }
  bs.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
}

void BM_SliderBelt(benchmark::State& bs) {
  SliderBeltParams p;
  p.v0 = 0.5;
  p.Fn = 10.0;
  p.law = stribeck(0.1, 1.0);
  step_model<Dims<double, 1, 1>>(bs, make_slider_belt(p), {0.0}, {0.0}, 1e-3);
}

void BM_Chain2(benchmark::State& bs) {
  SliderChainParams p;
  p.m = p.k = {1.0, 1.0};
  p.c = {0.0, 0.0};
  p.Fn = {15.0, 15.0};
  p.v0 = 0.5;
  p.law = stribeck(0.1, 1.0);
  step_model<Dims<double, 2, 2>>(bs, make_slider_chain(p), {0.5, 0.5}, {0.0, 0.0}, 1e-3);
}

void BM_ModeCoupling2Dof(benchmark::State& bs) {
  ModeCouplingParams p;
  p.m = 5;
  p.k1 = 1000;
  p.k3 = 600;
  p.kc = 500;
  p.Fp = 20;
  p.v0 = 20;
  p.law = stribeck(1.2, 0.04);
  step_model<Dims<double, 2, 1>>(bs, make_mode_coupling_2dof(p), {-1.0, -1.0}, {20.0, 20.0}, 1e-4);
}

// the generic host instantiation that `fivsim run` uses, for comparison
void BM_Chain2HostDims(benchmark::State& bs) {
  SliderChainParams p;
  p.m = p.k = {1.0, 1.0};
  p.c = {0.0, 0.0};
  p.Fn = {15.0, 15.0};
  p.v0 = 0.5;
  p.law = stribeck(0.1, 1.0);
  step_model<HostDims>(bs, make_slider_chain(p), {0.5, 0.5}, {0.0, 0.0}, 1e-3);
}

}  // namespace

BENCHMARK(BM_SliderBelt);
BENCHMARK(BM_Chain2);
BENCHMARK(BM_ModeCoupling2Dof);
BENCHMARK(BM_Chain2HostDims);
BENCHMARK_MAIN();
