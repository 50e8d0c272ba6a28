// src/identify/law_ranking.cpp — candidate laws ranked by information criteria, the record's
// noise floor and the residual's whiteness (identify/law_ranking.hpp).
#include "fivsim/identify/law_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fivsim {

void rank_candidates(std::vector<CandidateScore>& candidates) {
  double best_aic = HUGE_VAL, best_bic = HUGE_VAL;
  for (CandidateScore& c : candidates) {
    const double n = static_cast<double>(c.samples), p = static_cast<double>(c.parameters);
    const bool fitted = c.samples > 0 && std::isfinite(c.rss) && c.rss > 0.0;
    const double fit = fitted ? n * std::log(c.rss / n) : HUGE_VAL;
    c.aic = fit + 2.0 * p;
    c.bic = fit + p * std::log(std::max(n, 1.0));
    best_aic = std::min(best_aic, c.aic);
    best_bic = std::min(best_bic, c.bic);
  }
  double sum_aic = 0.0, sum_bic = 0.0;
  for (CandidateScore& c : candidates) {
    c.delta_aic = c.aic - best_aic;
    c.delta_bic = c.bic - best_bic;
    c.akaike_weight = std::isfinite(c.delta_aic) ? std::exp(-0.5 * c.delta_aic) : 0.0;
    c.bic_weight = std::isfinite(c.delta_bic) ? std::exp(-0.5 * c.delta_bic) : 0.0;
    sum_aic += c.akaike_weight;
    sum_bic += c.bic_weight;
  }
  for (CandidateScore& c : candidates) {
    if (sum_aic > 0.0) c.akaike_weight /= sum_aic;
    if (sum_bic > 0.0) c.bic_weight /= sum_bic;
    // 1 + the candidates with a lower BIC (ties share a rank)
    c.rank = 1 + static_cast<int>(std::count_if(candidates.begin(), candidates.end(),
                                                [&](const CandidateScore& o) { return o.bic < c.bic; }));
  }
}

double record_noise_std(const Eigen::VectorXd& x) {
  const long n = x.size();
  if (n < 5) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> d(static_cast<std::size_t>(n - 2));
  for (long i = 1; i + 1 < n; ++i) d[static_cast<std::size_t>(i - 1)] = std::fabs(x(i + 1) - 2.0 * x(i) + x(i - 1));
  const auto mid = d.begin() + static_cast<long>(d.size() / 2);
  std::nth_element(d.begin(), mid, d.end());
  // a normal variable's median absolute value is 0.6745 σ; the second difference's σ is √6 σ
  return *mid / (0.6744897501960817 * std::sqrt(6.0));
}

ResidualWhiteness residual_whiteness(const Eigen::VectorXd& residual) {
  ResidualWhiteness w;
  const long n = residual.size();
  w.samples = n;
  if (n < 3) return w;
  const double mean = residual.mean();
  const Eigen::VectorXd r = residual.array() - mean;
  const double rr = r.squaredNorm();
  w.rho1 = rr > 0.0 ? r.head(n - 1).dot(r.tail(n - 1)) / rr : 0.0;
  // the runs test: runs of one sign about the median, against their mean and variance for
  // n₊ and n₋ values of each sign in random order
  std::vector<double> sorted(residual.data(), residual.data() + n);
  const auto mid = sorted.begin() + n / 2;
  std::nth_element(sorted.begin(), mid, sorted.end());
  const double median = *mid;
  long plus = 0, minus = 0, runs = 0;
  int last = 0;
  for (long i = 0; i < n; ++i) {
    if (residual(i) == median) continue;
    const int sign = residual(i) > median ? 1 : -1;
    (sign > 0 ? plus : minus) += 1;
    if (sign != last) ++runs;
    last = sign;
  }
  const double np = static_cast<double>(plus), nm = static_cast<double>(minus), m = np + nm;
  if (plus > 0 && minus > 0 && m > 1.0) {
    const double expected = 2.0 * np * nm / m + 1.0;
    const double variance = 2.0 * np * nm * (2.0 * np * nm - m) / (m * m * (m - 1.0));
    w.runs_z = variance > 0.0 ? (static_cast<double>(runs) - expected) / std::sqrt(variance) : 0.0;
  }
  w.white = std::fabs(w.rho1) <= 3.0 / std::sqrt(static_cast<double>(n)) && std::fabs(w.runs_z) <= 3.0;
  return w;
}

std::vector<std::string> misfit_warnings(const std::string& what, double rmse, double noise_std,
                                         const ResidualWhiteness& w, double over_noise) {
  std::vector<std::string> out;
  char text[400];
  if (std::isfinite(rmse) && std::isfinite(noise_std) && noise_std > 0.0 && rmse > over_noise * noise_std) {
    std::snprintf(text, sizeof text,
                  "%s leaves a residual of RMS %.3g, %.1f times the record's noise (%.3g): the model misses "
                  "structure in the record",
                  what.c_str(), rmse, rmse / noise_std, noise_std);
    out.emplace_back(text);
  }
  // a residual below the record's noise (a clean record's numerical floor) says nothing of the model
  const bool below_noise = std::isfinite(rmse) && std::isfinite(noise_std) && rmse <= noise_std;
  if (!w.white && !below_noise) {
    std::snprintf(text, sizeof text,
                  "%s leaves a residual that is not white (lag-1 autocorrelation %.3f, runs test z = %.1f over %ld "
                  "samples): its intervals assume what the residual is not",
                  what.c_str(), w.rho1, w.runs_z, w.samples);
    out.emplace_back(text);
  }
  return out;
}

std::vector<std::string> equation_warnings(const std::string& what, double rms, double expected, long samples,
                                           double over) {
  if (!(std::isfinite(rms) && std::isfinite(expected) && rms > over * expected)) return {};
  char text[400];
  std::snprintf(text, sizeof text,
                "%s leaves an acceleration residual of RMS %.3g over the %ld samples it must hold on, %.1f times what "
                "the record's noise and the derivative filter leave (%.3g): the equation misses structure in the "
                "record, and its intervals do not hold",
                what.c_str(), rms, samples, rms / expected, expected);
  return {text};
}

}  // namespace fivsim
