// src/sweep/sweep_context.cpp — what every rank and chunk of a sweep shares, and how summary.json
// describes it (sweep/sweep_context.hpp).
#include "fivsim/sweep/sweep_context.hpp"

#include <omp.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "fivsim/sweep/memory_budget.hpp"
#include "fivsim/integrate/simulation.hpp"

namespace fivsim::sweep {

using nlohmann::json;

ChunkSettings::ChunkSettings(const RunContext& ctx)
    : an(sweep_analysis(ctx.base)),
      opt(sweep_step_options(ctx.base, ctx.single)),
      nq(ctx.base.model.dof()),
      nc(ctx.base.model.n_contacts()) {
  // cases keep point rings only for the observers that fill them
  if (!observes_points(an.observers)) an.capacity = 0;
  an.keep_residuals = ctx.options.keep_residuals && an.reference_n > 0;
  layout.n_dof = nq;
  layout.n_contacts = nc;
  layout.n_params = static_cast<int>(ctx.spec.parameters.size());
  layout.observers = an.observers;
  layout.lyapunov = an.lyapunov_every > 0;
  layout.pinn = ctx.pinn();
  if (!ctx.pinn()) return;
  const MethodSpec spec = ctx.base.integrator.spec();
  pinn_set = make_pinn_step_settings(spec, nq);
  if (spec.framework != PinnFramework::central) {
    stages = gauss_stage_values<double>(spec.stages);
    tab = stage_table_of(stages.data(), spec.stages);
  }
  // the steppers' blocks (the twin's too) and the case's lockstep state (pinn_case.hpp)
  pinn_block_bytes = static_cast<double>(pinn_block_layout<PinnSweepDims>(pinn_set, nq, tab.R).bytes) *
                         (an.lyapunov_every > 0 ? 2 : 1) +
                     static_cast<double>(sizeof(PinnCase<PinnSweepDims>));
}

json rank_about(const RunContext& ctx) {
  json about = {{"rank", ctx.ranks.rank()},
                {"host", ctx.ranks.host()},
                {"backend", ctx.cuda ? "cuda" : "cpu"},
                {"device", ctx.cuda ? ctx.device.description + " #" + std::to_string(ctx.device.ordinal) : "cpu"},
                {"threads", ctx.cuda ? 0 : (ctx.options.threads > 0 ? ctx.options.threads : omp_get_max_threads())}};
  if (ctx.cuda) about["device_ranks"] = ctx.device_ranks;
  return about;
}

SweepTrajectory case_trajectory(const RunContext& ctx, long index) {
  std::vector<double> values;
  const Scenario sc = case_scenario(ctx.base.document, ctx.spec, index, values);
  auto model = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *model);
  const int nq = model->n_dof, nc = model->n_contacts;
  SweepTrajectory tr;
  tr.index = index;
  tr.names = series_names(nq, nc);
  tr.values.resize(tr.names.size());
  tr.states.resize(static_cast<std::size_t>(nc));
  long index_step = 0;
  std::vector<double> v;
  run_method(sc.integrator.spec(), sc.model, *model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps,
             sc.integrator.step, [&](const SeriesPoint& p) {
               if (index_step++ % sc.output.every != 0) return;
               series_values(p, v);
               tr.t.push_back(p.t);
               for (std::size_t k = 0; k < v.size(); ++k) tr.values[k].push_back(v[k]);
               for (int i = 0; i < nc; ++i)
                 tr.states[static_cast<std::size_t>(i)].push_back(static_cast<int>(p.contact[i]));
             });
  return tr;
}

void describe_sweep(const RunContext& ctx, const ChunkSettings& set, json& summary) {
  const Scenario& base = ctx.base;
  const SweepAnalysis& an = set.an;
  summary["name"] = base.name;
  summary["backend"] = ctx.cuda ? "cuda" : "cpu";
  summary["device"] = ctx.cuda ? ctx.device.description : "cpu";
  if (!ctx.device_fallback.empty()) summary["device_fallback"] = ctx.device_fallback;
  summary["threads"] = ctx.cuda ? 0 : (ctx.options.threads > 0 ? ctx.options.threads : omp_get_max_threads());
  summary["precision"] = ctx.single ? "float" : "double";
  summary["method"] = base.integrator.spec().label();
  summary["steps"] = base.integrator.steps;
  summary["n_dof"] = set.nq;
  summary["n_contacts"] = set.nc;
  summary["scenario"] = base.document;
  std::vector<std::string> observers;
  for (int b = 0; b < kObserverCount; ++b)
    if (an.observers & (1u << b)) observers.push_back(kObserverNames[b]);
  summary["observers"] = observers;
  summary["poincare"] = {
      {"section", base.analysis.poincare.section},     {"contact", an.contact}, {"dof", an.dof}, {"value", an.value},
      {"direction", base.analysis.poincare.direction}, {"period", an.period}};
  summary["t_transient"] = base.analysis.t_transient;
  summary["points_per_kind"] = an.capacity;
  if (ctx.pinn()) {
    summary["pinn"]["tol"] = base.integrator.pinn.optimizer.tol;
    summary["pinn"]["case_memory_bytes"] = set.pinn_block_bytes;
  }
  if (an.lyapunov_every > 0)
    summary["lyapunov"] = {{"every", an.lyapunov_every}, {"d0", an.lyapunov_d0}, {"zero", an.lyapunov_zero}};
  if (observes_class(an.observers))
    summary["classification"] = {{"periodic_tol", an.periodic_tol},
                                 {"max_period", an.max_period},
                                 {"confirmations", an.confirmations},
                                 {"adaptive", an.adaptive}};
}

void check_sweepable(const Scenario& base) {
  const MethodSpec method = base.integrator.spec();
  if (method.kind == MethodKind::smooth)
    throw InputError("/integrator/method",
                     "sweeps run the time steppers (moreau, rk4lcp, irk and the PINN methods) and "
                     "the event-driven switching model (switching); got \"smooth\"");
  if (base.integrator.lcp_pinn)
    throw InputError("/integrator/lcp_solver",
                     "sweeps solve the contact LCPs of moreau, rk4lcp and irk with lemke, pgs "
                     "or enum; in a sweep the LCP-PINN runs inside pinn_dual, pinn_adv_dual and "
                     "pinn_central");
  if (!with_instantiation(SweepInstantiations<double>{}, base.model.dof(), base.model.n_contacts(), [](auto) {}))
    throw InputError("/model", "sweeps hold at most 24 DoF and 8 contacts");
  if (method.kind == MethodKind::pinn &&
      (base.model.dof() > PinnSweepDims::max_dof || base.model.n_contacts() > PinnSweepDims::max_contacts))
    throw InputError("/model", "PINN sweeps hold at most 8 DoF and 8 contacts");
  if (method.kind == MethodKind::pinn && (base.analysis.observers & kObserveOutputError))
    throw InputError("/analysis/reference",
                     "the PINN methods' sweeps do not observe output_error; use moreau, rk4lcp, "
                     "irk or switching");
}

namespace {

// the GPU a test names ("NAME:X.Y"), judged against this build's architectures
CudaDeviceInfo stub_gpu(const std::string& hook) {
  const std::size_t colon = hook.rfind(':');
  CudaDeviceInfo found;
  found.available = true;
  found.description = hook.substr(0, colon);
  if (colon == std::string::npos || std::sscanf(hook.c_str() + colon + 1, "%d.%d", &found.major, &found.minor) != 2)
    throw std::invalid_argument("FIVSIM_SWEEP_STUB_GPU: NAME:X.Y, got '" + hook + "'");
  const CudaDeviceInfo judged = judged_device(found, cuda_build_architectures());
  if (judged.available) throw std::invalid_argument("FIVSIM_SWEEP_STUB_GPU: stands in for a GPU this build cannot run");
  return judged;
}

}  // namespace

void choose_device(RunContext& ctx) {
  // each rank on a node takes its own device
  ctx.device = ctx.options.hooks.stub_gpu.empty() ? cuda_device_info(ctx.ranks.local_rank())
                                                  : stub_gpu(ctx.options.hooks.stub_gpu);
  ctx.cuda = ctx.device.available;
  if (ctx.device.unusable_gpu) ctx.device_fallback = ctx.device.description;
  if (ctx.cuda && ctx.options.device == SweepDevice::automatic) {
    const int threads = ctx.options.threads > 0 ? ctx.options.threads : omp_get_max_threads();
    const long cases = (ctx.end_case - ctx.first_case) / std::max<long>(1, static_cast<long>(ctx.ranks.size()));
    const long fewest = fewest_cases_for_device(ctx.device.multiprocessors, threads, ctx.pinn());
    if (cases < fewest) {
      ctx.cuda = false;
      ctx.device_fallback = std::to_string(cases) + " cases are fewer than the " + std::to_string(fewest) +
                            " that make " + ctx.device.description + " faster than " + std::to_string(threads) +
                            " CPU threads (--device cuda insists)";
    }
  }
  // every rank takes part, with or without a device: the ranks on one GPU share its memory
  // (found by UUID, so also where each rank sees only its own GPU, CUDA_VISIBLE_DEVICES)
  ctx.device_ranks = ctx.ranks.node_ranks_with(ctx.cuda ? ctx.device.uuid : "");
  if (ctx.options.device == SweepDevice::cuda && !ctx.cuda)
    throw InputError("--device", "cuda, but there is " + ctx.device.description +
                                     "; --device cpu (or auto) runs the sweep on the CPU cores");
}

}  // namespace fivsim::sweep
