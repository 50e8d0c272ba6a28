// fivsim/friction/friction_response.hpp — a friction law driven by a prescribed sliding velocity
// v(t): the friction coefficient over time, for static laws (memoryless) and dynamic laws (their
// internal state integrated along v(t)). This is seed 002 Fig. 6: each model's friction against
// the test input v = 0.02 sin(0.2πt), as a time response and as a curve over velocity (host code).
#pragma once

#include <functional>
#include <vector>

#include "fivsim/friction/dynamic_laws.hpp"
#include "fivsim/friction/static_laws.hpp"

namespace fivsim {

struct FrictionSample {
  double t = 0.0, v = 0.0;
  double mu = 0.0;  // the signed coefficient (force per unit normal force) opposing v
  double z = 0.0;   // the first internal state (0 for static laws)
};

// the RK4 substeps a dynamic law takes over one sample interval dt at sliding speeds up to `speed`
// (h·rate <= 0.5, inside RK4's stability interval); 1 for a static law. A double, so that an
// absurd amplitude shows as a huge count rather than an overflowed one
double friction_substeps(bool dynamic, const DynamicFrictionLaw& dyn, double speed, double dt);

// samples at k·dt for k = 0..round(t_end/dt); a dynamic law starts from z = 0 and is integrated by
// classical RK4 on substeps short enough for its bristle rate (σ0 |v| / F, C for GMS)
std::vector<FrictionSample> friction_response(const FrictionLaw& law, bool dynamic, const DynamicFrictionLaw& dyn,
                                              const std::function<double(double)>& v, double t_end, double dt);

}  // namespace fivsim
