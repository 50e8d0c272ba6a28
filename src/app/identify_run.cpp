// src/app/identify_run.cpp — one identification and what its files hold (app/identify_run.hpp).
#include "fivsim/app/identify_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "fivsim/app/sweep.hpp"
#include "fivsim/core/stopwatch.hpp"
#include "fivsim/identify/law_ranking.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/sweep/greybox_sweeps.hpp"

namespace fivsim {
namespace {

using nlohmann::json;

// a number, or null where it is not finite (JSON has no NaN)
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json parameters_json(const SdofParameters& p) { return {{"k", p.k}, {"c", p.c}, {"F", p.F}}; }

json report_json(const SindyReport& r, const IdentifyConfig& c) {
  json j = {{"equations", r.text},
            {"parameters", parameters_json(r.parameters)},
            {"samples", r.samples},
            {"iterations", r.iterations},
            {"rmse", r.response.finite ? json(r.response.rmse) : json(nullptr)},
            {"response_finite", r.response.finite}};
  // the report's own terms (greybox least squares fits Eq. 12's, not the config's library)
  const std::vector<LibraryTerm>& terms = r.equation.terms;
  json coefficients = json::object();
  for (std::size_t k = 0; k < terms.size(); ++k)
    coefficients[terms[k].name] = {r.equation.xi(static_cast<long>(k), 0), r.equation.xi(static_cast<long>(k), 1)};
  j["coefficients"] = coefficients;  // per term: [dx1, dx2]
  if (r.has_interval) {
    // 95 %: the regression's covariance widened by the doubled window's change
    // (identify/fit_intervals.hpp), or the held intervals
    j["interval_95"] = {{"k", {r.lo.k, r.hi.k}}, {"c", {r.lo.c, r.hi.c}}, {"F", {r.lo.F, r.hi.F}}};
    j["filter_change"] = parameters_json(r.filter_change);
  }
  if (r.term_lo.size()) {
    // the same per term of the dx2 row, for the terms the fit kept
    json by_term = json::object();
    for (std::size_t k = 0; k < terms.size(); ++k)
      if (std::isfinite(r.term_lo(static_cast<long>(k))))
        by_term[terms[k].name] = {r.term_lo(static_cast<long>(k)), r.term_hi(static_cast<long>(k))};
    j["coefficient_interval_95"] = by_term;
  }
  if (c.truth) j["errors_percent"] = parameters_json(relative_errors_percent(r.parameters, *c.truth));
  return j;
}

// 1e-3 of the record's range: what a fit's numbers and a network's approximation reach on a clean
// record, below which a residual says nothing of the model
double precision_floor(const Eigen::VectorXd& x) { return x.size() ? 1e-3 * (x.maxCoeff() - x.minCoeff()) : 0.0; }

// what a fit's residual says of its model against the record's noise; on a clean record (noise
// below the precision floor) only a residual well above that floor, whatever its whiteness
std::vector<std::string> residual_warnings(const std::string& what, double rms, double noise, ResidualWhiteness w,
                                           const Eigen::VectorXd& x) {
  const double floor = precision_floor(x);
  if (!(noise >= floor)) {
    w.white = true;
    noise = floor;
  }
  return misfit_warnings(what, rms, noise, w);
}

// the response the method's fit gives ("fit"), null for a method with none
const Eigen::VectorXd* fitted_response(const IdentificationResult& result) {
  if (result.pinn) return &result.pinn_result.x;
  if (result.greybox_search) return &result.greybox.response;
  if (result.extended) return &result.extended_sindy.response.x;
  return result.sindy.response.finite ? &result.sindy.response.x : nullptr;
}

// response − record over the samples the response reaches (a simulation that failed stops short)
Eigen::VectorXd response_residual(const Eigen::VectorXd& response, const Eigen::VectorXd& x) {
  const long n = std::min(response.size(), x.size());
  Eigen::VectorXd r = response.head(n) - x.head(n);
  // a diverged response's samples are no residual
  long finite = 0;
  while (finite < n && std::isfinite(r(finite))) ++finite;
  return r.head(finite);
}

// a grey-box search's numbers by path: their values, 95 % intervals (null where none), and where
// a simulated record gives them their truth and errors in percent
struct SearchedValues {
  json values = json::object(), interval = json::object(), truth = json::object(), errors = json::object();
};
SearchedValues searched_values(const IdentifyConfig& config, const GreyboxReport& g) {
  SearchedValues out;
  for (std::size_t k = 0; k < config.parameters.size(); ++k) {
    const GreyboxParameter& p = config.parameters[k];
    const double v = g.values(static_cast<long>(k)), hw = g.half_width(static_cast<long>(k));
    out.values[p.path] = v;
    out.interval[p.path] = std::isfinite(hw) ? json{v - hw, v + hw} : json(nullptr);
    if (std::isfinite(p.truth)) {
      out.truth[p.path] = p.truth;
      out.errors[p.path] = relative_error_percent(v, p.truth);
    }
  }
  return out;
}

// SINDy's friction on a belt-driven oscillator, read off its ẋ2 row: the sliding force per unit
// mass F_d (−sgn(w)'s coefficient), the force at break-away F_s (less the Stribeck factor's
// coefficient) and the factor's rate; with the model's mass and load (a simulated record) μd, μs
json belt_friction_json(const IdentifyConfig& config, const IdentificationResult& result) {
  const IdentifiedSdof& eq = result.sindy.equation;
  // the ẋ2 row's coefficient of the term named `name` (or, `prefix`, whose name starts so); 0 where none
  const auto coefficient = [&](const std::string& name, bool prefix = false) {
    for (std::size_t k = 0; k < eq.terms.size(); ++k)
      if (prefix ? eq.terms[k].name.rfind(name, 0) == 0 : eq.terms[k].name == name)
        return eq.xi(static_cast<long>(k), 1);
    return 0.0;
  };
  const double sliding = -coefficient("sgn(w)"), extra = -coefficient("sgn(w)*exp(", true);
  json j = {{"belt_speed", config.belt_speed},
            {"F_d", sliding},
            {"F_s", sliding + extra},
            {"samples", result.sindy.samples},
            {"v_slip", config.v_slip}};
  if (config.stribeck_rates.n > 0) {
    j["rate"] = result.stribeck_rate;
    j["rate_grid"] = result.stribeck_rates;
    j["rate_rss"] = result.stribeck_rss;
  }
  if (config.simulate && !config.model.contacts.empty() && config.model.contacts[0].Fn > 0.0) {
    const double per_load = config.model.M(0, 0) / config.model.contacts[0].Fn;
    j["mu_d"] = sliding * per_load;
    j["mu_s"] = (sliding + extra) * per_load;
    j["k"] = -coefficient("x1") * config.model.M(0, 0);
  }
  return j;
}

std::vector<double> values_of(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

// the method's answer in one place whatever the method ("fit"): its parameters, their 95 %
// intervals (null where the method gives none: the seed's grid step 3, a PINN's coefficients) and
// the report they come from
json fit_json(const json& j, const IdentificationResult& result) {
  const auto none_for = [](const json& parameters) {
    json nulls = json::object();
    for (const auto& [name, value] : parameters.items()) nulls[name] = nullptr;
    return nulls;
  };
  if (result.pinn) {
    // the trained coefficients of Eq. 23
    const json& p = j["pinn"];
    json parameters = json::object();
    for (const auto& name : p["trained"])
      parameters[name.get<std::string>()] = p["coefficients"][name.get<std::string>()];
    return {{"from", "pinn"}, {"parameters", parameters}, {"interval_95", none_for(parameters)}};
  }
  const char* from = result.extended                                    ? "extended_sindy"
                     : result.greybox_equation || result.greybox_search ? "greybox"
                     : result.joint_terms                               ? "joint_terms"
                                                                        : "sindy";
  const json& report = j[from];
  if (result.joint_terms) {
    // what joint terms identifies: the coefficients (of ẍ) of the terms it kept beside the known model
    json parameters = json::object(), interval = json::object();
    const json& kept = report.contains("coefficient_interval_95") ? report["coefficient_interval_95"] : json::object();
    for (const auto& [term, pair] : report["coefficients"].items())
      if (pair[1].get<double>() != 0.0) {
        parameters[term] = pair[1];
        interval[term] = kept.contains(term) ? kept[term] : json(nullptr);
      }
    return {{"from", from}, {"parameters", parameters}, {"interval_95", interval}};
  }
  json interval = report.contains("interval_95") ? report["interval_95"] : none_for(report["parameters"]);
  if (!report.contains("interval_95") && report.contains("held") && report["held"].contains("interval_95"))
    interval = report["held"]["interval_95"];
  return {{"from", from}, {"parameters", report["parameters"]}, {"interval_95", interval}};
}

}  // namespace

LoadedIdentification load_identification(const json& document, const std::string& base_dir) {
  LoadedIdentification out;
  try {
    out.config = parse_identify_config(document, base_dir);
    out.record = identification_record(out.config);
  } catch (const ModelError& e) {
    throw InputError("/data/scenario", e.what());
  }
  score_populations_on_options_device(out.config);
  return out;
}

namespace {

// the outcome of `result`, identified as `config` says, in `wall` seconds
IdentifyOutcome describe(const IdentifyConfig& config, IdentificationResult fitted, double wall) {
  IdentifyOutcome out;
  out.config = config;
  out.result = std::move(fitted);
  const IdentificationResult& result = out.result;
  const Record& r = result.record;
  const long n = r.size();

  std::vector<double> t(static_cast<std::size_t>(n)), x(t.size()), v(t.size()), u(t.size()), du(t.size());
  for (long i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    t[k] = r.t(i);
    x[k] = r.x(i);
    v[k] = r.v(i);
    u[k] = r.has_input() ? r.u(i) : 0.0;
    du[k] = r.has_input() ? r.du(i) : 0.0;
  }
  out.record.add("t", t);
  out.record.add("x", x);
  out.record.add("v", v);
  out.record.add("u", u);
  out.record.add("du", du);
  if (r.has_friction()) out.record.add("friction", values_of(r.friction));

  // one column per identified response, each as long as the record (NaN past a shorter response)
  std::vector<std::pair<const char*, const Eigen::VectorXd*>> responses;
  if (result.pinn) {
    responses.push_back({"x_pinn", &result.pinn_result.x});
    responses.push_back({"tau_pinn", &result.pinn_result.tau});
    if (r.has_friction()) responses.push_back({"friction", &r.friction});
  } else if (result.greybox_search) {
    responses.push_back({"x_greybox", &result.greybox.response});
  } else {
    responses.push_back({result.greybox_equation ? "x_greybox"
                         : result.joint_terms    ? "x_joint_terms"
                                                 : "x_sindy",
                         &result.sindy.response.x});
  }
  if (result.extended) responses.push_back({"x_extended_sindy", &result.extended_sindy.response.x});
  out.response.add("t", t);
  out.response.add("x", x);
  for (const auto& [name, response] : responses) {
    std::vector<double> column(static_cast<std::size_t>(n), std::nan(""));
    for (long i = 0; i < n && i < response->size(); ++i) column[static_cast<std::size_t>(i)] = (*response)(i);
    out.response.add(name, std::move(column));
  }

  json& j = out.identified;
  j["name"] = config.name;
  j["method"] = config.method;
  j["record"] = {{"samples", r.size()},
                 {"sample_dt", r.sample_dt()},
                 {"source", !config.simulate                      ? config.csv_path
                            : config.model.has_dynamic_friction() ? "smooth simulation"
                                                                  : "event-driven simulation"},
                 {"input", r.has_input()},
                 // the Savitzky–Golay window the derivatives took (options window, or window_s)
                 {"derivative_window", derivative_window(config, r.sample_dt())}};
  j["library"] = json::array();
  for (const auto& term :
       result.greybox_equation || !result.belt_library.empty() ? result.sindy.equation.terms : config.library)
    j["library"].push_back(term.name);
  if (!result.belt_library.empty()) j["belt_friction"] = belt_friction_json(config, result);
  if (result.pinn) {
    const PinnIdentifyResult& p = result.pinn_result;
    const PinnIdentifyOptions& o = config.pinn;
    json coefficients = json::object(), trained = json::array();
    const std::pair<const char*, std::pair<double, bool>> named[] = {{"J1", {p.J1, o.J1.trainable}},
                                                                     {"J2", {p.J2, o.J2.trainable}},
                                                                     {"c", {p.c, o.c.trainable}},
                                                                     {"k", {p.k, o.k.trainable}}};
    for (const auto& [name, v] : named) {
      coefficients[name] = v.first;
      if (v.second) trained.push_back(name);
    }
    j["pinn"] = {{"balance", "J2 x'' + c x' + k x + tau_f = J1 u'' (seed 002 Eq. 23)"},
                 {"coefficients", coefficients},
                 {"trained", trained},
                 {"loss", p.loss},
                 {"data_loss", p.data_loss},
                 {"physics_loss", p.physics_loss},
                 {"rmse", p.rmse},
                 {"training_samples", p.training_samples},
                 {"iterations", p.iterations},
                 {"evaluations", p.evaluations},
                 {"wall_s", p.wall_s},
                 {"torque_error_percent", finite_or_null(result.pinn_torque_error_percent)}};
  } else if (result.greybox_equation) {
    // Eq. 11's (k, c, F) by least squares on the equation error
    j["greybox"] = report_json(result.sindy, config);
    j["greybox"]["optimizer"] = config.greybox_optimizer;
  } else if (result.greybox_search) {
    const GreyboxReport& g = result.greybox;
    const auto [values, interval, truth, errors] = searched_values(config, g);
    j["greybox"] = {{"optimizer", config.greybox_optimizer},
                    {"parameters", values},
                    {"rmse", g.response.size() ? json(g.rmse) : json(nullptr)},
                    {"iterations", g.iterations},
                    {"evaluations", g.evaluations},
                    {"wall_s", g.wall_s},
                    {"evaluated_by", g.evaluated_by},
                    {"batches", g.batches},
                    // 95 %: the output error's covariance at the fit (identify/fit_intervals.hpp)
                    {"interval_95", interval},
                    {"residual_rho1", g.residual_rho1},
                    {"effective_samples", g.effective_samples},
                    {"simulations_per_s", g.wall_s > 0 ? g.evaluations / g.wall_s : 0.0}};
    if (!truth.empty()) {
      j["greybox"]["truth"] = truth;
      j["greybox"]["errors_percent"] = errors;
    }
  } else if (result.joint_terms) {
    j["joint_terms"] = report_json(result.sindy, config);
    j["joint_terms"]["known"] = "the known scenario's M, C, K and forcing (docs/IDENTIFY.md)";
  } else {
    j["sindy"] = report_json(result.sindy, config);
  }
  if (result.extended) {
    const BoundSurfaces& b = result.bounds;
    json e = report_json(result.extended_sindy, config);
    e["n_stop"] = result.n_stop;
    e["n_slip"] = result.n_slip;
    e["converges_to_sindy"] = result.converges_to_sindy;
    e["dropped_terms"] = result.dropped_terms;
    e["slip_sindy"] = report_json(result.slip_sindy, config);
    if (!result.converges_to_sindy) e["step3"] = config.step3;
    if (!result.converges_to_sindy && config.step3 == "held") {
      const HeldRegression& h = result.held;
      e["held"] = {{"active_stop_constraints", h.active},
                   {"iterations", h.iterations},
                   {"slip_samples", h.samples},
                   {"rss", h.rss}};
      if (result.has_held_intervals) {
        // 95 % intervals (identify/held_uncertainty.hpp): the spread over a cycle bootstrap (or the
        // covariance's) widened by the changes with the derivative window doubled and without the
        // stop constraints
        const HeldIntervals& u = result.held_intervals;
        json interval = json::object(), spread = json::object(), filter = json::object(), constraint = json::object();
        const char* const names[3] = {"k", "c", "F"};
        for (int i = 0; i < 3; ++i) {
          interval[names[i]] = {u.lo[i], u.hi[i]};
          spread[names[i]] = u.spread[i];
          filter[names[i]] = u.filter_change[i];
          constraint[names[i]] = u.constraint_change[i];
        }
        e["held"]["interval_95"] = interval;
        e["held"]["spread"] = spread;
        e["held"]["spread_from"] = u.bootstrap ? "cycle_bootstrap" : "covariance";
        e["held"]["cycles"] = u.cycles;
        e["held"]["resamples"] = u.resamples;
        e["held"]["filter_change"] = filter;
        e["held"]["constraint_change"] = constraint;
        e["held"]["check_window"] = u.check_window;
      }
    }
    if (!result.converges_to_sindy && config.step3 == "grid") {
      e["bounds"] = {{"k_grid", {b.k.a, b.k.b, b.k.n}},
                     {"c_grid", {b.c.a, b.c.b, b.c.n}},
                     {"k_star", b.k_star},
                     {"c_star", b.c_star},
                     {"F_star", b.F_star},
                     {"D_min", b.D_min},
                     {"wall_s", b.wall_s},
                     {"backend", result.bounds_backend},
                     // grid points × samples each evaluates (stop samples for Φ1, slip samples for Φ2)
                     {"point_samples_per_s",
                      b.wall_s > 0 ? double(b.k.n) * b.c.n * double(result.n_stop + result.n_slip) / b.wall_s : 0.0}};
      for (const char* name : {"k", "c", "phi1", "phi2", "D"}) out.bounds.add(name, {});
      for (int i = 0; i < b.k.n; ++i)
        for (int jc = 0; jc < b.c.n; ++jc) {
          const double row[] = {b.k.at(i), b.c.at(jc), b.phi1(i, jc), b.phi2(i, jc),
                                std::abs(b.phi2(i, jc) - b.phi1(i, jc))};
          for (std::size_t c = 0; c < 5; ++c) out.bounds.columns[c].push_back(row[c]);
        }
    }
    j["extended_sindy"] = e;
  }
  j["fit"] = fit_json(j, result);
  if (config.truth) j["truth"] = parameters_json(*config.truth);
  // what the fit's response leaves of the record, against the record's own noise
  const Eigen::VectorXd* fit = fitted_response(result);
  const double noise = record_noise_std(r.x);
  json check = {{"noise_std", finite_or_null(noise)},
                {"noise_from", "the record's second differences (median absolute value)"}};
  std::vector<std::string> warnings;
  if (fit) {
    const Eigen::VectorXd residual = response_residual(*fit, r.x);
    const ResidualWhiteness w = residual_whiteness(residual);
    const double rms =
        residual.size() ? std::sqrt(residual.squaredNorm() / static_cast<double>(residual.size())) : std::nan("");
    check["residual_rms"] = finite_or_null(rms);
    check["residual_rho1"] = w.rho1;
    check["runs_z"] = w.runs_z;
    check["white"] = w.white;
    warnings = residual_warnings("the identified model", rms, noise, w, r.x);
  }
  // an equation-error fit (SINDy, extended SINDy) is judged by its equation's residual: its
  // re-simulated response drifts from a noisy record's in phase even where the equation is right
  const EquationCheck& eq = result.equation;
  if (eq.samples > 0 && !result.greybox_search && !result.greybox_equation && !result.joint_terms && !result.pinn) {
    check["equation_rms"] = finite_or_null(eq.rms);
    check["equation_expected"] = finite_or_null(eq.expected);
    check["equation_samples"] = eq.samples;
    warnings = equation_warnings(result.extended ? "the extended SINDy equation" : "the SINDy equation", eq.rms,
                                 eq.expected, eq.samples);
  }
  check["warnings"] = warnings;
  j["residual"] = check;
  j["warnings"] = warnings;
  j["wall_s"] = wall;
  j["config"] = config.document;
  return out;
}

// a candidate law's fit, scored, with its response's residual and that residual's whiteness
struct CandidateFit {
  IdentifyConfig config;
  IdentificationResult result;
  CandidateScore score;
  Eigen::VectorXd residual;
  ResidualWhiteness white;
};

// the fitted candidates' coefficient μ against the sliding speed |relative velocity| from 0 to the
// record's fastest slip (laws.csv: speed, mu_<law>), and into `record` the record's own samples of
// it where it slips and has a friction column (slip_speed, mu = |F_f| / Fn; NaN where it sticks or
// slips slower than three of the velocity's noise)
NamedColumns law_curves(const std::vector<CandidateFit>& fits, const Record& record, NamedColumns& record_columns) {
  NamedColumns laws;
  std::vector<ModelDescription> models;
  for (const CandidateFit& f : fits) {
    json doc = f.config.greybox_model;
    const GreyboxReport& g = f.result.greybox;
    for (std::size_t k = 0; k < f.config.parameters.size(); ++k)
      doc[json::json_pointer(f.config.parameters[k].path)] = g.values(static_cast<long>(k));
    models.push_back(parse_scenario(doc).model);
  }
  if (models.empty() || models[0].contacts.empty()) return laws;
  const ContactDescription& contact = models[0].contacts[0];
  const double wt = contact.w_T.size() > 0 ? contact.w_T(0) : 1.0;
  const long n = record.size();
  std::vector<double> speed(static_cast<std::size_t>(n)), mu(static_cast<std::size_t>(n), std::nan(""));
  double fastest = 0.0;
  // slipping: faster than three of the velocity's noise (a stuck sample's reaction is no μ)
  const double sigma_v = record_noise_std(record.v);
  const double slip =
      std::max(1e-3 * std::max(1.0, std::fabs(contact.v_surface)), std::isfinite(sigma_v) ? 3.0 * sigma_v : 0.0);
  for (long i = 0; i < n; ++i) {
    const double w = std::fabs(wt * record.v(i) - contact.v_surface);
    speed[static_cast<std::size_t>(i)] = w;
    fastest = std::max(fastest, w);
    if (record.has_friction() && contact.Fn > 0.0 && w > slip)
      mu[static_cast<std::size_t>(i)] = std::fabs(record.friction(i)) / contact.Fn;
  }
  record_columns.add("slip_speed", speed);
  if (record.has_friction()) record_columns.add("mu", mu);
  constexpr int kPoints = 201;
  std::vector<double> grid(kPoints);
  for (int i = 0; i < kPoints; ++i) grid[static_cast<std::size_t>(i)] = fastest * i / (kPoints - 1.0);
  laws.add("speed", grid);
  for (std::size_t k = 0; k < fits.size(); ++k) {
    std::vector<double> column(kPoints);
    for (int i = 0; i < kPoints; ++i)
      column[static_cast<std::size_t>(i)] =
          friction_magnitude(models[k].contacts[0].law, grid[static_cast<std::size_t>(i)]);
    laws.add("mu_" + fits[k].score.name, column);
  }
  return laws;
}

}  // namespace

IdentifyOutcome run_identification(const LoadedIdentification& loaded) {
  const IdentifyConfig& config = loaded.config;
  const auto t0 = std::chrono::steady_clock::now();
  if (config.candidates.empty()) {
    IdentificationResult result = identify(config, loaded.record);
    return describe(config, std::move(result), seconds_since(t0));
  }
  // every candidate law its own search, then ranked by their residuals and numbers
  std::vector<CandidateFit> fits;
  std::vector<CandidateScore> scores;
  for (const LawCandidate& law : config.candidates) {
    CandidateFit f{candidate_config(config, law), {}, {}, {}, {}};
    score_populations_on_options_device(f.config);
    f.result = identify(f.config, loaded.record);
    f.residual = response_residual(f.result.greybox.response, f.result.record.x);
    f.white = residual_whiteness(f.residual);
    f.score.name = law.law;
    f.score.parameters = static_cast<int>(f.config.parameters.size());
    f.score.samples = f.residual.size();
    f.score.rss = f.residual.size() == f.result.record.x.size() ? f.residual.squaredNorm() : HUGE_VAL;
    scores.push_back(f.score);
    fits.push_back(std::move(f));
  }
  rank_candidates(scores);
  std::size_t best = 0;
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (scores[i].bic < scores[best].bic) best = i;
  const double wall = seconds_since(t0);
  // every candidate identified the same record
  const Record record = fits[best].result.record;
  const double noise = record_noise_std(record.x);
  json candidates = json::array();
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const CandidateFit& f = fits[i];
    const CandidateScore& c = scores[i];
    const GreyboxReport& g = f.result.greybox;
    const auto [values, interval, truth, errors] = searched_values(f.config, g);
    const ResidualWhiteness& w = f.white;
    const double rms = c.samples > 0 ? std::sqrt(c.rss / static_cast<double>(c.samples)) : std::nan("");
    json one = {{"law", c.name},
                {"rank", c.rank},
                {"parameters", values},
                {"interval_95", interval},
                {"fitted", c.parameters},
                {"rmse", finite_or_null(rms)},
                {"rss", finite_or_null(c.rss)},
                {"aic", finite_or_null(c.aic)},
                {"bic", finite_or_null(c.bic)},
                {"delta_aic", finite_or_null(c.delta_aic)},
                {"delta_bic", finite_or_null(c.delta_bic)},
                {"akaike_weight", c.akaike_weight},
                {"bic_weight", c.bic_weight},
                {"residual_rho1", w.rho1},
                {"runs_z", w.runs_z},
                {"white", w.white},
                {"evaluations", g.evaluations},
                {"wall_s", g.wall_s}};
    // a simulated record's truth only for its own law
    if (!truth.empty()) one["truth"] = truth;
    candidates.push_back(one);
  }
  const ResidualWhiteness top_white = fits[best].white;
  // the laws' curves while every fit is at hand
  NamedColumns slips;
  NamedColumns laws = law_curves(fits, record, slips);
  IdentifyOutcome out = describe(fits[best].config, std::move(fits[best].result), wall);
  out.laws = std::move(laws);
  for (std::size_t c = 0; c < slips.names.size(); ++c) out.record.add(slips.names[c], slips.columns[c]);
  json& j = out.identified;
  j["candidates"] = candidates;
  const CandidateScore& top = scores[best];
  const double top_rms = top.samples > 0 ? std::sqrt(top.rss / static_cast<double>(top.samples)) : std::nan("");
  j["ranking"] = {
      {"by", "bic"},
      {"best", top.name},
      {"samples", top.samples},
      {"noise_std", finite_or_null(noise)},
      {"likelihood", "Gaussian residuals of one variance, estimated as RSS/n"},
      {"warnings", residual_warnings("the best law, " + top.name + ",", top_rms, noise, top_white, record.x)}};
  j["warnings"] = j["ranking"]["warnings"];
  j["residual"]["warnings"] = j["warnings"];
  // every candidate's response beside the record
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const Eigen::VectorXd& x = i == best ? out.result.greybox.response : fits[i].result.greybox.response;
    std::vector<double> column(static_cast<std::size_t>(record.size()), std::nan(""));
    for (long k = 0; k < record.size() && k < x.size(); ++k) column[static_cast<std::size_t>(k)] = x(k);
    out.response.add("x_" + scores[i].name, std::move(column));
  }
  return out;
}

std::vector<std::filesystem::path> identify_inputs(const std::string& config_file, const IdentifyConfig& config) {
  std::vector<std::filesystem::path> inputs;
  if (!config_file.empty()) inputs.emplace_back(config_file);
  if (!config.csv_path.empty()) inputs.emplace_back(config.csv_path);
  for (const std::string& f : config.scenario_files) inputs.emplace_back(f);
  return inputs;
}

void score_populations_on_options_device(IdentifyConfig& config) {
  sweep::score_populations_by_sweeps(config, parse_sweep_device(config.device, "/options/device"));
}

}  // namespace fivsim
