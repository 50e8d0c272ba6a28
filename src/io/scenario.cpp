// src/io/scenario.cpp — scenario validation and model building (docs/DESIGN.md §4).
#include "fivsim/io/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "fivsim/integrate/butcher.hpp"
#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/integrate/smooth_dynamic.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/lcp/lcp_enum.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {

json load_json_file(const std::string& path) {
  return parse_json_text(read_input_file(path, kMaxJsonFileBytes, "a JSON"), path);
}

void apply_override(json& doc, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || assignment.empty() || assignment[0] != '/')
    throw InputError(assignment, "--set needs /json/pointer=value");
  const std::string ptr = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  json value;
  std::string lower;
  for (char ch : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "nan")
    value = std::nan("");
  else if (lower == "inf" || lower == "+inf")
    value = HUGE_VAL;
  else if (lower == "-inf")
    value = -HUGE_VAL;
  else {
    try {
      value = parse_json_text(text, "--set");
    } catch (const InputError& e) {
      // text that is not JSON is a string; JSON that breaks a rule is refused where it goes
      if (!e.pointer.empty() || e.rule.rfind("malformed JSON", 0) != 0) throw InputError(ptr + e.pointer, e.rule);
      value = text;
    }
  }
  if (value.is_null()) {
    // null removes the key (or the array's element): a default comes back, or an exclusive
    // choice (Ff or Fn) is made again; a key that is not there is already removed
    const json::json_pointer p(ptr);
    if (p.empty()) throw InputError(ptr, "null would remove the whole document");
    if (!doc.contains(p)) return;
    json& parent = doc.at(p.parent_pointer());
    if (parent.is_object())
      parent.erase(p.back());
    else
      parent.erase(static_cast<std::size_t>(std::stoul(p.back())));
    return;
  }
  set_at_pointer(doc, ptr, std::move(value), ptr);
}

namespace {

// parameters that must be strictly positive (the rest must be >= 0)
bool friction_param_positive(FrictionLawKind k, int i) {
  switch (k) {
    case FrictionLawKind::coulomb_tanh:
      return i == 1;  // eps
    case FrictionLawKind::stribeck:
      return i == 2 || i == 3;  // v_s, alpha
    case FrictionLawKind::asymmetric:
      return i == 4;  // alpha
    default:
      return false;
  }
}

const std::vector<std::string> kModelTypes = {"slider_belt",       "slider_chain",     "mode_coupling_2dof",
                                              "base_excited_sdof", "torsion_pendulum", "linear_multibody"};

// the integration methods of /integrator/method
const std::vector<std::string> kMethods = {"moreau",        "rk4lcp",       "irk",       "switching",
                                           "root_shooting", "pinn_single",  "pinn_dual", "pinn_adv_single",
                                           "pinn_adv_dual", "pinn_central", "smooth"};

// the dynamic laws of friction/dynamic_laws.hpp, by name
const std::vector<std::string> kDynamicLaws = {"dahl", "lugre", "gms"};

// a /friction block: a static law, or a dynamic one with its static stand-in (Coulomb at Fc)
struct FrictionSpec {
  FrictionLaw law;
  bool dynamic = false;
  DynamicFrictionLaw dyn;
};

FrictionSpec parse_friction_spec(JsonObject& obj) {
  const std::vector<std::string> names = friction_law_names();
  const std::string name = obj.choice("law", names);
  FrictionSpec f;
  for (int k = 0; k < kFrictionLawCount; ++k) {
    if (name != kFrictionLawInfo[k].name) continue;
    f.law.kind = static_cast<FrictionLawKind>(k);
    for (int i = 0; i < kFrictionLawInfo[k].n_params; ++i)
      f.law.p[i] = obj.number(kFrictionLawInfo[k].params[i],
                              friction_param_positive(f.law.kind, i) ? NumberRule::positive : NumberRule::non_negative);
    return f;
  }
  f.dynamic = true;
  DynamicFrictionLaw& d = f.dyn;
  auto pos = [&](const char* key) { return obj.number(key, NumberRule::positive); };
  auto nonneg = [&](const char* key) { return obj.number(key, NumberRule::non_negative); };
  double Fc = 0.0;
  if (name == "dahl") {
    d.kind = DynamicLawKind::dahl;
    d.p[0] = pos("sigma0");
    d.p[1] = Fc = pos("Fc");
    d.p[2] = pos("beta");
  } else if (name == "lugre") {
    d.kind = DynamicLawKind::lugre;
    d.p[0] = pos("sigma0");
    d.p[1] = nonneg("sigma1");
    d.p[2] = nonneg("sigma2");
    d.p[3] = Fc = pos("Fc");
    d.p[4] = pos("Fs");
    d.p[5] = pos("vs");
    d.p[6] = pos("beta");
  } else {
    d.kind = DynamicLawKind::gms;
    d.p[0] = Fc = pos("Fc");
    d.p[1] = pos("Fs");
    d.p[2] = pos("vs");
    d.p[3] = obj.number_or("sigma2", 0.0, NumberRule::non_negative);
    const json& elements = obj.array("elements");
    const std::string at = obj.pointer_of("elements");
    if (elements.empty() || elements.size() > static_cast<std::size_t>(kGmsMaxElements))
      throw InputError(at, "needs 1 to " + std::to_string(kGmsMaxElements) + " elements");
    d.n_elements = static_cast<int>(elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) {
      JsonObject e(elements[i], pointer_join(at, i));
      d.element[i] = GmsElement{e.number("K", NumberRule::positive), e.number_or("B", 0.0, NumberRule::non_negative),
                                e.number("C", NumberRule::positive), e.number("alpha", NumberRule::positive)};
      e.finish();
    }
  }
  f.law.kind = FrictionLawKind::coulomb;
  f.law.p[0] = Fc;
  return f;
}

void apply_friction(ContactDescription& c, const FrictionSpec& f) {
  c.law = f.law;
  c.dynamic = f.dynamic;
  c.dynamic_law = f.dyn;
}

// a whole number in [lo, hi] at key (or the fallback)
int bounded_integer(JsonObject& o, const std::string& key, int fallback, int lo, int hi) {
  const long v = o.integer_or(key, fallback, lo);
  if (v > hi) throw InputError(o.pointer_of(key), "must be at most " + std::to_string(hi));
  return static_cast<int>(v);
}

}  // namespace

void parse_network_training(JsonObject& p, std::vector<int>& hidden, Activation& activation,
                            OptimizerOptions& optimizer, const std::string& default_optimizer) {
  if (p.has("hidden")) {
    const std::string at = p.pointer_of("hidden");
    const auto widths = p.numbers("hidden", -1, NumberRule::positive);
    if (widths.size() + 1 > static_cast<std::size_t>(kMlpMaxLayers))
      throw InputError(at, "at most " + std::to_string(kMlpMaxLayers - 1) + " hidden layers");
    hidden.clear();
    for (std::size_t i = 0; i < widths.size(); ++i) {
      if (widths[i] != std::floor(widths[i]) || widths[i] > kMlpMaxWidth)
        throw InputError(pointer_join(at, i), "must be a whole width in 1.." + std::to_string(kMlpMaxWidth));
      hidden.push_back(static_cast<int>(widths[i]));
    }
  }
  activation = parse_activation(p.choice_or("activation", "tanh", {"tanh", "mish", "relu"}));
  const std::string opt = p.choice_or("optimizer", default_optimizer, {"lbfgs", "adam", "adam+lbfgs"});
  optimizer.kind = opt == "adam"    ? OptimizerKind::adam
                   : opt == "lbfgs" ? OptimizerKind::lbfgs
                                    : OptimizerKind::adam_lbfgs;
  optimizer.max_iter = bounded_integer(p, "max_iter", optimizer.max_iter, 1, 1000000);
  optimizer.adam_iter = bounded_integer(p, "adam_iter", optimizer.adam_iter, 0, 1000000);
  optimizer.tol = p.number_or("tol", optimizer.tol, NumberRule::positive);
  optimizer.learning_rate = p.number_or("learning_rate", optimizer.learning_rate, NumberRule::positive);
  optimizer.history = bounded_integer(p, "history", optimizer.history, 1, 50);
}

namespace {

// /integrator/pinn: the networks and trainings of the PINN methods; lcp_only (a classical method
// with lcp_solver lcp_pinn): only the LCP-PINN's `lcp` block and `seed`
PinnConfig parse_pinn(JsonObject& in, bool lcp_only) {
  PinnConfig c;
  if (!in.has("pinn")) return c;
  JsonObject p = in.object("pinn");
  if (!lcp_only) parse_network_training(p, c.hidden, c.activation, c.optimizer, "lbfgs");
  c.seed = static_cast<uint64_t>(p.integer_or("seed", 1, 0));
  if (p.has("lcp")) {
    JsonObject l = p.object("lcp");
    LcpPinnSettings& s = c.lcp;
    s.layers = bounded_integer(l, "layers", s.layers, 1, kLcpPinnMaxLayers);
    s.width = bounded_integer(l, "width", s.width, 1, kLcpPinnMaxWidth);
    s.activation = parse_activation(l.choice_or("activation", "tanh", {"tanh", "mish", "relu"}));
    const std::string out = l.choice_or("output", "shifted_relu", {"shifted_relu", "scaled_relu"});
    s.output = out == "shifted_relu" ? OutputMap::shifted_relu : OutputMap::scaled_relu;
    s.c1 = l.number_or("c1", s.c1);
    s.c2 = l.number_or("c2", s.output == OutputMap::scaled_relu ? 1.0 : s.c2);
    if (s.output == OutputMap::scaled_relu && !(s.c2 > 0))
      throw InputError(l.pointer_of("c2"),
                       "must be > 0 for scaled_relu (outputs ReLU(z + c1)·c2 must reach every x ≥ 0)");
    s.optimizer.max_iter = bounded_integer(l, "max_iter", s.optimizer.max_iter, 1, 1000000);
    s.optimizer.tol = l.number_or("tol", s.optimizer.tol, NumberRule::positive);
    s.restarts = bounded_integer(l, "restarts", s.restarts, 0, 100);
    s.warm_start = l.boolean_or("warm_start", s.warm_start);
    s.polish = l.boolean_or("polish", s.polish);
    c.lcp_tolerance = l.number_or("residual_tol", c.lcp_tolerance, NumberRule::positive);
    l.finish();
  }
  c.lcp.seed = c.seed;
  p.finish();
  return c;
}

FrictionSpec required_friction(JsonObject& root, const std::string& type) {
  if (!root.has("friction")) throw InputError("/friction", "is required for model type " + type);
  JsonObject f = root.object("friction");
  FrictionSpec spec = parse_friction_spec(f);
  f.finish();
  return spec;
}

FrictionLaw coulomb(double mu) {
  FrictionLaw law;
  law.kind = FrictionLawKind::coulomb;
  law.p[0] = mu;
  return law;
}

BaseExcitedParams parse_base_excited(JsonObject& root, JsonObject& mo, FrictionSpec& friction) {
  BaseExcitedParams p;
  p.m = mo.number("m", NumberRule::positive);
  p.k = mo.number("k", NumberRule::non_negative);
  p.c = mo.number_or("c", 0.0, NumberRule::non_negative);
  p.A = mo.number("A", NumberRule::non_negative);
  p.f_hz = mo.number("f_hz", NumberRule::positive);
  const bool has_ff = mo.has("Ff"), has_mu = mo.has("mu"), has_fn = mo.has("Fn");
  const bool has_friction = root.has("friction");
  if (has_ff) {
    if (has_mu || has_fn)
      throw InputError(mo.pointer_of("Ff"), "give either Ff or Fn (with mu or a /friction block), not both");
    if (has_friction) throw InputError("/friction", "not allowed with /model/Ff (Ff is a Coulomb friction force)");
    p.Fn = mo.number("Ff", NumberRule::non_negative);
    p.law = coulomb(1.0);
  } else if (has_mu) {
    if (has_friction) throw InputError("/friction", "not allowed with /model/mu (mu is a Coulomb coefficient)");
    p.Fn = mo.number("Fn", NumberRule::non_negative);
    p.law = coulomb(mo.number("mu", NumberRule::non_negative));
  } else if (has_fn) {
    p.Fn = mo.number("Fn", NumberRule::non_negative);
    friction = required_friction(root, "base_excited_sdof");
    p.law = friction.law;
  } else {
    throw InputError(mo.pointer_of("Ff"), "is required (or Fn with mu or with a /friction block)");
  }
  return p;
}

ModelDescription parse_linear_multibody(JsonObject& root, JsonObject& mo) {
  ModelDescription d;
  d.type = "linear_multibody";
  d.M = mo.matrix("M", -1, -1);
  const long n = d.M.rows();
  if (n > kHostMaxDof)
    throw InputError(mo.pointer_of("M"), "at most " + std::to_string(kHostMaxDof) + " degrees of freedom");
  d.C = mo.has("C") ? mo.matrix("C", n, n) : Eigen::MatrixXd::Zero(n, n);
  d.K = mo.matrix("K", n, n);
  const std::string why = "model has " + std::to_string(n) + " DoF";
  auto vec_or_zero = [&](const char* key) -> Eigen::VectorXd {
    if (!mo.has(key)) return Eigen::VectorXd::Zero(n);
    const auto v = mo.numbers(key, n, NumberRule::any, why);
    return Eigen::Map<const Eigen::VectorXd>(v.data(), n);
  };
  d.f0 = vec_or_zero("f");
  d.f_sin = vec_or_zero("f_sin");
  d.f_cos = vec_or_zero("f_cos");
  d.omega = mo.number_or("omega", 0.0, NumberRule::non_negative);
  std::optional<FrictionSpec> default_law;
  if (root.has("friction")) {
    JsonObject f = root.object("friction");
    default_law = parse_friction_spec(f);
    f.finish();
  }
  const json& contacts = mo.array("contacts");
  if (static_cast<long>(contacts.size()) > kHostMaxContacts)
    throw InputError(mo.pointer_of("contacts"), "at most " + std::to_string(kHostMaxContacts) + " contacts");
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    JsonObject co(contacts[i], pointer_join(mo.pointer_of("contacts"), i));
    ContactDescription c;
    const std::string kind = co.choice("kind", {"rigid", "spring", "given_normal"});
    c.kind = kind == "rigid" ? ContactKind::rigid : kind == "spring" ? ContactKind::spring : ContactKind::given_normal;
    const auto wt = co.numbers("w_T", n, NumberRule::any, why);
    c.w_T = Eigen::Map<const Eigen::VectorXd>(wt.data(), n);
    if (c.kind != ContactKind::given_normal || co.has("w_N")) {
      const auto wn = co.numbers("w_N", n, NumberRule::any, why);
      c.w_N = Eigen::Map<const Eigen::VectorXd>(wn.data(), n);
    } else {
      c.w_N = Eigen::VectorXd::Zero(n);
    }
    if (c.kind == ContactKind::spring) c.k_c = co.number("k_c", NumberRule::positive);
    if (c.kind == ContactKind::given_normal) c.Fn = co.number("Fn", NumberRule::non_negative);
    c.v_surface = co.number_or("v_surface", 0.0);
    c.gap0 = co.number_or("gap0", 0.0);
    if (co.has("friction")) {
      JsonObject f = co.object("friction");
      apply_friction(c, parse_friction_spec(f));
      f.finish();
    } else if (default_law) {
      apply_friction(c, *default_law);
    } else {
      throw InputError(co.pointer_of("friction"), "is required (or give a top-level /friction)");
    }
    if (c.kind != ContactKind::given_normal && c.w_N.norm() == 0.0)
      throw InputError(co.pointer_of("w_N"), "must not be all zero for a " + kind + " contact");
    co.finish();
    d.contacts.push_back(c);
  }
  return d;
}

ModelParameters parse_model(JsonObject& root) {
  JsonObject mo = root.object("model");
  ModelParameters mp;
  mp.type = mo.choice("type", kModelTypes);
  const std::string& type = mp.type;
  FrictionSpec friction;  // a preset's one law (linear_multibody sets its contacts itself)
  if (type == "slider_belt") {
    SliderBeltParams& p = mp.slider_belt;
    p.m = mo.number("m", NumberRule::positive);
    p.k = mo.number("k", NumberRule::non_negative);
    p.c = mo.number_or("c", 0.0, NumberRule::non_negative);
    p.v0 = mo.number("v0");
    p.Fn = mo.number("Fn", NumberRule::non_negative);
    friction = required_friction(root, type);
    p.law = friction.law;
  } else if (type == "slider_chain") {
    SliderChainParams& p = mp.slider_chain;
    const long n = mo.integer("n", 1);
    if (n > kHostMaxContacts)
      throw InputError(mo.pointer_of("n"), "at most " + std::to_string(kHostMaxContacts) + " sliders");
    p.m = mo.number_or_numbers("m", n, NumberRule::positive);
    p.k = mo.number_or_numbers("k", n, NumberRule::non_negative);
    p.c = mo.has("c") ? mo.number_or_numbers("c", n, NumberRule::non_negative)
                      : std::vector<double>(static_cast<std::size_t>(n), 0.0);
    p.Fn = mo.number_or_numbers("Fn", n, NumberRule::non_negative);
    p.v0 = mo.number("v0");
    friction = required_friction(root, type);
    p.law = friction.law;
  } else if (type == "mode_coupling_2dof") {
    ModeCouplingParams& p = mp.mode_coupling;
    p.m = mo.number("m", NumberRule::positive);
    p.k1 = mo.number("k1", NumberRule::non_negative);
    p.k3 = mo.number("k3", NumberRule::non_negative);
    p.kc = mo.number("kc", NumberRule::positive);
    p.c1 = mo.number_or("c1", 0.0, NumberRule::non_negative);
    p.c2 = mo.number_or("c2", 0.0, NumberRule::non_negative);
    p.Fp = mo.number("Fp", NumberRule::non_negative);
    p.v0 = mo.number("v0");
    friction = required_friction(root, type);
    p.law = friction.law;
  } else if (type == "base_excited_sdof") {
    mp.base_excited = parse_base_excited(root, mo, friction);
  } else if (type == "torsion_pendulum") {
    TorsionPendulumParams& p = mp.torsion_pendulum;
    p.J2 = mo.number("J2", NumberRule::positive);
    p.c2 = mo.number_or("c2", 0.0, NumberRule::non_negative);
    p.k2 = mo.number("k2", NumberRule::non_negative);
    p.Fn = mo.number_or("Fn", 1.0, NumberRule::non_negative);
    JsonObject in = mo.object("input");
    p.A = in.number("amplitude");
    p.f_hz = in.number("f_hz", NumberRule::positive);
    in.finish();
    friction = required_friction(root, type);
    p.law = friction.law;
  } else {
    mp.linear_multibody = parse_linear_multibody(root, mo);
  }
  mp.dynamic = friction.dynamic;
  mp.dynamic_law = friction.dyn;
  mo.finish();
  return mp;
}

void parse_integrator(JsonObject& root, Scenario& s) {
  JsonObject in = root.object("integrator");
  IntegratorSettings& it = s.integrator;
  it.method = in.choice_or("method", "moreau", kMethods);
  const bool pinn = it.method.rfind("pinn_", 0) == 0;
  const bool classical = it.method == "moreau" || it.method == "rk4lcp" || it.method == "irk";
  const std::string solver = in.choice_or("lcp_solver", "lemke", {"lemke", "pgs", "enum", "lcp_pinn"});
  if (it.method == "irk" || (pinn && it.method != "pinn_central")) {
    const int most = pinn ? kMaxPinnStages : kMaxGaussStages;
    it.order = bounded_integer(in, "order", 4, 1, most);
  }
  if (pinn || (classical && solver == "lcp_pinn")) {
    it.pinn = parse_pinn(in, !pinn);
    std::string why;
    if (it.method == "pinn_central" && !pinn_central_supports(s.model, &why))
      throw InputError(in.pointer_of("method"), why);
  } else if (in.has("pinn")) {
    throw InputError(in.pointer_of("pinn"), "applies to the PINN methods (pinn_*) and to lcp_solver lcp_pinn only");
  }
  if (it.method == "rk4lcp" || it.method == "irk") {
    const std::string f = in.choice_or("stage_forces", "held", {"held", "interpolated"});
    it.stage_forces = f == "held" ? StageForces::held : StageForces::ramp;
  }
  std::string why;
  if ((it.method == "switching" || it.method == "root_shooting") && !event_driven_supports(s.model, &why))
    throw InputError(in.pointer_of("method"), why);
  if (s.model.has_dynamic_friction() && it.method != "smooth")
    throw InputError(in.pointer_of("method"),
                     "dynamic friction laws (dahl, lugre, gms) have internal state and no "
                     "stick set: they run with method \"smooth\", not \"" +
                         it.method + "\"");
  if (it.method == "smooth" && !smooth_supports(s.model, &why)) throw InputError(in.pointer_of("method"), why);
  it.dt = in.number("dt", NumberRule::positive);
  it.t_end = in.number("t_end", NumberRule::positive);
  if (it.t_end / it.dt > kMaxSteps) throw InputError(in.pointer_of("dt"), "t_end/dt gives more than 2e9 steps");
  // a step past the end would run none and report the run complete
  if (it.dt > it.t_end)
    throw InputError(in.pointer_of("dt"), "must not exceed " + in.pointer_of("t_end") + " (" + format_double(it.t_end) +
                                              " s), got " + format_double(it.dt) + " s");
  it.steps = step_count(it.dt, it.t_end);

  const bool pinn_solves = it.method == "pinn_dual" || it.method == "pinn_adv_dual" || it.method == "pinn_central";
  if (solver == "lcp_pinn" && !pinn_solves && !classical)
    throw InputError(in.pointer_of("lcp_solver"),
                     "lcp_pinn solves the contact LCPs of moreau, rk4lcp and irk, and is the contact solver of "
                     "pinn_dual, pinn_adv_dual and pinn_central (which use it whatever is given here); " +
                         it.method + " takes lemke, pgs or enum");
  it.lcp_pinn = classical && solver == "lcp_pinn";
  it.step.solver = solver == "pgs"    ? LcpSolverKind::pgs
                   : solver == "enum" ? LcpSolverKind::enumerate
                                      : LcpSolverKind::lemke;
  const int lcp_size = s.model.lcp_size();
  if (solver == "pgs" && s.model.n_contacts() > 0)
    throw InputError(in.pointer_of("lcp_solver"),
                     "pgs needs a positive diagonal, but the friction rows (γ_R) of the contact LCP "
                     "(seed 000 Eq. 12) have a zero diagonal; use lemke or enum");
  if (solver == "enum" && lcp_size > kEnumMaxSize)
    throw InputError(in.pointer_of("lcp_solver"), "enum solves at most " + std::to_string(kEnumMaxSize) +
                                                      " LCP unknowns; this model has " + std::to_string(lcp_size) +
                                                      " (use lemke)");
  it.step.lcp.tolerance = in.number_or("lcp_tol", it.step.lcp.tolerance, NumberRule::positive);
  it.step.stick_tol = in.number_or("stick_tol", it.step.stick_tol, NumberRule::positive);
  it.step.force_tol = in.number_or("force_tol", it.step.force_tol, NumberRule::positive);
  for (const char* key : {"rel_tol", "abs_tol", "event_tol"}) {
    if (!in.has(key)) continue;
    if (it.method != "switching" && it.method != "root_shooting")
      throw InputError(in.pointer_of(key), "applies to the event-driven methods (switching, root_shooting) only");
    const double v = in.number(key, NumberRule::positive);
    (std::string(key) == "rel_tol" ? it.rel_tol : std::string(key) == "abs_tol" ? it.abs_tol : it.event_tol) = v;
  }
  in.finish();
}

bool valid_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.')) return false;
  return true;
}

// the section a user would pick: the start of slip on a belt, the forcing period under excitation
void default_poincare(Scenario& s) {
  PoincareSettings& p = s.analysis.poincare;
  if (s.model.omega > 0) {
    p.section = "stroboscopic";
    p.period = 2.0 * M_PI / s.model.omega;
  } else {
    p.section = s.model.n_contacts() > 0 ? "stick_to_slip" : "none";
  }
}

void parse_poincare(JsonObject& an, Scenario& s) {
  default_poincare(s);
  if (!an.has("poincare")) return;
  JsonObject po = an.object("poincare");
  PoincareSettings& p = s.analysis.poincare;
  p.section = po.choice_or("section", p.section, {"stick_to_slip", "velocity", "stroboscopic", "none"});
  if (p.section == "stick_to_slip") {
    p.contact = static_cast<int>(po.integer_or("contact", 0, 0));
    if (p.contact >= s.model.n_contacts())
      throw InputError(po.pointer_of("contact"),
                       "must be < " + std::to_string(s.model.n_contacts()) + " (the model's contacts)");
  } else if (p.section == "velocity") {
    p.dof = static_cast<int>(po.integer_or("dof", 0, 0));
    if (p.dof >= s.model.dof())
      throw InputError(po.pointer_of("dof"), "must be < " + std::to_string(s.model.dof()) + " (the model's DoF)");
    p.value = po.number_or("value", p.value);
    p.direction = po.choice_or("direction", "down", {"down", "up", "both"});
  } else if (p.section == "stroboscopic") {
    const bool forced = s.model.omega > 0;
    p.period =
        forced ? po.number_or("period", p.period, NumberRule::positive) : po.number("period", NumberRule::positive);
    if (!(p.period > s.integrator.dt)) throw InputError(po.pointer_of("period"), "must be longer than /integrator/dt");
  }
  po.finish();
}

// /analysis/observers: "lean" (RMS only), "statistics" (and min/max), "bifurcation" (everything,
// the default) or a list of observer names; RMS is always kept
unsigned parse_observers(JsonObject& an) {
  const json& v = an.raw("observers");
  const std::string at = an.pointer_of("observers");
  std::string names;
  for (const char* n : kObserverNames) names += std::string(names.empty() ? "" : ", ") + n;
  if (v.is_string()) {
    const std::string level = v.get<std::string>();
    if (level == "lean") return kObserveLean;
    if (level == "statistics") return kObserveStatistics;
    if (level == "bifurcation") return kObserveBifurcation;
    throw InputError(
        at, "unknown value '" + level + "' (one of: lean, statistics, bifurcation, or a list of: " + names + ")");
  }
  if (!v.is_array() || v.empty())
    throw InputError(at, "must be lean, statistics, bifurcation or a non-empty list of: " + names);
  unsigned mask = kObserveRms;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string item_at = pointer_join(at, i);
    if (!v[i].is_string()) throw InputError(item_at, "must be one of: " + names);
    unsigned bit = 0;
    for (int b = 0; b < kObserverCount; ++b)
      if (v[i].get<std::string>() == kObserverNames[b]) bit = 1u << b;
    if (bit == 0)
      throw InputError(item_at, "unknown observer '" + v[i].get<std::string>() + "' (one of: " + names + ")");
    mask |= bit;
  }
  return mask;
}

}  // namespace

bool pinn_central_supports(const ModelDescription& d, std::string* why) {
  for (const auto& c : d.contacts)
    if (c.kind != ContactKind::given_normal) {
      *why =
          "pinn_central (seed 001) needs contacts with given normal forces (slider chains, slider_belt); "
          "use pinn_dual or pinn_adv_dual for rigid or spring contacts";
      return false;
    }
  return true;
}

long step_count(double dt, double t_end) {
  const double ratio = t_end / dt;
  const double rounded = std::round(ratio);
  const long steps = static_cast<long>(std::abs(ratio - rounded) <= 1e-9 * ratio ? rounded : std::ceil(ratio));
  return steps < 1 ? 1 : steps;
}

ModelDescription describe_model(const ModelParameters& p) {
  ModelDescription d;
  if (p.type == "slider_belt")
    d = make_slider_belt(p.slider_belt);
  else if (p.type == "slider_chain")
    d = make_slider_chain(p.slider_chain);
  else if (p.type == "mode_coupling_2dof")
    d = make_mode_coupling_2dof(p.mode_coupling);
  else if (p.type == "base_excited_sdof")
    d = make_base_excited_sdof(p.base_excited);
  else if (p.type == "torsion_pendulum")
    d = make_torsion_pendulum(p.torsion_pendulum);
  else
    d = p.linear_multibody;
  if (p.dynamic)
    for (auto& c : d.contacts) {
      c.dynamic = true;
      c.dynamic_law = p.dynamic_law;
    }
  return d;
}

MethodSpec IntegratorSettings::spec() const {
  MethodSpec m;
  m.kind = method == "moreau"   ? MethodKind::moreau
           : method == "rk4lcp" ? MethodKind::rk4lcp
           : method == "irk"    ? MethodKind::irk
           : method == "smooth" ? MethodKind::smooth
                                : MethodKind::event_driven;
  m.stages = order;
  m.forces = stage_forces;
  if (parse_pinn_framework(method, m.framework)) m.kind = MethodKind::pinn;
  m.pinn = pinn;
  m.lcp_pinn = lcp_pinn && (m.kind == MethodKind::moreau || m.kind == MethodKind::rk4lcp || m.kind == MethodKind::irk);
  if (rel_tol > 0.0) m.event_driven.rel_tol = rel_tol;
  if (abs_tol > 0.0) m.event_driven.abs_tol = abs_tol;
  if (event_tol > 0.0) m.event_driven.event_tol = event_tol;
  return m;
}

SwitchingSettings IntegratorSettings::switching_settings() const {
  SwitchingSettings set;
  if (rel_tol > 0.0) set.rel_tol = rel_tol;
  if (abs_tol > 0.0) set.abs_tol = abs_tol;
  if (event_tol > 0.0) set.event_tol = event_tol;
  return set;
}

FrictionLaw parse_friction_law(JsonObject& obj) {
  const FrictionSpec f = parse_friction_spec(obj);
  if (f.dynamic) throw InputError(obj.pointer_of("law"), "a dynamic law (dahl, lugre, gms) is not allowed here");
  return f.law;
}

json with_initial_written(json doc) {
  if (doc.is_object() && doc.contains("initial") && doc["initial"].is_object() && doc["initial"].contains("q") &&
      doc["initial"].contains("u"))
    return doc;
  const Scenario sc = parse_scenario(doc);
  json& initial = doc["initial"];
  if (!initial.contains("q")) initial["q"] = std::vector<double>(sc.q0.data(), sc.q0.data() + sc.q0.size());
  if (!initial.contains("u")) initial["u"] = std::vector<double>(sc.u0.data(), sc.u0.data() + sc.u0.size());
  return doc;
}

Scenario parse_scenario(const json& doc) {
  Scenario s;
  s.document = doc;
  JsonObject root(doc, "");
  s.name = root.string("name");
  if (!valid_name(s.name))
    throw InputError("/name", "must be a file-name-safe word (letters, digits, _ - .), got '" + s.name + "'");
  root.string_or("description", "");
  // a sweep block is read by `fivsim sweep` (sweep/sweep_spec.hpp); the other verbs run the base case
  root.has("sweep");
  // and a continuation block by `fivsim continue` (app/continuation.hpp)
  root.has("continuation");

  s.model_parameters = parse_model(root);
  s.model = describe_model(s.model_parameters);
  const long n = s.model.dof();
  const std::string why = "model has " + std::to_string(n) + " DoF";
  s.q0 = Eigen::VectorXd::Zero(n);
  s.u0 = Eigen::VectorXd::Zero(n);
  if (root.has("initial")) {
    JsonObject ini = root.object("initial");
    if (ini.has("q")) {
      const auto q = ini.numbers("q", n, NumberRule::any, why);
      s.q0 = Eigen::Map<const Eigen::VectorXd>(q.data(), n);
    }
    if (ini.has("u")) {
      const auto u = ini.numbers("u", n, NumberRule::any, why);
      s.u0 = Eigen::Map<const Eigen::VectorXd>(u.data(), n);
    }
    ini.finish();
  }
  parse_integrator(root, s);
  if (root.has("analysis")) {
    JsonObject an = root.object("analysis");
    s.analysis.t_transient = an.number_or("t_transient", 0.0, NumberRule::non_negative);
    if (s.analysis.t_transient >= s.integrator.t_end)
      throw InputError(an.pointer_of("t_transient"), "must be < /integrator/t_end");
    parse_poincare(an, s);
    s.analysis.periodic_tol = an.number_or("periodic_tol", 1e-3, NumberRule::positive);
    s.analysis.max_period = static_cast<int>(an.integer_or("max_period", 8, 1));
    if (s.analysis.max_period > 32) throw InputError(an.pointer_of("max_period"), "must be <= 32");
    s.analysis.points = static_cast<int>(an.integer_or("points", 32, 0));
    if (s.analysis.points > 4096) throw InputError(an.pointer_of("points"), "must be <= 4096");
    if (an.has("observers")) s.analysis.observers = parse_observers(an);
    if (an.has("reference")) {
      // the series the output_error observer compares q[dof] with, a value per step from t = 0
      JsonObject ref = an.object("reference");
      s.analysis.reference_dof = static_cast<int>(ref.integer_or("dof", 0, 0));
      if (s.analysis.reference_dof >= n)
        throw InputError(ref.pointer_of("dof"), std::string("must be < the model's ") + std::to_string(n) + " DoF");
      const json& v = ref.raw("values");
      if (!v.is_array() || v.size() < 2)
        throw InputError(ref.pointer_of("values"), "must be an array of at least 2 numbers");
      auto values = std::make_shared<std::vector<double>>(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number() || !std::isfinite(v[i].get<double>()))
          throw InputError(pointer_join(ref.pointer_of("values"), i), "must be a finite number");
        (*values)[i] = v[i].get<double>();
      }
      s.analysis.reference = std::move(values);
      ref.finish();
      s.analysis.observers |= kObserveOutputError;
    }
    if ((s.analysis.observers & kObserveOutputError) && !s.analysis.reference)
      throw InputError(an.pointer_of("observers"), "output_error needs /analysis/reference {dof, values}");
    if (an.has("lyapunov")) {
      JsonObject ly = an.object("lyapunov");
      s.analysis.lyapunov_every = static_cast<int>(ly.integer_or("every", 10, 1));
      s.analysis.lyapunov_d0 = ly.number_or("d0", 1e-8, NumberRule::positive);
      s.analysis.lyapunov_zero = ly.number_or("zero", 0.1, NumberRule::positive);
      s.analysis.chaos_window = ly.integer_or("window", kChaosWindow, kLyapunovMinBlocks);
      ly.finish();
    }
    s.analysis.confirmations = static_cast<int>(an.integer_or("confirmations", 3, 1));
    if (s.analysis.confirmations > 64) throw InputError(an.pointer_of("confirmations"), "must be <= 64");
    s.analysis.adaptive = an.boolean_or("adaptive", false);
    // the orbit observer: the classification's observers, and each case's exact orbit shot from its
    // last break-away sample by the switching model
    if (an.boolean_or("orbit", false)) s.analysis.observers |= kObserveOrbit;
    if (s.analysis.observers & kObserveOrbit) {
      std::string why;
      if (s.analysis.poincare.section != "stick_to_slip" || (s.analysis.observers & kObservePoincare) == 0 ||
          !observes_class(s.analysis.observers))
        throw InputError(an.pointer_of(an.has("orbit") ? "orbit" : "observers"),
                         "the orbit observer shoots from break-away samples: it needs analysis.poincare.section "
                         "stick_to_slip and the classification's observers (min_max, transitions, poincare)");
      if (!event_driven_supports(s.model, &why))
        throw InputError(an.pointer_of(an.has("orbit") ? "orbit" : "observers"),
                         "the orbit observer shoots with the switching model: " + why);
    }
    // adaptive stopping watches the section samples and judges them against the trajectory's range
    if (s.analysis.adaptive &&
        (s.analysis.poincare.section == "none" || (s.analysis.observers & kObservePoincare) == 0 ||
         !observes_class(s.analysis.observers)))
      throw InputError(an.pointer_of("adaptive"),
                       "needs a Poincaré section and the classification's observers (min_max, transitions, poincare)");
    if (s.analysis.adaptive && s.analysis.points < (s.analysis.confirmations + 1) * s.analysis.max_period)
      throw InputError(an.pointer_of("points"),
                       "must be >= (confirmations + 1) × max_period = " +
                           std::to_string((s.analysis.confirmations + 1) * s.analysis.max_period) +
                           " for adaptive stopping to see periodic-" + std::to_string(s.analysis.max_period));
    an.finish();
  } else {
    default_poincare(s);
  }
  if (root.has("output")) {
    JsonObject out = root.object("output");
    s.output.timeseries = out.boolean_or("timeseries", true);
    s.output.every = out.integer_or("every", 1, 1);
    s.output.points = out.boolean_or("points", true);
    if (out.has("trajectories")) {
      for (double c : out.numbers("trajectories", -1, NumberRule::non_negative)) {
        if (c != static_cast<double>(static_cast<long>(c)))
          throw InputError(out.pointer_of("trajectories"), "must list whole case numbers");
        s.output.trajectories.push_back(static_cast<long>(c));
      }
    }
    out.finish();
  }
  root.finish();
  return s;
}

LoadedScenario build_scenario(const nlohmann::json& document) {
  LoadedScenario out;
  out.scenario = parse_scenario(document);
  out.model = std::make_unique<Model<HostDims>>();
  try {
    make_model(out.scenario.model, *out.model);
  } catch (const ModelError& e) {
    throw InputError("/model", e.what());
  }
  return out;
}

std::vector<std::string> friction_law_names() {
  std::vector<std::string> names;
  for (const auto& info : kFrictionLawInfo) names.push_back(info.name);
  names.insert(names.end(), kDynamicLaws.begin(), kDynamicLaws.end());
  return names;
}

}  // namespace fivsim
