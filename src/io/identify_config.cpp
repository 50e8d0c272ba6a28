// src/io/identify_config.cpp — identification files (io/identify_config.hpp).
#include "fivsim/io/identify_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>

#include "fivsim/friction/static_laws.hpp"
#include "fivsim/integrate/method.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

// stands in for an absent optional block, so that its defaults go through the same getters
const json kEmptyObject = json::object();

std::string resolve(const std::string& base_dir, const std::string& path) {
  const std::filesystem::path p(path);
  return p.is_absolute() || base_dir.empty() ? path : (std::filesystem::path(base_dir) / p).string();
}

GridAxis grid_axis(JsonObject& o, const std::string& key) {
  const std::vector<double> v = o.numbers(key, 3, NumberRule::any, "start stop count");
  const std::string ptr = o.pointer_of(key);
  if (!(v[1] > v[0])) throw InputError(ptr, "needs start < stop");
  if (!(v[2] >= 2 && v[2] <= 10000 && v[2] == std::floor(v[2])))
    throw InputError(pointer_join(ptr, 2), "the count must be a whole number from 2 to 10000");
  return {v[0], v[1], static_cast<int>(v[2])};
}

// {"scenario": path, "set": {pointer: value}}: the scenario document after its overrides
json scenario_with_overrides(JsonObject& block, const std::string& base_dir, std::string& path,
                             std::vector<std::string>& read) {
  path = resolve(base_dir, block.string("scenario"));
  read.push_back(path);
  json doc;
  try {
    doc = load_json_file(path);
  } catch (const InputError& e) {
    // named by where the config gives it: a relative path reads from the config's folder
    throw InputError(block.pointer_of("scenario"), e.what());
  }
  if (block.has("set")) {
    JsonObject set = block.object("set");
    for (auto it = block.raw("set").begin(); it != block.raw("set").end(); ++it)
      set_at_pointer(doc, it.key(), it.value(), set.pointer_of(it.key()));
  }
  return doc;
}

void parse_data(JsonObject& root, IdentifyConfig& c, const std::string& base_dir) {
  JsonObject data = root.object("data");
  const bool has_path = data.has("path"), has_scenario = data.has("scenario");
  if (has_path == has_scenario) throw InputError(data.pointer(), "give either path (a CSV record) or scenario");
  if (has_path) {
    c.csv_path = resolve(base_dir, data.string("path"));
    c.columns.t = data.string_or("t", "t");
    c.columns.x = data.string_or("x", "x");
    c.columns.v = data.string_or("v", "");
    c.columns.u = data.string_or("u", "");
    c.columns.du = data.string_or("du", "");
    c.columns.friction = data.string_or("friction", "");
    if (!c.columns.du.empty() && c.columns.u.empty()) throw InputError(data.pointer_of("du"), "needs the column u too");
  } else {
    c.simulate = true;
    std::string path;
    json doc = scenario_with_overrides(data, base_dir, path, c.scenario_files);
    c.data_document = doc;
    Scenario sc;
    try {
      sc = parse_scenario(doc);
    } catch (const InputError& e) {
      throw InputError(data.pointer_of("scenario"), "'" + path + "': " + e.what());
    }
    if (sc.model.dof() != 1) throw InputError(data.pointer_of("scenario"), "needs a single-DoF model");
    c.model = sc.model;
    c.q0 = sc.q0(0);
    c.u0 = sc.u0(0);
    c.t_end = data.number_or("t_end", sc.integrator.t_end, NumberRule::positive);
    c.sample_dt = data.number("sample_dt", NumberRule::positive);
    if (c.t_end / c.sample_dt > 1e7) throw InputError(data.pointer_of("sample_dt"), "gives more than 1e7 samples");
    if (sc.model.type == "torsion_pendulum") {
      c.input = IdentifyConfig::SimulatedInput::column_rate_sine;
      c.input_amplitude = doc["model"]["input"]["amplitude"].get<double>();
    }
    if (sc.model.type == "base_excited_sdof") {
      c.input = IdentifyConfig::SimulatedInput::base_sine;
      c.input_amplitude = doc["model"]["A"].get<double>();
      // the truth of seed 003 Table 1: mass-normalised k, c and Coulomb force
      const ContactDescription& ct = sc.model.contacts.at(0);
      if (ct.law.kind == FrictionLawKind::coulomb) {
        const double m = sc.model.M(0, 0);
        c.truth = SdofParameters{sc.model.K(0, 0) / m, sc.model.C(0, 0) / m, ct.Fn * ct.law.p[0] / m};
      }
    }
  }
  data.finish();
}

void parse_library(JsonObject& root, IdentifyConfig& c) {
  const bool has = root.has("library");
  JsonObject lib = has ? root.object("library") : JsonObject(kEmptyObject, "/library");
  const long degree = lib.integer_or("polynomial_degree", 1, 0);
  if (degree > 5) throw InputError(lib.pointer_of("polynomial_degree"), "must be at most 5");
  const bool input = lib.boolean_or("input", true);
  const bool constant = lib.boolean_or("constant", false);
  const bool sign = lib.boolean_or("sign", true);
  // a belt-driven oscillator: its friction acts on the relative velocity w = x2 − belt, the belt's
  // speed from the simulated record's model or given for a CSV record
  if (c.simulate && !c.model.contacts.empty() && c.model.contacts[0].v_surface != 0.0) {
    const ContactDescription& contact = c.model.contacts[0];
    const double wt = contact.w_T.size() > 0 && contact.w_T(0) != 0.0 ? contact.w_T(0) : 1.0;
    c.belt = true;
    c.belt_speed = contact.v_surface / wt;
  }
  if (lib.has("belt_speed")) {
    c.belt = true;
    c.belt_speed = lib.number("belt_speed");
  }
  c.library = polynomial_terms(static_cast<int>(degree), input, constant);
  if (sign) c.library.push_back(parse_library_term(c.belt ? "sgn(w)" : "sgn(x2)"));
  if (lib.has("stribeck")) {
    // the Stribeck factor's decay rate, searched over a geometric grid
    JsonObject st = lib.object("stribeck");
    const std::vector<double> rates =
        st.has("rates") ? st.numbers("rates", 2, NumberRule::positive, "lower and upper rate") : std::vector{0.1, 10.0};
    if (!(rates[1] > rates[0])) throw InputError(st.pointer_of("rates"), "needs lower < upper");
    c.stribeck_rates = {rates[0], rates[1], static_cast<int>(st.integer_or("n", 41, 2))};
    st.finish();
    c.library.push_back(
        parse_library_term(std::string(c.belt ? "sgn(w)" : "sgn(x2)") + "*exp(-1*abs(" + (c.belt ? "w" : "x2") + "))"));
  }
  if (lib.has("terms")) {
    const json& terms = lib.array("terms");
    const std::string ptr = lib.pointer_of("terms");
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (!terms[i].is_string()) throw InputError(pointer_join(ptr, i), "must be a string such as \"x1^2*x2\"");
      LibraryTerm t;
      try {
        t = parse_library_term(terms[i].get<std::string>());
      } catch (const std::invalid_argument& e) {
        throw InputError(pointer_join(ptr, i), e.what());
      }
      for (const LibraryTerm& have : c.library)
        if (have.name == t.name) throw InputError(pointer_join(ptr, i), "'" + t.name + "' is already in the library");
      c.library.push_back(t);
    }
  }
  if (c.library.empty()) throw InputError(lib.pointer(), "gives an empty library");
  lib.finish();
}

// the Savitzky–Golay window (in samples, or in seconds: resolved against the record's sampling
// interval, identify/identification.hpp derivative_window) and order of the derivatives
void parse_derivative_options(JsonObject& o, IdentifyConfig& c) {
  if (o.has("window") && o.has("window_s"))
    throw InputError(o.pointer_of("window_s"), "gives the window a second time (window is in samples)");
  c.window = static_cast<int>(o.integer_or("window", 0, 3));
  c.window_s = o.number_or("window_s", c.window_s, NumberRule::positive);
  c.order = static_cast<int>(o.integer_or("order", 3, 1));
  if (c.window > 0 && c.window % 2 == 0) throw InputError(o.pointer_of("window"), "must be odd");
  if (c.window > 0 && c.order >= c.window) throw InputError(o.pointer_of("order"), "must be smaller than the window");
}

// the value a simulated record's scenario gives a fitted number: its truth, where the record
// comes from a simulation with the same friction law (a number of another law, though named
// alike, is not its truth); NaN otherwise
double simulated_truth(const IdentifyConfig& c, const json& model_document, const std::string& path) {
  const json::json_pointer ptr(path);
  if (!c.simulate || !c.data_document.contains(ptr) || !c.data_document[ptr].is_number())
    return std::numeric_limits<double>::quiet_NaN();
  const json::json_pointer law("/friction/law");
  if (path.rfind("/friction/", 0) == 0 &&
      (!c.data_document.contains(law) || !model_document.contains(law) || c.data_document[law] != model_document[law]))
    return std::numeric_limits<double>::quiet_NaN();
  return c.data_document[ptr].get<double>();
}

// the search's simulation: the model scenario with the candidate's values at the parameters' paths
void set_greybox_model(IdentifyConfig& c, const json& model_document) {
  std::vector<std::string> paths;
  for (const GreyboxParameter& p : c.parameters) paths.push_back(p.path);
  c.response = [model_document, paths](const Eigen::VectorXd& values, const Record& record, std::string* why) {
    json doc = model_document;
    for (std::size_t i = 0; i < paths.size(); ++i) doc[json::json_pointer(paths[i])] = values(static_cast<long>(i));
    return scenario_response(doc, record, why);
  };
  c.greybox_model = model_document;
}

// a static law's number where a candidate gives none: its bounds and start
struct LawNumberDefault {
  const char* name;
  double lo, hi, initial;
};
constexpr LawNumberDefault kLawNumberDefaults[] = {
    {"mu", 1e-3, 2.0, 0.5},    {"mu_s", 1e-3, 2.0, 0.6}, {"mu_d", 1e-3, 2.0, 0.4},  {"mu_k", 1e-3, 2.0, 0.4},
    {"mu_c", 1e-3, 2.0, 0.4},  {"mu_v", 0.0, 1.0, 0.01}, {"alpha", 1e-2, 1e2, 1.0}, {"delta", 1e-2, 1e2, 1.0},
    {"eps", 1e-1, 1e4, 100.0}, {"v_s", 1e-3, 10.0, 0.1}, {"beta", 0.0, 10.0, 1.0},  {"Ts_l", 1e-3, 2.0, 0.5},
    {"Ts_r", 1e-3, 2.0, 0.5},  {"T0_l", 0.0, 1e2, 1.0},  {"T0_r", 0.0, 1e2, 1.0}};

// "candidates": a list of laws (a name, or {"law", "parameters": {name: {"bounds", "initial"}}})
// or "all static" (every static law but the asymmetric one); each law's numbers start from the
// model's same-named ones where it has them
void parse_candidates(JsonObject& root, const json& model_document, IdentifyConfig& c) {
  const std::string at = root.pointer_of("candidates");
  json list = root.raw("candidates");
  if (list.is_string()) {
    if (list != "all static") throw InputError(at, "is a list of laws or \"all static\"");
    list = json::array();
    for (const FrictionLawInfo& info : kFrictionLawInfo)
      if (std::string(info.name) != "asymmetric") list.push_back(info.name);
  }
  if (!list.is_array() || list.empty()) throw InputError(at, "is a list of laws or \"all static\"");
  const json& model_friction = model_document.contains("friction") ? model_document["friction"] : json::object();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string here = pointer_join(at, i);
    json entry = list[i].is_string() ? json{{"law", list[i]}} : list[i];
    JsonObject o(entry, here);
    LawCandidate k;
    k.law = o.string("law");
    const FrictionLawInfo* info = nullptr;
    for (const FrictionLawInfo& f : kFrictionLawInfo)
      if (k.law == f.name) info = &f;
    if (!info) throw InputError(o.pointer_of("law"), "'" + k.law + "' is not a static friction law");
    for (const LawCandidate& other : c.candidates)
      if (other.law == k.law) throw InputError(o.pointer_of("law"), "'" + k.law + "' is a candidate twice");
    JsonObject given = o.has("parameters") ? o.object("parameters") : JsonObject(kEmptyObject, here + "/parameters");
    k.friction = {{"law", k.law}};
    // the model as this candidate runs it: whose law a simulated record's numbers are the truth of
    json as_run = model_document;
    as_run["friction"] = k.friction;
    for (int j = 0; j < info->n_params; ++j) {
      const std::string name = info->params[j];
      const LawNumberDefault* d = nullptr;
      for (const LawNumberDefault& x : kLawNumberDefaults)
        if (name == x.name) d = &x;
      GreyboxParameter p;
      p.path = "/friction/" + name;
      p.lo = d ? d->lo : 0.0;
      p.hi = d ? d->hi : 1.0;
      p.initial = model_friction.contains(name) && model_friction[name].is_number() ? model_friction[name].get<double>()
                  : d                                                               ? d->initial
                                                                                    : 0.5 * (p.lo + p.hi);
      if (given.has(name)) {
        JsonObject b = given.object(name);
        if (b.has("bounds")) {
          const std::vector<double> v = b.numbers("bounds", 2, NumberRule::any, "lower and upper bound");
          if (!(v[1] > v[0])) throw InputError(b.pointer_of("bounds"), "needs lower < upper");
          p.lo = v[0];
          p.hi = v[1];
        }
        p.initial = b.number_or("initial", std::clamp(p.initial, p.lo, p.hi));
        if (p.initial < p.lo || p.initial > p.hi)
          throw InputError(b.pointer_of("initial"), "must lie within the bounds");
        b.finish();
      }
      p.initial = std::clamp(p.initial, p.lo, p.hi);
      k.friction[name] = p.initial;
      p.truth = simulated_truth(c, as_run, p.path);
      k.parameters.push_back(p);
    }
    given.finish();
    o.finish();
    c.candidates.push_back(std::move(k));
  }
}

// greybox: the optimiser, and for the output-error searches the scenario and its parameters
void parse_greybox(JsonObject& root, JsonObject& o, IdentifyConfig& c, const std::string& base_dir) {
  const bool search_model = root.has("model");
  c.greybox_optimizer = o.choice_or("optimizer", search_model ? "nelder_mead" : "least_squares",
                                    {"least_squares", "rls", "nelder_mead", "genetic", "levenberg_marquardt"});
  const bool search = c.greybox_optimizer != "least_squares" && c.greybox_optimizer != "rls";
  if (!search) {
    const std::string searches = "applies to the output-error optimizers (nelder_mead, genetic, levenberg_marquardt)";
    if (search_model) throw InputError("/model", searches);
    if (root.has("parameters")) throw InputError("/parameters", searches);
    if (root.has("candidates")) throw InputError("/candidates", searches);
    c.v_slip = o.number_or("v_slip", 1e-3, NumberRule::non_negative);
    c.rls_lambda = o.number_or("lambda", 1.0, NumberRule::positive);
    if (c.rls_lambda > 1.0) throw InputError(o.pointer_of("lambda"), "must be in (0, 1]");
    return;
  }
  if (!search_model) throw InputError("/model", "is required by " + c.greybox_optimizer + " (the scenario to fit)");
  JsonObject mo = root.object("model");
  std::string path;
  const json model_document = scenario_with_overrides(mo, base_dir, path, c.scenario_files);
  mo.finish();
  Scenario sc;
  try {
    sc = parse_scenario(model_document);
  } catch (const InputError& e) {
    throw InputError("/model/scenario", "'" + path + "': " + e.what());
  }
  const bool candidates = root.has("candidates");
  static const json kNoParameters = json::array();
  const json& list = candidates && !root.has("parameters") ? kNoParameters : root.array("parameters");
  if (list.empty() && !candidates) throw InputError("/parameters", "must name at least one number to fit");
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonObject po(list[i], pointer_join("/parameters", i));
    GreyboxParameter p;
    p.path = po.string("path");
    json::json_pointer ptr;
    try {
      ptr = json::json_pointer(p.path);
    } catch (const json::exception&) {
      throw InputError(po.pointer_of("path"), "'" + p.path + "' is not a JSON pointer");
    }
    if (!model_document.contains(ptr) || !model_document[ptr].is_number())
      throw InputError(po.pointer_of("path"), "'" + p.path + "' is not a number of the model scenario");
    const std::vector<double> b = po.numbers("bounds", 2, NumberRule::any, "lower and upper bound");
    if (!(b[1] > b[0])) throw InputError(po.pointer_of("bounds"), "needs lower < upper");
    p.lo = b[0];
    p.hi = b[1];
    p.initial = po.number_or("initial", model_document[ptr].get<double>());
    if (p.initial < p.lo || p.initial > p.hi) throw InputError(po.pointer_of("initial"), "must lie within the bounds");
    if (candidates && p.path.rfind("/friction/", 0) == 0)
      throw InputError(po.pointer_of("path"), "is a number of the friction law, which each candidate fits itself");
    p.truth = simulated_truth(c, model_document, p.path);
    po.finish();
    c.parameters.push_back(p);
  }
  if (candidates) parse_candidates(root, model_document, c);
  set_greybox_model(c, model_document);
  const bool lm = c.greybox_optimizer == "levenberg_marquardt";
  c.max_iter_search = static_cast<int>(o.integer_or("max_iter", lm ? 200 : 2000, 1));
  if (c.greybox_optimizer == "genetic") {
    c.population = static_cast<int>(o.integer_or("population", 48, 4));
    c.generations = static_cast<int>(o.integer_or("generations", 40, 1));
    c.polish = o.boolean_or("polish", true);
  }
  if (c.greybox_optimizer == "nelder_mead") c.simplices = static_cast<int>(o.integer_or("simplices", 1, 1));
  if (lm) {
    c.fd_step = o.number_or("fd_step", 1e-6, NumberRule::positive);
    if (c.fd_step >= 0.5)
      throw InputError(o.pointer_of("fd_step"), "is relative to each parameter's bounds: below 0.5");
  }
  if (c.greybox_optimizer != "levenberg_marquardt")
    c.search_seed = static_cast<std::uint64_t>(o.integer_or("seed", 1, 0));
  // a batch of candidates (a generation, an iteration's moves, trial steps with their differences)
  // as one sweep (sweep/greybox_sweeps.hpp), or its simulations one by one
  c.evaluate = o.choice_or("evaluate", "sweep", {"sweep", "simulations"});
  c.device = o.choice_or("device", "auto", {"auto", "cpu", "cuda"});
}

// one coefficient of Eq. 23: {"value": v} fixed, or {"bounds": [lo, hi], "initial": v} trained
PinnCoefficient pinn_coefficient(JsonObject& block, const std::string& key, bool required, NumberRule rule) {
  PinnCoefficient out;
  if (!block.has(key)) {
    if (required) throw InputError(block.pointer_of(key), "is required: {\"value\": v} or {\"bounds\": [lo, hi]}");
    return out;
  }
  JsonObject o = block.object(key);
  const bool has_value = o.has("value"), has_bounds = o.has("bounds");
  if (has_value == has_bounds) throw InputError(o.pointer(), "give either value (fixed) or bounds (trained)");
  if (has_value) {
    out.value = o.number("value", rule);
    out.lo = out.hi = out.value;
  } else {
    const std::vector<double> b = o.numbers("bounds", 2, rule, "lower and upper bound");
    if (!(b[1] > b[0])) throw InputError(o.pointer_of("bounds"), "needs lower < upper");
    out.trainable = true;
    out.lo = b[0];
    out.hi = b[1];
    out.value = o.number_or("initial", 0.5 * (b[0] + b[1]), rule);
    if (out.value < out.lo || out.value > out.hi)
      throw InputError(o.pointer_of("initial"), "must lie within the bounds");
  }
  o.finish();
  return out;
}

// pinn: Eq. 23's coefficients, the networks and their training (seed 002 §4.3: Adam, 10⁴ epochs)
void parse_pinn(JsonObject& root, JsonObject& o, IdentifyConfig& c) {
  JsonObject b = root.object("coefficients");
  PinnIdentifyOptions& p = c.pinn;
  // J1 may be negative: for a φ2 measured relative to the column, J1 = −J2 (seed 002 Eq. 9)
  p.J1 = pinn_coefficient(b, "J1", true, NumberRule::any);
  p.J2 = pinn_coefficient(b, "J2", true, NumberRule::positive);
  p.c = pinn_coefficient(b, "c", false, NumberRule::non_negative);
  p.k = pinn_coefficient(b, "k", false, NumberRule::non_negative);
  b.finish();
  p.optimizer.kind = OptimizerKind::adam;
  p.optimizer.max_iter = 10000;
  parse_network_training(o, p.hidden, p.activation, p.optimizer, "adam");
  p.train_every = static_cast<int>(o.integer_or("train_every", 5, 1));
  p.physics_weight = o.number_or("physics_weight", 1.0, NumberRule::positive);
  p.seed = static_cast<std::uint64_t>(o.integer_or("seed", 1, 0));
  p.progress_every = static_cast<int>(o.integer_or("progress_every", 1000, 0));
}

void parse_options(JsonObject& root, IdentifyConfig& c, const std::string& base_dir) {
  JsonObject o = root.has("options") ? root.object("options") : JsonObject(kEmptyObject, "/options");
  if (c.method == "pinn") {
    parse_derivative_options(o, c);
    parse_pinn(root, o, c);
    o.finish();
    return;
  }
  if (c.method == "greybox") {
    parse_derivative_options(o, c);
    parse_greybox(root, o, c, base_dir);
    o.finish();
    return;
  }
  c.sindy.optimizer =
      o.choice_or("optimizer", c.method == "extended_sindy" ? "sr3" : "stlsq", {"stlsq", "sr3", "lasso"});
  c.sindy.threshold = o.number_or("threshold", c.sindy.optimizer == "sr3" ? 0.05 : 0.03, NumberRule::non_negative);
  c.sindy.alpha = o.number_or("alpha", 0.0, NumberRule::non_negative);
  c.sindy.nu = o.number_or("nu", 1.0, NumberRule::positive);
  c.sindy.max_iter = static_cast<int>(o.integer_or("max_iter", 10000, 1));
  if (c.method == "joint_terms") {
    // ẋ1 = x2 is part of the known right-hand side
    c.constrain_dx1 = false;
    c.slip_only = o.choice_or("samples", "all", {"all", "slip"}) == "slip";
    c.v_slip = o.number_or("v_slip", 1e-3, NumberRule::non_negative);
  } else {
    c.constrain_dx1 = o.boolean_or("constrain_dx1", true);
  }
  // a belt-driven oscillator's SINDy fits the samples that slip faster than this
  if (c.belt && c.method == "sindy") c.v_slip = o.number_or("v_slip", 1e-3, NumberRule::non_negative);
  parse_derivative_options(o, c);
  if (c.method == "extended_sindy") {
    c.v_stop = o.number_or("v_stop", 1e-7, NumberRule::non_negative);
    c.v_slip = o.number_or("v_slip", 1e-3, NumberRule::non_negative);
    if (c.v_slip < c.v_stop) throw InputError(o.pointer_of("v_slip"), "must be at least v_stop");
    c.step3 = o.choice_or("step3", "held", {"held", "grid"});
    c.device = o.choice_or("device", "auto", {"auto", "cpu", "cuda"});
    if (o.has("k_grid")) c.k_grid = grid_axis(o, "k_grid");
    if (o.has("c_grid")) c.c_grid = grid_axis(o, "c_grid");
  }
  o.finish();
}

}  // namespace

IdentifyConfig parse_identify_config(const json& doc, const std::string& base_dir) {
  IdentifyConfig c;
  c.document = doc;
  JsonObject root(doc, "");
  c.name = root.string("name");
  if (root.has("description")) (void)root.string("description");
  c.method = root.choice("method", {"sindy", "extended_sindy", "greybox", "pinn", "joint_terms"});
  parse_data(root, c, base_dir);
  if (root.has("noise")) {
    JsonObject n = root.object("noise");
    const bool snr = n.has("snr_db"), sd = n.has("std");
    if (snr == sd) throw InputError(n.pointer(), "give either snr_db or std");
    if (snr)
      c.noise_snr_db = n.number("snr_db");
    else
      c.noise_std = n.number("std", NumberRule::non_negative);
    c.noise_seed = static_cast<std::uint64_t>(n.integer_or("seed", 1, 0));
    n.finish();
  }
  if (c.method == "joint_terms") {
    JsonObject ko = root.object("known");
    std::string path;
    const json doc = scenario_with_overrides(ko, base_dir, path, c.scenario_files);
    ko.finish();
    try {
      c.known_model = parse_scenario(doc).model;
    } catch (const InputError& e) {
      throw InputError("/known/scenario", "'" + path + "': " + e.what());
    }
    if (c.known_model.dof() != 1) throw InputError("/known/scenario", "needs a single-DoF model");
    c.truth.reset();  // the unknown terms have no (k, c, F) truth
  }
  if (c.method != "greybox" && c.method != "pinn") parse_library(root, c);
  parse_options(root, c, base_dir);
  if (c.method == "pinn") {
    // Eq. 23 has no (k, c, F) to compare: the torque is compared with the record's friction column
    if (root.has("truth"))
      throw InputError("/truth", "does not apply to pinn; give the record a friction column instead");
    c.truth.reset();
  }
  if (root.has("truth")) {
    JsonObject t = root.object("truth");
    c.truth = SdofParameters{t.number("k"), t.number("c"), t.number("F")};
    t.finish();
  }
  // a batch of identifications (sweep/sweep_spec.hpp over this document): `fivsim identify` reads it
  if (root.has("sweep")) (void)root.raw("sweep");
  root.finish();
  return c;
}

IdentifyConfig candidate_config(const IdentifyConfig& c, const LawCandidate& candidate) {
  IdentifyConfig k = c;
  k.candidates.clear();
  k.parameters.insert(k.parameters.end(), candidate.parameters.begin(), candidate.parameters.end());
  json model = c.greybox_model;
  model["friction"] = candidate.friction;
  set_greybox_model(k, model);
  return k;
}

Eigen::VectorXd scenario_response(const json& scenario, const Record& record, std::string* why) {
  try {
    json doc = scenario;
    doc["integrator"]["dt"] = record.sample_dt();
    doc["integrator"]["t_end"] = record.t(record.size() - 1) - record.t(0);
    // statistics and output settings play no part in the response (and t_transient may exceed t_end)
    doc.erase("analysis");
    doc.erase("output");
    doc.erase("sweep");
    const Scenario sc = parse_scenario(doc);
    auto model = std::make_unique<Model<HostDims>>();
    make_model(sc.model, *model);
    Eigen::VectorXd x(record.size());
    long k = 0;
    const MethodOutcome r = run_method(sc.integrator.spec(), sc.model, *model, sc.q0, sc.u0, sc.integrator.dt,
                                       record.size() - 1, sc.integrator.step, [&](const SeriesPoint& p) {
                                         if (k < x.size()) x(k++) = p.q[0];
                                       });
    if (r.status != Status::ok || k != x.size()) {
      if (why) *why = "the simulation stopped at t = " + std::to_string(r.failed_at) + ": " + r.message;
      return {};
    }
    return x;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return {};
  }
}

}  // namespace fivsim
