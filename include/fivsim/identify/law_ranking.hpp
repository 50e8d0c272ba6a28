// fivsim/identify/law_ranking.hpp — which candidate friction law a record supports, and whether
// the best one fits (docs/IDENTIFY.md "Choosing the law"). Each candidate's output-error fit
// (identify/greybox.hpp) leaves a residual sum of squares over the record's n samples; with its p
// fitted numbers, AIC = n ln(RSS/n) + 2p and BIC = n ln(RSS/n) + p ln n (Gaussian residuals of one
// variance, its maximum-likelihood estimate RSS/n; Akaike 1974, Schwarz 1978), their differences
// from the best and the weights exp(−Δ/2) normalised (Burnham & Anderson 2002, §2.9). The record's
// own noise (a robust scale of its second differences, which white noise of variance σ² gives
// variance 6σ²) is the floor a right law's residual reaches; a residual well above it, or one that
// is not white (lag-1 autocorrelation, the runs test on its signs: Wald & Wolfowitz 1940), says
// the law leaves structure in the record.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace fivsim {

// one fitted candidate, filled by the caller (name, parameters, samples, rss) and scored by
// rank_candidates
struct CandidateScore {
  std::string name;
  int parameters = 0;  // the numbers fitted
  long samples = 0;
  double rss = 0.0;  // the residual sum of squares (+∞: the fit failed)
  double aic = 0.0, bic = 0.0;
  double delta_aic = 0.0, delta_bic = 0.0;       // from the best candidate's
  double akaike_weight = 0.0, bic_weight = 0.0;  // exp(−Δ/2), normalised over the candidates
  int rank = 0;                                  // by BIC, 1 the best
};

// the criteria, their differences, weights and ranks of every candidate
void rank_candidates(std::vector<CandidateScore>& candidates);

// the standard deviation of a record's white measurement noise from its samples alone: the
// median absolute second difference over 0.6745·√6 (a smooth signal's second differences are
// O(dt²); the median ignores the few at stick-slip kinks). NaN for fewer than 5 samples
double record_noise_std(const Eigen::VectorXd& x);

// whether a residual series is white: its lag-1 autocorrelation and the runs test's z on its
// signs (about N(0, 1) for white residuals; a residual that wanders has far fewer runs)
struct ResidualWhiteness {
  double rho1 = 0.0;
  double runs_z = 0.0;
  long samples = 0;
  bool white = true;  // |ρ₁| ≤ 3/√n and |z| ≤ 3
};
ResidualWhiteness residual_whiteness(const Eigen::VectorXd& residual);

// what a fit's residual says of the model, empty where nothing: its RMS against the record's
// noise (more than `over_noise` times it: the law leaves structure), and its whiteness where it
// is not below the noise (a clean record's residual is the solvers' smooth error). `what` names
// the fit ("the best law, stribeck_exp, …")
std::vector<std::string> misfit_warnings(const std::string& what, double rmse, double noise_std,
                                         const ResidualWhiteness& w, double over_noise = 1.5);

// what an equation-error fit's residual says of its equation: an ẋ2 residual of RMS `rms` over
// `samples` more than `over` times what a right equation leaves there (`expected`: the record's
// noise through the derivative filter and the filter's bias) — empty where not
std::vector<std::string> equation_warnings(const std::string& what, double rms, double expected, long samples,
                                           double over = 2.0);

}  // namespace fivsim
