// scripts/bench/stepper_bench.cpp — steps per second of the CPU steppers on the seed models, one case
// on one core: Moreau (seed 000 Eq. 8), RK4-LCP and Gauss IRK-LCP (rk_lcp.hpp; a step costs the same
// whatever the stage count), and output samples per second of the event-driven reference.
// Run: build-bench/fivsim_bench_steppers
#include <benchmark/benchmark.h>

#include <memory>

#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_step_map.hpp"
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

// seed 000 Model II Example 2 as in scenarios/model2_example2.json
ModeCouplingParams model_ii_example2() {
  ModeCouplingParams p;
  p.m = 5;
  p.k1 = 1000;
  p.k3 = 600;
  p.kc = 500;
  p.Fp = 20;
  p.v0 = 20;
  p.law = stribeck(1.2, 0.04);
  return p;
}

template <class D>
void step_model(benchmark::State& bs, const ModelDescription& desc, std::vector<double> q0, std::vector<double> u0,
                double dt) {
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

// seed 001's 2-DoF chain at 15 N
ModelDescription chain2() {
  SliderChainParams p;
  p.m = p.k = {1.0, 1.0};
  p.c = {0.0, 0.0};
  p.Fn = {15.0, 15.0};
  p.v0 = 0.5;
  p.law = stribeck(0.1, 1.0);
  return make_slider_chain(p);
}

void BM_Chain2(benchmark::State& bs) { step_model<Dims<double, 2, 2>>(bs, chain2(), {0.5, 0.5}, {0.0, 0.0}, 1e-3); }

void BM_ModeCoupling2Dof(benchmark::State& bs) {
  step_model<Dims<double, 2, 1>>(bs, make_mode_coupling_2dof(model_ii_example2()), {-1.0, -1.0}, {20.0, 20.0}, 1e-4);
}

// the generic host instantiation that `fivsim run` uses, for comparison
void BM_Chain2HostDims(benchmark::State& bs) { step_model<HostDims>(bs, chain2(), {0.5, 0.5}, {0.0, 0.0}, 1e-3); }

}  // namespace

// Model II Example 2 (spring contact, separation and stick-slip) with the Runge–Kutta LCP steppers
template <class D>
void rk_model(benchmark::State& bs, const ButcherTableau& tab, StageForces forces) {
  auto m = std::make_unique<Model<D>>();
  make_model(make_mode_coupling_2dof(model_ii_example2()), *m);
  auto map = std::make_unique<RkStepMap<D>>();
  make_rk_step_map(*m, tab, 1e-4, forces, *map);
  State<D> s{};
  s.q.resize(2, -1.0);
  s.u.resize(2, 20.0);
  s.lamN.resize(1);
  s.lamT.resize(1);
  const State<D> start = s;
  auto ws = std::make_unique<RkLcpWorkspace<D>>();
  const StepOptions opt;
  long steps = 0;
  for (auto _ : bs) {
    for (int k = 0; k < 1000; ++k) {
      const StepReport r = rk_lcp_step(*m, *map, s, opt, *ws);
      if (r.status != Status::ok) s = start;
    }
    steps += 1000;
    benchmark::DoNotOptimize(s.q[0]);
  }
  bs.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
}

void BM_Rk4LcpModeCoupling(benchmark::State& bs) {
  rk_model<Dims<double, 2, 1>>(bs, classical_rk4(), StageForces::held);
}
void BM_Irk10ModeCoupling(benchmark::State& bs) {
  rk_model<Dims<double, 2, 1>>(bs, gauss_legendre(10), StageForces::held);
}
void BM_Irk10InterpModeCoupling(benchmark::State& bs) {
  rk_model<Dims<double, 2, 1>>(bs, gauss_legendre(10), StageForces::ramp);
}

// the event-driven reference over Model II Example 2, 10 s sampled every 1e-4 s
void BM_ReferenceModeCoupling(benchmark::State& bs) {
  const ModelDescription d = make_mode_coupling_2dof(model_ii_example2());
  long samples = 0, events = 0;
  for (auto _ : bs) {
    const EventDrivenOutcome out =
        simulate_event_driven(d, Eigen::Vector2d(-1, -1), Eigen::Vector2d(20, 20), 0.0, 10.0, 1e-4,
                              EventDrivenOptions{}, [&](const ReferenceSample&) { ++samples; });
    events += static_cast<long>(out.events.size());
  }
  bs.counters["samples_per_s"] = benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
  bs.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_SliderBelt);
BENCHMARK(BM_Chain2);
BENCHMARK(BM_ModeCoupling2Dof);
BENCHMARK(BM_Chain2HostDims);
BENCHMARK(BM_Rk4LcpModeCoupling);
BENCHMARK(BM_Irk10ModeCoupling);
BENCHMARK(BM_Irk10InterpModeCoupling);
BENCHMARK(BM_ReferenceModeCoupling)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
