// fivsim/model/presets.hpp — the seed models as model descriptions (docs/MODELS.md, "Presets").
//
// Sign conventions, shared by all presets (docs/MODELS.md):
// - the belt / surface moves in +x at v0; relative velocity γ_T = ẋ − v0; friction on the body
//   is +μλ_N while the body is slower than the belt (slip−) and −μλ_N while faster (slip+);
// - a normal gap is positive when open; Model II's y points away from the belt, so y < 0 is
//   penetration of the contact spring and the preload Fp pushes in −y.
#pragma once

#include <vector>

#include "fivsim/model/model_description.hpp"

namespace fivsim {

// seed 000 Model I: m ẍ + c ẋ + k x = λ_T, λ_N = Fn given (Eq. 28)
struct SliderBeltParams {
  double m = 1, k = 1, c = 0, v0 = 0, Fn = 0;
  FrictionLaw law;
};
ModelDescription make_slider_belt(const SliderBeltParams& p);

// seed 001: n sliders on one belt; k[0], c[0] tie slider 1 to the wall, k[i], c[i] tie slider i
// to slider i+1 (1-based); each slider has its own given normal force
struct SliderChainParams {
  std::vector<double> m, k, c, Fn;
  double v0 = 0;
  FrictionLaw law;
};
ModelDescription make_slider_chain(const SliderChainParams& p);

// seed 000 Model II: q = [x, y], spring contact k_c under the slider, inclined spring k3,
// preload Fp toward the belt (see docs/MODELS.md for the stiffness matrix and its sign)
struct ModeCouplingParams {
  double m = 1, k1 = 0, k3 = 0, kc = 1, c1 = 0, c2 = 0, Fp = 0, v0 = 0;
  FrictionLaw law;
};
ModelDescription make_mode_coupling_2dof(const ModeCouplingParams& p);

// seed 003 Eq. 11: m ẍ + c ẋ + k x + friction = k u(t) + c u̇(t), u = A sin(2π f t), fixed surface
struct BaseExcitedParams {
  double m = 1, k = 0, c = 0, Fn = 0, A = 0, f_hz = 1;
  FrictionLaw law;
};
ModelDescription make_base_excited_sdof(const BaseExcitedParams& p);

// seed 002 Eq. 9: the disk of the double torsion pendulum, φ2 measured against the lower contact
// surface whose rate is the input φ̇1,m = A sin(2π f t):
//   J2 φ̈2 = −c2 φ̇2 − k2 φ2 − T_f(φ̇2) − J2 φ̈1,m,
// with the friction torque T_f = μ(φ̇2, z)·Fn (Fn = 1 makes the law's coefficients torques in N m)
struct TorsionPendulumParams {
  double J2 = 1, c2 = 0, k2 = 0, A = 0, f_hz = 1, Fn = 1;
  FrictionLaw law;
};
ModelDescription make_torsion_pendulum(const TorsionPendulumParams& p);

}  // namespace fivsim
