// fivsim/identify/identification.hpp — one identification from a configuration (docs/DESIGN.md §4,
// `fivsim identify`): the record, its derivatives, plain SINDy on every sample, and for
// `extended_sindy` the three steps of seed 003 §3 (identify/extended_sindy.hpp); each identified
// equation re-simulated against the record (identify/sdof_response.hpp). `greybox` fits either the
// mass-normalised (k, c, F) of seed 003 Eq. 11 by (recursive) least squares on the equation error,
// or any numbers of a scenario (JSON pointers) by Nelder–Mead, a genetic algorithm or
// Levenberg–Marquardt on the output error of the simulated scenario (identify/response_fits.hpp;
// seed 002 §3.3). `joint_terms` regresses only the unknown terms beside a known model's right-hand
// side (seed 004 Eqs. 1–9). `pinn` trains the network pair of seed 002 §4.3 for the friction torque
// (identify/response_fits.hpp). On a belt-driven oscillator SINDy fits the relative velocity's
// terms on the slipping samples.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "fivsim/identify/extended_sindy.hpp"
#include "fivsim/identify/fit_intervals.hpp"
#include "fivsim/identify/held_regression.hpp"
#include "fivsim/identify/held_uncertainty.hpp"
#include "fivsim/identify/pinn_identification.hpp"
#include "fivsim/identify/record.hpp"
#include "fivsim/identify/sdof_response.hpp"
#include "fivsim/identify/sindy.hpp"

namespace fivsim {

// mass-normalised stiffness, damping and friction force (seed 003 Table 1)
struct SdofParameters {
  double k = 0.0, c = 0.0, F = 0.0;
};

// a scenario number fitted by `greybox` (output error)
struct GreyboxParameter {
  std::string path;  // JSON pointer into the model scenario
  double initial = 0.0, lo = 0.0, hi = 0.0;
  double truth = std::numeric_limits<double>::quiet_NaN();  // the data scenario's value, when simulated
};

// a candidate friction law of a grey-box search (`candidates`): the model scenario's /friction
// replaced by `friction` (its law and starting values) and every number of the law fitted within
// its bounds, beside the search's common parameters
struct LawCandidate {
  std::string law;
  nlohmann::json friction;
  std::vector<GreyboxParameter> parameters;
};

struct IdentifyConfig {
  std::string name;
  std::string method;  // sindy | extended_sindy | greybox | joint_terms | pinn
  nlohmann::json document;

  // the record: a CSV, or simulated from a scenario with the event-driven reference
  std::string csv_path;
  std::vector<std::string> scenario_files;  // every scenario file the config names (data, model, known)
  RecordColumns columns;
  bool simulate = false;
  ModelDescription model;        // simulate: the scenario's single-DoF model
  nlohmann::json data_document;  // simulate: that scenario after its overrides
  double q0 = 0.0, u0 = 0.0, t_end = 0.0, sample_dt = 0.0;
  // simulate: the input u(t) that drives the scenario's model — none, seed 003's base motion
  // u = A sin(ωt) (base_excited_sdof), or the torsion pendulum's column angle φ1 with
  // φ̇1 = A sin(ωt) from φ1(0) = 0 (seed 002 Eq. 9)
  enum class SimulatedInput { none, base_sine, column_rate_sine };
  SimulatedInput input = SimulatedInput::none;
  double input_amplitude = 0.0;

  // measurement noise on x (and v, at the same signal-to-noise ratio)
  double noise_snr_db = std::numeric_limits<double>::quiet_NaN();
  double noise_std = 0.0;
  std::uint64_t noise_seed = 1;

  // Savitzky–Golay derivatives: `window` samples, or (window 0) an odd count spanning window_s
  // seconds of the record (7 ms: seed 003's 35 samples at 5 kHz), at least order + 2
  int window = 0, order = 3;
  double window_s = 0.007;
  std::vector<LibraryTerm> library;
  // a belt-driven oscillator's belt speed (library.belt_speed, else its model's): the library's w
  // is x2 less it, and a library with w is fitted on the samples that slip (|w| > v_slip)
  double belt_speed = 0.0;
  bool belt = false;
  // library.stribeck: the decay rate of its sgn(w)·exp(−a|w|) term found by a search over a
  // geometric grid of rates (the fit's ẋ2 residual least); n = 0: no such term
  GridAxis stribeck_rates;
  SindyOptions sindy;
  bool constrain_dx1 = true;  // ẋ1 = x2 (seed 003: the SR3 constraint)

  // greybox: least_squares | rls (equation error of Eq. 11) or nelder_mead | genetic |
  // levenberg_marquardt (output error)
  std::string greybox_optimizer;
  // the output-error searches: the simulated response x(t) at the record's times for the
  // parameters' values (in `parameters` order); empty when the simulation fails, with the reason in
  // `why`. The loader sets it (io/identify_config.hpp: the model scenario with the values written at
  // the parameters' paths), so that identification runs a simulation without parsing a scenario.
  std::function<Eigen::VectorXd(const Eigen::VectorXd& values, const Record& record, std::string* why)> response;
  // called on the calling thread between the steps of a long identification (each loss evaluation
  // of pinn, each batch of candidates of a search, each simulation of one run one by one); what it
  // throws ends the identification (how the Python module stops on Ctrl-C). May be empty
  std::function<void()> poll;
  // a batch of candidates at once (a column each), one sweep of the model scenario on the CPU or
  // the GPU (sweep/greybox_sweeps.hpp sets them; identify cannot reach the sweep engine): their
  // mean squared output errors (+∞ for a simulation that fails; genetic generations, Nelder–Mead
  // iterations) and their residual series x − record (a column each, NaN where a simulation
  // failed; Levenberg–Marquardt). Empty, or `evaluate` "simulations": `response` for each
  // candidate, side by side on the cores
  std::function<Eigen::VectorXd(const Eigen::MatrixXd& candidates, const Record& record)> population_error;
  std::function<Eigen::MatrixXd(const Eigen::MatrixXd& candidates, const Record& record)> population_residuals;
  std::string evaluate = "sweep";  // sweep | simulations
  nlohmann::json greybox_model;    // the model scenario after its overrides (output-error searches)
  std::vector<GreyboxParameter> parameters;
  // several friction laws fitted and ranked (identify/law_ranking.hpp): each its own search, the
  // config for it from io/identify_config.hpp candidate_config
  std::vector<LawCandidate> candidates;
  int max_iter_search = 2000;
  int population = 48, generations = 40;  // genetic
  bool polish = true;                     // genetic: Nelder–Mead from the best candidate
  int simplices = 1;      // nelder_mead: simplices stepped together, from the initial values and random starts
  double fd_step = 1e-6;  // levenberg_marquardt: finite-difference step relative to each parameter's bounds
  std::uint64_t search_seed = 1;
  double rls_lambda = 1.0;

  // joint_terms (seed 004): the known right-hand side is this model's M, C, K and forcing (its
  // contacts are the unknown); `slip_only` fits the samples with |v| > v_slip only
  ModelDescription known_model;
  bool slip_only = false;

  double v_stop = 1e-7, v_slip = 1e-3;  // Eq. 15 (greybox least squares, joint_terms: v_slip only)
  // extended_sindy's step 3: "held" (the slip regression held by the stop samples,
  // identify/held_regression.hpp) or "grid" (seed 003 Eqs. 18–20 over a (k̂, ĉ) grid)
  std::string step3 = "held";
  GridAxis k_grid, c_grid;              // grid: n = 0: around the slip-sample SINDy estimate
  std::string device = "auto";          // the bound grid: auto (CUDA when present) | cpu | cuda
  PinnIdentifyOptions pinn;             // pinn: the networks, their training and Eq. 23's coefficients
  std::optional<SdofParameters> truth;  // relative errors are reported when known
};

struct SindyReport {
  IdentifiedSdof equation;
  std::vector<std::string> text;  // "dx1 = …", "dx2 = …"
  SdofParameters parameters;      // read off the ẋ2 row (−x1, −x2, −sgn(x2) coefficients)
  SdofResponse response;
  long samples = 0;
  int iterations = 0;
  // 95 % intervals of (k, c, F): the regression's covariance over the ẋ2 row's active terms on
  // the samples it was fitted on (identify/fit_intervals.hpp), widened on each side by the change
  // of the estimate refitted with ẋ2 from the doubled derivative window (the filter's bias, which
  // no covariance sees; identify/held_uncertainty.hpp); or extended SINDy's held intervals
  bool has_interval = false;
  SdofParameters lo, hi;
  SdofParameters filter_change;  // the refit minus the estimate
  // a SINDy fit's intervals per library term of its ẋ2 row (the same covariance and widening; NaN
  // for a term the fit dropped): what joint_terms identifies. Empty for least squares and held
  Eigen::VectorXd term_lo, term_hi;
};

struct GreyboxReport {
  Eigen::VectorXd values;    // per parameter
  Eigen::VectorXd response;  // x of the fitted scenario at the record's times
  double rmse = 0.0;
  int iterations = 0;
  long evaluations = 0;
  double wall_s = 0.0;  // the search
  long batches = 0;     // batches of candidates (sweeps, when evaluated_by is "sweeps")
  // 95 % intervals per parameter from the output error's covariance at the fit, its Jacobian by
  // one more batch of forward differences (identify/fit_intervals.hpp); NaN where it fails
  Eigen::VectorXd half_width;
  double residual_rho1 = 0.0, effective_samples = 0.0;  // of the residual series (fit_intervals)
  std::string evaluated_by = "simulations";             // or "sweeps" (one per batch of candidates)
};

// an equation-error fit's ẋ2 residual on the samples its equation must hold on, against what a
// right equation leaves there: the record's noise through the derivative filter and the filter's
// bias (identification.cpp equation_check); NaN where not checked
struct EquationCheck {
  double rms = std::numeric_limits<double>::quiet_NaN();
  double expected = std::numeric_limits<double>::quiet_NaN();
  long samples = 0;
};

struct IdentificationResult {
  Record record;                    // as identified (after noise), with v, u, du filled
  SindyReport sindy;                // plain SINDy on every sample
  bool extended = false;            // method extended_sindy
  bool converges_to_sindy = false;  // no stop samples: the constraints never act
  long n_stop = 0, n_slip = 0;
  SindyReport slip_sindy;        // step 2: SINDy on the slip samples
  BoundSurfaces bounds;          // step 3 "grid"
  std::string bounds_backend;    // "cpu" or "cuda"
  HeldRegression held;           // step 3 "held"
  HeldIntervals held_intervals;  // its 95 % intervals (when the record holds the doubled window)
  bool has_held_intervals = false;
  SindyReport extended_sindy;
  std::vector<std::string> dropped_terms;  // step-2 terms outside Eq. 12
  bool joint_terms = false;                // joint_terms: `sindy` holds the known + unknown equation
  bool greybox_equation = false;           // greybox least_squares / rls: `sindy` holds the Eq. 12 fit
  bool greybox_search = false;             // greybox output-error searches: `greybox` holds the fit
  GreyboxReport greybox;
  bool pinn = false;  // method pinn: `pinn_result` holds the networks' torque and response
  PinnIdentifyResult pinn_result;
  EquationCheck equation;  // SINDy and extended SINDy: the final equation's
  // SINDy on a belt-driven oscillator: the library as fitted (the Stribeck factor at its rate), and
  // the rate search's grid and ẋ2 residual sums of squares (empty without library.stribeck)
  std::vector<LibraryTerm> belt_library;
  double stribeck_rate = 0.0;
  std::vector<double> stribeck_rates, stribeck_rss;
  // the torque's RMS error against the record's friction column, in percent of its RMS, over the
  // samples inside the balance's difference stencil (NaN when the record has no friction column)
  double pinn_torque_error_percent = std::numeric_limits<double>::quiet_NaN();
};

// the derivative window in samples for a record sampled every dt (IdentifyConfig::window)
int derivative_window(const IdentifyConfig& config, double dt);

// the Savitzky–Golay derivative of one of the record's series with the config's window and order
Eigen::VectorXd record_derivative(const Eigen::VectorXd& y, const Record& record, const IdentifyConfig& config);

// the record the configuration describes (CSV or simulation, then noise); InputError for bad data
Record identification_record(const IdentifyConfig& config);

// runs the configured method on the record; InputError when the library lacks what it needs
IdentificationResult identify(const IdentifyConfig& config, const Record& record);

// the relative error in percent of one identified number against its truth (the absolute error
// in percent when the truth is 0), and of (k, c, F)
double relative_error_percent(double identified, double truth);
SdofParameters relative_errors_percent(const SdofParameters& identified, const SdofParameters& truth);

}  // namespace fivsim
