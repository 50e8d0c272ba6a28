// src/cli/identify_batch.cpp — `fivsim identify` on a config with a `sweep` block: one
// identification per case (the config with the case's numbers written at their JSON pointers,
// batch/sweep_spec.hpp), e.g. the seed 003 noise study (Table 6) or a record per generating
// frequency, friction level or noise seed. Writes identifications.csv (a row per case: its swept
// numbers, status and the method's identified numbers) and summary.json. Every case's config is
// checked before the first runs (a bad one exits 2 naming the case and pointer); a case whose
// record or identification fails at run time is flagged in its row and the others go on.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "fivsim/batch/sweep_spec.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {
namespace {

using Field = std::pair<std::string, double>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr long kMaxIdentifications = 100000;

// a CSV text field in double quotes (inner quotes doubled, line breaks as spaces): error messages
// hold commas
std::string csv_text(const std::string& text) {
  std::string q = "\"";
  for (char ch : text) {
    if (ch == '"')
      q += "\"\"";
    else
      q += ch == '\n' || ch == '\r' ? ' ' : ch;
  }
  return q + "\"";
}

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

int identify_batch(const json& doc, const IdentifyArgs& args) {
  const std::string base_dir = std::filesystem::path(args.config).parent_path().string();
  SweepSpec spec;
  std::vector<IdentifyConfig> configs;
  std::vector<std::vector<double>> values;
  try {
    spec = parse_sweep(doc);
    const long n = spec.n_cases();
    // each case's config is held until its turn
    if (n > kMaxIdentifications)
      throw InputError("/sweep", "a batch holds at most " + std::to_string(kMaxIdentifications) +
                                     " identifications, this one " + std::to_string(n));
    configs.reserve(static_cast<std::size_t>(n));
    values.resize(static_cast<std::size_t>(n));
    // every case's config is checked before the first identification runs
    for (long i = 0; i < n; ++i) {
      spec.case_values(i, values[static_cast<std::size_t>(i)]);
      json case_doc = doc;
      apply_sweep_values(spec, values[static_cast<std::size_t>(i)], case_doc);
      try {
        configs.push_back(parse_identify_config(case_doc, base_dir));
      } catch (const InputError& e) {
        throw InputError(e.pointer, "(sweep case " + std::to_string(i) + ") " + e.rule);
      }
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim identify: %s\n", e.what());
    return kExitBadInput;
  }

  const IdentifyConfig& first = configs.front();
  const long n = static_cast<long>(configs.size());
  try {
    std::vector<std::filesystem::path> inputs;
    for (const IdentifyConfig& c : configs)
      for (std::filesystem::path& p : identify_inputs(args.config, c)) inputs.push_back(std::move(p));
    StagedDirectory dir(output_folder(args.out, first.name), std::move(inputs));
    CsvWriter csv(dir.file("identifications.csv"));
    csv.field("case");
    for (const auto& p : spec.parameters) csv.field(p.path.c_str());
    for (const char* h : {"status", "samples", "wall_s"}) csv.field(h);
    for (const Field& f : result_fields(first, nullptr)) csv.field(f.first.c_str());
    csv.field("message");
    csv.end_row();

    ProgressLine progress(true, static_cast<double>(n), "identifications", "", "identifications/s");
    const Clock::time_point t0 = Clock::now();
    std::map<std::string, long> statuses;
    for (long i = 0; i < n; ++i) {
      const IdentifyConfig& c = configs[static_cast<std::size_t>(i)];
      const Clock::time_point tc = Clock::now();
      std::string message;
      long samples = 0;
      std::vector<Field> fields;
      try {
        const Record record = identification_record(c);
        samples = record.size();
        const IdentificationResult result = identify(c, record);
        fields = result_fields(c, &result);
      } catch (const std::exception& e) {
        // a failing case is flagged in its row; the others go on
        message = e.what();
        fields = result_fields(c, nullptr);
      }
      const char* status = message.empty() ? "ok" : "failed";
      ++statuses[status];
      csv.field(static_cast<double>(i));
      for (double v : values[static_cast<std::size_t>(i)]) csv.field(v);
      csv.field(status);
      csv.field(static_cast<double>(samples));
      csv.field(seconds_since(tc));
      for (const Field& f : fields) csv.field(f.second);
      csv.field(csv_text(message).c_str());
      csv.end_row();
      progress.update(static_cast<double>(i + 1), static_cast<double>(i + 1));
    }
    progress.done();
    csv.close();
    const double wall = seconds_since(t0);
    json summary = {{"name", first.name}, {"method", first.method}, {"cases", n},
                    {"status", statuses}, {"wall_s", wall},         {"config", doc}};
    write_json_file(dir.file("summary.json"), summary);
    dir.commit();
    std::printf("identify %s (%s): %ld identifications in %.3g s -> %s\n", first.name.c_str(), first.method.c_str(), n,
                wall, dir.final_path().c_str());
    for (const auto& [name, count] : statuses) std::printf("  %-8s %ld\n", name.c_str(), count);
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
