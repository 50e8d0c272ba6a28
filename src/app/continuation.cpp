// src/app/continuation.cpp — `fivsim continue` (app/continuation.hpp): the scenario's sweep plan as
// continuation's model, the shooter on CPU threads or the device, the starts (a run of the
// scenario, or a sweep's families of orbits, their branches followed together) and the
// problems of analysis/ grown from them.
#include "fivsim/app/continuation.hpp"

#include "continuation_report.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <tuple>

#include "fivsim/analysis/branch_tree.hpp"
#include "fivsim/sweep/finished_cases.hpp"
#include "fivsim/sweep/orbit_shooter.hpp"
#include "fivsim/sweep/plan_model.hpp"
#include "fivsim/sweep/results_h5.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "fivsim/sweep/sweep_plan.hpp"
#include "fivsim/cases/case_runner.hpp"
#include "fivsim/core/cuda_device.hpp"
#include "fivsim/core/stopwatch.hpp"
#include "fivsim/core/output_domain.hpp"
#include "fivsim/io/continuation_block.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

using Eigen::VectorXd;

// branches followed together at most, each on a host thread of its own, where the block says all
constexpr long kMostAtOnce = 256;

// the section an orbit of the scenario's analysis is shot on
OrbitSection orbit_section(const SweepAnalysis& an) {
  return {an.section == SectionKind::velocity ? switching_section(an, 0.0) : SwitchingSection{}, an.contact};
}

// the sweep plan's view of the continued parameters: each one zipped over its range (path, a, b),
// so that the plan writes a row of their values into the model
SweepSpec zip_spec(const std::vector<std::tuple<std::string, double, double>>& ranges) {
  SweepSpec spec;
  spec.mode = SweepMode::zip;
  for (const auto& [path, lo, hi] : ranges) {
    SweepParameter par;
    par.path = path;
    par.values = {lo, hi};
    spec.parameters.push_back(par);
  }
  return spec;
}

// the plan of a fold's or doubling's curve: the continued parameter, then the second one
SweepSpec curve_spec(const ContinuationBlock& b) {
  return zip_spec({{b.parameter, b.lo, b.hi}, {b.second, b.curve_settings.p_min, b.curve_settings.p_max}});
}

// a parameter that moves nothing of the model cannot be continued
void require_moves_model(const sweep::SweepPlan& plan, std::size_t slot, const std::string& pointer,
                         const std::string& path) {
  if (plan.slots()[slot].targets.empty() && !plan.slots()[slot].rebuilds_model())
    throw InputError(pointer, "'" + path + "' changes nothing of the model");
}

std::vector<SweepStart> sweep_starts(const json& document, const ContinuationBlock& b) {
  sweep::NamedColumns cols;
  refuse_input_in_active_output(b.from);
  try {
    cols = sweep::read_sweep_cases(b.from);
  } catch (const std::exception& e) {
    throw InputError("/continuation/from", e.what());
  }
  for (const std::string& need : {b.parameter, std::string("orbit_n"), std::string("orbit_multiplier")})
    if (!cols.count(need))
      throw InputError("/continuation/from",
                       "the cases of '" + b.from + "' have no column '" + need + "'" +
                           (need == b.parameter ? ": the sweep must vary the continued parameter"
                                                : ": the sweep needs its orbit observer (analysis.orbit)"));
  std::vector<std::string> others;  // the other swept values: fixed along a branch
  for (const auto& [name, v] : cols)
    if (!name.empty() && name[0] == '/' && name != b.parameter) others.push_back(name);
  const std::vector<double>& p = cols.at(b.parameter);
  const std::vector<double>& n = cols.at("orbit_n");
  const std::vector<double>& mult = cols.at("orbit_multiplier");
  const std::vector<double>* ids = cols.count("case") ? &cols.at("case") : nullptr;
  std::vector<std::size_t> rows(p.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  // the other values first, then the parameter: a family is a run of neighbours
  const auto key = [&](std::size_t i) {
    std::vector<double> k;
    for (const std::string& o : others) k.push_back(cols.at(o)[i]);
    k.push_back(p[i]);
    return k;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t i, std::size_t j) { return key(i) < key(j); });
  const auto on_orbit = [&](std::size_t i) {
    return n[i] >= 1 && n[i] <= 32 && mult[i] < 1.0 && p[i] >= b.lo && p[i] <= b.hi;
  };
  const auto same_family = [&](std::size_t i, std::size_t j) {
    for (const std::string& o : others)
      if (cols.at(o)[i] != cols.at(o)[j]) return false;
    return n[i] == n[j];
  };
  std::vector<SweepStart> starts;
  for (std::size_t a = 0; a < rows.size();) {
    if (!on_orbit(rows[a])) {
      ++a;
      continue;
    }
    std::size_t e = a + 1;
    while (e < rows.size() && on_orbit(rows[e]) && same_family(rows[a], rows[e])) ++e;
    const std::size_t mid = rows[a + (e - a) / 2];
    SweepStart st;
    st.case_id = ids ? static_cast<long>((*ids)[mid]) : static_cast<long>(mid);
    st.p = p[mid];
    st.period_n = static_cast<int>(n[mid]);
    st.cases = static_cast<long>(e - a);
    st.document = document;
    for (const std::string& o : others) st.document[json::json_pointer(o)] = cols.at(o)[mid];
    starts.push_back(std::move(st));
    a = e;
  }
  return starts;
}

// a branch each way from every start, `b.at_once` of them (0: all) followed together each on a host
// thread of its own, the shots of their corrector iterations one batch on `shooter`; in the
// starts' order. A start whose run finds no orbit gives none
template <class D>
std::vector<FollowedBranch> follow_sweep_orbits(const ContinuationBlock& b, const SweepSpec& spec,
                                                const std::vector<SweepStart>& starts, OrbitShooter<D>& shooter,
                                                ShotCounts& counts, const ContinuationProgress& progress) {
  const long tasks = 2 * static_cast<long>(starts.size());
  long done = 0, points = 0;
  std::vector<std::vector<FollowedBranch>> grown(static_cast<std::size_t>(tasks));
  std::vector<std::string> errors(static_cast<std::size_t>(tasks));
  LockstepShooter<D> lockstep(shooter);
  std::atomic<long> next{0};
  std::mutex progress_mutex;
  const auto follow = [&](long t) {
    const SweepStart& st = starts[static_cast<std::size_t>(t / 2)];
    const int direction = t % 2 == 0 ? -1 : 1;
    try {
      const Scenario sc = parse_scenario(st.document);
      const sweep::SweepPlan plan(sc, spec);
      const sweep::PlanModel<D> model(plan, StepOptions{}.stick_tol);
      // the curves start at the start's own value of the second parameter (a swept one too)
      std::unique_ptr<sweep::SweepPlan> plan2;
      std::unique_ptr<sweep::PlanModel<D>> model2;
      double second = 0.0;
      if (!b.second.empty()) {
        second = st.document[json::json_pointer(b.second)].get<double>();
        if (second >= b.curve_settings.p_min && second <= b.curve_settings.p_max) {
          plan2 = std::make_unique<sweep::SweepPlan>(sc, curve_spec(b));
          model2 = std::make_unique<sweep::PlanModel<D>>(*plan2, StepOptions{}.stick_tol);
        }
      }
      const double settle = b.settle > 0.0 ? b.settle : sc.analysis.t_transient;
      grown[static_cast<std::size_t>(t)] =
          follow_orbit<D>(lockstep, model, model2.get(), second, orbit_section(sweep::sweep_analysis(sc)),
                          sc.integrator.switching_settings(), b, st.period_n, st.p, direction, settle);
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(t)] = e.what();
    }
    const std::lock_guard<std::mutex> lock(progress_mutex);
    ++done;
    for (const FollowedBranch& f : grown[static_cast<std::size_t>(t)])
      points += static_cast<long>(f.branch.points.size());
    try {
      if (progress) progress(done, tasks, points);
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(t)] = e.what();
    }
  };
  const long at_once = std::min<long>(b.at_once > 0 ? b.at_once : kMostAtOnce, tasks);
  const auto branch_thread = [&] {
    for (long t = next++; t < tasks; t = next++) follow(t);
    lockstep.leave();
  };
  for (long i = 0; i < at_once; ++i) lockstep.join();  // the first batch waits for each
  // this thread follows branches too; where the system gives fewer threads, fewer go together
  std::vector<std::thread> others;
  for (long i = 1; i < at_once; ++i) {
    try {
      others.emplace_back(branch_thread);
    } catch (const std::system_error&) {
      for (long j = i; j < at_once; ++j) lockstep.leave();
      break;
    }
  }
  branch_thread();
  for (std::thread& th : others) th.join();
  counts.batches += lockstep.batches();
  counts.shots += lockstep.shots();
  if (!lockstep.error().empty()) throw std::runtime_error(lockstep.error());
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error("a start of /continuation/from: " + e);
  std::vector<FollowedBranch> followed;
  for (long t = 0; t < tasks; ++t) {
    const long offset = static_cast<long>(followed.size());
    for (FollowedBranch& f : grown[static_cast<std::size_t>(t)]) {
      if (f.from_branch >= 0) f.from_branch += offset;
      f.start = t / 2;
      followed.push_back(std::move(f));
    }
  }
  return followed;
}

template <class D>
ContinuationRun continue_scenario(const json& document, const Scenario& sc, const ContinuationBlock& b, int threads,
                                  const ContinuationProgress& progress, ShotDevice device) {
  const SweepSpec spec = zip_spec({{b.parameter, b.lo, b.hi}});
  const sweep::SweepPlan plan(sc, spec);
  require_moves_model(plan, 0, "/continuation/parameter", b.parameter);
  const sweep::PlanModel<D> model(plan, StepOptions{}.stick_tol);
  std::unique_ptr<sweep::SweepPlan> plan2;  // the curves': both parameters
  std::unique_ptr<sweep::PlanModel<D>> model2;
  if (!b.second.empty()) {
    plan2 = std::make_unique<sweep::SweepPlan>(sc, curve_spec(b));
    require_moves_model(*plan2, 1, "/continuation/curves/parameter", b.second);
    model2 = std::make_unique<sweep::PlanModel<D>>(*plan2, StepOptions{}.stick_tol);
  }
  const SwitchingSettings set = sc.integrator.switching_settings();
  std::unique_ptr<OrbitShooter<D>> shooter_on;
  if (b.orbit && device == ShotDevice::cuda) {
    // no device is a wrong choice of the command line, said before any work, not a failure in it
    const CudaDeviceInfo gpu = cuda_device_info();
    if (!gpu.available)
      throw InputError("--device",
                       "cuda, but there is " + gpu.description + "; --device cpu runs the shots on the CPU cores");
    shooter_on = cuda_orbit_shooter(D{});
  } else if (b.orbit)
    shooter_on = std::make_unique<CpuOrbitShooter<D>>(threads);
  ContinuationFound found;
  const auto started = std::chrono::steady_clock::now();
  const double p0 = b.direction > 0 ? b.lo : b.hi;
  const int nq = sc.model.dof(), ny = 2 * nq;
  std::vector<FollowedBranch>& followed = found.followed;
  std::vector<SweepStart>& starts = found.starts;
  if (b.orbit) {
    // the first orbit from a run at the range's end the branch starts from
    const SweepAnalysis an = sweep::sweep_analysis(sc);
    if (!(an.section == SectionKind::stick_to_slip && an.contact < sc.model.n_contacts()) &&
        an.section != SectionKind::velocity)
      throw InputError("/analysis/poincare",
                       "an orbit is continued on the break-away section of a contact (section \"stick_to_slip\") "
                       "or on a velocity section (section \"velocity\")");
    found.conditions = an.section == SectionKind::velocity ? 1 : 2;
    if (!b.from.empty()) {
      starts = sweep_starts(document, b);
      if (starts.empty())
        throw InputError("/continuation/from", "no case of '" + b.from + "' ends on a stable periodic orbit with " +
                                                   b.parameter + " in the range");
      followed = follow_sweep_orbits<D>(b, spec, starts, *shooter_on, found.counts, progress);
    } else {
      const double settle = b.settle > 0.0 ? b.settle : sc.analysis.t_transient;
      LockstepShooter<D> alone(*shooter_on);
      alone.join();
      followed = follow_orbit<D>(alone, model, model2.get(), b.second_base, orbit_section(an), set, b, b.period_n, p0,
                                 b.direction, settle);
      alone.leave();
      found.counts.batches += alone.batches();
      found.counts.shots += alone.shots();
      if (!alone.error().empty()) throw std::runtime_error(alone.error());
      if (followed.empty())
        throw InputError("/continuation/range", "no periodic-" + std::to_string(b.period_n) + " orbit found at " +
                                                    b.parameter + " = " + format_double(p0) + " after " +
                                                    format_double(settle) + " s of the scenario's run");
    }
  } else {
    EquilibriumProblem<D> problem(model, set);
    // the first point: Newton at the range's end the branch starts from, from the scenario's q at rest
    VectorXd x0 = VectorXd::Zero(ny);
    for (int i = 0; i < nq; ++i) x0(i) = sc.q0(i);
    if (!solve_at_fixed_parameter(problem, x0, p0, b.settings))
      throw InputError("/continuation/range", "no equilibrium found at " + b.parameter + " = " + format_double(p0) +
                                                  " (Newton from /initial/q at rest does not converge)");
    problem.modes_at(x0, p0, found.modes);
    followed.push_back(followed_branch(0, continue_branch(problem, x0, p0, b.settings)));
    if (model2) follow_hopf_curves<D>(*model2, b.second_base, set, b, followed[0]);
  }
  found.wall_s = seconds_since(started);
  return continuation_run(document, sc, b, found, device, threads);
}

}  // namespace

void write_continuation_h5(const ContinuationRun& run, const std::filesystem::path& file) {
  std::vector<std::pair<std::string, const NamedColumns*>> tables{{"branches", &run.branches},
                                                                  {"bifurcations", &run.bifurcations}};
  if (!run.orbit_points.names.empty()) tables.emplace_back("orbit_points", &run.orbit_points);
  if (!run.curves.names.empty()) tables.emplace_back("curves", &run.curves);
  sweep::write_tables_h5(file, tables, sweep::kContinuationH5Format, run.report);
}

std::vector<std::filesystem::path> continuation_inputs(const json& document) {
  const ContinuationBlock block = parse_continuation_block(document);
  if (block.from.empty()) return {};
  return {block.from};
}

ContinuationRun run_continuation(const json& document, int threads, const ContinuationProgress& progress,
                                 ShotDevice device) {
  const ContinuationBlock block = parse_continuation_block(document);
  const Scenario sc = parse_scenario(document);
  if (sc.model.omega != 0.0)
    throw InputError("/model", "a forced model (omega > 0) has no equilibria, and its orbits are not continued yet");
  ContinuationRun run;
  const bool held =
      with_instantiation(SweepInstantiations<double>{}, sc.model.dof(), sc.model.n_contacts(), [&](auto tag) {
        using D = typename decltype(tag)::type;
        run = continue_scenario<D>(document, sc, block, threads, progress, device);
      });
  if (!held)
    throw InputError("/model", "continuation holds models of up to 24 DoF and 8 contacts; this one has " +
                                   std::to_string(sc.model.dof()) + " DoF and " +
                                   std::to_string(sc.model.n_contacts()) + " contacts");
  return run;
}

}  // namespace fivsim
