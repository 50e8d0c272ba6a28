// src/app/identify_batch.cpp — one identification per case of a config's sweep block
// (app/identify_batch.hpp).
#include "fivsim/app/identify_batch.hpp"
#include "fivsim/core/stopwatch.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fivsim/app/identify_run.hpp"

namespace fivsim {
namespace {

using Field = std::pair<std::string, double>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// (k, c, F), the response RMSE and, with a truth, the errors in percent; NaN without a report
void sdof_fields(const std::string& prefix, const SindyReport* r, const IdentifyConfig& c, std::vector<Field>& out) {
  out.push_back({prefix + "_k", r ? r->parameters.k : kNaN});
  out.push_back({prefix + "_c", r ? r->parameters.c : kNaN});
  out.push_back({prefix + "_F", r ? r->parameters.F : kNaN});
  out.push_back({prefix + "_rmse", r && r->response.finite ? r->response.rmse : kNaN});
  if (!c.truth) return;
  const SdofParameters e = r ? relative_errors_percent(r->parameters, *c.truth) : SdofParameters{kNaN, kNaN, kNaN};
  out.push_back({prefix + "_error_k_percent", e.k});
  out.push_back({prefix + "_error_c_percent", e.c});
  out.push_back({prefix + "_error_F_percent", e.F});
}

// the identified numbers of one case, named; the names depend on the config alone (its method,
// optimizer, truth and fitted parameters), so a failed case (r null) gets the same columns as NaN
std::vector<Field> result_fields(const IdentifyConfig& c, const IdentificationResult* r) {
  std::vector<Field> out;
  if (c.method == "pinn") {
    const PinnIdentifyResult* p = r ? &r->pinn_result : nullptr;
    out = {{"J1", p ? p->J1 : kNaN},
           {"J2", p ? p->J2 : kNaN},
           {"c", p ? p->c : kNaN},
           {"k", p ? p->k : kNaN},
           {"pinn_rmse", p ? p->rmse : kNaN},
           {"pinn_loss", p ? p->loss : kNaN},
           {"torque_error_percent", r ? r->pinn_torque_error_percent : kNaN}};
  } else if (c.method == "greybox" && !c.parameters.empty()) {
    for (std::size_t k = 0; k < c.parameters.size(); ++k) {
      const GreyboxParameter& p = c.parameters[k];
      const double v = r ? r->greybox.values(static_cast<long>(k)) : kNaN;
      out.push_back({p.path, v});
      if (std::isfinite(p.truth)) {
        out.push_back({"truth " + p.path, p.truth});
        out.push_back({"error_percent " + p.path, relative_error_percent(v, p.truth)});
      }
    }
    out.push_back({"greybox_rmse", r && r->greybox.response.size() ? r->greybox.rmse : kNaN});
    out.push_back({"greybox_evaluations", r ? static_cast<double>(r->greybox.evaluations) : kNaN});
  } else if (c.method == "greybox") {
    sdof_fields("greybox", r ? &r->sindy : nullptr, c, out);
  } else if (c.method == "joint_terms") {
    out.push_back({"joint_terms_rmse", r && r->sindy.response.finite ? r->sindy.response.rmse : kNaN});
  } else {
    sdof_fields("sindy", r ? &r->sindy : nullptr, c, out);
    if (c.method == "extended_sindy") {
      // no stop samples: extended SINDy is SINDy (its columns repeat SINDy's)
      sdof_fields("extended", r ? &r->extended_sindy : nullptr, c, out);
      out.push_back({"n_stop", r ? static_cast<double>(r->n_stop) : kNaN});
      out.push_back({"n_slip", r ? static_cast<double>(r->n_slip) : kNaN});
      const bool bounds = r && !r->converges_to_sindy;
      out.push_back({"k_star", bounds ? r->bounds.k_star : kNaN});
      out.push_back({"c_star", bounds ? r->bounds.c_star : kNaN});
      out.push_back({"F_star", bounds ? r->bounds.F_star : kNaN});
    }
  }
  return out;
}

}  // namespace

IdentifyBatch plan_identify_batch(const nlohmann::json& doc, const std::string& config_file,
                                  const std::string& base_dir) {
  IdentifyBatch out;
  out.document = doc;
  out.spec = parse_sweep(doc);
  // a batch's table holds one fit a case: candidate laws rank several
  if (doc.contains("candidates"))
    throw InputError("/candidates",
                     "ranks several laws in one identification; a batch (a sweep block) fits one "
                     "law a case: give each its model's /friction instead");
  const long n = out.spec.n_cases();
  // each case's config is held until its turn
  if (n > kMaxIdentifications)
    throw InputError("/sweep", "a batch holds at most " + std::to_string(kMaxIdentifications) +
                                   " identifications, this one " + std::to_string(n));
  out.configs.reserve(static_cast<std::size_t>(n));
  out.values.resize(static_cast<std::size_t>(n));
  // every case's config is checked before the first identification runs
  for (long i = 0; i < n; ++i) {
    std::vector<double>& values = out.values[static_cast<std::size_t>(i)];
    out.spec.case_values(i, values);
    nlohmann::json case_doc = doc;
    apply_sweep_values(out.spec, values, case_doc);
    try {
      out.configs.push_back(parse_identify_config(case_doc, base_dir));
    } catch (const InputError& e) {
      throw InputError(e.pointer, "(sweep case " + std::to_string(i) + ") " + e.rule);
    }
    for (std::filesystem::path& p : identify_inputs(config_file, out.configs.back()))
      out.inputs.push_back(std::move(p));
  }
  return out;
}

IdentifyBatchResult run_identify_batch(const IdentifyBatch& batch, const std::function<void(long, long)>& progress) {
  const IdentifyConfig& first = batch.configs.front();
  const long n = static_cast<long>(batch.configs.size());
  std::vector<double> index(static_cast<std::size_t>(n)), samples(index.size()), wall(index.size());
  std::vector<std::vector<double>> swept(batch.spec.parameters.size(), std::vector<double>(index.size()));
  const std::vector<Field> names = result_fields(first, nullptr);
  std::vector<std::vector<double>> fields(names.size(), std::vector<double>(index.size()));
  std::vector<std::string> statuses(index.size()), messages(index.size());
  std::map<std::string, long> counts;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const auto tc = std::chrono::steady_clock::now();
    std::vector<Field> found;
    try {
      IdentifyConfig c = batch.configs[k];
      // a grey-box case's batches of candidates as sweeps, as a single identification's
      score_populations_on_options_device(c);
      const Record record = identification_record(c);
      samples[k] = static_cast<double>(record.size());
      const IdentificationResult result = identify(c, record);
      found = result_fields(c, &result);
    } catch (const std::exception& e) {
      // a failing case is flagged in its row; the others go on
      messages[k] = e.what();
      found = result_fields(batch.configs[k], nullptr);
    }
    index[k] = static_cast<double>(i);
    for (std::size_t p = 0; p < swept.size(); ++p) swept[p][k] = batch.values[k][p];
    statuses[k] = messages[k].empty() ? "ok" : "failed";
    ++counts[statuses[k]];
    wall[k] = seconds_since(tc);
    for (std::size_t f = 0; f < found.size() && f < fields.size(); ++f) fields[f][k] = found[f].second;
    if (progress) progress(i + 1, n);
  }
  IdentifyBatchResult out;
  out.table.add("case", std::move(index));
  for (std::size_t p = 0; p < swept.size(); ++p) out.table.add(batch.spec.parameters[p].path, std::move(swept[p]));
  out.table.add_text("status", std::move(statuses));
  out.table.add("samples", std::move(samples));
  out.table.add("wall_s", std::move(wall));
  for (std::size_t f = 0; f < names.size(); ++f) out.table.add(names[f].first, std::move(fields[f]));
  out.table.add_text("message", std::move(messages));
  out.summary = {{"name", first.name}, {"method", first.method},      {"cases", n},
                 {"status", counts},   {"wall_s", seconds_since(t0)}, {"config", batch.document}};
  return out;
}

}  // namespace fivsim
