// src/identify/held_uncertainty.cpp — intervals of the held step 3 by a cycle bootstrap and the
// derivative window's effect (identify/held_uncertainty.hpp).
#include "fivsim/identify/held_uncertainty.hpp"

#include <algorithm>
#include <cmath>

#include "fivsim/core/random.hpp"

namespace fivsim {
namespace {

// the value at fraction p of sorted values (linear between order statistics)
double quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double at = p * static_cast<double>(v.size() - 1);
  const std::size_t i = static_cast<std::size_t>(at);
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (at - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

double component(const HeldRegression& h, int i) { return i == 0 ? h.k : i == 1 ? h.c : h.F; }

}  // namespace

HeldRegression HeldData::fit(const std::vector<long>& stop_at, const std::vector<long>& slip_rows) const {
  const long ns = static_cast<long>(stop_at.size()), nl = static_cast<long>(slip_rows.size());
  Eigen::VectorXd s_x1(ns), s_u(ns), s_du(ns), l_x1(nl), l_x2(nl), l_dx2(nl), l_u(nl), l_du(nl);
  std::vector<double> s_slack(static_cast<std::size_t>(ns));
  for (long j = 0; j < ns; ++j) {
    const long i = stop[static_cast<std::size_t>(stop_at[static_cast<std::size_t>(j)])];
    s_x1(j) = x1(i), s_u(j) = u(i), s_du(j) = du(i);
    s_slack[static_cast<std::size_t>(j)] = slack[static_cast<std::size_t>(stop_at[static_cast<std::size_t>(j)])];
  }
  for (long j = 0; j < nl; ++j) {
    const long i = slip_rows[static_cast<std::size_t>(j)];
    l_x1(j) = x1(i), l_x2(j) = x2(i), l_dx2(j) = dx2(i), l_u(j) = u(i), l_du(j) = du(i);
  }
  const BoundSamples s{s_x1.data(), nullptr, nullptr, s_u.data(), s_du.data(), ns};
  const BoundSamples l{l_x1.data(), l_x2.data(), l_dx2.data(), l_u.data(), l_du.data(), nl};
  return held_regression(s, l, s_slack.data());
}

HeldRegression HeldData::fit() const {
  std::vector<long> all(stop.size());
  for (std::size_t j = 0; j < all.size(); ++j) all[j] = static_cast<long>(j);
  return fit(all, slip);
}

std::vector<long> cycle_starts(const Eigen::VectorXd& u) {
  std::vector<long> starts;
  if (u.size() < 2) return starts;
  const double mean = u.mean();
  for (long i = 1; i < u.size(); ++i)
    if (u(i - 1) < mean && u(i) >= mean) starts.push_back(i);
  return starts;
}

HeldIntervals held_intervals(const HeldData& data, const HeldRegression& estimate, const Eigen::VectorXd& dx2_check,
                             int check_window, int resamples, std::uint64_t seed) {
  HeldIntervals out;
  out.check_window = check_window;
  // the filter: the same samples with ẋ2 from the doubled window
  HeldData checked = data;
  checked.dx2 = dx2_check;
  const HeldRegression doubled = checked.fit();
  for (int i = 0; i < 3; ++i) out.filter_change[i] = doubled.ok ? component(doubled, i) - component(estimate, i) : 0.0;
  // the constraints: where stop samples hold the answer, how far they moved it from the slip fit
  if (estimate.active > 0) {
    HeldData free = data;
    free.stop.clear();
    free.slack.clear();
    const HeldRegression unconstrained = free.fit();
    for (int i = 0; i < 3; ++i)
      out.constraint_change[i] = unconstrained.ok ? component(unconstrained, i) - component(estimate, i) : 0.0;
  }

  // the blocks: the stretch before the first cycle start, each cycle, the stretch after the last
  const std::vector<long> starts = cycle_starts(data.u);
  out.cycles = starts.size() > 1 ? static_cast<int>(starts.size()) - 1 : 0;
  std::vector<long> edges{0};
  for (long s : starts)
    if (s > 0) edges.push_back(s);
  edges.push_back(data.u.size());
  const std::size_t blocks = edges.size() - 1;
  // each block's stop positions and slip rows (both lists are in record order)
  std::vector<std::vector<long>> block_stop(blocks), block_slip(blocks);
  std::size_t b = 0;
  for (std::size_t j = 0; j < data.stop.size(); ++j) {
    while (data.stop[j] >= edges[b + 1]) ++b;
    block_stop[b].push_back(static_cast<long>(j));
  }
  b = 0;
  for (long i : data.slip) {
    while (i >= edges[b + 1]) ++b;
    block_slip[b].push_back(i);
  }

  out.bootstrap = out.cycles >= kMinBootstrapCycles && resamples > 1;
  double lo[3], hi[3];
  if (out.bootstrap) {
    std::vector<std::vector<double>> values(3);
    std::vector<long> stop_at, slip_rows;
    for (int r = 0; r < resamples; ++r) {
      stop_at.clear();
      slip_rows.clear();
      for (std::size_t k = 0; k < blocks; ++k) {
        const std::size_t pick = std::min(blocks - 1, static_cast<std::size_t>(unit_draw(seed, r, k) * blocks));
        stop_at.insert(stop_at.end(), block_stop[pick].begin(), block_stop[pick].end());
        slip_rows.insert(slip_rows.end(), block_slip[pick].begin(), block_slip[pick].end());
      }
      const HeldRegression h = data.fit(stop_at, slip_rows);
      if (!h.ok) continue;
      for (int i = 0; i < 3; ++i) values[static_cast<std::size_t>(i)].push_back(component(h, i));
    }
    out.resamples = static_cast<int>(values[0].size());
    out.bootstrap = out.resamples > 1;
    for (int i = 0; i < 3 && out.bootstrap; ++i) {
      const std::vector<double>& v = values[static_cast<std::size_t>(i)];
      double mean = 0.0, m2 = 0.0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      for (double x : v) m2 += (x - mean) * (x - mean);
      out.spread[i] = std::sqrt(m2 / static_cast<double>(v.size() - 1));
      lo[i] = quantile(v, 0.025);
      hi[i] = quantile(v, 0.975);
    }
  }
  if (!out.bootstrap) {
    out.resamples = 0;
    for (int i = 0; i < 3; ++i) {
      out.spread[i] = std::sqrt(std::max(0.0, estimate.covariance(i, i)));
      lo[i] = component(estimate, i) - 1.96 * out.spread[i];
      hi[i] = component(estimate, i) + 1.96 * out.spread[i];
    }
  }
  // the interval holds the estimate, widened on each side by the filter's and the constraints' changes
  for (int i = 0; i < 3; ++i) {
    const double v = component(estimate, i), f = std::abs(out.filter_change[i]) + std::abs(out.constraint_change[i]);
    out.lo[i] = std::min(lo[i], v) - f;
    out.hi[i] = std::max(hi[i], v) + f;
  }
  return out;
}

}  // namespace fivsim
