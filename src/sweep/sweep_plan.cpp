// src/sweep/sweep_plan.cpp — resolving a sweep's pointers into typed slots, checking every case's
// values, and making a case's setup from the uniform one and its row (sweep/sweep_plan.hpp).
#include "fivsim/sweep/sweep_plan.hpp"

#include <cmath>
#include <memory>

#include "fivsim/sweep/sweep.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::sweep {
namespace {

// the swept pointer of parameter k, as the sweep block names it
std::string path_pointer(std::size_t k) { return pointer_join(pointer_join("/sweep/parameters", k), "path"); }

json with_value(const json& doc, const std::string& path, double v) {
  json d = doc;
  d[json::json_pointer(path)] = v;
  return d;
}

// the rule the parser holds a number at `path` to: −1 accepted (any), else 0 accepted
// (non_negative), else positive. A refusal at another pointer (a rule between two numbers) does
// not count against this one's values
NumberRule probe_rule(const json& doc, const std::string& path) {
  const auto accepts = [&](double v) {
    try {
      (void)parse_scenario(with_value(doc, path, v));
    } catch (const InputError& e) {
      return e.pointer != path;
    }
    return true;
  };
  if (accepts(-1.0)) return NumberRule::any;
  return accepts(0.0) ? NumberRule::non_negative : NumberRule::positive;
}

bool obeys(NumberRule rule, double v) {
  if (!std::isfinite(v)) return false;
  if (rule == NumberRule::positive) return v > 0;
  if (rule == NumberRule::non_negative) return v >= 0;
  return true;
}

// every number of a model in a fixed order, with the slot of those a swept value may set as it is
struct FlatModel {
  std::vector<double> x;
  std::vector<int> slot;  // index into targets, or −1: a number the matrices or the structure give
  std::vector<SlotTarget> targets;
};

FlatModel flatten(const Model<HostDims>& m, const Scenario& sc) {
  FlatModel f;
  const auto plain = [&](double v) {
    f.x.push_back(v);
    f.slot.push_back(-1);
  };
  const auto tagged = [&](double v, SlotKind kind, int index, int param) {
    f.x.push_back(v);
    f.slot.push_back(static_cast<int>(f.targets.size()));
    f.targets.push_back(SlotTarget{kind, index, param, 0});
  };
  const int n = m.n_dof, nc = m.n_contacts;
  for (double v : {double(n), double(nc), double(m.n_normal), double(m.decoupled_friction), m.omega}) plain(v);
  for (const auto* A : {&m.M, &m.Minv, &m.C, &m.K})
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) plain((*A)(i, j));
  for (const auto* v : {&m.f0, &m.f_sin, &m.f_cos})
    for (int i = 0; i < n; ++i) plain((*v)[i]);
  for (const auto* W : {&m.WN, &m.WT})
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < nc; ++j) plain((*W)(i, j));
  for (const auto* G : {&m.GNN, &m.GNT, &m.GTN, &m.GTT})
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j) plain((*G)(i, j));
  for (int i = 0; i < nc; ++i) {
    plain(static_cast<double>(m.kind[i]));
    plain(static_cast<double>(m.normal_slot[i]));
    plain(static_cast<double>(m.law[i].kind));
    tagged(m.Fn[i], SlotKind::normal_force, i, 0);
    tagged(m.v_surface[i], SlotKind::surface_velocity, i, 0);
    tagged(m.kc[i], SlotKind::contact_stiffness, i, 0);
    tagged(m.gap0[i], SlotKind::contact_gap, i, 0);
    for (int p = 0; p < kFrictionMaxParams; ++p) tagged(m.law[i].p[p], SlotKind::friction, i, p);
  }
  for (Eigen::Index i = 0; i < sc.q0.size(); ++i) tagged(sc.q0(i), SlotKind::start_q, static_cast<int>(i), 0);
  for (Eigen::Index i = 0; i < sc.u0.size(); ++i) tagged(sc.u0(i), SlotKind::start_u, static_cast<int>(i), 0);
  return f;
}

std::vector<double> parameter_numbers(ModelParameters p) {
  std::vector<double> x;
  p.for_each_number([&](double& v) { x.push_back(v); });
  return x;
}

// two values of a parameter, distinct when it has two, each obeying rule (checked before)
std::vector<double> probe_values(const SweepParameter& p) {
  std::vector<double> v;
  if (p.draw_range) {
    v.push_back(p.lo);
    v.push_back(p.hi);
  } else {
    v.push_back(p.values.front());
    for (double x : p.values)
      if (x != v.front()) {
        v.push_back(x);
        break;
      }
  }
  if (v.size() == 2 && v[0] == v[1]) v.pop_back();
  return v;
}

}  // namespace

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

SweepPlan::SweepPlan(const Scenario& base, const SweepSpec& spec) : base_(base), spec_(spec) {
  slots_.resize(spec_.parameters.size());
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    SweepSlot& s = slots_[k];
    s.path = spec_.parameters[k].path;
    if (s.path == "/integrator/dt") {
      s.grid = GridSlot::dt;
      s.rule = NumberRule::positive;
    } else if (s.path == "/integrator/t_end") {
      s.grid = GridSlot::t_end;
      s.rule = NumberRule::positive;
    } else if (s.path == "/analysis/t_transient") {
      s.grid = GridSlot::t_transient;
      s.rule = NumberRule::non_negative;
    } else if (s.path.rfind("/model/", 0) == 0 || s.path.rfind("/friction/", 0) == 0 ||
               s.path.rfind("/initial/", 0) == 0) {
      s.rule = probe_rule(base_.document, s.path);
    } else {
      throw InputError(path_pointer(k), "'" + s.path +
                                            "' cannot be swept: a sweep varies the numbers of /model, "
                                            "/friction and /initial, /integrator/dt, /integrator/t_end and "
                                            "/analysis/t_transient");
    }
    varies_grid_ = varies_grid_ || s.grid != GridSlot::none;
    varies_dt_ = varies_dt_ || s.grid == GridSlot::dt;
  }
  // the values first, so that what a pointer touches is looked at with values the parser accepts
  check_values();
  for (std::size_t k = 0; k < slots_.size(); ++k)
    if (slots_[k].grid == GridSlot::none) resolve(k, base_.document);
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    const SweepSlot& s = slots_[k];
    rebuilds_ = rebuilds_ || s.rebuilds_model();
    for (int at : s.model_numbers) {
      if (number_columns_.size() <= static_cast<std::size_t>(at))
        number_columns_.resize(static_cast<std::size_t>(at) + 1, -1);
      number_columns_[static_cast<std::size_t>(at)] = static_cast<int>(k);
    }
    if (s.rebuilds_model()) continue;
    for (SlotTarget t : s.targets) {
      t.column = static_cast<int>(k);
      targets_.t[targets_.n++] = t;
    }
  }
}

void SweepPlan::resolve(std::size_t k, const json& doc) {
  SweepSlot& s = slots_[k];
  std::vector<double> v = probe_values(spec_.parameters[k]);
  // one value for every case: the base scenario's own value is the other probe
  const double own = doc.at(json::json_pointer(s.path)).get<double>();
  if (v.size() == 1 && own != v[0]) v.push_back(own);
  if (v.size() == 1) return;  // the base already holds the one value: nothing to write per case
  Scenario sc[2];
  FlatModel flat[2];
  for (int p = 0; p < 2; ++p) {
    try {
      sc[p] = parse_scenario(with_value(doc, s.path, v[p]));
    } catch (const InputError& e) {
      // refused only together with the others' base values: the first case that holds it says
      // whether the sweep has a bad case
      reject_case(first_case_with(k, v[p]));
      throw InputError(e.pointer, e.rule + " (with " + s.path + " = " + format_double(v[p]) + ")");
    }
    auto m = std::make_unique<Model<HostDims>>();
    try {
      make_model(sc[p].model, *m);
    } catch (const ModelError& e) {
      throw InputError("/model", std::string(e.what()) + " (with " + s.path + " = " + format_double(v[p]) + ")");
    }
    flat[p] = flatten(*m, sc[p]);
  }
  if (flat[0].x.size() != flat[1].x.size() || flat[0].x[0] != flat[1].x[0] || flat[0].x[1] != flat[1].x[1])
    throw InputError(path_pointer(k), "a sweep may not change the number of DoF or contacts ('" + s.path + "' does)");
  bool structural = false;
  for (std::size_t i = 0; i < flat[0].x.size(); ++i) {
    if (flat[0].x[i] == flat[1].x[i]) continue;
    const int t = flat[0].slot[i];
    if (t >= 0 && flat[0].x[i] == v[0] && flat[1].x[i] == v[1])
      s.targets.push_back(flat[0].targets[static_cast<std::size_t>(t)]);
    else
      structural = true;
  }
  // a slot with more targets than a kernel argument holds is made on the host too
  structural = structural || targets_.n + static_cast<int>(s.targets.size()) > kMaxSlotTargets;
  if (!structural) return;
  const std::vector<double> p0 = parameter_numbers(sc[0].model_parameters),
                            p1 = parameter_numbers(sc[1].model_parameters);
  for (std::size_t i = 0; i < p0.size() && i < p1.size(); ++i)
    if (p0[i] == v[0] && p1[i] == v[1] && p0[i] != p1[i]) s.model_numbers.push_back(static_cast<int>(i));
  if (s.model_numbers.empty())
    throw InputError(path_pointer(k), "'" + s.path + "' changes the model in a way a sweep cannot vary per case");
}

bool SweepPlan::value_ok(std::size_t k, double v) const { return obeys(slots_[k].rule, v); }

long SweepPlan::first_case_with(std::size_t k, double v) const {
  std::vector<double> values;
  for (long i = 0; i < spec_.n_cases(); ++i) {
    spec_.case_values(i, values);
    if (values[k] == v) return i;
  }
  return -1;
}

void SweepPlan::check_values() const {
  bool suspect = varies_grid_;  // the grid's numbers are checked against each other case by case
  for (std::size_t k = 0; k < slots_.size() && !suspect; ++k) {
    const SweepParameter& p = spec_.parameters[k];
    if (p.draw_range) suspect = !value_ok(k, p.lo) || !value_ok(k, p.hi);
    for (double v : p.values) suspect = suspect || !value_ok(k, v);
  }
  if (!suspect) return;
  const long n = spec_.n_cases();
  const double t_end0 = base_.integrator.t_end, dt0 = base_.integrator.dt, tr0 = base_.analysis.t_transient;
  const bool strobe = base_.analysis.poincare.section == "stroboscopic";
  std::vector<double> values;
  for (long i = 0; i < n; ++i) {
    spec_.case_values(i, values);
    bool ok = true;
    double dt = dt0, t_end = t_end0, tr = tr0;
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      ok = ok && value_ok(k, values[k]);
      if (slots_[k].grid == GridSlot::dt) dt = values[k];
      if (slots_[k].grid == GridSlot::t_end) t_end = values[k];
      if (slots_[k].grid == GridSlot::t_transient) tr = values[k];
    }
    ok = ok && t_end / dt <= kMaxSteps && tr < t_end && (!strobe || base_.analysis.poincare.period > dt);
    if (!ok) reject_case(i);
  }
}

void SweepPlan::reject_case(long index) const {
  // the parser's own message; where it accepts the case after all (a check here stricter than
  // its), the case runs
  if (index < 0) return;
  std::vector<double> values;
  (void)case_scenario(base_.document, spec_, index, values);
}

std::string SweepPlan::describe_case(long index) const {
  std::vector<double> values;
  spec_.case_values(index, values);
  std::string at = "case " + std::to_string(index) + " (";
  for (std::size_t k = 0; k < values.size(); ++k)
    at += (k ? ", " : "") + spec_.parameters[k].path + " = " + format_double(values[k]);
  return at + ")";
}

void SweepPlan::case_rows(long first, long n, std::vector<double>& rows) const {
  const std::size_t np = spec_.parameters.size();
  rows.resize(np * static_cast<std::size_t>(n));
  std::vector<double> values;
  for (long i = 0; i < n; ++i) {
    spec_.case_values(first + i, values);
    for (std::size_t k = 0; k < np; ++k)
      rows[k * static_cast<std::size_t>(n) + static_cast<std::size_t>(i)] = values[k];
  }
}

template <class D>
void SweepPlan::uniform_setup(double stick_tol, CaseSetup<D>& out) const {
  try {
    make_model(base_.model, out.model);
  } catch (const ModelError& e) {
    throw InputError("/model", e.what());
  }
  make_initial_state(out.model, base_.q0, base_.u0, 0.0, stick_tol, out.start);
  out.dt = base_.integrator.dt;
  out.steps = base_.integrator.steps;
  out.t_transient = base_.analysis.t_transient;
}

template <class D>
void SweepPlan::case_model(const CaseSetup<D>& uniform, long index, const double* row, long stride, double stick_tol,
                           Model<D>& model, State<D>& start) const {
  if (rebuilds_) {
    ModelParameters p = base_.model_parameters;
    std::size_t at = 0;
    p.for_each_number([&](double& x) {
      const int k = at < number_columns_.size() ? number_columns_[at] : -1;
      if (k >= 0) x = row[k * stride];
      ++at;
    });
    try {
      make_model(describe_model(p), model);
    } catch (const ModelError& e) {
      throw InputError("/model", std::string(e.what()) + " in " + describe_case(index));
    }
  } else {
    model = uniform.model;
  }
  start = uniform.start;
  apply_row(targets_, row, stride, typename D::scalar(stick_tol), model, start);
}

template <class D>
void SweepPlan::case_setup(const CaseSetup<D>& uniform, long index, const double* row, long stride, double stick_tol,
                           CaseSetup<D>& out) const {
  out.dt = uniform.dt;
  out.steps = uniform.steps;
  out.t_transient = uniform.t_transient;
  if (varies_grid_) {
    double t_end = base_.integrator.t_end;
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      const double v = row[static_cast<long>(k) * stride];
      if (slots_[k].grid == GridSlot::dt) out.dt = v;
      if (slots_[k].grid == GridSlot::t_end) t_end = v;
      if (slots_[k].grid == GridSlot::t_transient) out.t_transient = v;
    }
    out.steps = step_count(out.dt, t_end);
  }
  case_model(uniform, index, row, stride, stick_tol, out.model, out.start);
}

#define FIVSIM_SWEEP_PLAN_INSTANTIATE(D)                                                                               \
  template void SweepPlan::uniform_setup<D>(double, CaseSetup<D>&) const;                                              \
  template void SweepPlan::case_setup<D>(const CaseSetup<D>&, long, const double*, long, double, CaseSetup<D>&) const; \
  template void SweepPlan::case_model<D>(const CaseSetup<D>&, long, const double*, long, double, Model<D>&, State<D>&) \
      const;
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_PLAN_INSTANTIATE)
#undef FIVSIM_SWEEP_PLAN_INSTANTIATE

}  // namespace fivsim::sweep
