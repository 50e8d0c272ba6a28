// src/integrate/method.cpp — every integration method behind one call (integrate/method.hpp).
#include "fivsim/integrate/method.hpp"

#include <memory>
#include <stdexcept>

#include "fivsim/integrate/simulation.hpp"

namespace fivsim {

std::string MethodSpec::label() const {
  const std::string suffix = std::string(forces == StageForces::ramp ? "-interp" : "") +
                             (lcp_on_euler ? "-euler_lcp" : "") + (lcp_pinn ? "+lcp_pinn" : "");
  switch (kind) {
    case MethodKind::moreau:
      return "moreau" + suffix;
    case MethodKind::rk4lcp:
      return "rk4lcp" + suffix;
    case MethodKind::irk:
      return "irk" + std::to_string(stages) + suffix;
    case MethodKind::event_driven:
      return "switching";
    case MethodKind::smooth:
      return "smooth";
    case MethodKind::pinn:
      if (framework == PinnFramework::central) return "pinn_central";
      return std::string(pinn_framework_name(framework)) + std::to_string(stages);
  }
  return "?";
}

const char* pinn_framework_name(PinnFramework f) {
  switch (f) {
    case PinnFramework::single:
      return "pinn_single";
    case PinnFramework::dual:
      return "pinn_dual";
    case PinnFramework::adv_single:
      return "pinn_adv_single";
    case PinnFramework::adv_dual:
      return "pinn_adv_dual";
    case PinnFramework::central:
      return "pinn_central";
  }
  return "?";
}

bool parse_pinn_framework(const std::string& name, PinnFramework& f) {
  for (PinnFramework c : {PinnFramework::single, PinnFramework::dual, PinnFramework::adv_single,
                          PinnFramework::adv_dual, PinnFramework::central})
    if (name == pinn_framework_name(c)) {
      f = c;
      return true;
    }
  return false;
}

MethodSpec parse_method_label(const std::string& label) {
  MethodSpec spec;
  std::string base = label;
  // "+lcp_pinn": a classical stepper whose contact LCPs the LCP-PINN solves
  const std::string with_pinn = "+lcp_pinn";
  if (base.size() > with_pinn.size() &&
      base.compare(base.size() - with_pinn.size(), with_pinn.size(), with_pinn) == 0) {
    spec.lcp_pinn = true;
    base.resize(base.size() - with_pinn.size());
  }
  const std::string euler_lcp = "-euler_lcp";
  if (base.size() > euler_lcp.size() &&
      base.compare(base.size() - euler_lcp.size(), euler_lcp.size(), euler_lcp) == 0) {
    spec.lcp_on_euler = true;
    base.resize(base.size() - euler_lcp.size());
  }
  const std::string interp = "-interp";
  if (base.size() > interp.size() && base.compare(base.size() - interp.size(), interp.size(), interp) == 0) {
    spec.forces = StageForces::ramp;
    base.resize(base.size() - interp.size());
  }
  // pinn_<framework>Q: the IRK-PINN frameworks with Q Gauss stages; pinn_central has no stages
  if (base.rfind("pinn_", 0) == 0) {
    if (spec.lcp_pinn) throw std::invalid_argument("'" + label + "': +lcp_pinn applies to moreau, rk4lcp and irkQ");
    if (spec.lcp_on_euler) throw std::invalid_argument("'" + label + "': -euler_lcp applies to rk4lcp and irkQ");
    const std::size_t digits = base.find_last_not_of("0123456789") + 1;
    spec.kind = MethodKind::pinn;
    if (!parse_pinn_framework(base.substr(0, digits), spec.framework) || spec.forces == StageForces::ramp)
      throw std::invalid_argument("unknown method '" + label +
                                  "' (PINN methods: pinn_singleQ, pinn_dualQ, pinn_adv_singleQ, pinn_adv_dualQ "
                                  "with Q Gauss stages, pinn_central)");
    const bool central = spec.framework == PinnFramework::central;
    if (central != (digits == base.size()) || base.size() - digits > 3)
      throw std::invalid_argument(
          "'" + label +
          "': " + (central ? "pinn_central takes no stage count" : "give the Gauss stages, e.g. " + base + "10"));
    if (!central) {
      spec.stages = std::stoi(base.substr(digits));
      if (spec.stages < 1 || spec.stages > kMaxPinnStages)
        throw std::invalid_argument("'" + label + "': PINN stages must be 1.." + std::to_string(kMaxPinnStages));
    }
    return spec;
  }
  const bool rk = base == "rk4lcp" || base.rfind("irk", 0) == 0;
  if (spec.forces == StageForces::ramp && !rk)
    throw std::invalid_argument("'" + label + "': -interp applies to rk4lcp and irkQ only");
  if (spec.lcp_on_euler && (!rk || spec.forces == StageForces::ramp))
    throw std::invalid_argument("'" + label + "': -euler_lcp applies to rk4lcp and irkQ with held forces only");
  if (base == "moreau") {
    spec.kind = MethodKind::moreau;
  } else if (base == "rk4lcp") {
    spec.kind = MethodKind::rk4lcp;
  } else if ((base == "switching" || base == "root_shooting") && !spec.lcp_pinn) {
    spec.kind = MethodKind::event_driven;
  } else if (base == "smooth" && !spec.lcp_pinn) {
    spec.kind = MethodKind::smooth;
  } else if (base.rfind("irk", 0) == 0 && base.size() > 3 &&
             base.find_first_not_of("0123456789", 3) == std::string::npos && base.size() <= 6) {
    spec.kind = MethodKind::irk;
    spec.stages = std::stoi(base.substr(3));
    if (spec.stages < 1 || spec.stages > kMaxGaussStages)
      throw std::invalid_argument("'" + label + "': Gauss stages must be 1.." + std::to_string(kMaxGaussStages));
  } else {
    throw std::invalid_argument("unknown method '" + label + "' (" + kMethodLabels + ")");
  }
  return spec;
}

std::vector<std::string> series_names(int n_dof, int n_contacts) {
  std::vector<std::string> names;
  for (const char* prefix : {"q", "u"})
    for (int i = 0; i < n_dof; ++i) names.push_back(prefix + std::to_string(i));
  for (const char* prefix : {"lamN", "lamT"})
    for (int i = 0; i < n_contacts; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

void series_values(const SeriesPoint& p, std::vector<double>& v) {
  v.clear();
  v.insert(v.end(), p.q, p.q + p.n_dof);
  v.insert(v.end(), p.u, p.u + p.n_dof);
  v.insert(v.end(), p.lamN, p.lamN + p.n_contacts);
  v.insert(v.end(), p.lamT, p.lamT + p.n_contacts);
}

namespace {

// the outcome of an ODE-based method (event-driven reference, smooth) as a MethodOutcome, whose
// steps the observer has counted samples of
template <class OdeOutcome>
void copy_ode_outcome(const OdeOutcome& r, MethodOutcome& out) {
  out.steps = std::max(0L, out.steps - 1);  // the start sample is not a step
  out.status = r.status;
  out.message = r.message;
  out.failed_at = r.t_final;
  out.reference_steps = r.steps;
  out.rhs_evaluations = r.rhs_evaluations;
}

}  // namespace

MethodOutcome run_method(const MethodSpec& spec, const ModelDescription& desc, const Model<HostDims>& model,
                         const Eigen::VectorXd& q0, const Eigen::VectorXd& u0, double dt, long steps,
                         const StepOptions& options, const std::function<void(const SeriesPoint&)>& observe) {
  MethodOutcome out;
  const int n = model.n_dof, nc = model.n_contacts;
  if (desc.has_dynamic_friction() && spec.kind != MethodKind::smooth)
    throw ModelError("dynamic friction laws (dahl, lugre, gms) run with the smooth method only, not " + spec.label());
  SeriesPoint p;
  p.n_dof = n;
  p.n_contacts = nc;
  auto sample_point = [&](const ReferenceSample& s) {
    p.t = s.t;
    p.q = s.q.data();
    p.u = s.u.data();
    p.lamN = s.lamN.data();
    p.lamT = s.lamT.data();
    p.contact = s.contact.data();
  };
  if (spec.kind == MethodKind::smooth) {
    // events from the contact states of consecutive samples (no event location: a smooth law has
    // no set-valued switch to locate)
    std::vector<ContactState> last;
    const SmoothOutcome r = simulate_smooth(desc, q0, u0, static_cast<double>(steps) * dt, dt, options.stick_tol,
                                            SmoothOptions{}, [&](const ReferenceSample& s) {
                                              sample_point(s);
                                              observe(p);
                                              if (!last.empty())
                                                for (int i = 0; i < nc; ++i)
                                                  if (s.contact[i] != last[i]) {
                                                    Event e;
                                                    e.t = s.t;
                                                    e.contact = i;
                                                    e.from = last[i];
                                                    e.to = s.contact[i];
                                                    e.kind = classify_transition(e.from, e.to);
                                                    e.q.assign(s.q.data(), s.q.data() + n);
                                                    out.events.push_back(e);
                                                  }
                                              last = s.contact;
                                              ++out.steps;
                                            });
    copy_ode_outcome(r, out);
    return out;
  }
  if (spec.kind == MethodKind::event_driven) {
    const EventDrivenOutcome r = simulate_event_driven(desc, q0, u0, 0.0, static_cast<double>(steps) * dt, dt,
                                                       spec.event_driven, [&](const ReferenceSample& s) {
                                                         sample_point(s);
                                                         observe(p);
                                                         ++out.steps;
                                                       });
    copy_ode_outcome(r, out);
    out.events = r.events;
    return out;
  }

  auto state = std::make_unique<State<HostDims>>();
  make_initial_state(model, q0, u0, 0.0, options.stick_tol, *state);
  auto point = [&](const State<HostDims>& s) {
    SeriesPoint p;
    p.t = static_cast<double>(s.t);
    p.n_dof = n;
    p.n_contacts = nc;
    p.q = s.q.v;
    p.u = s.u.v;
    p.lamN = s.lamN.v;
    p.lamT = s.lamT.v;
    p.contact = s.contact;
    return p;
  };
  observe(point(*state));
  EventLog log;
  log.start(model, *state);
  const RunOutcome r = simulate_time_stepper(spec, model, *state, dt, steps, options,
                                             [&](const State<HostDims>& s, long, const StepReport&) {
                                               log.observe(model, s);
                                               observe(point(s));
                                             });
  out.status = r.status;
  if (r.status != Status::ok)
    out.message = r.status == Status::nonfinite ? "the state became NaN or Inf" : "the contact LCP could not be solved";
  out.steps = r.steps;
  out.failed_at = r.failed_at;
  out.events = log.events();
  out.max_lcp_residual = r.max_lcp_residual;
  out.lcp_iterations = r.lcp_iterations;
  out.max_lcp_iterations = r.max_lcp_iterations;
  out.pinn = r.pinn;
  return out;
}

}  // namespace fivsim
