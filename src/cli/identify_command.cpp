// src/cli/identify_command.cpp — `fivsim identify`: identification of a single-DoF friction
// oscillator from a record (seed 003; app/identify_run.hpp). Writes identified.json, record.csv
// (the data as identified, after noise), response.csv (the record beside the response of every
// identified equation; for pinn, N1's response and N2's torque beside the record's friction when
// known) and, for extended_sindy, bounds.csv (the Φ1/Φ2 surfaces of seed 003 Fig. 3). A config with
// a sweep block is a batch (app/identify_batch.hpp): identifications.csv and summary.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "fivsim/app/identify_batch.hpp"
#include "fivsim/app/identify_run.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {
namespace {

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
  if (r.has_interval && c.method != "joint_terms")
    std::printf("    95%% intervals: k [%.6g, %.6g], c [%.6g, %.6g], F [%.6g, %.6g]\n", r.lo.k, r.hi.k, r.lo.c, r.hi.c,
                r.lo.F, r.hi.F);
  if (c.method == "joint_terms" && r.term_lo.size()) {
    // the unknown terms' own coefficients are what it identifies
    std::printf("    95%% intervals:");
    const char* sep = " ";
    for (std::size_t k = 0; k < r.equation.terms.size(); ++k) {
      const long j = static_cast<long>(k);
      if (!std::isfinite(r.term_lo(j))) continue;
      std::printf("%s%s [%.6g, %.6g]", sep, r.equation.terms[k].name.c_str(), r.term_lo(j), r.term_hi(j));
      sep = ", ";
    }
    std::printf("\n");
  }
}

// a config with a sweep block: one identification per case (app/identify_batch.hpp), written as
// identifications.csv and summary.json
int identify_batch_command(const json& doc, const IdentifyArgs& args) {
  // every case's config is checked before the folder is made
  const IdentifyBatch batch =
      plan_identify_batch(doc, args.config, std::filesystem::path(args.config).parent_path().string());
  StagedDirectory dir(output_folder(args.out, batch.name()), batch.inputs);
  const long n = static_cast<long>(batch.configs.size());
  ProgressLine progress(true, static_cast<double>(n), "identifications", "", "identifications/s");
  const IdentifyBatchResult r =
      run_identify_batch(batch, [&](long done, long) { progress.update(double(done), double(done)); });
  progress.done();
  write_columns(r.table, dir.file("identifications.csv"));
  write_json_file(dir.file("summary.json"), r.summary);
  dir.commit();
  std::printf("identify %s (%s): %ld identifications in %.3g s -> %s\n", batch.name().c_str(), batch.method().c_str(),
              n, r.summary["wall_s"].get<double>(), dir.final_path().c_str());
  for (const auto& [name, count] : r.summary["status"].items())
    std::printf("  %-8s %ld\n", name.c_str(), count.get<long>());
  return kExitOk;
}

}  // namespace

int identify_command(const IdentifyArgs& args) {
  return exit_code_of("identify", [&] {
    json doc = load_json_file(args.config);
    for (const auto& s : args.set) apply_override(doc, s);
    if (doc.is_object() && doc.contains("sweep")) return identify_batch_command(doc, args);
    const LoadedIdentification loaded =
        load_identification(doc, std::filesystem::path(args.config).parent_path().string());
    StagedDirectory dir(output_folder(args.out, loaded.config.name), identify_inputs(args.config, loaded.config));
    const IdentifyOutcome outcome = run_identification(loaded);
    // with candidate laws, the best law's search
    const IdentifyConfig& config = outcome.config;
    const IdentificationResult& result = outcome.result;
    const Record& r = result.record;
    write_columns(outcome.record, dir.file("record.csv"));
    write_columns(outcome.response, dir.file("response.csv"));
    if (!outcome.bounds.empty()) write_columns(outcome.bounds, dir.file("bounds.csv"));
    if (!outcome.laws.empty()) write_columns(outcome.laws, dir.file("laws.csv"));
    write_json_file(dir.file("identified.json"), outcome.identified);
    dir.commit();
    const double wall = outcome.identified["wall_s"].get<double>();

    std::printf("identify %s (%s): %ld samples at dt = %g s, %.3g s -> %s\n", config.name.c_str(),
                config.method.c_str(), r.size(), r.sample_dt(), wall, dir.final_path().c_str());
    if (result.pinn) {
      const PinnIdentifyResult& p = result.pinn_result;
      std::printf("  PINN (%ld training samples, %d iterations, %.3g s): loss %.3e (data %.3e, physics %.3e)\n",
                  p.training_samples, p.iterations, p.wall_s, p.loss, p.data_loss, p.physics_loss);
      std::printf("    J1 = %.6g, J2 = %.6g, c = %.6g, k = %.6g; RMSE of N1 over every sample %.3g\n", p.J1, p.J2, p.c,
                  p.k, p.rmse);
      if (std::isfinite(result.pinn_torque_error_percent))
        std::printf("    torque against the record's friction: %.3g%% RMS error\n", result.pinn_torque_error_percent);
    } else if (result.greybox_search) {
      const GreyboxReport& g = result.greybox;
      // "12 sweeps" or "12 batches of simulations"; the serial Nelder–Mead has none
      const std::string batches = g.batches == 0 ? ""
                                  : g.evaluated_by == "sweeps"
                                      ? ", " + std::to_string(g.batches) + " sweeps"
                                      : ", " + std::to_string(g.batches) + " batches of simulations";
      std::printf("  grey-box (%s, %d iterations, %ld simulations%s), RMSE of the response %.3g m:\n",
                  config.greybox_optimizer.c_str(), g.iterations, g.evaluations, batches.c_str(), g.rmse);
      for (std::size_t k = 0; k < config.parameters.size(); ++k) {
        const GreyboxParameter& p = config.parameters[k];
        const double v = g.values(static_cast<long>(k)), hw = g.half_width(static_cast<long>(k));
        std::printf("    %s = %.10g", p.path.c_str(), v);
        if (std::isfinite(hw)) std::printf(", 95%% interval [%.10g, %.10g]", v - hw, v + hw);
        if (std::isfinite(p.truth)) std::printf(" (truth %.10g)", p.truth);
        std::printf("\n");
      }
    } else {
      print_report(result.greybox_equation        ? "grey-box least squares, slip samples"
                   : result.joint_terms           ? "unknown terms beside the known right-hand side"
                   : !result.belt_library.empty() ? "SINDy, the samples that slip on the belt"
                                                  : "SINDy, every sample",
                   result.sindy, config);
      if (outcome.identified.contains("belt_friction")) {
        const json& b = outcome.identified["belt_friction"];
        std::printf("    friction per unit mass on the belt (%.6g m/s): sliding %.6g, at break-away %.6g",
                    b["belt_speed"].get<double>(), b["F_d"].get<double>(), b["F_s"].get<double>());
        if (b.contains("rate")) std::printf(", Stribeck decay rate %.6g s/m", b["rate"].get<double>());
        if (b.contains("mu_d"))
          std::printf("; mu_d = %.6g, mu_s = %.6g, k = %.6g", b["mu_d"].get<double>(), b["mu_s"].get<double>(),
                      b["k"].get<double>());
        std::printf("\n");
      }
    }
    if (result.extended) {
      if (result.converges_to_sindy) {
        std::printf("  extended SINDy: no stop samples (|v| <= %g): converges to SINDy\n", config.v_stop);
      } else {
        if (config.step3 == "grid") {
          std::printf("  extended SINDy: %ld stop and %ld slip samples; min D = %.3g at k = %.6g, c = %.6g\n",
                      result.n_stop, result.n_slip, result.bounds.D_min, result.bounds.k_star, result.bounds.c_star);
        } else {
          // how the estimate's 95 % intervals were made (identify/held_uncertainty.hpp)
          const HeldRegression& h = result.held;
          std::printf("  extended SINDy: %ld stop and %ld slip samples; held regression, %d stop constraints active\n",
                      result.n_stop, result.n_slip, h.active);
          if (result.has_held_intervals) {
            // the intervals themselves are the extended report's below
            const HeldIntervals& u = result.held_intervals;
            std::printf(
                "    95%% intervals from %s, widened by the changes with a %d-sample derivative window and "
                "without the stop constraints\n",
                u.bootstrap
                    ? (std::to_string(u.resamples) + " resamples of " + std::to_string(u.cycles) + " input cycles")
                          .c_str()
                    : "the regression's covariance",
                u.check_window);
          }
        }
        print_report("extended SINDy", result.extended_sindy, config);
      }
    }
    const json& j = outcome.identified;
    if (j.contains("candidates")) {
      std::printf("  candidate laws by BIC (record noise %.3g m):\n",
                  j["ranking"]["noise_std"].is_number() ? j["ranking"]["noise_std"].get<double>() : std::nan(""));
      std::printf("    %-4s %-18s %3s %11s %10s %10s %8s %8s\n", "rank", "law", "p", "RMSE", "dBIC", "dAIC", "w(AIC)",
                  "white");
      std::vector<const json*> order;
      for (const json& c : j["candidates"]) order.push_back(&c);
      std::sort(order.begin(), order.end(),
                [](const json* a, const json* b) { return (*a)["rank"].get<int>() < (*b)["rank"].get<int>(); });
      const auto number = [](const json& v) { return v.is_number() ? v.get<double>() : std::nan(""); };
      for (const json* c : order)
        std::printf("    %-4d %-18s %3d %11.4g %10.4g %10.4g %8.3g %8s\n", (*c)["rank"].get<int>(),
                    (*c)["law"].get<std::string>().c_str(), (*c)["fitted"].get<int>(), number((*c)["rmse"]),
                    number((*c)["delta_bic"]), number((*c)["delta_aic"]), (*c)["akaike_weight"].get<double>(),
                    (*c)["white"].get<bool>() ? "yes" : "no");
    }
    for (const auto& w : j["warnings"]) std::printf("  warning: %s\n", w.get<std::string>().c_str());
    return kExitOk;
  });
}

}  // namespace fivsim::cli
