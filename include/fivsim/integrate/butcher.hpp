// fivsim/integrate/butcher.hpp — Butcher tableaus of the Runge–Kutta LCP steppers.
//
// Gauss–Legendre tables of any number of stages q (order 2q) are computed, not read from a file
// (docs/DESIGN.md §7): c are the roots of the shifted Legendre polynomial P_q(2x − 1), b the Gauss
// weights on [0, 1], and a_ij = ∫₀^{c_i} ℓ_j(τ) dτ with ℓ_j the Lagrange basis on c, evaluated in
// barycentric form and integrated by the same Gauss rule scaled to [0, c_i] (exact, since ℓ_j has
// degree q − 1). These are the tables of the IRK-PINN (seed 000 Eqs. 21–22) and of its classical
// counterpart, the IRK-LCP stepper (rk_lcp.hpp). The classical explicit RK4 table serves the
// seeds' "conventional RK4 LCP method".
#pragma once

#include <string>
#include <vector>

namespace fivsim {

struct ButcherTableau {
  std::string name;
  int stages = 0;
  int order = 0;
  std::vector<double> a;  // stages × stages, row-major
  std::vector<double> b, c;

  double A(int i, int j) const { return a[static_cast<std::size_t>(i * stages + j)]; }
  bool explicit_method() const;
};

// the largest stage count fivsim computes tables for
inline constexpr int kMaxGaussStages = 200;

// Gauss–Legendre collocation with q stages (1 ≤ q ≤ kMaxGaussStages): order 2q, A-stable
ButcherTableau gauss_legendre(int q);

// the classical explicit fourth-order method (c = 0, ½, ½, 1)
ButcherTableau classical_rk4();

}  // namespace fivsim
