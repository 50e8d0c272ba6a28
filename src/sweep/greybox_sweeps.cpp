// src/sweep/greybox_sweeps.cpp — grey-box populations as sweeps (sweep/greybox_sweeps.hpp).
#include "fivsim/sweep/greybox_sweeps.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "fivsim/core/input_error.hpp"

namespace fivsim::sweep {
namespace {

const std::vector<double>& column_of(const SweepTables& tables, const std::string& name) {
  const int c = tables.cases_schema.column(name);
  if (c < 0) throw std::logic_error("greybox sweep: no column " + name);
  return tables.cases[static_cast<std::size_t>(c)];
}

}  // namespace

void score_populations_by_sweeps(IdentifyConfig& config, SweepDevice device, int threads) {
  if (config.method != "greybox" || config.parameters.empty() || !config.greybox_model.is_object()) return;
  nlohmann::json base = config.greybox_model;
  // the response only: statistics, files and a sweep of the model's own play no part
  base.erase("analysis");
  base.erase("output");
  base.erase("sweep");
  std::vector<std::string> paths;
  for (const GreyboxParameter& p : config.parameters) paths.push_back(p.path);
  // one sweep of the candidates (zip over the parameters' paths) on the record's time grid
  const auto sweep = [base, paths, device, threads](const Eigen::MatrixXd& candidates, const Record& record,
                                                    bool keep_residuals) {
    nlohmann::json doc = base;
    // step k of the sweep is sample k
    doc["integrator"]["dt"] = record.sample_dt();
    doc["integrator"]["t_end"] = record.t(record.size() - 1) - record.t(0);
    doc["analysis"] = {
        {"observers", nlohmann::json::array({"rms"})},
        {"reference", {{"dof", 0}, {"values", std::vector<double>(record.x.data(), record.x.data() + record.size())}}}};
    doc["output"] = {{"timeseries", false}, {"points", false}};
    nlohmann::json parameters = nlohmann::json::array();
    for (std::size_t k = 0; k < paths.size(); ++k) {
      const Eigen::VectorXd row = candidates.row(static_cast<long>(k)).transpose();
      parameters.push_back({{"path", paths[k]}, {"values", std::vector<double>(row.data(), row.data() + row.size())}});
    }
    doc["sweep"] = {{"mode", "zip"}, {"parameters", parameters}};
    SweepTables tables;
    SweepOptions options;
    options.device = device;
    options.threads = threads;
    options.tables = &tables;
    options.keep_residuals = keep_residuals;
    Ranks ranks;
    try {
      run_sweep(doc, options, ranks);
    } catch (const InputError& e) {
      throw InputError("/model/parameters", std::string("the sweep engine cannot score these candidates (") + e.what() +
                                                "); options.evaluate \"simulations\" runs them one by one");
    }
    return tables;
  };
  const auto ok = [](const SweepTables& tables, long j) {
    return column_of(tables, "status")[static_cast<std::size_t>(j)] == static_cast<double>(Status::ok);
  };
  config.population_error = [sweep, ok](const Eigen::MatrixXd& candidates, const Record& record) {
    const SweepTables tables = sweep(candidates, record, false);
    const std::vector<double>& rmse = column_of(tables, "output_rmse");
    // the mean squared output error; a case that failed scores +∞ (the serial search's rule)
    Eigen::VectorXd f(candidates.cols());
    for (long j = 0; j < f.size(); ++j) {
      const double e = rmse[static_cast<std::size_t>(j)];
      f(j) = ok(tables, j) && std::isfinite(e) ? e * e : HUGE_VAL;
    }
    return f;
  };
  config.population_residuals = [sweep, ok](const Eigen::MatrixXd& candidates, const Record& record) {
    const SweepTables tables = sweep(candidates, record, true);
    // x − record per case; a case that failed: NaN throughout (the serial search's rule)
    Eigen::MatrixXd r(record.size(), candidates.cols());
    for (long j = 0; j < r.cols(); ++j) {
      const std::vector<double>& e = tables.residuals[static_cast<std::size_t>(j)];
      r.col(j) = ok(tables, j) ? Eigen::Map<const Eigen::VectorXd>(e.data(), record.size()).eval()
                               : Eigen::VectorXd::Constant(record.size(), std::nan(""));
    }
    return r;
  };
}

}  // namespace fivsim::sweep
