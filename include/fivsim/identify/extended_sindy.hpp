// fivsim/identify/extended_sindy.hpp — extended SINDy with explicit stick and slip constraints
// (seed 003 §3, Eqs. 15–20) for the base-excited Coulomb oscillator of Eq. 12:
//   ẋ1 = x2,  ẋ2 = −k̂ x1 − ĉ x2 + k̂ u + ĉ u̇ − F̂f sgn(x2).
// Step 1 (Eq. 15) splits the samples into stop (|x2| ≤ v_stop) and slip (|x2| > v_slip).
// Step 2 runs SINDy on the slip samples only (identify/sindy.hpp) for the functional form.
// Step 3 evaluates over a (k̂, ĉ) grid the lower bound Φ1 = max over stop samples of the force
// that holds the mass, |ĉu̇ + k̂u − k̂x1| (Eq. 16), and the upper bound Φ2 = min over slip samples of
// the friction force, |ĉu̇ + k̂u − k̂x1 − ẋ2 − ĉx2| (Eq. 17); (k̂*, ĉ*) minimises D = |Φ2 − Φ1|
// (Eqs. 18–19) and F̂f* = Φ1(k̂*, ĉ*) (Eq. 20).
// The bound of one grid point is a FIVSIM_HD function over plain arrays (stick_slip_bounds.hpp):
// the host backend runs the grid with OpenMP, the CUDA backend (kernels/identify_bounds.cu) one
// thread per grid point, both the same code.
#pragma once

#include "fivsim/core/cuda_device.hpp"

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/identify/sindy.hpp"
#include "fivsim/identify/stick_slip_bounds.hpp"

namespace fivsim {

// Eq. 15
struct Segregation {
  std::vector<long> stop, slip;
};
Segregation segregate_stick_slip(const Eigen::VectorXd& x2, double v_stop, double v_slip);

struct BoundSurfaces {
  GridAxis k, c;
  Eigen::MatrixXd phi1, phi2;  // k.n × c.n
  double k_star = 0.0, c_star = 0.0, F_star = 0.0, D_min = 0.0;
  double wall_s = 0.0;  // the grid evaluation
};

// Eqs. 16–20 over the grid (OpenMP over grid points)
BoundSurfaces stick_slip_bounds(const BoundSamples& stop, const BoundSamples& slip, const GridAxis& k,
                                const GridAxis& c);

// the same surfaces on the CUDA device, one thread per grid point (a build without CUDA says it has
// none). `out` is complete only on success
DeviceOutcome stick_slip_bounds_cuda(const BoundSamples& stop, const BoundSamples& slip, const GridAxis& k,
                                     const GridAxis& c, BoundSurfaces& out);

// Eqs. 18–20 on evaluated surfaces: the first grid point (row-major) of least |Φ2 − Φ1|
void select_bound_minimum(BoundSurfaces& b);

// the library terms Eq. 12 needs, by index into a library (−1 when missing)
struct Eq12Terms {
  int x1 = -1, x2 = -1, u = -1, du = -1, sgn = -1;
  bool complete() const { return x1 >= 0 && x2 >= 0 && u >= 0 && du >= 0 && sgn >= 0; }
};
Eq12Terms find_eq12_terms(const std::vector<LibraryTerm>& terms);

// the ẋ2 row of Eq. 12 with (k̂, ĉ, F̂f) in a library's coefficient layout
Eigen::VectorXd eq12_row(const Eq12Terms& at, long n_terms, double k, double c, double F);

}  // namespace fivsim
