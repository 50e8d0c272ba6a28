// fivsim/integrate/event_driven.hpp — the exact reference: event-driven (switching-model)
// integration of the nonsmooth model, the yardstick of `fivsim compare` (host code).
//
// Every contact is in one mode at a time — free, stick, slip− or slip+ (seed 000 Eqs. 3–4) — and
// each mode is a smooth ODE:
//   M q̈ = f(t) − C q̇ − K q + W_N λ_N + W_T λ_T
//   λ_N = Fn (given_normal, seed 000 Eq. 28) or k_c·(−g_N) while a spring contact is closed
//   (seed 000 Eq. 14); λ_T = −μ(γ_T)·sgn·λ_N while slipping; while sticking, λ_T is the force that
//   keeps γ_T = w_Tᵀq̇ − v_surface at zero (an index-reduced constraint w_Tᵀq̈ = 0, solved with
//   the other sticking contacts as one small saddle-point system).
// Smooth phases run on Boost.Odeint's Dormand–Prince 5(4) with dense output (docs/DESIGN.md §8); after
// every accepted step the event functions of the current mode are checked, and the earliest sign
// change is located on the dense output by bisection to `event_tol` in time:
//   spring contact closed / open: g_N = 0 (separation / reattachment);
//   slip±: γ_T = 0 → stick if the force that holds it lies inside [−μ⁺(0)λ_N, μ⁻(0)λ_N] (slip→stick),
//          slip reversal otherwise (seed 001's switching model);
//   stick: λ_T reaches μ⁻(0)λ_N (→ slip−) or −μ⁺(0)λ_N (→ slip+) (stick→slip).
// After an event the modes of all contacts are settled together (a sticking contact whose holding
// force is out of bounds slips in the direction of the excess) and integration restarts. Laws that
// are continuous through γ_T = 0 (coulomb_tanh, asymmetric) never stick; their sign changes are
// logged as slip reversals. This is the switching model of seed 001 for slider chains and seed 003
// Eqs. 13–14 for the base-excited oscillator, and the root-finding reference of seed 000 §4.3 for
// Model II. Rigid contacts (impacts) are not covered.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/model/event_log.hpp"
#include "fivsim/core/status.hpp"
#include "fivsim/model/model_description.hpp"

namespace fivsim {

struct EventDrivenOptions {
  double rel_tol = 1e-11;  // Dormand–Prince error control
  double abs_tol = 1e-13;
  double event_tol = 1e-12;  // events are located to this in time (s)
  double max_step = 0.0;     // 0: 1/40 of the shortest natural or forcing period
  long max_events = 20000000;
};

// the state at one output time
struct ReferenceSample {
  double t = 0.0;
  Eigen::VectorXd q, u, lamN, lamT;
  std::vector<ContactState> contact;
};

struct EventDrivenOutcome {
  Status status = Status::ok;
  std::string message;  // why a run stopped early
  double t_final = 0.0;
  long steps = 0;  // accepted Dormand–Prince steps
  long rhs_evaluations = 0;
  std::vector<Event> events;
};

// true when the reference can integrate this model; otherwise `why` names the obstacle
bool event_driven_supports(const ModelDescription& d, std::string* why = nullptr);

// integrates from (q0, u0) at t0 to t_end; observe() gets the state at t0 + k·sample_dt.
// Throws ModelError when the model is not supported.
EventDrivenOutcome simulate_event_driven(const ModelDescription& d, const Eigen::VectorXd& q0,
                                         const Eigen::VectorXd& u0, double t0, double t_end, double sample_dt,
                                         const EventDrivenOptions& options,
                                         const std::function<void(const ReferenceSample&)>& observe);

}  // namespace fivsim
