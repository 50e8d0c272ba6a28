// fivsim/identify/extended_sindy.hpp — extended SINDy with explicit stick and slip constraints
// (seed 003 §3, Eqs. 15–20) for the base-excited Coulomb oscillator of Eq. 12:
//   ẋ1 = x2,  ẋ2 = −k̂ x1 − ĉ x2 + k̂ u + ĉ u̇ − F̂f sgn(x2).
// Step 1 (Eq. 15) splits the samples into stop (|x2| ≤ v_stop) and slip (|x2| > v_slip).
// Step 2 runs SINDy on the slip samples only (identify/sindy.hpp) for the functional form.
// Step 3 evaluates over a (k̂, ĉ) grid the lower bound Φ1 = max over stop samples of the force
// that holds the mass, |ĉu̇ + k̂u − k̂x1| (Eq. 16), and the upper bound Φ2 = min over slip samples of
// the friction force, |ĉu̇ + k̂u − k̂x1 − ẋ2 − ĉx2| (Eq. 17); (k̂*, ĉ*) minimises D = |Φ2 − Φ1|
// (Eqs. 18–19) and F̂f* = Φ1(k̂*, ĉ*) (Eq. 20).
// The bound of one grid point is a FIVSIM_HD function over plain arrays, so a batched backend
// evaluates the same code for every grid point; the host backend runs the grid with OpenMP.
#pragma once

#include <math.h>

#include <vector>

#include <Eigen/Dense>

#include "fivsim/core/config.hpp"
#include "fivsim/identify/sindy.hpp"

namespace fivsim {

// the samples the bounds need, as plain arrays (stop samples use x1, u, du; slip ones all five)
struct BoundSamples {
  const double* x1 = nullptr;
  const double* x2 = nullptr;
  const double* dx2 = nullptr;
  const double* u = nullptr;
  const double* du = nullptr;
  long n = 0;
};

// Eq. 16 at one grid point: the largest holding force over the stop samples
FIVSIM_HD inline double stick_lower_bound(const BoundSamples& stop, double k, double c) {
  // compare-and-select rather than fmax: the loop then vectorises (no NaN rules to keep)
  double phi = 0.0;
  for (long j = 0; j < stop.n; ++j) {
    const double f = fabs(c * stop.du[j] + k * (stop.u[j] - stop.x1[j]));
    phi = f > phi ? f : phi;
  }
  return phi;
}

// Eq. 17 at one grid point: the smallest friction force over the slip samples
FIVSIM_HD inline double slip_upper_bound(const BoundSamples& slip, double k, double c) {
  double phi = HUGE_VAL;
  for (long l = 0; l < slip.n; ++l) {
    const double f = fabs(c * (slip.du[l] - slip.x2[l]) + k * (slip.u[l] - slip.x1[l]) - slip.dx2[l]);
    phi = f < phi ? f : phi;
  }
  return phi;
}

// Eq. 15
struct Segregation {
  std::vector<long> stop, slip;
};
Segregation segregate_stick_slip(const Eigen::VectorXd& x2, double v_stop, double v_slip);

// a uniform axis a..b with n points
struct GridAxis {
  double a = 0.0, b = 0.0;
  int n = 0;
  double at(int i) const { return n > 1 ? a + (b - a) * i / (n - 1) : a; }
};

struct BoundSurfaces {
  GridAxis k, c;
  Eigen::MatrixXd phi1, phi2;  // k.n × c.n
  double k_star = 0.0, c_star = 0.0, F_star = 0.0, D_min = 0.0;
  double wall_s = 0.0;  // the grid evaluation
};

// Eqs. 16–20 over the grid (OpenMP over grid points)
BoundSurfaces stick_slip_bounds(const BoundSamples& stop, const BoundSamples& slip, const GridAxis& k,
                                const GridAxis& c);

// the library terms Eq. 12 needs, by index into a library (−1 when missing)
struct Eq12Terms {
  int x1 = -1, x2 = -1, u = -1, du = -1, sgn = -1;
  bool complete() const { return x1 >= 0 && x2 >= 0 && u >= 0 && du >= 0 && sgn >= 0; }
};
Eq12Terms find_eq12_terms(const std::vector<LibraryTerm>& terms);

// the ẋ2 row of Eq. 12 with (k̂, ĉ, F̂f) in a library's coefficient layout
Eigen::VectorXd eq12_row(const Eq12Terms& at, long n_terms, double k, double c, double F);

}  // namespace fivsim
