// src/cli/identify_command.cpp — `fivsim identify`: identification of a single-DoF friction
// oscillator from a record (seed 003; identify/identification.hpp). Writes identified.json,
// record.csv (the data as identified, after noise), response.csv (the record beside the response
// of every identified equation; for pinn, N1's response and N2's torque beside the record's
// friction when known) and, for extended_sindy, bounds.csv (the Φ1/Φ2 surfaces of seed 003 Fig. 3).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {
namespace {

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
  if (c.truth) j["errors_percent"] = parameters_json(relative_errors_percent(r.parameters, *c.truth));
  return j;
}

void print_report(const char* label, const SindyReport& r, const IdentifyConfig& c) {
  std::printf("  %s (%ld samples):\n", label, r.samples);
  for (const auto& line : r.text) std::printf("    %s\n", line.c_str());
  // joint_terms' unknown row has no (k, c, F) of its own: the equations say it all
  if (c.method == "joint_terms")
    std::printf("    RMSE of the response %s", r.response.finite ? "" : "(diverged)");
  else
    std::printf("    k = %.6g, c = %.6g, F = %.6g; RMSE of the response %s", r.parameters.k, r.parameters.c,
                r.parameters.F, r.response.finite ? "" : "(diverged)");
  if (r.response.finite) std::printf("%.3g m", r.response.rmse);
  if (c.truth) {
    const SdofParameters e = relative_errors_percent(r.parameters, *c.truth);
    std::printf("; errors %.3g%%, %.3g%%, %.3g%%", e.k, e.c, e.F);
  }
  std::printf("\n");
}

}  // namespace

int identify_command(const IdentifyArgs& args) {
  IdentifyConfig config;
  Record record;
  try {
    json doc = load_json_file(args.config);
    for (const auto& s : args.set) apply_override(doc, s);
    if (doc.is_object() && doc.contains("sweep")) return identify_batch(doc, args);
    config = parse_identify_config(doc, std::filesystem::path(args.config).parent_path().string());
    record = identification_record(config);
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim identify: %s\n", e.what());
    return kExitBadInput;
  } catch (const ModelError& e) {
    std::fprintf(stderr, "fivsim identify: /data/scenario: %s\n", e.what());
    return kExitBadInput;
  }
  try {
    const Clock::time_point t0 = Clock::now();
    const IdentificationResult result = identify(config, record);
    const double wall = seconds_since(t0);
    StagedDirectory dir(args.out.empty() ? std::filesystem::path("runs") / config.name : std::filesystem::path(args.out));

    const Record& r = result.record;
    {
      CsvWriter csv(dir.file("record.csv"));
      for (const char* h : {"t", "x", "v", "u", "du"}) csv.field(h);
      if (r.has_friction()) csv.field("friction");
      csv.end_row();
      for (long i = 0; i < r.size(); ++i) {
        for (double v : {r.t(i), r.x(i), r.v(i), r.has_input() ? r.u(i) : 0.0, r.has_input() ? r.du(i) : 0.0})
          csv.field(v);
        if (r.has_friction()) csv.field(r.friction(i));
        csv.end_row();
      }
      csv.close();
    }
    {
      // one column per identified response
      std::vector<std::pair<const char*, const Eigen::VectorXd*>> columns;
      if (result.pinn) {
        columns.push_back({"x_pinn", &result.pinn_result.x});
        columns.push_back({"tau_pinn", &result.pinn_result.tau});
        if (r.has_friction()) columns.push_back({"friction", &r.friction});
      } else if (result.greybox_search) columns.push_back({"x_greybox", &result.greybox.response});
      else
        columns.push_back({result.greybox_equation ? "x_greybox" : result.joint_terms ? "x_joint_terms" : "x_sindy",
                           &result.sindy.response.x});
      if (result.extended) columns.push_back({"x_extended_sindy", &result.extended_sindy.response.x});
      CsvWriter csv(dir.file("response.csv"));
      csv.field("t");
      csv.field("x");
      for (const auto& col : columns) csv.field(col.first);
      csv.end_row();
      for (long i = 0; i < r.size(); ++i) {
        csv.field(r.t(i));
        csv.field(r.x(i));
        for (const auto& col : columns) csv.field(i < col.second->size() ? (*col.second)(i) : std::nan(""));
        csv.end_row();
      }
      csv.close();
    }
    json j;
    j["name"] = config.name;
    j["method"] = config.method;
    j["record"] = {{"samples", r.size()},
                   {"sample_dt", r.sample_dt()},
                   {"source", !config.simulate                     ? config.csv_path
                              : config.model.has_dynamic_friction() ? "smooth simulation"
                                                                    : "event-driven simulation"},
                   {"input", r.has_input()}};
    j["library"] = json::array();
    for (const auto& t : result.greybox_equation ? result.sindy.equation.terms : config.library)
      j["library"].push_back(t.name);
    if (result.pinn) {
      const PinnIdentifyResult& p = result.pinn_result;
      const PinnIdentifyOptions& o = config.pinn;
      json coefficients = json::object(), trained = json::array();
      const std::pair<const char*, std::pair<double, bool>> named[] = {
          {"J1", {p.J1, o.J1.trainable}}, {"J2", {p.J2, o.J2.trainable}}, {"c", {p.c, o.c.trainable}}, {"k", {p.k, o.k.trainable}}};
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
                   {"torque_error_percent", std::isfinite(result.pinn_torque_error_percent)
                                                ? json(result.pinn_torque_error_percent)
                                                : json(nullptr)}};
    } else if (result.greybox_equation) {
      // Eq. 11's (k, c, F) by least squares on the equation error
      j["greybox"] = report_json(result.sindy, config);
      j["greybox"]["optimizer"] = config.greybox_optimizer;
    } else if (result.greybox_search) {
      const GreyboxReport& g = result.greybox;
      json values = json::object(), truth = json::object(), errors = json::object();
      for (std::size_t k = 0; k < config.parameters.size(); ++k) {
        const GreyboxParameter& p = config.parameters[k];
        values[p.path] = g.values(static_cast<long>(k));
        if (std::isfinite(p.truth)) {
          truth[p.path] = p.truth;
          errors[p.path] = relative_error_percent(g.values(static_cast<long>(k)), p.truth);
        }
      }
      j["greybox"] = {{"optimizer", config.greybox_optimizer}, {"parameters", values},
                      {"rmse", g.response.size() ? json(g.rmse) : json(nullptr)},
                      {"iterations", g.iterations},     {"evaluations", g.evaluations},
                      {"wall_s", g.wall_s},
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
      if (!result.converges_to_sindy) {
        e["bounds"] = {{"k_grid", {b.k.a, b.k.b, b.k.n}}, {"c_grid", {b.c.a, b.c.b, b.c.n}},
                       {"k_star", b.k_star},          {"c_star", b.c_star},
                       {"F_star", b.F_star},          {"D_min", b.D_min},
                       {"wall_s", b.wall_s},
                       {"backend", result.bounds_backend},
                       // grid points × samples each evaluates (stop samples for Φ1, slip samples for Φ2)
                       {"point_samples_per_s",
                        b.wall_s > 0 ? double(b.k.n) * b.c.n * double(result.n_stop + result.n_slip) / b.wall_s : 0.0}};
        CsvWriter csv(dir.file("bounds.csv"));
        for (const char* h : {"k", "c", "phi1", "phi2", "D"}) csv.field(h);
        csv.end_row();
        for (int i = 0; i < b.k.n; ++i)
          for (int jc = 0; jc < b.c.n; ++jc) {
            for (double v : {b.k.at(i), b.c.at(jc), b.phi1(i, jc), b.phi2(i, jc), std::abs(b.phi2(i, jc) - b.phi1(i, jc))})
              csv.field(v);
            csv.end_row();
          }
        csv.close();
      }
      j["extended_sindy"] = e;
    }
    if (config.truth) j["truth"] = parameters_json(*config.truth);
    j["wall_s"] = wall;
    j["config"] = config.document;
    write_json_file(dir.file("identified.json"), j);
    dir.commit();

    std::printf("identify %s (%s): %ld samples at dt = %g s, %.3g s -> %s\n", config.name.c_str(), config.method.c_str(),
                r.size(), r.sample_dt(), wall, dir.final_path().c_str());
    if (result.pinn) {
      const PinnIdentifyResult& p = result.pinn_result;
      std::printf("  PINN (%ld training samples, %d iterations, %.3g s): loss %.3e (data %.3e, physics %.3e)\n",
                  p.training_samples, p.iterations, p.wall_s, p.loss, p.data_loss, p.physics_loss);
      std::printf("    J1 = %.6g, J2 = %.6g, c = %.6g, k = %.6g; RMSE of N1 over every sample %.3g\n", p.J1, p.J2,
                  p.c, p.k, p.rmse);
      if (std::isfinite(result.pinn_torque_error_percent))
        std::printf("    torque against the record's friction: %.3g%% RMS error\n", result.pinn_torque_error_percent);
    } else if (result.greybox_search) {
      std::printf("  grey-box (%s, %d iterations, %ld simulations), RMSE of the response %.3g m:\n",
                  config.greybox_optimizer.c_str(), result.greybox.iterations, result.greybox.evaluations,
                  result.greybox.rmse);
      for (std::size_t k = 0; k < config.parameters.size(); ++k) {
        const GreyboxParameter& p = config.parameters[k];
        std::printf("    %s = %.10g", p.path.c_str(), result.greybox.values(static_cast<long>(k)));
        if (std::isfinite(p.truth)) std::printf(" (truth %.10g)", p.truth);
        std::printf("\n");
      }
    } else {
      print_report(result.greybox_equation ? "grey-box least squares, slip samples"
                   : result.joint_terms        ? "unknown terms beside the known right-hand side"
                                               : "SINDy, every sample",
                   result.sindy, config);
    }
    if (result.extended) {
      if (result.converges_to_sindy) {
        std::printf("  extended SINDy: no stop samples (|v| <= %g): converges to SINDy\n", config.v_stop);
      } else {
        std::printf("  extended SINDy: %ld stop and %ld slip samples; min D = %.3g at k = %.6g, c = %.6g\n",
                    result.n_stop, result.n_slip, result.bounds.D_min, result.bounds.k_star, result.bounds.c_star);
        print_report("extended SINDy", result.extended_sindy, config);
      }
    }
    return kExitOk;
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim identify: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fivsim identify: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace fivsim::cli
