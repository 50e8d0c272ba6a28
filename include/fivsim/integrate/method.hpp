// fivsim/integrate/method.hpp — one interface to every integration method of fivsim (host): the
// time steppers (Moreau, RK4-LCP, Gauss IRK-LCP, the PINN frameworks; moreau.hpp, rk_lcp.hpp,
// pinn_step.hpp), the event-driven reference (event_driven.hpp) and the smooth integrator of dynamic
// friction laws (smooth_dynamic.hpp). `fivsim run` and `fivsim
// compare` drive all of them through it, seeing the same samples (one per dt) and the same event
// list.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/model/event_log.hpp"
#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/integrate/smooth_dynamic.hpp"

namespace fivsim {

// a method from its label (the names of `fivsim compare --methods`); "root_shooting" is the
// event-driven reference too. Throws std::invalid_argument naming the accepted forms.
MethodSpec parse_method_label(const std::string& label);
// every label parse_method_label takes, in words (its error message and `fivsim compare --help`)
inline constexpr const char* kMethodLabels =
    "moreau, rk4lcp, irkQ with Q Gauss stages, switching, root_shooting, smooth, pinn_singleQ, pinn_dualQ, "
    "pinn_adv_singleQ, pinn_adv_dualQ, pinn_central; append -interp to rk4lcp or irkQ for interpolated stage "
    "forces, -euler_lcp to rk4lcp or irkQ for the LCP on Moreau's prediction (seed 000's conventional RK4), "
    "+lcp_pinn to moreau, rk4lcp or irkQ for the LCP-PINN as contact solver";

// the most Gauss stages a PINN method takes (seed 000 uses up to 10; the tables go to 200)
inline constexpr int kMaxPinnStages = 100;

// "pinn_single" … "pinn_central", and back (false for another name)
const char* pinn_framework_name(PinnFramework f);
bool parse_pinn_framework(const std::string& name, PinnFramework& f);

// the state after one step (time steppers) or at one output time (the reference)
struct SeriesPoint {
  double t = 0.0;
  int n_dof = 0, n_contacts = 0;
  const double* q = nullptr;
  const double* u = nullptr;
  const double* lamN = nullptr;
  const double* lamT = nullptr;
  const ContactState* contact = nullptr;
};

// the series of a point in output order: q0.., u0.., lamN0.., lamT0.. (docs/DESIGN.md §5)
std::vector<std::string> series_names(int n_dof, int n_contacts);
void series_values(const SeriesPoint& p, std::vector<double>& values);

struct MethodOutcome {
  Status status = Status::ok;
  std::string message;   // why the run stopped early
  long steps = 0;        // steps (time steppers) or output samples (reference) after the start
  double failed_at = 0;  // time steppers: start of the failing step
  std::vector<Event> events;
  double max_lcp_residual = 0.0;
  long lcp_iterations = 0;
  int max_lcp_iterations = 0;
  long reference_steps = 0;  // reference: accepted Dormand–Prince steps
  long rhs_evaluations = 0;
  PinnTotals pinn;  // PINN methods
};

// runs `steps` steps of dt from (q0, u0) at t = 0; observe() sees the start state and then one
// point per step. The model description and its compiled model must match.
MethodOutcome run_method(const MethodSpec& spec, const ModelDescription& desc, const Model<HostDims>& model,
                         const Eigen::VectorXd& q0, const Eigen::VectorXd& u0, double dt, long steps,
                         const StepOptions& options, const std::function<void(const SeriesPoint&)>& observe);

}  // namespace fivsim
