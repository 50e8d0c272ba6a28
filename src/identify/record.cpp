// src/identify/record.cpp — records for identification (identify/record.hpp).
#include "fivsim/identify/record.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "fivsim/core/input_error.hpp"
#include "fivsim/core/input_file.hpp"
#include "fivsim/core/random.hpp"
#include "fivsim/integrate/event_driven.hpp"
#include "fivsim/integrate/smooth_dynamic.hpp"

namespace fivsim {
namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  std::string cell;
  while (std::getline(s, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    out.push_back(cell);
  }
  return out;
}

Eigen::VectorXd as_vector(const std::vector<double>& c) {
  return Eigen::Map<const Eigen::VectorXd>(c.data(), static_cast<long>(c.size()));
}

}  // namespace

bool uniformly_sampled(const Eigen::VectorXd& t) {
  const long n = t.size();
  if (n < 2) return false;
  const double h = (t(n - 1) - t(0)) / static_cast<double>(n - 1);
  if (!(h > 0.0)) return false;
  for (long i = 1; i < n; ++i)
    if (std::abs(t(i) - t(i - 1) - h) > 1e-6 * h) return false;
  return true;
}

Record read_record_csv(const std::string& path, const RecordColumns& columns, const std::string& pointer) {
  std::istringstream in;
  try {
    // a record of 10^7 samples is about a GB of text
    in.str(read_input_file(path, std::uintmax_t{4} << 30, "a CSV"));
  } catch (const InputError& e) {
    throw InputError(pointer_join(pointer, "path"), e.what());
  }
  std::string line;
  if (!std::getline(in, line)) throw InputError(pointer_join(pointer, "path"), "'" + path + "' is empty");
  // a spreadsheet's UTF-8 byte-order mark is not part of the first column's name
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  const std::vector<std::string> header = split_csv_line(line);
  // the column index of each wanted name (−1: not wanted)
  auto index_of = [&](const std::string& key, const std::string& name) {
    if (name.empty()) return -1;
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    throw InputError(pointer_join(pointer, key), "no column '" + name + "' in '" + path + "'");
  };
  const int it = index_of("t", columns.t), ix = index_of("x", columns.x), iv = index_of("v", columns.v),
            iu = index_of("u", columns.u), idu = index_of("du", columns.du),
            iff = index_of("friction", columns.friction);
  constexpr int kColumns = 6;
  std::vector<std::vector<double>> cols(kColumns);
  const int wanted[kColumns] = {it, ix, iv, iu, idu, iff};
  long row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split_csv_line(line);
    for (int k = 0; k < kColumns; ++k) {
      if (wanted[k] < 0) continue;
      const std::string where = "'" + path + "' line " + std::to_string(row);
      if (static_cast<std::size_t>(wanted[k]) >= cells.size())
        throw InputError(pointer_join(pointer, "path"), where + " has too few columns");
      char* end = nullptr;
      const double value = std::strtod(cells[wanted[k]].c_str(), &end);
      if (end == cells[wanted[k]].c_str() || *end != '\0' || !std::isfinite(value))
        throw InputError(pointer_join(pointer, "path"), where + ": '" + cells[wanted[k]] + "' is not a finite number");
      cols[k].push_back(value);
    }
  }
  if (cols[0].size() < 3) throw InputError(pointer_join(pointer, "path"), "'" + path + "' has fewer than 3 rows");
  Record r;
  r.t = as_vector(cols[0]);
  r.x = as_vector(cols[1]);
  if (iv >= 0) r.v = as_vector(cols[2]);
  if (iu >= 0) r.u = as_vector(cols[3]);
  if (idu >= 0) r.du = as_vector(cols[4]);
  if (iff >= 0) r.friction = as_vector(cols[5]);
  if (!uniformly_sampled(r.t))
    throw InputError(pointer_join(pointer, "t"),
                     "the samples of '" + path + "' must be increasing and uniform in time");
  return r;
}

Record simulate_record(const ModelDescription& model, double q0, double u0, double t_end, double sample_dt) {
  if (model.dof() != 1) throw ModelError("a record is simulated for a single-DoF model");
  std::vector<double> t, x, v, friction;
  Eigen::VectorXd q(1), u(1);
  q(0) = q0;
  u(0) = u0;
  auto observe = [&](const ReferenceSample& s) {
    t.push_back(s.t);
    x.push_back(s.q(0));
    v.push_back(s.u(0));
    // the force that resists the motion, as F_f enters seed 002 Eq. 9
    double f = 0.0;
    for (std::size_t i = 0; i < model.contacts.size(); ++i)
      f -= model.contacts[i].w_T(0) * s.lamT(static_cast<long>(i));
    friction.push_back(f);
  };
  if (model.has_dynamic_friction()) {
    const SmoothOutcome out = simulate_smooth(model, q, u, t_end, sample_dt, 1e-9, SmoothOptions{}, observe);
    if (out.status != Status::ok) throw ModelError("the smooth integration stopped: " + out.message);
  } else {
    const EventDrivenOutcome out =
        simulate_event_driven(model, q, u, 0.0, t_end, sample_dt, EventDrivenOptions{}, observe);
    if (out.status != Status::ok) throw ModelError("the event-driven reference stopped: " + out.message);
  }
  Record r;
  r.t = as_vector(t);
  r.x = as_vector(x);
  r.v = as_vector(v);
  r.friction = as_vector(friction);
  return r;
}

void add_noise(Eigen::VectorXd& v, double sigma, std::uint64_t seed) {
  if (!(sigma > 0.0)) return;
  // Box–Muller on counter-based draws: sample i depends only on (seed, i)
  for (long i = 0; i < v.size(); ++i) {
    const double a = unit_draw(seed, 0x6e6f697365ULL, static_cast<std::uint64_t>(2 * i));
    const double b = unit_draw(seed, 0x6e6f697365ULL, static_cast<std::uint64_t>(2 * i + 1));
    v(i) += sigma * std::sqrt(-2.0 * std::log(1.0 - a)) * std::cos(2.0 * M_PI * b);
  }
}

double root_mean_square(const Eigen::VectorXd& v) {
  return v.size() ? std::sqrt(v.squaredNorm() / static_cast<double>(v.size())) : 0.0;
}

double noise_sigma_for_snr(const Eigen::VectorXd& signal, double snr_db) {
  return root_mean_square(signal) * std::pow(10.0, -snr_db / 20.0);
}

Eigen::VectorXd savitzky_golay_derivative(const Eigen::VectorXd& y, double dt, int window, int order) {
  const long n = y.size();
  if (window % 2 == 0 || window <= order || n < window || !(dt > 0.0))
    throw std::invalid_argument("savitzky_golay_derivative: needs an odd window > order and ≤ the samples");
  const int h = window / 2;
  // the least-squares polynomial over offsets −h..h (in samples): coefficients = P·y_window
  Eigen::MatrixXd V(window, order + 1);
  for (int r = 0; r < window; ++r)
    for (int c = 0; c <= order; ++c) V(r, c) = std::pow(static_cast<double>(r - h), c);
  const Eigen::MatrixXd P = V.completeOrthogonalDecomposition().pseudoInverse();
  Eigen::VectorXd d(n);
  // interior points: the slope of the centred fit at offset 0
  for (long i = h; i < n - h; ++i) d(i) = P.row(1).dot(y.segment(i - h, window)) / dt;
  // edges: the first and last full-window polynomials, differentiated at each edge offset
  const Eigen::VectorXd first = P * y.head(window), last = P * y.tail(window);
  auto slope = [&](const Eigen::VectorXd& a, double s) {
    double sum = 0.0;
    for (int c = 1; c <= order; ++c) sum += c * a(c) * std::pow(s, c - 1);
    return sum / dt;
  };
  for (int i = 0; i < h; ++i) {
    d(i) = slope(first, static_cast<double>(i - h));
    d(n - h + i) = slope(last, static_cast<double>(i + 1));
  }
  return d;
}

}  // namespace fivsim
