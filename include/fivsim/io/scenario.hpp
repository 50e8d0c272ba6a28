// fivsim/io/scenario.hpp — scenario files: loading, --set overrides, validation, and the parsed
// scenario (docs/DESIGN.md §4). Every rejection is an InputError naming the JSON pointer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fivsim/core/limits.hpp"
#include "fivsim/analysis/observers.hpp"
#include "fivsim/integrate/method.hpp"
#include "fivsim/integrate/switching.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/model/model_description.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {

struct IntegratorSettings {
  std::string method = "moreau";  // moreau | rk4lcp | irk | switching | root_shooting | pinn_*
  double dt = 0.0;
  double t_end = 0.0;
  long steps = 0;  // round(t_end / dt)
  StepOptions step;
  int order = 4;                                 // irk, pinn_* but central: Gauss–Legendre stages q (order 2q)
  StageForces stage_forces = StageForces::held;  // rk4lcp, irk: forces held or interpolated
  PinnConfig pinn;                               // pinn_*: the networks and their training
  bool lcp_pinn = false;                         // moreau, rk4lcp, irk with lcp_solver lcp_pinn
  // switching, root_shooting: error control and event location (0: the method's default)
  double rel_tol = 0.0, abs_tol = 0.0, event_tol = 0.0;
  // the per-case switching integrator of sweeps with these tolerances
  SwitchingSettings switching_settings() const;

  MethodSpec spec() const;
};

// the Poincaré section of sweeps (cases/case_runner.hpp); by default the break-away (stick→slip)
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
  double periodic_tol = 1e-3;        // sweeps: periodic-N tolerance, relative to each component's range
  int max_period = 8;                // sweeps: largest N tested
  int points = 32;                   // sweeps: transition and section points kept per case and kind
  int lyapunov_every = 0;            // sweeps: Lyapunov estimate, renormalised every n steps (0: none)
  double lyapunov_d0 = 1e-8;         // sweeps: distance of the Lyapunov twin in (q, u)
  double lyapunov_zero = 0.1;        // sweeps: |λ| × the mean cycle (growth per cycle) below this counts as zero
  long chaos_window = kChaosWindow;  // adaptive sweeps: cycles of positive exponent before a case stops as chaotic
  int confirmations = 3;             // sweeps: K, the repeats that confirm periodic-N
  bool adaptive = false;             // sweeps: each case stops when its class is known (t_end the longest)
  unsigned observers = kObserveBifurcation;  // sweeps: what each case is reduced to (analysis/observers.hpp)
  // sweeps, output_error: q[reference_dof] is compared at step k with reference[k] (t = k·dt)
  int reference_dof = 0;
  std::shared_ptr<const std::vector<double>> reference;
};

struct OutputSettings {
  bool timeseries = true;
  long every = 1;                  // write every n-th step
  bool points = true;              // sweeps: write points.csv
  std::vector<long> trajectories;  // sweeps: cases whose decimated time series are written
};

// the numbers a scenario's model is made of, as its /model and /friction blocks give them: a
// preset's parameters, or a linear_multibody description itself. A sweep writes a case's values
// into a copy and makes the case's model from it without going back to the JSON
// (sweep/sweep_plan.hpp).
struct ModelParameters {
  std::string type;  // which of the members below holds the model
  SliderBeltParams slider_belt;
  SliderChainParams slider_chain;
  ModeCouplingParams mode_coupling;
  BaseExcitedParams base_excited;
  TorsionPendulumParams torsion_pendulum;
  ModelDescription linear_multibody;
  // a preset's dynamic law (Dahl, LuGre, GMS), put on each of its contacts
  bool dynamic = false;
  DynamicFrictionLaw dynamic_law;

  // every number of the model in a fixed order (the same for every copy): f(double&)
  template <class F>
  void for_each_number(F&& f);
};

// steps of a run over [0, t_end] at dt: t_end/dt rounded when it is within 1e-9 of a whole
// number, else rounded up; at least 1 (the parser refuses more than kMaxSteps, core/limits.hpp)
long step_count(double dt, double t_end);

// the model description from its numbers
ModelDescription describe_model(const ModelParameters& p);

struct Scenario {
  std::string name;
  json document;  // the scenario as run (after --set), echoed into summary.json
  ModelParameters model_parameters;
  ModelDescription model;  // describe_model(model_parameters)
  Eigen::VectorXd q0, u0;
  IntegratorSettings integrator;
  AnalysisSettings analysis;
  OutputSettings output;
};

template <class F>
void ModelParameters::for_each_number(F&& f) {
  const auto law = [&](FrictionLaw& l) {
    for (double& x : l.p) f(x);
  };
  const auto all = [&](std::vector<double>& v) {
    for (double& x : v) f(x);
  };
  const auto matrix = [&](Eigen::MatrixXd& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) f(m.data()[i]);
  };
  if (type == "slider_belt") {
    SliderBeltParams& p = slider_belt;
    for (double* x : {&p.m, &p.k, &p.c, &p.v0, &p.Fn}) f(*x);
    law(p.law);
  } else if (type == "slider_chain") {
    SliderChainParams& p = slider_chain;
    for (auto* v : {&p.m, &p.k, &p.c, &p.Fn}) all(*v);
    f(p.v0);
    law(p.law);
  } else if (type == "mode_coupling_2dof") {
    ModeCouplingParams& p = mode_coupling;
    for (double* x : {&p.m, &p.k1, &p.k3, &p.kc, &p.c1, &p.c2, &p.Fp, &p.v0}) f(*x);
    law(p.law);
  } else if (type == "base_excited_sdof") {
    BaseExcitedParams& p = base_excited;
    for (double* x : {&p.m, &p.k, &p.c, &p.Fn, &p.A, &p.f_hz}) f(*x);
    law(p.law);
  } else if (type == "torsion_pendulum") {
    TorsionPendulumParams& p = torsion_pendulum;
    for (double* x : {&p.J2, &p.c2, &p.k2, &p.A, &p.f_hz, &p.Fn}) f(*x);
    law(p.law);
  } else {
    ModelDescription& d = linear_multibody;
    for (auto* m : {&d.M, &d.C, &d.K}) matrix(*m);
    for (auto* v : {&d.f0, &d.f_sin, &d.f_cos})
      for (Eigen::Index i = 0; i < v->size(); ++i) f((*v)(i));
    f(d.omega);
    for (ContactDescription& c : d.contacts) {
      for (auto* v : {&c.w_N, &c.w_T})
        for (Eigen::Index i = 0; i < v->size(); ++i) f((*v)(i));
      for (double* x : {&c.k_c, &c.v_surface, &c.Fn, &c.gap0}) f(*x);
      law(c.law);
    }
  }
}

// reads a JSON file; a missing file or malformed JSON is an InputError naming the file
json load_json_file(const std::string& path);

// applies "/json/pointer=value": value is parsed as JSON, else taken as a string; nan, inf and
// -inf become the corresponding numbers (so that validation can reject them by name)
void apply_override(json& doc, const std::string& assignment);

// the laws a /friction block takes, by name: the static ones (friction/static_laws.hpp), then the
// dynamic ones (friction/dynamic_laws.hpp)
std::vector<std::string> friction_law_names();

// validates the whole document and builds the model description
Scenario parse_scenario(const json& doc);
// the document with its start written out: `initial` {q, u} as the scenario starts (at rest where
// it leaves them out), so that a sweep may vary /initial/q/i of a scenario that gives no `initial`
json with_initial_written(json doc);

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

// a scenario and the model it describes, as `fivsim run`, `compare` and the Python module use them
struct LoadedScenario {
  Scenario scenario;
  std::unique_ptr<Model<HostDims>> model;
};

// a document (overrides applied) → validation → model; every failure is an InputError
LoadedScenario build_scenario(const nlohmann::json& document);

}  // namespace fivsim
