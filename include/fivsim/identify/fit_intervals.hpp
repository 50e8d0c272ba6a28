// fivsim/identify/fit_intervals.hpp — 95 % intervals of a least-squares fit from its covariance
// (the "regression's covariance" of docs/IDENTIFY.md): the p coefficients of min ‖r‖² with
// Jacobian J — the regression matrix of a SINDy row's active terms (seed 003 Eq. 12 over the
// samples it was fitted on), or the finite-difference Jacobian of an output-error search (seed 002
// §3.3) — vary as σ²(JᵀJ)⁻¹, σ² = ‖r‖²/(m − p), if the m residuals are independent. A record's
// residuals are not: the derivative filter spreads each sample's noise over its window and an
// output error wanders slowly. So σ² is scaled by m/m_eff with m_eff = m(1 − ρ₁)/(1 + ρ₁), the
// effective sample count of an AR(1) series whose lag-1 autocorrelation ρ₁ (≥ 0) the residuals
// have (kept within [p + 1, m]).
#pragma once

#include <Eigen/Dense>

namespace fivsim {

struct FitIntervals {
  Eigen::VectorXd half_width;  // per coefficient: z·√(variance), z = 1.96 for 95 %
  double rho1 = 0.0;           // the residuals' lag-1 autocorrelation, clipped at 0
  double effective_samples = 0.0;
  bool ok = false;  // false: fewer residuals than p + 1, or JᵀJ singular (half widths NaN)
};

// residuals r in sample order (their autocorrelation is taken along it)
FitIntervals fit_intervals(const Eigen::MatrixXd& J, const Eigen::VectorXd& r, double z = 1.959963984540054);

}  // namespace fivsim
