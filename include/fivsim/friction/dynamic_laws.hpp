// fivsim/friction/dynamic_laws.hpp — dynamic friction laws with internal state (seed 002
// §2.1.4–2.1.6, Eqs. 5–8): Dahl, LuGre and the generalized Maxwell-slip (GMS) model.
//
// Unlike the static laws (static_laws.hpp), these give the friction force as a smooth function of
// the sliding velocity v and bristle/element states z, which obey ODEs of their own; the force is
// never set-valued, so there is no complementarity to solve: a model with a dynamic law is a stiff
// smooth ODE in (q, u, z) (integrate/smooth_dynamic.hpp, docs/METHODS.md). Like the static laws,
// the "force" F below is a coefficient that multiplies the contact's normal force (Fc = μc, Fs = μs;
// σ0 in 1/m, σ1 and σ2 in s/m), so one law serves every normal load of a sweep.
//
//   dahl   {sigma0, Fc, beta}        F = σ0 z,  ż = v·sgn(γ)|γ|^β,  γ = 1 − sgn(v) σ0 z / Fc   (Eq. 5)
//   lugre  {sigma0, sigma1, sigma2, Fc, Fs, vs, beta}
//          F = σ0 z + σ1 ż + σ2 v,  ż = v − σ0 |v| z / g(v),
//          g(v) = Fc + (Fs − Fc) e^{−|v/vs|^β}                                           (Eq. 6)
//   gms    {Fc, Fs, vs, sigma2} and n elements {K_i, B_i, C_i, alpha_i}
//          F = Σ (K_i z_i + B_i ż_i) + σ2 v,
//          ż_i = v while element i sticks, sgn(v) C_i (1 − z_i / s_i(v)) while it slips,
//          s_i(v) = α_i g(v) / K_i with g as for LuGre (β = 2): element i slips when |z_i|
//          reaches s_i(v) and sticks again when v changes sign                         (Eqs. 7–8)
// Steady sliding gives F → sgn(v) g(v) + σ2 v for LuGre and GMS (with Σ α_i = 1), and
// F → sgn(v) Fc for Dahl.
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/config.hpp"

namespace fivsim {

enum class DynamicLawKind : int { dahl = 0, lugre, gms };

inline constexpr int kGmsMaxElements = 8;

struct GmsElement {
  double K = 0.0, B = 0.0, C = 0.0, alpha = 0.0;
};

struct DynamicFrictionLaw {
  DynamicLawKind kind = DynamicLawKind::lugre;
  // dahl: sigma0, Fc, beta; lugre: sigma0, sigma1, sigma2, Fc, Fs, vs, beta; gms: Fc, Fs, vs, sigma2
  double p[7] = {0, 0, 0, 0, 0, 0, 0};
  int n_elements = 0;  // gms
  GmsElement element[kGmsMaxElements];
};

// internal state: z (Dahl, LuGre: z[0]; GMS: one per element) and the GMS element modes
struct DynamicFrictionState {
  double z[kGmsMaxElements] = {0, 0, 0, 0, 0, 0, 0, 0};
  bool slipping[kGmsMaxElements] = {false, false, false, false, false, false, false, false};
  int last_sign = 0;  // GMS: sign of v when the modes were last updated
};

FIVSIM_HD inline double signum(double a) { return a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : 0.0); }

// the Stribeck curve g(v) of LuGre and GMS
FIVSIM_HD inline double stribeck_curve(double Fc, double Fs, double vs, double beta, double v) {
  return Fc + (Fs - Fc) * exp(-pow(fabs(v / vs), beta));
}

// number of state variables
FIVSIM_HD inline int dynamic_friction_states(const DynamicFrictionLaw& law) {
  return law.kind == DynamicLawKind::gms ? law.n_elements : 1;
}

// ż for the current modes
FIVSIM_HD inline void dynamic_friction_rates(const DynamicFrictionLaw& law, const DynamicFrictionState& s, double v,
                                             double* zdot) {
  const double* p = law.p;
  switch (law.kind) {
    case DynamicLawKind::dahl: {
      const double gamma = 1.0 - signum(v) * p[0] * s.z[0] / p[1];
      zdot[0] = v * signum(gamma) * pow(fabs(gamma), p[2]);
      return;
    }
    case DynamicLawKind::lugre: {
      const double g = stribeck_curve(p[3], p[4], p[5], p[6], v);
      zdot[0] = v - p[0] * fabs(v) * s.z[0] / g;
      return;
    }
    case DynamicLawKind::gms: {
      const double g = stribeck_curve(p[0], p[1], p[2], 2.0, v);
      for (int i = 0; i < law.n_elements; ++i) {
        const GmsElement& e = law.element[i];
        // a slipping element sticks the moment v turns against its deflection
        const bool slip = s.slipping[i] && signum(v) * signum(s.z[i]) > 0.0;
        zdot[i] = slip ? signum(v) * e.C * (1.0 - s.z[i] / (e.alpha * g / e.K)) : v;
      }
      return;
    }
  }
}

// the friction force for state z and its rate ż (from dynamic_friction_rates)
FIVSIM_HD inline double dynamic_friction_force(const DynamicFrictionLaw& law, const DynamicFrictionState& s, double v,
                                               const double* zdot) {
  const double* p = law.p;
  switch (law.kind) {
    case DynamicLawKind::dahl:
      return p[0] * s.z[0];
    case DynamicLawKind::lugre:
      return p[0] * s.z[0] + p[1] * zdot[0] + p[2] * v;
    case DynamicLawKind::gms: {
      double f = p[3] * v;
      for (int i = 0; i < law.n_elements; ++i) f += law.element[i].K * s.z[i] + law.element[i].B * zdot[i];
      return f;
    }
  }
  return 0.0;
}

// GMS mode switches after a step (Eq. 8): a sticking element whose |z_i| reached s_i(v) slips
// (z_i clamped to the threshold), and every element sticks again when v changes sign
FIVSIM_HD inline void gms_update_modes(const DynamicFrictionLaw& law, DynamicFrictionState& s, double v) {
  if (law.kind != DynamicLawKind::gms) return;
  const int sign = static_cast<int>(signum(v));
  const bool reversed = sign != 0 && s.last_sign != 0 && sign != s.last_sign;
  const double g = stribeck_curve(law.p[0], law.p[1], law.p[2], 2.0, v);
  for (int i = 0; i < law.n_elements; ++i) {
    const GmsElement& e = law.element[i];
    const double threshold = e.alpha * g / e.K;
    if (reversed) s.slipping[i] = false;
    if (!s.slipping[i] && fabs(s.z[i]) >= threshold) {
      s.slipping[i] = true;
      s.z[i] = signum(s.z[i]) * threshold;
    }
  }
  if (sign != 0) s.last_sign = sign;
}

// one classical RK4 step of length h of the internal state under a prescribed velocity (v0, v_half,
// v1 at the step's start, middle and end), then the GMS mode switches at v1
FIVSIM_HD inline void dynamic_friction_rk4_step(const DynamicFrictionLaw& law, DynamicFrictionState& s, double v0,
                                                double v_half, double v1, double h) {
  const int m = dynamic_friction_states(law);
  double k1[kGmsMaxElements] = {}, k2[kGmsMaxElements] = {}, k3[kGmsMaxElements] = {}, k4[kGmsMaxElements] = {};
  DynamicFrictionState y = s;
  dynamic_friction_rates(law, y, v0, k1);
  for (int i = 0; i < m; ++i) y.z[i] = s.z[i] + h / 2 * k1[i];
  dynamic_friction_rates(law, y, v_half, k2);
  for (int i = 0; i < m; ++i) y.z[i] = s.z[i] + h / 2 * k2[i];
  dynamic_friction_rates(law, y, v_half, k3);
  for (int i = 0; i < m; ++i) y.z[i] = s.z[i] + h * k3[i];
  dynamic_friction_rates(law, y, v1, k4);
  for (int i = 0; i < m; ++i) s.z[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  gms_update_modes(law, s, v1);
}

}  // namespace fivsim
