// src/identify/extended_sindy.cpp — stick/slip segregation and bound surfaces
// (identify/extended_sindy.hpp; seed 003 Eqs. 15–20).
#include "fivsim/identify/extended_sindy.hpp"

#include <chrono>
#include <cmath>
#include <limits>

namespace fivsim {

Segregation segregate_stick_slip(const Eigen::VectorXd& x2, double v_stop, double v_slip) {
  Segregation s;
  for (long i = 0; i < x2.size(); ++i) {
    const double a = std::abs(x2(i));
    if (a <= v_stop)
      s.stop.push_back(i);
    else if (a > v_slip)
      s.slip.push_back(i);
  }
  return s;
}

BoundSurfaces stick_slip_bounds(const BoundSamples& stop, const BoundSamples& slip, const GridAxis& k,
                                const GridAxis& c) {
  const auto t0 = std::chrono::steady_clock::now();
  BoundSurfaces b;
  b.k = k;
  b.c = c;
  b.phi1.resize(k.n, c.n);
  b.phi2.resize(k.n, c.n);
  const long points = static_cast<long>(k.n) * c.n;
#pragma omp parallel for schedule(static)
  for (long p = 0; p < points; ++p) {
    const int i = static_cast<int>(p / c.n), j = static_cast<int>(p % c.n);
    b.phi1(i, j) = stick_lower_bound(stop, k.at(i), c.at(j));
    b.phi2(i, j) = slip_upper_bound(slip, k.at(i), c.at(j));
  }
  b.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  select_bound_minimum(b);
  return b;
}

DeviceOutcome stick_slip_bounds_cuda(const BoundSamples& stop, const BoundSamples& slip, const GridAxis& k,
                                     const GridAxis& c, BoundSurfaces& out) {
  std::vector<double> phi1, phi2;
  double seconds = 0.0;
  const DeviceOutcome done = stick_slip_bound_grid_cuda(stop, slip, k, c, phi1, phi2, seconds);
  if (!done.error.empty()) return done;
  out.k = k;
  out.c = c;
  out.phi1.resize(k.n, c.n);
  out.phi2.resize(k.n, c.n);
  for (long p = 0; p < static_cast<long>(k.n) * c.n; ++p) {
    out.phi1(p / c.n, p % c.n) = phi1[static_cast<std::size_t>(p)];
    out.phi2(p / c.n, p % c.n) = phi2[static_cast<std::size_t>(p)];
  }
  out.wall_s = seconds;
  select_bound_minimum(out);
  return done;
}

void select_bound_minimum(BoundSurfaces& b) {
  // Eqs. 18–20: the first grid point of least distance (row-major order: deterministic)
  const GridAxis& k = b.k;
  const GridAxis& c = b.c;
  b.D_min = std::numeric_limits<double>::infinity();
  for (int i = 0; i < k.n; ++i)
    for (int j = 0; j < c.n; ++j) {
      const double D = std::abs(b.phi2(i, j) - b.phi1(i, j));
      if (D < b.D_min) {
        b.D_min = D;
        b.k_star = k.at(i);
        b.c_star = c.at(j);
        b.F_star = b.phi1(i, j);
      }
    }
}

Eq12Terms find_eq12_terms(const std::vector<LibraryTerm>& terms) {
  Eq12Terms at;
  for (std::size_t j = 0; j < terms.size(); ++j) {
    const std::string& n = terms[j].name;
    const int i = static_cast<int>(j);
    if (n == "x1")
      at.x1 = i;
    else if (n == "x2")
      at.x2 = i;
    else if (n == "u")
      at.u = i;
    else if (n == "du")
      at.du = i;
    else if (n == "sgn(x2)")
      at.sgn = i;
  }
  return at;
}

Eigen::VectorXd eq12_row(const Eq12Terms& at, long n_terms, double k, double c, double F) {
  Eigen::VectorXd row = Eigen::VectorXd::Zero(n_terms);
  row(at.x1) = -k;
  row(at.x2) = -c;
  row(at.u) = k;
  row(at.du) = c;
  row(at.sgn) = -F;
  return row;
}

}  // namespace fivsim
