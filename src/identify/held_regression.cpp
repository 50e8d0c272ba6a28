// src/identify/held_regression.cpp — the slip regression held by the stop samples
// (identify/held_regression.hpp; seed 003 Eqs. 12 and 16).
#include "fivsim/identify/held_regression.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fivsim {
namespace {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

// a basis of the directions the working set's rows leave free (identity without rows, no columns
// when they pin all three unknowns)
Eigen::MatrixXd free_directions(const std::vector<Vec3>& rows) {
  if (rows.empty()) return Mat3::Identity();
  Eigen::MatrixXd A(static_cast<long>(rows.size()), 3);
  for (std::size_t i = 0; i < rows.size(); ++i) A.row(static_cast<long>(i)) = rows[i].transpose();
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
  return lu.rank() >= 3 ? Eigen::MatrixXd(3, 0) : Eigen::MatrixXd(lu.kernel());
}

// the equality-constrained step: min ½ pᵀHp + gᵀp subject to A_W p = 0, in the free directions Z
Vec3 constrained_step(const Mat3& H, const Vec3& g, const std::vector<Vec3>& rows) {
  const Eigen::MatrixXd Z = free_directions(rows);
  if (Z.cols() == 0) return Vec3::Zero();
  const Eigen::MatrixXd Hz = Z.transpose() * H * Z;
  const Eigen::VectorXd pz = Hz.ldlt().solve(-Z.transpose() * g);
  return Z * pz;
}

}  // namespace

HeldRegression held_regression(const BoundSamples& stop, const BoundSamples& slip, const double* slack) {
  HeldRegression out;
  out.samples = slip.n;
  if (slip.n < 4) return out;
  // the slip rows [u − x1, u̇ − x2, −sgn x2] · (k, c, F) = ẋ2, scaled so that each column has unit rms
  Eigen::MatrixXd J(slip.n, 3);
  Eigen::VectorXd y(slip.n);
  for (long l = 0; l < slip.n; ++l) {
    J(l, 0) = slip.u[l] - slip.x1[l];
    J(l, 1) = slip.du[l] - slip.x2[l];
    J(l, 2) = slip.x2[l] > 0 ? -1.0 : (slip.x2[l] < 0 ? 1.0 : 0.0);
    y(l) = slip.dx2[l];
  }
  Vec3 scale;
  for (int j = 0; j < 3; ++j) {
    const double rms = std::sqrt(J.col(j).squaredNorm() / static_cast<double>(slip.n));
    scale(j) = rms > 0 ? 1.0 / rms : 1.0;
  }
  const Eigen::MatrixXd Js = J * scale.asDiagonal();
  const Mat3 H = Js.transpose() * Js;
  const Vec3 b = Js.transpose() * y;
  if (Eigen::FullPivLU<Mat3>(H).rank() < 3) return out;
  // objective ½θᵀHθ − bᵀθ on the scaled unknowns θ = (k, c, F) / scale
  const auto gradient = [&](const Vec3& theta) -> Vec3 { return H * theta - b; };

  // the stop constraints as rows a·θ ≥ −δ on the scaled unknowns (k, c, F) = scale ∘ θ:
  // F − k a − c u̇ ≥ −δ and F + k a + c u̇ ≥ −δ (a = u − x1)
  const long m = 2 * stop.n;
  const auto row = [&](long i) -> Vec3 {
    const long s = i / 2;
    const double sign = (i % 2 == 0) ? -1.0 : 1.0;
    return Vec3(sign * (stop.u[s] - stop.x1[s]) * scale(0), sign * stop.du[s] * scale(1), scale(2));
  };
  const auto bound = [&](long i) { return slack ? -slack[i / 2] : 0.0; };

  // start: the slip fit; when it leaves a stop sample unheld, F raised until every one is held
  Vec3 theta = H.ldlt().solve(b);
  double worst = 0.0;
  for (long i = 0; i < m; ++i) worst = std::min(worst, row(i).dot(theta) - bound(i));
  if (worst < 0.0) theta(2) += -worst / scale(2);

  std::vector<long> working;
  std::vector<Vec3> rows;
  const double tol = 1e-12 * std::max(1.0, theta.norm());
  for (out.iterations = 1; out.iterations <= 100; ++out.iterations) {
    const Vec3 g = gradient(theta);
    const Vec3 p = constrained_step(H, g, rows);
    if (p.norm() <= tol) {
      // the multipliers of the working set: g = Σ λ_i a_i; a negative one leaves
      if (rows.empty()) break;
      Eigen::MatrixXd A(3, static_cast<long>(rows.size()));
      for (std::size_t i = 0; i < rows.size(); ++i) A.col(static_cast<long>(i)) = rows[i];
      const Eigen::VectorXd lambda = A.colPivHouseholderQr().solve(g);
      long leave = -1;
      double most = -1e-12;
      for (long i = 0; i < lambda.size(); ++i)
        if (lambda(i) < most) most = lambda(i), leave = i;
      if (leave < 0) break;
      working.erase(working.begin() + leave);
      rows.erase(rows.begin() + leave);
      continue;
    }
    // the longest step along p that keeps every constraint outside the working set
    double alpha = 1.0;
    long blocking = -1;
    for (long i = 0; i < m; ++i) {
      if (std::find(working.begin(), working.end(), i) != working.end()) continue;
      const Vec3 a = row(i);
      const double ap = a.dot(p);
      if (ap >= 0.0) continue;
      const double room = std::max(0.0, a.dot(theta) - bound(i)) / -ap;
      if (room < alpha) alpha = room, blocking = i;
    }
    theta += alpha * p;
    if (blocking >= 0 && rows.size() < 3) {
      working.push_back(blocking);
      rows.push_back(row(blocking));
    }
  }
  out.active = static_cast<int>(working.size());
  const Vec3 unscaled = theta.cwiseProduct(scale);
  out.k = unscaled(0);
  out.c = unscaled(1);
  out.F = unscaled(2);
  out.rss = (y - J * unscaled).squaredNorm();
  // σ² (JᵀJ)⁻¹ restricted to the directions the active constraints leave free
  const double sigma2 = slip.n > 3 ? out.rss / static_cast<double>(slip.n - 3) : 0.0;
  Mat3 cov_scaled = Mat3::Zero();
  const Eigen::MatrixXd Z = free_directions(rows);
  if (Z.cols() > 0) cov_scaled = sigma2 * Z * (Z.transpose() * H * Z).inverse() * Z.transpose();
  out.covariance = scale.asDiagonal() * cov_scaled * scale.asDiagonal();
  out.ok = true;
  return out;
}

}  // namespace fivsim
