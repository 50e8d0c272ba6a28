// fivsim/integrate/smooth_dynamic.hpp — the `smooth` method: models whose friction is a smooth
// function of the state — dynamic laws with internal state (Dahl, LuGre, GMS; seed 002 Eqs. 5–8)
// or the smooth static laws (coulomb_tanh, asymmetric) — integrated as one stiff ODE (host code).
//
//   M q̈ = f(t) − C q̇ − K q + Σ_i (w_N,i Fn_i + w_T,i λ_T,i),   λ_T,i = −Fn_i · F_i(γ_T,i, z_i),
//   ż_i = dynamic_friction_rates(γ_T,i, z_i),                   γ_T,i = w_T,iᵀ q̇ − v_surface,i.
// A dynamic law's force is set by its bristle state, never by a complementarity condition, and
// its stiffness (LuGre σ0 = 2e4 at a relative velocity of 1e-3 gives rates of 1e5/s) rules out
// explicit steppers and LCP time stepping alike: the ODE runs on Boost.Odeint's Rosenbrock 4
// with step-size control and dense output (docs/DESIGN.md §8), with a finite-difference Jacobian.
// GMS element modes switch after each accepted step (the state is re-initialised then), so a
// switch is resolved to one step of at most `max_step`. Contacts must have given normal forces.
#pragma once

#include <functional>
#include <string>

#include "fivsim/core/status.hpp"
#include "fivsim/integrate/event_driven.hpp"

namespace fivsim {

struct SmoothOptions {
  double rel_tol = 1e-8;
  double abs_tol = 1e-12;
  double max_step = 0.0;  // 0: the sample interval
};

struct SmoothOutcome {
  Status status = Status::ok;
  std::string message;
  double t_final = 0.0;
  long steps = 0;  // accepted Rosenbrock steps
  long rhs_evaluations = 0;
};

// true when `smooth` can integrate this model; otherwise `why` names the obstacle
bool smooth_supports(const ModelDescription& d, std::string* why = nullptr);

// integrates from (q0, u0) at t = 0 (internal states zero) to t_end; observe() gets the state at
// k·sample_dt, with the friction forces in lamT and contact states slip± / stick by the sign of
// γ_T against stick_tol. Throws ModelError when the model is not supported.
SmoothOutcome simulate_smooth(const ModelDescription& d, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0,
                              double t_end, double sample_dt, double stick_tol, const SmoothOptions& options,
                              const std::function<void(const ReferenceSample&)>& observe);

}  // namespace fivsim
