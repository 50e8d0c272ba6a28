// fivsim/io/scenario.hpp — scenario files: loading, --set overrides, validation, and the parsed
// scenario (DESIGN.md §4). Every rejection is an InputError naming the JSON pointer.
#pragma once

#include <string>
#include <vector>

#include "fivsim/integrate/method.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/model/model_description.hpp"

namespace fivsim {

struct IntegratorSettings {
  std::string method = "moreau";  // moreau | rk4lcp | irk | switching | root_shooting | pinn_*
  double dt = 0.0;
  double t_end = 0.0;
  long steps = 0;  // round(t_end / dt)
  StepOptions step;
  int order = 4;                              // irk, pinn_* but central: Gauss–Legendre stages q (order 2q)
  StageForces stage_forces = StageForces::held;  // rk4lcp, irk: forces held or interpolated
  PinnConfig pinn;                               // pinn_*: the networks and their training
  bool lcp_pinn = false;                         // moreau, rk4lcp, irk with lcp_solver lcp_pinn

  MethodSpec spec() const;
};

// the Poincaré section of sweeps (batch/case_runner.hpp); by default the break-away (stick→slip)
// of contact 0, or stroboscopic at the forcing period when the model is forced
struct PoincareSettings {
  std::string section = "stick_to_slip";  // stick_to_slip | velocity | stroboscopic | none
  int contact = 0;
  int dof = 0;
  double value = 0.0;
  std::string direction = "down";  // down | up | both
  double period = 0.0;
};

struct AnalysisSettings {
  double t_transient = 0.0;  // statistics start here
  PoincareSettings poincare;
  double periodic_tol = 1e-3;  // sweeps: periodic-N tolerance, relative to each component's range
  int max_period = 8;          // sweeps: largest N tested
  int points = 32;             // sweeps: transition and section points kept per case and kind
  int lyapunov_every = 0;      // sweeps: Lyapunov estimate, renormalised every n steps (0: none)
  double lyapunov_d0 = 1e-8;   // sweeps: distance of the Lyapunov twin in (q, u)
};

struct OutputSettings {
  bool timeseries = true;
  long every = 1;  // write every n-th step
  bool points = true;                  // sweeps: write points.csv
  std::vector<long> trajectories;      // sweeps: cases whose decimated time series are written
};

struct Scenario {
  std::string name;
  json document;  // the scenario as run (after --set), echoed into summary.json
  ModelDescription model;
  Eigen::VectorXd q0, u0;
  IntegratorSettings integrator;
  AnalysisSettings analysis;
  OutputSettings output;
};

// reads a JSON file; a missing file or malformed JSON is an InputError naming the file
json load_json_file(const std::string& path);

// applies "/json/pointer=value": value is parsed as JSON, else taken as a string; nan, inf and
// -inf become the corresponding numbers (so that validation can reject them by name)
void apply_override(json& doc, const std::string& assignment);

// validates the whole document and builds the model description
Scenario parse_scenario(const json& doc);

// pinn_central updates displacements by half steps around a velocity LCP, which suits friction
// under known normal forces (seed 001's slider chains) only; false with the reason otherwise
bool pinn_central_supports(const ModelDescription& d, std::string* why);

// a friction block {"law": ..., parameters...}
FrictionLaw parse_friction_law(JsonObject& obj);

// the networks and their training in a block: hidden (widths), activation, optimizer (lbfgs, adam,
// adam+lbfgs; default_optimizer when absent), max_iter, adam_iter, tol, learning_rate, history;
// the values passed in are the defaults
void parse_network_training(JsonObject& block, std::vector<int>& hidden, Activation& activation,
                            OptimizerOptions& optimizer, const std::string& default_optimizer);

}  // namespace fivsim
