// src/identify/response_fits.cpp — the identifications that fit a simulated response to the record
// (identify/response_fits.hpp): a grey-box search of a scenario's numbers by output error (seed 002
// §3.3) and the PINN pair of seed 002 §4.3.
#include "fivsim/identify/response_fits.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/random.hpp"
#include "fivsim/identify/fit_intervals.hpp"
#include "fivsim/identify/greybox.hpp"

namespace fivsim {

// greybox nelder_mead / genetic / levenberg_marquardt: the scenario's numbers at the parameter
// paths, by output error
IdentificationResult identify_by_search(const IdentifyConfig& c, const Record& record) {
  const long n = static_cast<long>(c.parameters.size());
  Eigen::VectorXd x0(n), lo(n), hi(n);
  for (long i = 0; i < n; ++i) {
    x0(i) = c.parameters[i].initial;
    lo(i) = c.parameters[i].lo;
    hi(i) = c.parameters[i].hi;
  }
  if (!c.response) throw std::logic_error("greybox_search: the configuration has no response callback");
  const double m = static_cast<double>(record.size());
  // x − record; a failed simulation: NaN residuals, and +∞ as its mean squared error
  auto residual = [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
    const Eigen::VectorXd r = c.response(x, record, nullptr);
    return r.size() == record.size() ? Eigen::VectorXd(r - record.x)
                                     : Eigen::VectorXd::Constant(record.size(), std::nan(""));
  };
  auto objective = [&](const Eigen::VectorXd& x) {
    const Eigen::VectorXd r = residual(x);
    return r.allFinite() ? r.squaredNorm() / m : HUGE_VAL;
  };
  // the serial Nelder–Mead polls before each simulation, a batch before it runs (its simulations
  // run side by side, where nothing may throw)
  auto polled = [&](const Eigen::VectorXd& x) {
    if (c.poll) c.poll();
    return objective(x);
  };
  const bool lm = c.greybox_optimizer == "levenberg_marquardt";
  const bool by_sweeps = c.evaluate == "sweep" && (lm ? bool(c.population_residuals) : bool(c.population_error));
  // a batch of candidates: one sweep, or their simulations side by side on the cores
  const BatchObjective errors = [&](const Eigen::MatrixXd& pop) {
    if (c.poll) c.poll();
    if (by_sweeps) return c.population_error(pop, record);
    Eigen::VectorXd f(pop.cols());
#pragma omp parallel for schedule(dynamic)
    for (long j = 0; j < pop.cols(); ++j) f(j) = objective(pop.col(j));
    return f;
  };
  const BatchResiduals residuals = [&](const Eigen::MatrixXd& pop) {
    if (c.poll) c.poll();
    if (by_sweeps) return c.population_residuals(pop, record);
    Eigen::MatrixXd r(record.size(), pop.cols());
#pragma omp parallel for schedule(dynamic)
    for (long j = 0; j < pop.cols(); ++j) r.col(j) = residual(pop.col(j));
    return r;
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::string why;
  if (c.response(x0, record, &why).size() != record.size())
    throw InputError("/model/scenario", "does not simulate at the initial parameters: " + why);
  SearchResult s;
  if (c.greybox_optimizer == "genetic") {
    s = genetic_search(errors, lo, hi, c.population, c.generations, c.search_seed);
    if (c.polish) {
      const Eigen::VectorXd scale = 0.01 * (hi - lo);
      const SearchResult p = by_sweeps ? nelder_mead_simplices(errors, s.x, scale, lo, hi, c.max_iter_search)
                                       : nelder_mead(polled, s.x, scale, lo, hi, c.max_iter_search);
      s.iterations += p.iterations;
      s.evaluations += p.evaluations;
      s.batches += p.batches;
      if (p.f <= s.f) s.x = p.x, s.f = p.f;
    }
  } else if (lm) {
    s = levenberg_marquardt(residuals, x0, lo, hi, c.max_iter_search, c.fd_step);
  } else if (by_sweeps || c.simplices > 1) {
    // the initial values, and further starts drawn uniformly in the box
    Eigen::MatrixXd starts(n, c.simplices);
    starts.col(0) = x0;
    for (long k = 1; k < starts.cols(); ++k)
      for (long i = 0; i < n; ++i)
        starts(i, k) =
            lo(i) + unit_draw(c.search_seed, 0x6e6dULL, static_cast<std::uint64_t>(k * n + i)) * (hi(i) - lo(i));
    s = nelder_mead_simplices(errors, starts, 0.05 * (hi - lo), lo, hi, c.max_iter_search);
  } else {
    s = nelder_mead(polled, x0, 0.05 * (hi - lo), lo, hi, c.max_iter_search);
  }
  IdentificationResult out;
  out.record = record;
  out.greybox_search = true;
  // the intervals: the output error's covariance with its Jacobian at the fit, one more batch
  Eigen::VectorXd h;
  const Eigen::MatrixXd at_fit = residuals(difference_batch(s.x, lo, hi, c.fd_step, h));
  s.evaluations += n + 1;
  ++s.batches;
  const FitIntervals f = fit_intervals(difference_jacobian(at_fit, 0, h), at_fit.col(0));
  out.greybox.half_width = f.half_width;
  out.greybox.residual_rho1 = f.rho1;
  out.greybox.effective_samples = f.effective_samples;
  out.greybox.values = s.x;
  out.greybox.iterations = s.iterations;
  out.greybox.evaluations = s.evaluations;
  out.greybox.batches = s.batches;
  if (by_sweeps) out.greybox.evaluated_by = "sweeps";
  out.greybox.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.greybox.response = c.response(s.x, record, nullptr);
  out.greybox.rmse = std::sqrt(s.f);
  return out;
}

// pinn (seed 002 §4.3): the network pair for the torque of Eq. 23, φ̈1 by Savitzky–Golay from u̇
IdentificationResult identify_by_pinn(const IdentifyConfig& c, const Record& record) {
  if (!record.has_input()) throw InputError("/data", "pinn needs the input φ1 (column u): both networks take (t, φ1)");
  const PinnIdentifyData data{record.t, record.x, record.u, record_derivative(record.du, record, c)};
  IdentificationResult out;
  out.record = record;
  out.pinn = true;
  try {
    PinnIdentifyOptions options = c.pinn;
    options.poll = c.poll;
    out.pinn_result = pinn_identify(data, options);
  } catch (const std::invalid_argument& e) {
    throw InputError("/options/train_every", e.what());
  }
  if (record.has_friction()) {
    // inside the stencil: N2 is held to the balance from the second to the last-but-one training
    // sample (samples s and (m − 2)·s for m training samples every s)
    const long s = c.pinn.train_every, first = s, last = (out.pinn_result.training_samples - 2) * s;
    const Eigen::VectorXd truth = record.friction.segment(first, last - first + 1);
    const double scale = root_mean_square(truth);
    out.pinn_torque_error_percent =
        scale > 0.0 ? 100.0 * root_mean_square(out.pinn_result.tau.segment(first, last - first + 1) - truth) / scale
                    : HUGE_VAL;
  }
  return out;
}

}  // namespace fivsim
