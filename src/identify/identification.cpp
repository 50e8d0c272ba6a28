// src/identify/identification.cpp — one identification from a configuration
// (identify/identification.hpp; seed 003 §2–3, seed 002 §3.3, seed 004 Eqs. 1–9).
#include "fivsim/identify/identification.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "fivsim/core/cuda_device.hpp"
#include "fivsim/core/input_error.hpp"
#include "fivsim/identify/greybox.hpp"
#include "fivsim/identify/response_fits.hpp"
#include "fivsim/identify/law_ranking.hpp"
#include "fivsim/integrate/method.hpp"

namespace fivsim {
namespace {

// the state matrix X = [x1, x2, u, du] of the rows `rows` (all when empty)
Eigen::MatrixXd state_matrix(const Record& r, const std::vector<long>& rows, double belt = 0.0) {
  const long n = rows.empty() ? r.size() : static_cast<long>(rows.size());
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, kSindyVars);
  for (long k = 0; k < n; ++k) {
    const long i = rows.empty() ? k : rows[k];
    X(k, 0) = r.x(i);
    X(k, 1) = r.v(i);
    X(k, 4) = relative_velocity(r.v(i), belt);
    if (r.has_input()) {
      X(k, 2) = r.u(i);
      X(k, 3) = r.du(i);
    }
  }
  return X;
}

// what the final equation's ẋ2 row leaves of the record on the samples it must hold on (`rows`;
// all when empty): its residual's RMS against what a right equation leaves there — the record's
// noise on v through the derivative filter (the filter applied to white noise of the noise level
// record_noise_std finds in v) and the filter's bias (the change of ẋ2 with the window doubled)
EquationCheck equation_check(const Eigen::MatrixXd& theta, const Eigen::VectorXd& dx2, const Eigen::VectorXd& dx2_check,
                             const Eigen::VectorXd& xi2, const std::vector<long>& rows, const Record& record,
                             const IdentifyConfig& c) {
  EquationCheck out;
  const Eigen::VectorXd residual = dx2 - theta * xi2;
  const bool checkable = dx2_check.size() == dx2.size();
  double rr = 0.0, bias = 0.0;
  const long n = rows.empty() ? dx2.size() : static_cast<long>(rows.size());
  for (long k = 0; k < n; ++k) {
    const long i = rows.empty() ? k : rows[static_cast<std::size_t>(k)];
    rr += residual(i) * residual(i);
    if (checkable) bias += (dx2(i) - dx2_check(i)) * (dx2(i) - dx2_check(i));
  }
  if (n == 0) return out;
  out.samples = n;
  out.rms = std::sqrt(rr / static_cast<double>(n));
  // the noise through the filter: a fixed seed, so that the check is deterministic
  const double sigma_v = record_noise_std(record.v);
  Eigen::VectorXd white = Eigen::VectorXd::Zero(record.size());
  add_noise(white, std::isfinite(sigma_v) ? sigma_v : 0.0, 12345);
  const double noise = root_mean_square(record_derivative(white, record, c));
  out.expected = std::sqrt(noise * noise + bias / static_cast<double>(n));
  return out;
}

Eigen::MatrixXd select_rows(const Eigen::MatrixXd& m, const std::vector<long>& rows) {
  Eigen::MatrixXd out(static_cast<long>(rows.size()), m.cols());
  for (std::size_t k = 0; k < rows.size(); ++k) out.row(static_cast<long>(k)) = m.row(rows[k]);
  return out;
}

SdofParameters parameters_of(const Eigen::VectorXd& row, const std::vector<LibraryTerm>& terms) {
  SdofParameters p;
  for (std::size_t j = 0; j < terms.size(); ++j) {
    const std::string& n = terms[j].name;
    const double v = row(static_cast<long>(j));
    // + 0.0: a zero coefficient reads 0, not −0
    if (n == "x1")
      p.k = -v + 0.0;
    else if (n == "x2")
      p.c = -v + 0.0;
    else if (n == "sgn(x2)")
      p.F = -v + 0.0;
  }
  return p;
}

SindyReport report(const IdentifyConfig& c, const Eigen::MatrixXd& xi, const Record& record, long samples,
                   int iterations) {
  SindyReport r;
  r.equation.terms = c.library;
  r.equation.xi = xi;
  r.equation.belt = c.belt_speed;
  r.text = {sindy_equation(xi.col(0), c.library, "dx1"), sindy_equation(xi.col(1), c.library, "dx2")};
  r.parameters = parameters_of(xi.col(1), c.library);
  r.response = simulate_identified(r.equation, record);
  r.samples = samples;
  r.iterations = iterations;
  return r;
}

// ẋ2 with the derivative window doubled (2w + 1), the intervals' check on the filter; empty where
// the record is shorter than that window
Eigen::VectorXd doubled_window_derivative(const Eigen::VectorXd& y, const Record& r, const IdentifyConfig& c) {
  IdentifyConfig d = c;
  d.window = 2 * derivative_window(c, r.sample_dt()) + 1;
  return d.window <= r.size() ? record_derivative(y, r, d) : Eigen::VectorXd();
}

// a report's 95 % intervals of (k, c, F): half widths from the regression's covariance, widened on
// each side by |check − estimate|, the same numbers refitted with the doubled window
void set_intervals(SindyReport& r, const SdofParameters& half_width, const SdofParameters& check) {
  const SdofParameters& p = r.parameters;
  r.filter_change = {check.k - p.k, check.c - p.c, check.F - p.F};
  const SdofParameters& d = r.filter_change;
  r.lo = {p.k - half_width.k - std::abs(d.k), p.c - half_width.c - std::abs(d.c), p.F - half_width.F - std::abs(d.F)};
  r.hi = {p.k + half_width.k + std::abs(d.k), p.c + half_width.c + std::abs(d.c), p.F + half_width.F + std::abs(d.F)};
  r.has_interval = true;
}

// the intervals of a report whose ẋ2 row a SINDy fit gave on (theta, y): the covariance over the
// row's nonzero terms, read off as (k, c, F) like the estimates; `check` the refit's ẋ2 row
void add_sindy_intervals(SindyReport& r, const Eigen::MatrixXd& theta, const Eigen::VectorXd& y,
                         const Eigen::VectorXd& check) {
  const Eigen::VectorXd xi = r.equation.xi.col(1);
  std::vector<long> active;
  for (long j = 0; j < xi.size(); ++j)
    if (xi(j) != 0.0) active.push_back(j);
  Eigen::MatrixXd J(theta.rows(), static_cast<long>(active.size()));
  for (std::size_t k = 0; k < active.size(); ++k) J.col(static_cast<long>(k)) = theta.col(active[k]);
  const FitIntervals f = fit_intervals(J, y - theta * xi);
  if (!f.ok) return;
  Eigen::VectorXd hw = Eigen::VectorXd::Zero(xi.size());
  for (std::size_t k = 0; k < active.size(); ++k) hw(active[k]) = f.half_width(static_cast<long>(k));
  // (k, c, F) are minus the coefficients of x1, x2, sgn(x2)
  set_intervals(r, parameters_of(-hw, r.equation.terms), parameters_of(check, r.equation.terms));
  r.term_lo = r.term_hi = Eigen::VectorXd::Constant(xi.size(), std::nan(""));
  for (const long j : active) {
    const double w = hw(j) + std::abs(check(j) - xi(j));
    r.term_lo(j) = xi(j) - w;
    r.term_hi(j) = xi(j) + w;
  }
}

// the slip samples at least `reach` samples from every stop sample: a derivative window that
// reaches a stop phase mixes the stick's ẍ = 0 with the slip's, and the ẍ jump where the mass
// sticks gives the filtered ẍ an error of order the jump over the samples it spans
std::vector<long> away_from_stops(const Segregation& seg, long n, int reach) {
  std::vector<char> near(static_cast<std::size_t>(n), 0);
  for (long i : seg.stop)
    for (long j = std::max(0L, i - reach); j <= std::min(n - 1, i + reach); ++j) near[static_cast<std::size_t>(j)] = 1;
  std::vector<long> out;
  for (long i : seg.slip)
    if (!near[static_cast<std::size_t>(i)]) out.push_back(i);
  return out;
}

// greybox least_squares / rls: ẍ = k̂(u − x) + ĉ(u̇ − ẋ) − F̂ sgn(ẋ) over the slip samples
IdentificationResult greybox_equation_error(const IdentifyConfig& config, const Record& record) {
  if (!record.has_input())
    throw InputError("/data", "greybox least squares fits seed 003 Eq. 11 and needs the input u");
  IdentifyConfig c = config;
  c.library = polynomial_terms(1, true, false);
  c.library.push_back(parse_library_term("sgn(x2)"));
  const Eigen::VectorXd acc = record_derivative(record.v, record, c);
  const Segregation seg = segregate_stick_slip(record.v, 0.0, c.v_slip);
  if (seg.slip.size() < 3) throw InputError("/options/v_slip", "leaves fewer than 3 slip samples");
  const long n = static_cast<long>(seg.slip.size());
  Eigen::MatrixXd phi(n, 3);
  Eigen::VectorXd y(n);
  for (long k = 0; k < n; ++k) {
    const long i = seg.slip[k];
    phi.row(k) << record.u(i) - record.x(i), record.du(i) - record.v(i), -(record.v(i) > 0 ? 1.0 : -1.0);
    y(k) = acc(i);
  }
  const Eigen::VectorXd theta =
      c.greybox_optimizer == "rls" ? recursive_least_squares(phi, y, c.rls_lambda) : least_squares_fit(phi, y);
  Eigen::MatrixXd xi = Eigen::MatrixXd::Zero(5, 2);
  xi(1, 0) = 1.0;
  xi.col(1) = eq12_row(find_eq12_terms(c.library), 5, theta(0), theta(1), theta(2));
  IdentificationResult out;
  out.record = record;
  out.greybox_equation = true;
  out.sindy = report(c, xi, record, n, 0);
  // the intervals of (k, c, F) straight from Eq. 11's three columns
  const FitIntervals f = fit_intervals(phi, y - phi * theta);
  const Eigen::VectorXd acc_check = doubled_window_derivative(record.v, record, c);
  if (f.ok && acc_check.size()) {
    Eigen::VectorXd y_check(n);
    for (long k = 0; k < n; ++k) y_check(k) = acc_check(seg.slip[k]);
    const Eigen::VectorXd t = c.greybox_optimizer == "rls" ? recursive_least_squares(phi, y_check, c.rls_lambda)
                                                           : least_squares_fit(phi, y_check);
    set_intervals(out.sindy, {f.half_width(0), f.half_width(1), f.half_width(2)}, {t(0), t(1), t(2)});
  }
  return out;
}

// joint_terms (seed 004 Eqs. 1–9): ẍ − f^k(x, ẋ, t) ≈ Θ(x, ẋ, u, u̇)ξ, the known part from the
// known model's M, C, K and forcing
IdentificationResult joint_terms(const IdentifyConfig& c, const Record& record) {
  const ModelDescription& km = c.known_model;
  const double M = km.M(0, 0), C = km.C(0, 0), K = km.K(0, 0);
  const double f0 = km.f0(0), fs = km.f_sin(0), fc = km.f_cos(0), w = km.omega;
  auto known = [=](double t, double x1, double x2, double& d1, double& d2) {
    d1 = x2;
    d2 = (f0 + fs * std::sin(w * t) + fc * std::cos(w * t) - C * x2 - K * x1) / M;
  };
  std::vector<long> rows;
  if (c.slip_only)
    rows = segregate_stick_slip(record.v, 0.0, c.v_slip).slip;
  else
    for (long i = 0; i < record.size(); ++i) rows.push_back(i);
  if (rows.size() < c.library.size()) throw InputError("/options/v_slip", "leaves fewer samples than library terms");
  const Eigen::VectorXd acc = record_derivative(record.v, record, c);
  Eigen::VectorXd y(static_cast<long>(rows.size()));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const long i = rows[k];
    double d1, d2;
    known(record.t(i), record.x(i), record.v(i), d1, d2);
    y(static_cast<long>(k)) = acc(i) - d2;
  }
  const SindyFit fit = sindy_fit(evaluate_library(c.library, state_matrix(record, rows)), y, c.sindy);
  IdentificationResult out;
  out.record = record;
  out.joint_terms = true;
  SindyReport& r = out.sindy;
  r.equation.terms = c.library;
  r.equation.xi = Eigen::MatrixXd::Zero(static_cast<long>(c.library.size()), 2);
  r.equation.xi.col(1) = fit.xi.col(0);
  r.equation.known = known;
  r.text = {"dx1 = x2 (known)", "dx2 = known + f_u", sindy_equation(fit.xi.col(0), c.library, "f_u")};
  r.parameters = parameters_of(fit.xi.col(0), c.library);
  r.response = simulate_identified(r.equation, record);
  r.samples = static_cast<long>(rows.size());
  r.iterations = fit.iterations;
  const Eigen::VectorXd acc_check = doubled_window_derivative(record.v, record, c);
  if (acc_check.size()) {
    Eigen::VectorXd y_check(y.size());
    for (std::size_t k = 0; k < rows.size(); ++k)
      y_check(static_cast<long>(k)) = y(static_cast<long>(k)) + acc_check(rows[k]) - acc(rows[k]);
    const Eigen::MatrixXd theta = evaluate_library(c.library, state_matrix(record, rows));
    add_sindy_intervals(r, theta, y, sindy_fit(theta, y_check, c.sindy).xi.col(0));
  }
  return out;
}

}  // namespace

Eigen::VectorXd record_derivative(const Eigen::VectorXd& y, const Record& r, const IdentifyConfig& c) {
  return savitzky_golay_derivative(y, r.sample_dt(), derivative_window(c, r.sample_dt()), c.order);
}

int derivative_window(const IdentifyConfig& c, double dt) {
  if (c.window > 0) return c.window;
  // the odd count nearest window_s / dt (a tie goes up), at least order + 2
  const double span = dt > 0.0 ? c.window_s / dt : 0.0;
  int n = span < 1e6 ? static_cast<int>(std::lround(span)) : 1000001;
  if (n % 2 == 0) n += span >= n ? 1 : -1;
  const int least = (c.order + 2) | 1;
  return n < least ? least : n;
}

Record identification_record(const IdentifyConfig& c) {
  Record r;
  if (c.simulate) {
    r = simulate_record(c.model, c.q0, c.u0, c.t_end, c.sample_dt);
    const double w = c.model.omega, A = c.input_amplitude;
    if (c.input == IdentifyConfig::SimulatedInput::base_sine) {
      r.u = (w * r.t.array()).sin() * A;
      r.du = (w * r.t.array()).cos() * (A * w);
    } else if (c.input == IdentifyConfig::SimulatedInput::column_rate_sine) {
      r.u = (1.0 - (w * r.t.array()).cos()) * (A / w);
      r.du = (w * r.t.array()).sin() * A;
    }
  } else {
    r = read_record_csv(c.csv_path, c.columns, "/data");
  }
  const int window = derivative_window(c, r.sample_dt());
  if (window > r.size())
    throw InputError(
        c.window > 0 ? "/options/window" : "/options/window_s",
        "is larger than the record (" + std::to_string(window) + " of " + std::to_string(r.size()) + " samples)");
  // noise on the measured channels, each at the same signal-to-noise ratio
  const bool by_snr = std::isfinite(c.noise_snr_db);
  if (by_snr || c.noise_std > 0.0) {
    const double sx = by_snr ? noise_sigma_for_snr(r.x, c.noise_snr_db) : c.noise_std;
    const double x_rms = root_mean_square(r.x);
    if (r.v.size()) {
      const double sv =
          by_snr ? noise_sigma_for_snr(r.v, c.noise_snr_db) : (x_rms > 0 ? sx * root_mean_square(r.v) / x_rms : 0.0);
      add_noise(r.v, sv, c.noise_seed + 1);
    }
    add_noise(r.x, sx, c.noise_seed);
  }
  if (r.v.size() == 0) r.v = record_derivative(r.x, r, c);
  if (r.has_input() && r.du.size() == 0) r.du = record_derivative(r.u, r, c);
  return r;
}

namespace {

// the config's SINDy options, with ẋ1 = x2 fixed where constrain_dx1 asks (the seed's SR3 constraint)
SindyOptions sindy_options(const IdentifyConfig& c) {
  SindyOptions options = c.sindy;
  if (!c.constrain_dx1) return options;
  int x2 = -1;
  for (std::size_t j = 0; j < c.library.size(); ++j)
    if (c.library[j].name == "x2") x2 = static_cast<int>(j);
  if (x2 < 0) throw InputError("/library", "needs the term x2 for the constraint dx1 = x2 (/options/constrain_dx1)");
  for (int j = 0; j < static_cast<int>(c.library.size()); ++j) options.fixed.push_back({j, 0, j == x2 ? 1.0 : 0.0});
  return options;
}

// a library whose terms are collinear on the samples fitted has no unique fit: refused naming them
void refuse_collinear(const std::vector<LibraryTerm>& terms, const Eigen::MatrixXd& theta) {
  const std::vector<std::string> collinear = collinear_terms(terms, theta);
  if (collinear.empty()) return;
  std::string text;
  for (const std::string& t : collinear) text += (text.empty() ? "" : "; ") + t;
  throw InputError("/library", text + " on the record's samples: the fit has no unique answer; drop one");
}

// SINDy on a belt-driven oscillator: the library in x1, x2 and the relative velocity w = x2 −
// belt, fitted on the samples that slip (|w| > v_slip; a stuck sample's friction is a reaction,
// not the law), the Stribeck factor's decay rate (library.stribeck) the one of a geometric grid
// whose fit leaves the least ẋ2 residual
IdentificationResult belt_sindy(const IdentifyConfig& c, const Record& record) {
  IdentificationResult out;
  out.record = record;
  std::vector<long> slip;
  for (long i = 0; i < record.size(); ++i)
    if (std::abs(relative_velocity(record.v(i), c.belt_speed)) > c.v_slip) slip.push_back(i);
  if (slip.size() < c.library.size())
    throw InputError("/options/v_slip", "leaves " + std::to_string(slip.size()) + " slipping samples, fewer than the " +
                                            std::to_string(c.library.size()) + " library terms");
  Eigen::MatrixXd dX(record.size(), 2);
  dX.col(0) = record_derivative(record.x, record, c);
  dX.col(1) = record_derivative(record.v, record, c);
  const Eigen::MatrixXd X = state_matrix(record, slip, c.belt_speed), dXs = select_rows(dX, slip);
  const SindyOptions options = sindy_options(c);
  IdentifyConfig best = c;
  SindyFit fit;
  double least = HUGE_VAL;
  const int n = std::max(1, c.stribeck_rates.n);
  for (int k = 0; k < n; ++k) {
    IdentifyConfig trial = c;
    if (c.stribeck_rates.n > 0) {
      const double a = c.stribeck_rates.a * std::pow(c.stribeck_rates.b / c.stribeck_rates.a, k / (n - 1.0));
      for (LibraryTerm& t : trial.library) t = with_decay_rate(t, a);
      out.stribeck_rates.push_back(a);
    }
    const Eigen::MatrixXd theta = evaluate_library(trial.library, X);
    if (k == 0) refuse_collinear(trial.library, theta);
    const SindyFit f = sindy_fit(theta, dXs, options);
    const double rss = (dXs.col(1) - theta * f.xi.col(1)).squaredNorm();
    if (c.stribeck_rates.n > 0) out.stribeck_rss.push_back(rss);
    if (rss < least) {
      least = rss;
      best = trial;
      fit = f;
      out.stribeck_rate = c.stribeck_rates.n > 0 ? out.stribeck_rates.back() : 0.0;
    }
  }
  out.sindy = report(best, fit.xi, record, static_cast<long>(slip.size()), fit.iterations);
  out.belt_library = best.library;
  const Eigen::MatrixXd theta = evaluate_library(best.library, X);
  out.equation.rms = std::sqrt((dXs.col(1) - theta * fit.xi.col(1)).squaredNorm() / static_cast<double>(slip.size()));
  out.equation.samples = static_cast<long>(slip.size());
  return out;
}

}  // namespace

IdentificationResult identify(const IdentifyConfig& c, const Record& record) {
  if (c.method == "joint_terms") return joint_terms(c, record);
  if (c.method == "pinn") return identify_by_pinn(c, record);
  if (c.method == "greybox")
    return c.greybox_optimizer == "least_squares" || c.greybox_optimizer == "rls" ? greybox_equation_error(c, record)
                                                                                  : identify_by_search(c, record);
  if (c.belt && c.method == "sindy") return belt_sindy(c, record);
  IdentificationResult out;
  out.record = record;
  const Eigen::MatrixXd X = state_matrix(record, {}, c.belt_speed);
  Eigen::MatrixXd dX(record.size(), 2);
  dX.col(0) = record_derivative(record.x, record, c);
  dX.col(1) = record_derivative(record.v, record, c);
  const Eigen::MatrixXd theta = evaluate_library(c.library, X);
  refuse_collinear(c.library, theta);

  const SindyOptions options = sindy_options(c);
  const SindyFit all = sindy_fit(theta, dX, options);
  out.sindy = report(c, all.xi, record, record.size(), all.iterations);
  // the intervals' refits: ẋ2 with the window doubled
  const Eigen::VectorXd dx2_check = doubled_window_derivative(record.v, record, c);
  const bool checkable = dx2_check.size() == record.size();
  Eigen::MatrixXd dX_check = dX;
  if (checkable) dX_check.col(1) = dx2_check;
  if (checkable) add_sindy_intervals(out.sindy, theta, dX.col(1), sindy_fit(theta, dX_check, options).xi.col(1));
  out.equation = equation_check(theta, dX.col(1), dx2_check, all.xi.col(1), {}, record, c);
  out.extended = c.method == "extended_sindy";
  if (out.extended) {
    const Eq12Terms at = find_eq12_terms(c.library);
    if (!at.complete())
      throw InputError("/library", "extended_sindy needs the terms x1, x2, u, du and sgn(x2) (seed 003 Eq. 12)");
    if (!record.has_input()) throw InputError("/data", "extended_sindy needs the base excitation u (seed 003 Eq. 11)");
    // step 1 (Eq. 15)
    const Segregation seg = segregate_stick_slip(record.v, c.v_stop, c.v_slip);
    out.n_stop = static_cast<long>(seg.stop.size());
    out.n_slip = static_cast<long>(seg.slip.size());
    if (seg.slip.size() < c.library.size())
      throw InputError("/options/v_slip", "leaves " + std::to_string(seg.slip.size()) +
                                              " slip samples, fewer than the " + std::to_string(c.library.size()) +
                                              " library terms");
    // step 2: SINDy on the slip samples
    const SindyFit slip = sindy_fit(select_rows(theta, seg.slip), select_rows(dX, seg.slip), options);
    out.slip_sindy = report(c, slip.xi, record, out.n_slip, slip.iterations);
    if (checkable)
      add_sindy_intervals(out.slip_sindy, select_rows(theta, seg.slip), select_rows(dX, seg.slip).col(1),
                          sindy_fit(select_rows(theta, seg.slip), select_rows(dX_check, seg.slip), options).xi.col(1));
    if (seg.stop.empty()) {
      // continuous motion: the stick constraints never act (seed 003 §4.1)
      out.converges_to_sindy = true;
      out.extended_sindy = out.sindy;
      return out;
    }
    // the slip samples half a window clear of every stop: where Eq. 12 must hold
    const std::vector<long> clear = away_from_stops(seg, record.size(), derivative_window(c, record.sample_dt()) / 2);
    // step 3 on the stop and slip samples: the held regression, or the seed's grid
    double k_star = 0.0, c_star = 0.0, F_star = 0.0;
    if (c.step3 == "held") {
      // the slip samples clear of the stops; every stop sample held, each allowed the excess force
      // of a sample just past a break-away (ü by the derivative filter, at the step-2 estimate)
      const int window = derivative_window(c, record.sample_dt());
      HeldData data{record.x, record.v, dX.col(1), record.u, record.du, seg.stop, clear, {}};
      const SdofParameters guess = out.slip_sindy.parameters;
      const Eigen::VectorXd ddu = record_derivative(record.du, record, c);
      for (long i : seg.stop) data.slack.push_back(held_slack(c.v_stop, guess.k * record.du(i) + guess.c * ddu(i)));
      out.held = data.fit();
      if (!out.held.ok)
        throw InputError("/options/v_slip",
                         "the slip samples do not determine k, c and F (too few, or dependent "
                         "columns): lower v_slip or record longer");
      // the intervals: a bootstrap over the input's cycles, widened by ẋ2 with the window doubled
      // and by the constraints' pull (identify/held_uncertainty.hpp)
      IdentifyConfig doubled = c;
      doubled.window = 2 * window + 1;
      if (doubled.window <= record.size()) {
        out.held_intervals =
            held_intervals(data, out.held, record_derivative(record.v, record, doubled), doubled.window);
        out.has_held_intervals = true;
      }
      k_star = out.held.k, c_star = out.held.c, F_star = out.held.F;
    } else {
      // the bound surfaces over the (k̂, ĉ) grid (Eqs. 16–20)
      auto gather = [&](const std::vector<long>& rows, const Eigen::VectorXd& v) {
        Eigen::VectorXd g(static_cast<long>(rows.size()));
        for (std::size_t k = 0; k < rows.size(); ++k) g(static_cast<long>(k)) = v(rows[k]);
        return g;
      };
      const Eigen::VectorXd dx2 = dX.col(1);
      const Eigen::VectorXd s_x1 = gather(seg.stop, record.x), s_u = gather(seg.stop, record.u),
                            s_du = gather(seg.stop, record.du);
      const Eigen::VectorXd l_x1 = gather(seg.slip, record.x), l_x2 = gather(seg.slip, record.v),
                            l_dx2 = gather(seg.slip, dx2), l_u = gather(seg.slip, record.u),
                            l_du = gather(seg.slip, record.du);
      const BoundSamples stop{s_x1.data(), nullptr, nullptr, s_u.data(), s_du.data(), out.n_stop};
      const BoundSamples slip_samples{l_x1.data(), l_x2.data(), l_dx2.data(), l_u.data(), l_du.data(), out.n_slip};
      const SdofParameters guess = out.slip_sindy.parameters;
      GridAxis kg = c.k_grid, cg = c.c_grid;
      if (kg.n == 0) kg = {0.8 * std::abs(guess.k), 1.2 * std::abs(guess.k), 201};
      if (cg.n == 0) cg = {0.0, std::max(3.0 * std::abs(guess.c), 1e-3), 201};
      // the grid on the GPU when asked or present, else (or when the device fails under auto) on all cores
      std::string gpu_error = "not tried";
      if (c.device != "cpu" && (c.device == "cuda" || cuda_device_info().available))
        gpu_error = stick_slip_bounds_cuda(stop, slip_samples, kg, cg, out.bounds).error;
      if (gpu_error.empty()) {
        out.bounds_backend = "cuda";
      } else if (c.device == "cuda") {
        throw InputError("/options/device", "cuda was asked for the bound grid: " + gpu_error);
      } else {
        out.bounds = stick_slip_bounds(stop, slip_samples, kg, cg);
        out.bounds_backend = "cpu";
      }
      k_star = out.bounds.k_star, c_star = out.bounds.c_star, F_star = out.bounds.F_star;
    }
    Eigen::MatrixXd xi = slip.xi;
    for (long j = 0; j < xi.rows(); ++j) {
      const int i = static_cast<int>(j);
      const bool in_eq12 = i == at.x1 || i == at.x2 || i == at.u || i == at.du || i == at.sgn;
      if (!in_eq12 && xi(j, 1) != 0.0) out.dropped_terms.push_back(c.library[j].name);
    }
    xi.col(1) = eq12_row(at, xi.rows(), k_star, c_star, F_star);
    out.extended_sindy = report(c, xi, record, record.size(), 0);
    out.equation = equation_check(theta, dX.col(1), dx2_check, xi.col(1), clear, record, c);
    if (out.has_held_intervals) {
      const HeldIntervals& u = out.held_intervals;
      SindyReport& r = out.extended_sindy;
      r.lo = {u.lo[0], u.lo[1], u.lo[2]};
      r.hi = {u.hi[0], u.hi[1], u.hi[2]};
      r.filter_change = {u.filter_change[0], u.filter_change[1], u.filter_change[2]};
      r.has_interval = true;
    }
  }
  return out;
}

double relative_error_percent(double identified, double truth) {
  return truth != 0.0 ? 100.0 * std::abs(identified - truth) / std::abs(truth) : 100.0 * std::abs(identified);
}

SdofParameters relative_errors_percent(const SdofParameters& id, const SdofParameters& truth) {
  return {relative_error_percent(id.k, truth.k), relative_error_percent(id.c, truth.c),
          relative_error_percent(id.F, truth.F)};
}

}  // namespace fivsim
