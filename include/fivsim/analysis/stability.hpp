// fivsim/analysis/stability.hpp — eigenvalues of the linearised steady-sliding system (seed 000
// §4.3, Fig. 19: mode-coupling instability versus the friction coefficient). Host code.
//
// Steady sliding: every loaded contact closed and slipping at the surface speed with the body at
// rest (u = 0, γ_T = −v_surface; slip− on a belt moving in +x). Friction λ_T = s μ(|γ_T|) λ_N with
// s = +1 in slip− and −1 in slip+; a spring contact carries λ_N = −k_c (w_Nᵀq + gap0). Linearised:
//   K_eff = K + Σ_spring k_c (w_N + s μ w_T) w_Nᵀ          (seed 000: K + [[0, μk_c], [0, k_c]])
//   C_eff = C + Σ μ'(|v|) λ_N w_T w_Tᵀ                       (a falling Stribeck curve adds negative damping)
// and the eigenvalues are those of [[0, I], [−M⁻¹K_eff, −M⁻¹C_eff]]. Contacts on a resting surface
// (v_surface = 0) have no steady sliding; they are left out of the linearisation and named in `note`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/model/model_description.hpp"

namespace fivsim {

struct SlidingLinearization {
  Eigen::MatrixXd K_eff, C_eff;
  Eigen::VectorXd q_equilibrium;
  Eigen::VectorXd normal_force;  // λ_N at the equilibrium, per contact
  Eigen::VectorXcd eigenvalues;  // sorted by imaginary part, then real part, descending
  double max_real = 0.0;
  bool consistent = true;  // every spring contact is closed (λ_N > 0) at the equilibrium
  std::string note;
};

SlidingLinearization linearize_sliding(const ModelDescription& d);

// the parameter value in (a, b] where max_real_at (the largest real part less a rounding margin)
// changes sign from ≤ 0 at a to > 0 at b, located by bisection to `xtol`; NaN otherwise
double locate_crossing(const std::function<double(double)>& max_real_at, double a, double b, double xtol);

}  // namespace fivsim
