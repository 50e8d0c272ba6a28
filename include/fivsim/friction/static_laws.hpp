// fivsim/friction/static_laws.hpp — static (memoryless) friction laws as coefficient curves.
//
// A law gives the friction coefficient μ(v_r) ≥ 0 for sliding at relative velocity v_r; the
// friction force is λ_T = −μ(v_r)·sgn(v_r)·λ_N, and at v_r = 0 the force is anywhere in
// [−μ⁺(0)·λ_N, μ⁻(0)·λ_N] (stick; seed 000 Eqs. 3–4). The LCP of seed 000 Eq. 12 needs the
// coefficient for each sliding direction: μ⁺ for v_r > 0 and μ⁻ for v_r < 0; they differ only
// for the asymmetric law. Static friction is μ at v_r = 0 (docs/DESIGN.md §4).
//
//   coulomb            {mu}                         μ = mu
//   coulomb_viscous    {mu, mu_v}                   μ = mu + mu_v·|v|           (seed 002 Eq. 3)
//   coulomb_tanh       {mu, eps}                    μ = mu·tanh(eps·|v|)        (seed 002 Eq. 2)
//   stribeck_rational  {mu_s, delta}                μ = mu_s / (1 + delta·|v|)  (seed 000 Eq. 29a)
//   stribeck_exp       {mu_s, mu_d, alpha}          μ = mu_d + (mu_s − mu_d)·e^(−alpha·|v|)
//                                                   (seed 000 Eq. 29b; printed there with + sign)
//   stribeck           {mu_s, mu_c, v_s, alpha, mu_v}
//                      μ = mu_c + (mu_s − mu_c)·e^(−(|v|/v_s)^alpha) + mu_v·|v|   (seed 002 Eq. 4)
//   asymmetric         {Ts_l, Ts_r, T0_l, T0_r, alpha, beta}
//                      μ = Ts/(1 + T0·|v|)·(1 + beta/cosh(alpha·v))·tanh(alpha·|v|),
//                      (Ts, T0) = (Ts_l, T0_l) for v ≥ 0 and (Ts_r, T0_r) for v < 0 (seed 002 Eq. 22)
//   coulomb_static     {mu_s, mu_k}                 μ = mu_k for v ≠ 0, mu_s at v = 0 (the textbook
//                                                   static/kinetic law: a jump at break-away)
// All terms are coefficients that multiply the normal force (mu_v in s/m, eps and alpha in s/m).
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/config.hpp"
#include "fivsim/core/reproducible_math.hpp"

namespace fivsim {

enum class FrictionLawKind : int {
  coulomb = 0,
  coulomb_viscous,
  coulomb_tanh,
  stribeck_rational,
  stribeck_exp,
  stribeck,
  asymmetric,
  coulomb_static,
};

inline constexpr int kFrictionLawCount = 8;
inline constexpr int kFrictionMaxParams = 6;

struct FrictionLaw {
  FrictionLawKind kind = FrictionLawKind::coulomb;
  double p[kFrictionMaxParams] = {0, 0, 0, 0, 0, 0};  // parameters in the order listed above
};

// names and parameter names, in enum order, for parsing and messages
struct FrictionLawInfo {
  const char* name;
  int n_params;
  const char* params[kFrictionMaxParams];
};

inline constexpr FrictionLawInfo kFrictionLawInfo[kFrictionLawCount] = {
    {"coulomb", 1, {"mu"}},
    {"coulomb_viscous", 2, {"mu", "mu_v"}},
    {"coulomb_tanh", 2, {"mu", "eps"}},
    {"stribeck_rational", 2, {"mu_s", "delta"}},
    {"stribeck_exp", 3, {"mu_s", "mu_d", "alpha"}},
    {"stribeck", 5, {"mu_s", "mu_c", "v_s", "alpha", "mu_v"}},
    {"asymmetric", 6, {"Ts_l", "Ts_r", "T0_l", "T0_r", "alpha", "beta"}},
    {"coulomb_static", 2, {"mu_s", "mu_k"}},
};

// e^x, tanh x, sech x and x^y (x ≥ 0) of the laws: in double the same bits on the CPU and the GPU
// (reproducible_math.hpp), so that a device sweep keeps the CPU's trajectories, and arithmetic the belt runner's lanes
// vectorise; float keeps the fast library functions
FIVSIM_HD inline double law_exp(double x) { return reproducible_exp(x); }
FIVSIM_HD inline float law_exp(float x) { return expf(x); }
FIVSIM_HD inline double law_tanh(double x) { return reproducible_tanh(x); }
FIVSIM_HD inline float law_tanh(float x) { return tanhf(x); }
FIVSIM_HD inline double law_sech(double x) { return reproducible_sech(x); }
FIVSIM_HD inline float law_sech(float x) { return 1.0f / coshf(x); }
FIVSIM_HD inline double law_pow(double x, double y) { return reproducible_pow_of_nonnegative(x, y); }
FIVSIM_HD inline float law_pow(float x, float y) { return powf(x, y); }

// the asymmetric law at s = |v| for one direction's Ts and T0, given its factors that no direction
// changes, 1 + β sech(αs) and tanh(αs): the two directions share them (friction_bounds_of)
template <class T>
FIVSIM_HD inline T asymmetric_magnitude(T ts, T t0, T s, T sech_factor, T th) {
  return ts / (T(1) + t0 * s) * sech_factor * th;
}

// μ ≥ 0 for sliding at relative velocity v of the law `kind` with parameters p[0], p[1], … (only the
// asymmetric law looks at the sign of v): p a law's own array, or one lane's of the belt runner's
template <class T, class Params>
FIVSIM_HD inline T friction_magnitude_of(FrictionLawKind kind, const Params& p, T v) {
  const T s = v < T(0) ? -v : v;
  switch (kind) {
    case FrictionLawKind::coulomb:
      return T(p[0]);
    case FrictionLawKind::coulomb_viscous:
      return T(p[0]) + T(p[1]) * s;
    case FrictionLawKind::coulomb_tanh:
      return T(p[0]) * law_tanh(T(p[1]) * s);
    case FrictionLawKind::stribeck_rational:
      return T(p[0]) / (T(1) + T(p[1]) * s);
    case FrictionLawKind::stribeck_exp:
      return T(p[1]) + (T(p[0]) - T(p[1])) * law_exp(-T(p[2]) * s);
    case FrictionLawKind::stribeck:
      return T(p[1]) + (T(p[0]) - T(p[1])) * law_exp(-law_pow(s / T(p[2]), T(p[3]))) + T(p[4]) * s;
    case FrictionLawKind::asymmetric: {
      const bool pos = !(v < T(0));
      const T ts = T(pos ? p[0] : p[1]);
      const T t0 = T(pos ? p[2] : p[3]);
      const T alpha = T(p[4]);
      return asymmetric_magnitude(ts, t0, s, T(1) + T(p[5]) * law_sech(alpha * s), law_tanh(alpha * s));
    }
    case FrictionLawKind::coulomb_static:
      return T(s > T(0) ? p[1] : p[0]);
  }
  return T(0);
}

// μ of a law for sliding at relative velocity v (friction_magnitude_of with the law's parameters)
template <class T>
FIVSIM_HD inline T friction_magnitude(const FrictionLaw& law, T v) {
  return friction_magnitude_of(law.kind, law.p, v);
}

// μ of a contact in a slip mode at relative velocity v: friction_magnitude, except that a slip
// mode at v = 0 (its first instant after break-away) already slides at the kinetic coefficient of
// coulomb_static, whose μ(0) is the static one
template <class T>
FIVSIM_HD inline T sliding_magnitude(const FrictionLaw& law, T v) {
  return law.kind == FrictionLawKind::coulomb_static ? T(law.p[1]) : friction_magnitude(law, v);
}

// μ of friction_magnitude at v, and into `slope` dμ/d|v| there (on the side of v's sign for the
// asymmetric law): what the variational equations of the switching model need at every stage
// (switching_tangent.hpp), the exponential laws' e^… evaluated once for both
template <class T>
FIVSIM_HD inline T friction_magnitude_and_slope(const FrictionLaw& law, T v, T& slope) {
  const T s = v < T(0) ? -v : v;
  const double* p = law.p;
  switch (law.kind) {
    case FrictionLawKind::coulomb:
    case FrictionLawKind::coulomb_static:
      slope = T(0);
      break;
    case FrictionLawKind::coulomb_viscous:
      slope = T(p[1]);
      break;
    case FrictionLawKind::coulomb_tanh: {
      const T c = cosh(T(p[1]) * s);
      slope = T(p[0]) * T(p[1]) / (c * c);
      break;
    }
    case FrictionLawKind::stribeck_rational: {
      const T d = T(1) + T(p[1]) * s;
      slope = -T(p[0]) * T(p[1]) / (d * d);
      break;
    }
    case FrictionLawKind::stribeck_exp: {
      // friction_magnitude_of's expression, its bits
      const T e = law_exp(-T(p[2]) * s);
      slope = -(T(p[0]) - T(p[1])) * T(p[2]) * e;
      return T(p[1]) + (T(p[0]) - T(p[1])) * e;
    }
    case FrictionLawKind::stribeck: {
      if (!(s > T(0))) {
        slope = T(p[4]);  // the exponent's slope at 0 for alpha > 1 (the common case)
        break;
      }
      const T x = law_pow(s / T(p[2]), T(p[3]));
      const T e = law_exp(-x);
      slope = -(T(p[0]) - T(p[1])) * e * T(p[3]) * x / s + T(p[4]);
      return T(p[1]) + (T(p[0]) - T(p[1])) * e + T(p[4]) * s;
    }
    case FrictionLawKind::asymmetric: {
      const bool pos = !(v < T(0));
      const T ts = T(pos ? p[0] : p[1]), t0 = T(pos ? p[2] : p[3]), alpha = T(p[4]), beta = T(p[5]);
      const T d = T(1) + t0 * s, sech = law_sech(alpha * s), th = law_tanh(alpha * s);
      const T a = ts / d, b = T(1) + beta * sech;
      slope = -ts * t0 / (d * d) * b * th - a * beta * alpha * sech * th * th + a * b * alpha * sech * sech;
      break;
    }
  }
  return friction_magnitude(law, v);
}

// sliding_magnitude at v with its slope (friction_magnitude_and_slope)
template <class T>
FIVSIM_HD inline T sliding_magnitude_and_slope(const FrictionLaw& law, T v, T& slope) {
  if (law.kind != FrictionLawKind::coulomb_static) return friction_magnitude_and_slope(law, v, slope);
  slope = T(0);
  return T(law.p[1]);
}

// the signed coefficient curve μ(v)·sgn(v) of seed 000 Fig. 9 (0 at v = 0)
template <class T>
FIVSIM_HD inline T friction_coefficient(const FrictionLaw& law, T v) {
  if (v > T(0)) return friction_magnitude(law, v);
  if (v < T(0)) return -friction_magnitude(law, v);
  return T(0);
}

// coefficients for the two sliding directions, evaluated at |v| (the start-of-step relative
// velocity in Moreau stepping, docs/DESIGN.md §7), of the law `kind` with parameters p
template <class T, class Params>
FIVSIM_HD inline void friction_bounds_of(FrictionLawKind kind, const Params& p, T v, T& mu_plus, T& mu_minus) {
  const T s = v < T(0) ? -v : v;
  if (kind == FrictionLawKind::asymmetric) {
    // its sech and tanh once for both directions
    const T alpha = T(p[4]);
    const T sech_factor = T(1) + T(p[5]) * law_sech(alpha * s), th = law_tanh(alpha * s);
    mu_plus = asymmetric_magnitude(T(p[0]), T(p[2]), s, sech_factor, th);
    mu_minus = asymmetric_magnitude(T(p[1]), T(p[3]), s, sech_factor, th);
    return;
  }
  mu_plus = friction_magnitude_of(kind, p, s);
  mu_minus = mu_plus;
}
template <class T>
FIVSIM_HD inline void friction_bounds(const FrictionLaw& law, T v, T& mu_plus, T& mu_minus) {
  friction_bounds_of(law.kind, law.p, v, mu_plus, mu_minus);
}

// true for laws whose signed curve is continuous through v = 0 (no set-valued stick)
FIVSIM_HD inline bool friction_is_smooth(FrictionLawKind k) {
  return k == FrictionLawKind::coulomb_tanh || k == FrictionLawKind::asymmetric;
}

}  // namespace fivsim
