// src/analysis/stability.cpp — the linearised sliding system and its eigenvalues
// (analysis/stability.hpp).
#include "fivsim/analysis/stability.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace fivsim {

SlidingLinearization linearize_sliding(const ModelDescription& d) {
  // a dynamic law's steady sliding involves its bristle states; its static stand-in would mislead
  if (d.has_dynamic_friction())
    throw ModelError("the linearisation covers static friction laws; dahl, lugre and gms are not linearised");
  const int n = d.dof();
  SlidingLinearization L;
  L.K_eff = d.K;
  L.C_eff = d.C;
  // static load: f0, and f_cos when there is no forcing frequency (cos 0 = 1)
  Eigen::VectorXd load = d.f0 + (d.omega == 0.0 ? d.f_cos : Eigen::VectorXd::Zero(n));
  std::vector<double> slope(d.n_contacts(), 0.0);
  std::vector<std::string> resting;
  for (int i = 0; i < d.n_contacts(); ++i) {
    const auto& c = d.contacts[i];
    if (c.kind == ContactKind::given_normal && !(c.Fn > 0.0)) continue;
    if (c.v_surface == 0.0) {
      resting.push_back(std::to_string(i));
      if (c.kind == ContactKind::spring) {
        L.K_eff += c.k_c * c.w_N * c.w_N.transpose();
        load -= c.k_c * c.gap0 * c.w_N;
      } else {
        load += c.Fn * c.w_N;
      }
      continue;
    }
    // slip− on a surface moving in +w_T: the body is slower than the surface
    const double v = std::abs(c.v_surface);
    const double s = c.v_surface > 0 ? 1.0 : -1.0;
    const double mu = friction_magnitude(c.law, -s * v);
    // μ'(|γ|) by a central difference, small against the curve's own scale
    const double h = 1e-6 * std::max(v, 1e-3);
    slope[i] = (friction_magnitude(c.law, -s * (v + h)) - friction_magnitude(c.law, -s * (v - h))) / (2 * h);
    const Eigen::VectorXd dir = c.w_N + s * mu * c.w_T;
    if (c.kind == ContactKind::spring) {
      L.K_eff += c.k_c * dir * c.w_N.transpose();
      load -= c.k_c * c.gap0 * dir;
    } else {
      load += c.Fn * dir;
    }
  }
  L.q_equilibrium = L.K_eff.fullPivLu().solve(load);
  L.normal_force.setZero(d.n_contacts());
  for (int i = 0; i < d.n_contacts(); ++i) {
    const auto& c = d.contacts[i];
    L.normal_force(i) = c.kind == ContactKind::spring ? -c.k_c * (c.w_N.dot(L.q_equilibrium) + c.gap0) : c.Fn;
    if (c.kind == ContactKind::spring && !(L.normal_force(i) > 0.0)) L.consistent = false;
    if (slope[i] != 0.0) L.C_eff += slope[i] * L.normal_force(i) * c.w_T * c.w_T.transpose();
  }
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  A.topRightCorner(n, n).setIdentity();
  const Eigen::MatrixXd Minv = d.M.llt().solve(Eigen::MatrixXd::Identity(n, n));
  A.bottomLeftCorner(n, n) = -Minv * L.K_eff;
  A.bottomRightCorner(n, n) = -Minv * L.C_eff;
  Eigen::VectorXcd ev = A.eigenvalues();
  std::vector<std::complex<double>> sorted(ev.data(), ev.data() + ev.size());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.imag() != b.imag() ? a.imag() > b.imag() : a.real() > b.real();
  });
  L.eigenvalues = Eigen::Map<Eigen::VectorXcd>(sorted.data(), static_cast<Eigen::Index>(sorted.size()));
  L.max_real = -std::numeric_limits<double>::infinity();
  for (const auto& z : sorted) L.max_real = std::max(L.max_real, z.real());
  if (!resting.empty()) {
    L.note = "contact(s)";
    for (const auto& r : resting) L.note += " " + r;
    L.note += " rest on a still surface (v_surface = 0): no steady sliding there, friction left out";
  }
  if (!L.consistent)
    L.note += std::string(L.note.empty() ? "" : "; ") + "a spring contact is open at the sliding equilibrium";
  return L;
}

double locate_crossing(const std::function<double(double)>& max_real_at, double a, double b, double xtol) {
  double lo = a, hi = b;
  if (!(max_real_at(hi) > 0.0) || max_real_at(lo) > 0.0) return std::numeric_limits<double>::quiet_NaN();
  while (hi - lo > xtol) {
    const double mid = 0.5 * (lo + hi);
    (max_real_at(mid) > 0.0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace fivsim
