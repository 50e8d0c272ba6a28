// src/sweep/cpu_backend.cpp — the sweep engine's host side: the chunk's cases prepared from the plan,
// and the CPU backend (an OpenMP loop over the shared case runner, with the classical steppers or
// the PINN steppers).
#include "fivsim/sweep/sweep.hpp"

#include "fivsim/cases/belt_runner.hpp"
#include "fivsim/cases/case_orbit.hpp"
#include "fivsim/cases/case_shape.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "fivsim/integrate/simulation.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::sweep {

SweepAnalysis sweep_analysis(const Scenario& sc) {
  SweepAnalysis an;
  const PoincareSettings& p = sc.analysis.poincare;
  an.section = p.section == "stick_to_slip"  ? SectionKind::stick_to_slip
               : p.section == "velocity"     ? SectionKind::velocity
               : p.section == "stroboscopic" ? SectionKind::stroboscopic
                                             : SectionKind::none;
  an.contact = p.contact;
  an.dof = p.dof;
  an.value = p.value;
  an.direction = p.direction == "down" ? -1 : p.direction == "up" ? 1 : 0;
  an.period = p.period;
  an.periodic_tol = sc.analysis.periodic_tol;
  an.max_period = sc.analysis.max_period;
  an.capacity = sc.analysis.points;
  an.lyapunov_every = sc.analysis.lyapunov_every;
  an.lyapunov_d0 = sc.analysis.lyapunov_d0;
  an.lyapunov_zero = sc.analysis.lyapunov_zero;
  an.chaos_window = sc.analysis.chaos_window;
  an.confirmations = sc.analysis.confirmations;
  an.adaptive = sc.analysis.adaptive;
  an.observers = sc.analysis.observers;
  if (sc.analysis.reference) {
    an.reference = sc.analysis.reference->data();
    an.reference_n = static_cast<long>(sc.analysis.reference->size());
    an.reference_dof = sc.analysis.reference_dof;
  }
  return an;
}

StepOptions sweep_step_options(const Scenario& sc, bool single_precision) {
  StepOptions opt = sc.integrator.step;
  if (single_precision) {
    // float carries 7 digits: the double defaults (1e-10, 1e-13) would reject exact answers
    opt.lcp.tolerance = opt.lcp.tolerance > 1e-5 ? opt.lcp.tolerance : 1e-5;
    opt.lcp.pivot_tolerance = opt.lcp.pivot_tolerance > 1e-6 ? opt.lcp.pivot_tolerance : 1e-6;
    opt.stick_tol = opt.stick_tol > 1e-5 ? opt.stick_tol : 1e-5;
    opt.force_tol = opt.force_tol > 1e-5 ? opt.force_tol : 1e-5;
  }
  return opt;
}

bool method_has_step_map(const MethodSpec& spec) {
  return spec.kind == MethodKind::rk4lcp || spec.kind == MethodKind::irk ||
         (spec.kind == MethodKind::pinn && spec.framework != PinnFramework::central);
}

template <class D>
void make_case_rk_map(const MethodSpec& spec, const Model<D>& m, double dt, RkStepMap<D>& map) {
  if (spec.kind == MethodKind::pinn)
    make_pinn_step_map(spec, m, dt, map);
  else
    make_method_step_map(spec, m, dt, map);
}

template <class D>
SweepShared<D>::SweepShared(const SweepPlan& plan, double stick_tol_) : stick_tol(stick_tol_) {
  plan.uniform_setup(stick_tol, setup);
  const MethodSpec spec = plan.base().integrator.spec();
  if (method_has_step_map(spec) && !plan.per_case_map()) {
    map.resize(1);
    make_case_rk_map(spec, setup.model, setup.dt, map[0]);
  }
}

template <class D>
CaseBatch<D> PreparedCases<D>::batch() const {
  CaseBatch<D> b;
  b.n = n;
  b.setups = setups.data();
  b.setup_stride = setups.size() > 1 ? 1 : 0;
  b.maps = maps.empty() ? nullptr : maps.data();
  b.map_stride = maps.size() > 1 ? 1 : 0;
  b.targets = targets;
  b.rows = rows.data();
  b.row_stride = n;
  b.n_params = n > 0 ? static_cast<int>(rows.size() / static_cast<std::size_t>(n)) : 0;
  b.stick_tol = stick_tol;
  b.switching = switching;
  b.switching_settings = switching_settings;
  return b;
}

template <class D>
void prepare_cases(const SweepPlan& plan, const SweepShared<D>& shared, long first, long n, PreparedCases<D>& out) {
  out.first = first;
  out.n = n;
  out.stick_tol = shared.stick_tol;
  plan.case_rows(first, n, out.rows);
  const MethodSpec spec = plan.base().integrator.spec();
  out.switching = spec.kind == MethodKind::event_driven;
  out.switching_settings = plan.base().integrator.switching_settings();
  const bool per_case_map = method_has_step_map(spec) && plan.per_case_map();
  out.maps = per_case_map ? std::vector<RkStepMap<D>>(static_cast<std::size_t>(n)) : shared.map;
  if (!plan.per_case_setups()) {
    // one setup; the backend writes each case's row into it
    out.setups.assign(1, shared.setup);
    out.targets = plan.targets();
    return;
  }
  out.targets = SlotTargets{};
  out.setups.resize(static_cast<std::size_t>(n));
  long failed = -1;
  std::optional<InputError> failure;
#pragma omp parallel for schedule(dynamic, 64)
  for (long i = 0; i < n; ++i) {
    try {
      CaseSetup<D>& s = out.setups[static_cast<std::size_t>(i)];
      plan.case_setup(shared.setup, first + i, out.rows.data() + i, n, shared.stick_tol, s);
      if (per_case_map) make_case_rk_map(spec, s.model, s.dt, out.maps[static_cast<std::size_t>(i)]);
    } catch (const InputError& e) {
#pragma omp critical
      if (failed < 0 || i < failed) {
        failed = i;
        failure = e;
      }
    }
  }
  if (failure) throw *failure;
}

namespace {

// the belt runner's lanes on the CPU: W cases per pass, each phase of the step a loop the compiler
// vectorises. 32 lanes, four AVX-512 registers of each value: a step's chains of dependent
// operations (the exponential's) then come four or more at a time, which a core overlaps (8 lanes
// left it waiting). Three copies with the runner inlined (flatten), picked once at run time: for
// AVX-512 (x86-64-v4) and for AVX2 (v3), both with fused multiply-adds, which divide by the step
// and the masses through their reciprocals as exactly as a division (quotient_from_reciprocal;
// the divider, one 8-lane division per 16 cycles, was a third of the step), and the baseline,
// which divides. The arithmetic is otherwise the same in every copy (no contraction).
constexpr int kBeltLanes = 32;
#if defined(__GNUC__) && !defined(__clang__)
#define FIVSIM_BELT_COPIES 1
#define FIVSIM_BELT_V4 __attribute__((target("arch=x86-64-v4"), flatten))
#define FIVSIM_BELT_V3 __attribute__((target("arch=x86-64-v3"), flatten))
#define FIVSIM_BELT_BASELINE __attribute__((flatten))
#else
// clang flattens no such copies well: its builds (the sanitizers') get the baseline one alone
#define FIVSIM_BELT_COPIES 0
#define FIVSIM_BELT_BASELINE
#endif

template <class D, unsigned Obs>
using BeltGroup = void (*)(const BeltModel<D>&, const CaseBatch<D>&, long, int, const SweepAnalysis&,
                           const StepOptions&, BeltLanes<D, kBeltLanes>&, CaseResult<D>*, double*, long);

// one copy of a group's run: its name, its attributes (target, flatten) and whether it takes the
// quotients from reciprocals
#define FIVSIM_BELT_GROUP(name, attributes, reciprocal)                                                              \
  template <class D, unsigned Obs>                                                                                   \
  attributes void name(const BeltModel<D>& b, const CaseBatch<D>& cases, long first, int n, const SweepAnalysis& an, \
                       const StepOptions& opt, BeltLanes<D, kBeltLanes>& lanes, CaseResult<D>* results,              \
                       double* points, long per_case) {                                                              \
    run_belt_lanes<D, kBeltLanes, Obs, reciprocal>(b, cases, first, n, an, opt, lanes, results, points, per_case);   \
  }
#if FIVSIM_BELT_COPIES
FIVSIM_BELT_GROUP(run_belt_group_v4, FIVSIM_BELT_V4, true)
FIVSIM_BELT_GROUP(run_belt_group_v3, FIVSIM_BELT_V3, true)
#endif
FIVSIM_BELT_GROUP(run_belt_group_baseline, FIVSIM_BELT_BASELINE, false)
#undef FIVSIM_BELT_GROUP

// the copy for this core; FIVSIM_BELT_COPY=v3 or baseline asks for a narrower one, so that the
// tests run every copy the machine can
template <class D, unsigned Obs>
BeltGroup<D, Obs> belt_group_for_this_core() {
  const char* asked = std::getenv("FIVSIM_BELT_COPY");
  const std::string narrower = asked ? asked : "";
#if FIVSIM_BELT_COPIES
  if (narrower != "v3" && narrower != "baseline" && __builtin_cpu_supports("x86-64-v4"))
    return &run_belt_group_v4<D, Obs>;
  if (narrower != "baseline" && __builtin_cpu_supports("x86-64-v3")) return &run_belt_group_v3<D, Obs>;
#else
  (void)narrower;
#endif
  return &run_belt_group_baseline<D, Obs>;
}

template <class D, unsigned Obs>
void run_belt_chunk_cpu(const BeltModel<D>& b, const CaseBatch<D>& cases, const SweepAnalysis& an,
                        const StepOptions& opt, CaseResult<D>* results, double* points, int threads,
                        ChunkTicker* ticker) {
  const long per_case = case_points_size(D::max_dof, an);
  const long groups = (cases.n + kBeltLanes - 1) / kBeltLanes;
  const BeltGroup<D, Obs> run_belt_group = belt_group_for_this_core<D, Obs>();
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    auto lanes = std::make_unique<BeltLanes<D, kBeltLanes>>();
#pragma omp for schedule(dynamic, 2)
    for (long g = 0; g < groups; ++g) {
      if (ticker && ticker->stopped()) continue;
      const long first = g * kBeltLanes;
      const int n = static_cast<int>(std::min<long>(kBeltLanes, cases.n - first));
      run_belt_group(b, cases, first, n, an, opt, *lanes, results + first, points + first * per_case, per_case);
      if (ticker) ticker->finished(n);
    }
  }
  if (ticker) ticker->rethrow();
}

// each thread's scratch for the general runner's cases, on the heap (the generic instantiation's
// structs are large): the time steppers' and the switching integrator's
template <class D>
struct StepperScratch {
  CaseWorkspace<D> ws;
  State<D> s;
  LyapunovTwin<D> twin;
  CaseSetup<D> setup;
};
template <class D>
struct SwitchingScratch {
  SwitchingWorkspace<D> ws;
  SwitchingTangent<D> tangent;  // the Lyapunov exponent's variational equations
  State<D> s;
  CaseSetup<D> setup;
  OrbitWork<D> orbit;  // an adaptive case's shots at its orbit
};

// run(scratch, c) for every case c on `threads` threads (0: all), `chunk` cases handed out at a time
template <class Scratch, class F>
void for_each_case(long n, int threads, int chunk, ChunkTicker* ticker, F&& run) {
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    auto scratch = std::make_unique<Scratch>();
#pragma omp for schedule(dynamic, chunk)
    for (long c = 0; c < n; ++c) {
      if (ticker && ticker->stopped()) continue;
      run(*scratch, c);
      if (ticker) ticker->finished(1);
    }
  }
  if (ticker) ticker->rethrow();
}

}  // namespace

template <class D>
bool runs_as_belt(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt) {
  if constexpr (!D::exact || D::max_dof != D::max_contacts) {
    return false;
  } else {
    // one shared setup (its time grid too), Moreau's step, no Lyapunov twin, every case as long
    // (its lanes step together)
    return cases.n > 0 && cases.setup_stride == 0 && !cases.maps && !cases.switching && an.lyapunov_every <= 0 &&
           !an.adaptive && !(an.observers & kObserveOutputError) && belt_eligible(cases.setups[0], opt);
  }
}

void ChunkTicker::finished(long count) {
  const long done = done_.fetch_add(count) + count;
  // only the calling thread reports: a callback into Python must run on the thread that holds it
  if (omp_get_thread_num() != 0 || stopped()) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < every_s_) return;
  last_ = now;
  try {
    report_(done);
  } catch (...) {
    error_ = std::current_exception();
    stopped_.store(true);
  }
}

namespace {

// the shapes of model that the 2 × 2 capacity instantiation holds and the general runner steps in
// an exact instantiation of its own (case_shape.hpp): 2 DoF with one contact (the seeds'
// mode-coupling oscillator, the classic of brake squeal). Only on the CPU and only for the general
// runner: each shape costs compile time
using ExactShapesOf2x2 = DimsList<Dims<double, 2, 1, true>, EndOfDims>;

// FIVSIM_GENERAL_SHAPES=capacity keeps such cases in the capacity instantiation, so that the tests
// compare the two
bool exact_shapes_wanted() {
  const char* asked = std::getenv("FIVSIM_GENERAL_SHAPES");
  return !(asked && std::string(asked) == "capacity");
}

// the cases of a capacity instantiation D stepped in the exact instantiation X of their shape (a
// sweep's cases share one: the plan refuses a parameter that changes it): each case's setup (and
// step map) copied into X, its result copied back
template <class X, class D>
void step_cases_in_shape(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt,
                         CaseResult<D>* results, double* points, long per_case, int threads, ChunkTicker* ticker) {
  struct Scratch {
    CaseSetup<D> wide;
    StepperScratch<X> exact;
    RkStepMap<X> map;
    CaseResult<X> result;
  };
  for_each_case<Scratch>(cases.n, threads, 16, ticker, [&](Scratch& x, long c) {
    const CaseSetup<D>& setup = cases.setup(c, x.wide);
    copy_case_setup(setup, x.exact.setup);
    const RkStepMap<D>* map = cases.map(c);
    if (map) copy_rk_step_map(*map, x.map);
    run_case(x.exact.setup, map ? &x.map : nullptr, an, opt, x.exact.ws, x.exact.s, x.result, points + c * per_case,
             &x.exact.twin);
    copy_case_result(x.result, results[c], setup.model.n_dof, setup.model.n_contacts);
  });
}

// the chunk's cases stepped (run_chunk_cpu without the orbit observer's pass)
template <class D>
void step_chunk_cpu(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt, CaseResult<D>* results,
                    double* points, int threads, ChunkTicker* ticker) {
  if constexpr (D::exact && D::max_dof == D::max_contacts) {
    if (runs_as_belt(cases, an, opt)) {
      auto b = std::make_unique<BeltModel<D>>();
      make_belt_model(cases.setups[0], *b);
      switch (belt_observer_set(an.observers)) {
        case kObserveLean:
          run_belt_chunk_cpu<D, kObserveLean>(*b, cases, an, opt, results, points, threads, ticker);
          break;
        case kObserveStatistics:
          run_belt_chunk_cpu<D, kObserveStatistics>(*b, cases, an, opt, results, points, threads, ticker);
          break;
        default:
          run_belt_chunk_cpu<D, kObserveBifurcation>(*b, cases, an, opt, results, points, threads, ticker);
          break;
      }
      return;
    }
  }
  const long per_case = case_points_size(cases.setups[0].model.n_dof, an);
  if constexpr (std::is_same_v<typename D::scalar, double>) {
    if (cases.switching) {
      // one case at a time: their costs differ with their events
      for_each_case<SwitchingScratch<D>>(cases.n, threads, 1, ticker, [&](SwitchingScratch<D>& x, long c) {
        run_switching_case(cases.setup(c, x.setup), cases.switching_settings, an, opt, x.ws, x.s, results[c],
                           points + c * per_case, &x.tangent, &x.orbit);
      });
      return;
    }
  }
  if constexpr (std::is_same_v<D, SweepDims2<double>>) {
    const Model<D>& m = cases.setups[0].model;
    if (exact_shapes_wanted() && with_instantiation(ExactShapesOf2x2{}, m.n_dof, m.n_contacts, [&](auto tag) {
          step_cases_in_shape<typename decltype(tag)::type>(cases, an, opt, results, points, per_case, threads, ticker);
        }))
      return;
  }
  for_each_case<StepperScratch<D>>(cases.n, threads, 16, ticker, [&](StepperScratch<D>& x, long c) {
    run_case(cases.setup(c, x.setup), cases.map(c), an, opt, x.ws, x.s, results[c], points + c * per_case, &x.twin);
  });
}

}  // namespace

template <class D>
void run_chunk_cpu(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt, CaseResult<D>* results,
                   double* points, int threads, ChunkTicker* ticker) {
  if (cases.n <= 0) return;
  step_chunk_cpu(cases, an, opt, results, points, threads, ticker);
  if (an.observers & kObserveOrbit) shoot_orbits_cpu(cases, an, results, points, threads);
}

template <class D>
void shoot_orbits_cpu(const CaseBatch<D>& cases, const SweepAnalysis& an, CaseResult<D>* results, const double* points,
                      int threads) {
  if constexpr (std::is_same_v<typename D::scalar, double>) {
    if (cases.n <= 0) return;
    struct Scratch {
      CaseSetup<D> setup;
      OrbitWork<D> work;
    };
    const long per_case = case_points_size(cases.setups[0].model.n_dof, an);
    const OrbitObserverSettings os;
    // one case at a time: a case near a bifurcation shoots for every N
    for_each_case<Scratch>(cases.n, threads, 1, nullptr, [&](Scratch& x, long c) {
      decide_by_orbit(cases.setup(c, x.setup), cases.switching_settings, os, an, points + c * per_case, x.work,
                      results[c]);
    });
  }
}

void run_chunk_cpu_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,
                        CaseResult<PinnSweepDims>* results, double* points, PinnTotals* totals, int threads) {
  using D = PinnSweepDims;
  const CaseBatch<D>& cases = ch.cases;
  const long n = cases.n;
  if (n <= 0) return;
  const long per_case = case_points_size(ch.n_dof, an);
  const PinnBlockLayout L = pinn_chunk_layout(ch);
  const int copies = an.lyapunov_every > 0 ? 2 : 1;
  // the chunk's cases step in lockstep (pinn_case.hpp): each phase of a time step an OpenMP loop
  // over the active cases, the trainings one loop over the training rows in which each row runs
  // its evaluate–tell cycle to its end (on a CPU core a row's own loop is the lockstep's schedule
  // without the barrier per iteration: the same arithmetic, so the same answer)
  const PinnHostBlocks<D> blocks(L, static_cast<int>(n) * copies);
  std::vector<PinnCase<D>> run(static_cast<std::size_t>(n));
  std::vector<long> active;
  active.reserve(static_cast<std::size_t>(n));
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
#pragma omp for schedule(dynamic, 1)
    for (long c = 0; c < n; ++c)
      pinn_case_start(run[c], cases.setup(c, run[c].setup), cases.map(c), ch.set, ch.tab, L,
                      blocks.get() + c * copies * L.bytes, an, opt, results[c], points + c * per_case);
#pragma omp single
    for (long c = 0; c < n; ++c)
      if (run[c].active) active.push_back(c);
    while (!active.empty()) {
      const long na = static_cast<long>(active.size());
#pragma omp for schedule(dynamic, 1)
      for (long i = 0; i < na; ++i) pinn_case_step_begin(run[active[i]]);
#pragma omp for schedule(dynamic, 1)
      for (long row = 0; row < na * copies; ++row) {
        PinnCase<D>& x = run[active[row / copies]];
        const int w = static_cast<int>(row % copies);
        while (pinn_case_training(x, w) && pinn_case_tell(x, w, pinn_case_evaluate(x, w))) {
        }
      }
#pragma omp for schedule(dynamic, 1)
      for (long i = 0; i < na; ++i) pinn_case_step_end(run[active[i]]);
        // the host moves every case on together: the stopped ones leave the active list
#pragma omp single
      active.erase(std::remove_if(active.begin(), active.end(), [&](long c) { return !run[c].active; }), active.end());
    }
  }
  for (long c = 0; c < n; ++c) totals[c] = run[c].totals;
}

#define FIVSIM_SWEEP_INSTANTIATE(D)                                                                             \
  template void make_case_rk_map<D>(const MethodSpec&, const Model<D>&, double, RkStepMap<D>&);                 \
  template struct SweepShared<D>;                                                                               \
  template struct PreparedCases<D>;                                                                             \
  template void prepare_cases<D>(const SweepPlan&, const SweepShared<D>&, long, long, PreparedCases<D>&);       \
  template void run_chunk_cpu<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&, CaseResult<D>*, \
                                 double*, int, ChunkTicker*);                                                   \
  template bool runs_as_belt<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&);                 \
  template void shoot_orbits_cpu<D>(const CaseBatch<D>&, const SweepAnalysis&, CaseResult<D>*, const double*, int);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_INSTANTIATE)
#undef FIVSIM_SWEEP_INSTANTIATE

}  // namespace fivsim::sweep
