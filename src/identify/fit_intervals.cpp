// src/identify/fit_intervals.cpp — covariance intervals of a least-squares fit
// (identify/fit_intervals.hpp).
#include "fivsim/identify/fit_intervals.hpp"

#include <algorithm>
#include <cmath>

namespace fivsim {

FitIntervals fit_intervals(const Eigen::MatrixXd& J, const Eigen::VectorXd& r, double z) {
  FitIntervals out;
  const long m = r.size(), p = J.cols();
  out.half_width = Eigen::VectorXd::Constant(p, std::nan(""));
  if (J.rows() != m || m < p + 2 || p == 0) return out;
  const double rr = r.squaredNorm();
  const double lag1 = r.head(m - 1).dot(r.tail(m - 1));
  out.rho1 = rr > 0.0 ? std::clamp(lag1 / rr, 0.0, 1.0) : 0.0;
  const double md = static_cast<double>(m);
  out.effective_samples = std::clamp(md * (1.0 - out.rho1) / (1.0 + out.rho1), static_cast<double>(p + 1), md);
  // σ² with the effective count: the sum of squares carries m samples' worth of scatter, the
  // covariance only m_eff independent ones
  const double sigma2 = rr / (md - static_cast<double>(p)) * md / out.effective_samples;
  const Eigen::MatrixXd JtJ = J.transpose() * J;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(JtJ);
  if (!lu.isInvertible()) return out;
  const Eigen::VectorXd var = (sigma2 * lu.inverse()).diagonal();
  for (long i = 0; i < p; ++i) out.half_width(i) = z * std::sqrt(std::max(0.0, var(i)));
  out.ok = true;
  return out;
}

}  // namespace fivsim
