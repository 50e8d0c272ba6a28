// src/friction/friction_response.cpp — friction under a prescribed velocity
// (friction/friction_response.hpp; seed 002 Fig. 6).
#include "fivsim/friction/friction_response.hpp"

#include <algorithm>
#include <cmath>

namespace fivsim {
namespace {

// the fastest relaxation rate of the internal state per unit |v| (1/m) or absolute (1/s)
void bristle_rates(const DynamicFrictionLaw& d, double& per_speed, double& absolute) {
  per_speed = absolute = 0.0;
  switch (d.kind) {
    case DynamicLawKind::dahl:
      per_speed = std::max(1.0, d.p[2]) * d.p[0] / d.p[1];
      break;
    case DynamicLawKind::lugre:
      per_speed = d.p[0] / std::min(d.p[3], d.p[4]);
      break;
    case DynamicLawKind::gms:
      for (int i = 0; i < d.n_elements; ++i) {
        const double threshold = d.element[i].alpha * std::min(d.p[0], d.p[1]) / d.element[i].K;
        absolute = std::max(absolute, d.element[i].C / threshold);
      }
      break;
  }
}

// substeps with h·rate ≤ 0.5, inside RK4's stability interval, for the bristle rates of a law
double substeps_at(double per_speed, double absolute, double speed, double dt) {
  return std::max(1.0, std::ceil(dt * (per_speed * std::abs(speed) + absolute) / 0.5));
}

}  // namespace

double friction_substeps(bool dynamic, const DynamicFrictionLaw& dyn, double speed, double dt) {
  if (!dynamic) return 1.0;
  double per_speed = 0.0, absolute = 0.0;
  bristle_rates(dyn, per_speed, absolute);
  return substeps_at(per_speed, absolute, speed, dt);
}

std::vector<FrictionSample> friction_response(const FrictionLaw& law, bool dynamic, const DynamicFrictionLaw& dyn,
                                              const std::function<double(double)>& v, double t_end, double dt) {
  const long n = std::max(1L, static_cast<long>(std::llround(t_end / dt)));
  std::vector<FrictionSample> out;
  out.reserve(static_cast<std::size_t>(n + 1));
  DynamicFrictionState s;
  double per_speed = 0.0, absolute = 0.0;
  if (dynamic) bristle_rates(dyn, per_speed, absolute);
  auto sample = [&](double t) {
    FrictionSample f;
    f.t = t;
    f.v = v(t);
    if (dynamic) {
      double zdot[kGmsMaxElements];
      dynamic_friction_rates(dyn, s, f.v, zdot);
      f.mu = dynamic_friction_force(dyn, s, f.v, zdot);
      f.z = s.z[0];
    } else {
      f.mu = friction_coefficient(law, f.v);
    }
    return f;
  };
  out.push_back(sample(0.0));
  for (long k = 0; k < n; ++k) {
    const double t0 = k * dt;
    if (dynamic) {
      const double speed = std::max(std::abs(v(t0)), std::abs(v(t0 + dt)));
      const long sub = static_cast<long>(std::min(substeps_at(per_speed, absolute, speed, dt), 1e15));
      const double h = dt / sub;
      for (long j = 0; j < sub; ++j) {
        const double t = t0 + j * h;
        dynamic_friction_rk4_step(dyn, s, v(t), v(t + h / 2), v(t + h), h);
      }
    }
    out.push_back(sample((k + 1) * dt));
  }
  return out;
}

}  // namespace fivsim
