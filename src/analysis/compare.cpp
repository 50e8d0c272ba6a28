// src/analysis/compare.cpp — measures for `fivsim compare` (analysis/compare.hpp).
#include "fivsim/analysis/compare.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace fivsim {

RunRecord::RunRecord(int n_dof, int n_contacts, double t_from)
    : t_from_(t_from), stats_(series_names(n_dof, n_contacts).size()) {}

void RunRecord::add(const SeriesPoint& p) {
  // the start state is not a step's result; statistics cover t > 0 from t_from on
  if (p.t <= 0.0 || p.t < t_from_) return;
  series_values(p, values_);
  for (std::size_t i = 0; i < values_.size(); ++i) stats_[i].add(values_[i]);
  q0_.push_back(p.q[0]);
}

TransitionMatch match_transitions(const std::vector<Event>& reference, const std::vector<Event>& run, double window,
                                  double t_from) {
  // events grouped by (contact, kind), each group in time order
  using Key = std::pair<int, int>;
  std::map<Key, std::vector<double>> ref, got;
  for (const auto& e : reference)
    if (e.t >= t_from && e.kind != EventKind::none) ref[{e.contact, static_cast<int>(e.kind)}].push_back(e.t);
  for (const auto& e : run)
    if (e.t >= t_from && e.kind != EventKind::none) got[{e.contact, static_cast<int>(e.kind)}].push_back(e.t);
  // the automatic window: a quarter of the shortest spacing of same-kind reference transitions
  // (their group's, or the shortest of all for a group of one), so that a late transition is
  // still paired and a skipped one is not
  double shortest_all = std::numeric_limits<double>::infinity();
  for (const auto& [key, tr] : ref)
    for (std::size_t i = 1; i < tr.size(); ++i) shortest_all = std::min(shortest_all, tr[i] - tr[i - 1]);
  TransitionMatch m;
  double sum = 0.0;
  for (auto& [key, tr] : ref) {
    m.reference += static_cast<long>(tr.size());
    double w = window;
    if (!(w > 0)) {
      double shortest = shortest_all;
      for (std::size_t i = 1; i < tr.size(); ++i) shortest = std::min(shortest, tr[i] - tr[i - 1]);
      w = std::isfinite(shortest) ? 0.25 * shortest : std::numeric_limits<double>::infinity();
    }
    auto it = got.find(key);
    if (it == got.end()) {
      m.missed += static_cast<long>(tr.size());
      continue;
    }
    const std::vector<double>& tg = it->second;
    // greedy in time order: each reference event takes the earliest unused run event in reach
    std::size_t j = 0;
    long used = 0;
    for (double t : tr) {
      while (j < tg.size() && tg[j] < t - w) ++j;
      if (j < tg.size() && std::abs(tg[j] - t) <= w) {
        const double err = std::abs(tg[j] - t);
        m.worst_timing = std::max(m.worst_timing, err);
        sum += err;
        ++m.matched;
        ++used;
        ++j;
      } else {
        ++m.missed;
      }
    }
    m.spurious += static_cast<long>(tg.size()) - used;
  }
  for (auto& [key, tg] : got)
    if (ref.find(key) == ref.end()) m.spurious += static_cast<long>(tg.size());
  m.mean_timing = m.matched > 0 ? sum / static_cast<double>(m.matched) : 0.0;
  return m;
}

std::vector<Event> merge_brief_sticks(const std::vector<Event>& events, double shortest_stick) {
  std::vector<Event> out;
  std::vector<bool> dropped(events.size(), false);
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (dropped[i]) continue;
    const Event& a = events[i];
    if (a.kind == EventKind::slip_to_stick) {
      // the next event of this contact ends the stick
      std::size_t j = i + 1;
      while (j < events.size() && events[j].contact != a.contact) ++j;
      if (j < events.size() && events[j].kind == EventKind::stick_to_slip && events[j].t - a.t < shortest_stick &&
          is_slip(a.from) && is_slip(events[j].to) && a.from != events[j].to) {
        Event r = a;
        r.to = events[j].to;
        r.kind = EventKind::slip_reversal;
        out.push_back(std::move(r));
        dropped[j] = true;
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

std::vector<double> transition_displacement_rms(const std::vector<Event>& events, const ModelDescription& d,
                                                double t_from) {
  const int nc = d.n_contacts();
  std::vector<RunningStats> s(nc);
  for (const auto& e : events) {
    if (e.t < t_from || (e.kind != EventKind::stick_to_slip && e.kind != EventKind::slip_to_stick)) continue;
    double x = 0.0;
    const auto& w = d.contacts[e.contact].w_T;
    for (int k = 0; k < w.size(); ++k) x += w(k) * e.q[k];
    s[e.contact].add(x);
  }
  std::vector<double> out(nc);
  for (int i = 0; i < nc; ++i) out[i] = s[i].count > 0 ? s[i].rms() : std::numeric_limits<double>::quiet_NaN();
  return out;
}

std::vector<SpectralPeak> dominant_frequencies(const std::vector<double>& x, double dt, int count) {
  const int n = static_cast<int>(x.size());
  std::vector<SpectralPeak> peaks;
  if (n < 8 || !(dt > 0)) return peaks;
  double mean = 0.0;
  for (double v : x) mean += v;
  mean /= n;
  // Hann window; its coherent gain ½ is undone in the amplitudes
  double* in = fftw_alloc_real(static_cast<std::size_t>(n));
  fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(n / 2 + 1));
  for (int i = 0; i < n; ++i) in[i] = (x[i] - mean) * 0.5 * (1.0 - std::cos(2.0 * M_PI * i / (n - 1)));
  fftw_plan plan = fftw_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
  fftw_execute(plan);
  const int bins = n / 2 + 1;
  std::vector<double> amp(bins);
  for (int k = 0; k < bins; ++k) amp[k] = 2.0 * std::hypot(out[k][0], out[k][1]) / (0.5 * n);
  fftw_destroy_plan(plan);
  fftw_free(in);
  fftw_free(out);

  const double df = 1.0 / (n * dt);
  std::vector<std::pair<double, int>> maxima;
  for (int k = 1; k + 1 < bins; ++k)
    if (amp[k] > amp[k - 1] && amp[k] >= amp[k + 1]) maxima.push_back({amp[k], k});
  std::sort(maxima.begin(), maxima.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int p = 0; p < count && p < static_cast<int>(maxima.size()); ++p) {
    const int k = maxima[p].second;
    // parabola through the log amplitudes of the three bins (exact for a Gaussian peak)
    const double a = std::log(std::max(amp[k - 1], 1e-300)), b = std::log(amp[k]),
                 c = std::log(std::max(amp[k + 1], 1e-300));
    const double den = a - 2 * b + c;
    const double shift = den != 0 ? 0.5 * (a - c) / den : 0.0;
    peaks.push_back({(k + shift) * df, std::exp(b - 0.25 * (a - c) * shift)});
  }
  return peaks;
}

}  // namespace fivsim
