// src/batch/sweep.cpp — host side of the batch engine: case scenarios, case setups and the CPU
// backend (an OpenMP loop over the shared case runner, with the classical steppers or the PINN
// steppers).
#include "fivsim/batch/sweep.hpp"

#include <omp.h>

#include <memory>

#include "fivsim/integrate/simulation.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::batch {

int sweep_dims_size(int n_dof, int n_contacts) {
  if (n_dof == n_contacts && (n_dof == 1 || n_dof == 2 || n_dof == 5)) return n_dof;
  const int need = n_dof > n_contacts ? n_dof : n_contacts;
  if (need <= 2) return 102;
  if (need <= 8) return 108;
  return n_dof <= SweepDimsGeneric<double>::max_dof && n_contacts <= SweepDimsGeneric<double>::max_contacts ? 124 : 0;
}

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

Scenario case_scenario(const json& base, const SweepSpec& spec, long index, std::vector<double>& values) {
  spec.case_values(index, values);
  json doc = base;
  apply_sweep_values(spec, values, doc);
  try {
    return parse_scenario(doc);
  } catch (const InputError& e) {
    std::string at = "case " + std::to_string(index) + " (";
    for (std::size_t k = 0; k < values.size(); ++k)
      at += (k ? ", " : "") + spec.parameters[k].path + " = " + format_double(values[k]);
    throw InputError(e.pointer, e.rule + " in " + at + ")");
  }
}

template <class D>
void make_case_setup(const Scenario& sc, double stick_tol, CaseSetup<D>& setup) {
  try {
    make_model(sc.model, setup.model);
  } catch (const ModelError& e) {
    throw InputError("/model", e.what());
  }
  make_initial_state(setup.model, sc.q0, sc.u0, 0.0, stick_tol, setup.start);
  setup.dt = sc.integrator.dt;
  setup.steps = sc.integrator.steps;
  setup.t_transient = sc.analysis.t_transient;
}

template <class D>
void make_case_rk_map(const Scenario& sc, const Model<D>& m, RkStepMap<D>& map) {
  const MethodSpec spec = sc.integrator.spec();
  if (spec.kind == MethodKind::pinn) make_pinn_step_map(spec, m, sc.integrator.dt, map);
  else make_method_step_map(spec, m, sc.integrator.dt, map);
}

template <class D>
void run_chunk_cpu(const CaseSetup<D>* setups, const RkStepMap<D>* rk_maps, long n, const SweepAnalysis& an,
                   const StepOptions& opt, CaseResult<D>* results, double* points, int threads) {
  if (n <= 0) return;
  const long per_case = case_points_size(setups[0].model.n_dof, an.capacity);
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    // per-thread scratch on the heap: the generic instantiation's structs are large
    auto ws = std::make_unique<CaseWorkspace<D>>();
    auto s = std::make_unique<State<D>>();
    auto twin = std::make_unique<LyapunovTwin<D>>();
#pragma omp for schedule(dynamic, 16)
    for (long c = 0; c < n; ++c)
      run_case(setups[c], rk_maps ? rk_maps + c : nullptr, an, opt, *ws, *s, results[c], points + c * per_case,
               twin.get());
  }
}

void run_chunk_cpu_pinn(const PinnChunk& ch, const SweepAnalysis& an, const StepOptions& opt,
                        CaseResult<PinnSweepDims>* results, double* points, PinnTotals* totals, int threads) {
  using D = PinnSweepDims;
  if (ch.n <= 0) return;
  const long per_case = case_points_size(ch.n_dof, an.capacity);
  const PinnBlockLayout L = pinn_chunk_layout(ch);
  const int copies = an.lyapunov_every > 0 ? 2 : 1;
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    auto s = std::make_unique<State<D>>();
    auto twin = std::make_unique<State<D>>();
    // this thread's blocks, reused case after case (run_pinn_case resets them)
    const PinnHostBlocks<D> blocks(L, copies);
    // one case at a time per thread: a PINN case costs thousands of trainings
#pragma omp for schedule(dynamic, 1)
    for (long c = 0; c < ch.n; ++c)
      run_pinn_case(ch.setups[c], ch.maps ? ch.maps + c : nullptr, ch.set, ch.tab, L, blocks.get(), an, opt, *s,
                    twin.get(), results[c], points + c * per_case, totals[c]);
  }
}

#define FIVSIM_SWEEP_INSTANTIATE(D)                                                                   \
  template void make_case_setup<D>(const Scenario&, double, CaseSetup<D>&);                           \
  template void run_chunk_cpu<D>(const CaseSetup<D>*, const RkStepMap<D>*, long, const SweepAnalysis&, \
                                 const StepOptions&, CaseResult<D>*, double*, int);                     \
  template void make_case_rk_map<D>(const Scenario&, const Model<D>&, RkStepMap<D>&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_INSTANTIATE)
#undef FIVSIM_SWEEP_INSTANTIATE

}  // namespace fivsim::batch
