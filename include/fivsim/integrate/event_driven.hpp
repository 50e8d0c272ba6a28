// fivsim/integrate/event_driven.hpp — the exact reference: event-driven (switching-model)
// integration of the nonsmooth model, the yardstick of `fivsim compare` (host code). Each contact's
// mode (free, stick, slip±; seed 000 Eqs. 3–4) is a smooth ODE run by Dormand–Prince 5(4) with
// dense output; mode changes are located on it to event_tol and settled for all contacts together
// (seed 001's switching model, seed 003 Eqs. 13–14, seed 000 §4.3; docs/METHODS.md "The reference:
// event-driven switching model"). Rigid contacts (impacts) are not covered.
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
