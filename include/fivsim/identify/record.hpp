// fivsim/identify/record.hpp — a measured (or simulated) single-DoF record for identification:
// reading it from CSV, simulating it with the event-driven reference, noise at a chosen level, and
// Savitzky–Golay differentiation (seed 003 §2.2, "smooth finite differentiation" with a window).
//
// A record holds the displacement x1 = x(t), the velocity x2 = ẋ (measured, or the Savitzky–Golay
// derivative of x1), and optionally a base excitation u(t) with its rate u̇ (seed 003 Eq. 11) and the
// friction force (torque) that resists the motion, when it is known (a simulated record, or a
// measured one). The samples must be uniform in time: the differentiation filters assume it.
#pragma once

#include <cstdint>
#include <string>

#include <Eigen/Dense>

#include "fivsim/model/model_description.hpp"

namespace fivsim {

struct Record {
  Eigen::VectorXd t, x, v, u, du;  // u, du empty when the record has no input
  Eigen::VectorXd friction;        // F_f of seed 002 Eq. 9 (−Σ w_T λ_T); empty when unknown
  bool has_input() const { return u.size() > 0; }
  bool has_friction() const { return friction.size() > 0; }
  long size() const { return static_cast<long>(t.size()); }
  double sample_dt() const { return size() > 1 ? (t(size() - 1) - t(0)) / static_cast<double>(size() - 1) : 0.0; }
};

// where the columns of a CSV record are; empty names are absent columns
struct RecordColumns {
  std::string t = "t", x = "x", v, u, du, friction;
};

// reads a CSV with a header row; throws InputError naming `pointer` (the config's data block) for a
// missing file or column, a non-numeric or non-finite entry, fewer than 3 rows, or non-uniform t
Record read_record_csv(const std::string& path, const RecordColumns& columns, const std::string& pointer);

// true when t is uniform to 1e-6 of its mean spacing and increasing
bool uniformly_sampled(const Eigen::VectorXd& t);

// the response of a single-DoF model from (q0, u0), sampled every sample_dt up to t_end, with its
// friction force: by the event-driven reference (integrate/event_driven.hpp), or by the smooth
// integrator (integrate/smooth_dynamic.hpp) for dynamic friction laws; the input columns stay empty
Record simulate_record(const ModelDescription& model, double q0, double u0, double t_end, double sample_dt);

// adds zero-mean Gaussian noise of standard deviation sigma to v (and x); deterministic for a seed
void add_noise(Eigen::VectorXd& v, double sigma, std::uint64_t seed);

// √(mean of squares) of a signal (0 when empty)
double root_mean_square(const Eigen::VectorXd& v);

// the standard deviation that gives a signal-to-noise ratio of snr_db for this signal:
// σ = rms(signal)·10^(−snr_db/20)
double noise_sigma_for_snr(const Eigen::VectorXd& signal, double snr_db);

// the first derivative of uniformly sampled y by Savitzky–Golay: a least-squares polynomial of
// `order` over `window` samples (odd, > order) around each point, differentiated there; the first
// and last window/2 points use the polynomial of the first and last full window
Eigen::VectorXd savitzky_golay_derivative(const Eigen::VectorXd& y, double dt, int window, int order = 3);

}  // namespace fivsim
