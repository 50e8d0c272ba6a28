// fivsim/analysis/classification.hpp — the class of a case and its evidence from the samples its
// rings kept and its Lyapunov estimate (docs/METHODS.md "Classes"): periodic-N when the last
// (K+1)·N samples, grouped by phase mod N, each stay within a tolerance relative to the attractor's
// size and no longer creep towards their cycle; chaotic when the largest Lyapunov exponent is
// positive beyond three standard errors; quasi-periodic when it is zero within them and the samples
// keep their extent; no-stick-slip, diverged, else undetermined. FIVSIM_HD templates over a case's
// result R (cases/case_runner.hpp CaseResult: its status, transitions, running statistics, largest
// step changes, ring counts and Lyapunov blocks), so that CPU and GPU classify with the same code.
#pragma once

#include "fivsim/analysis/statistics.hpp"
#include "fivsim/analysis/sweep_analysis.hpp"
#include "fivsim/core/status.hpp"
#include "fivsim/model/events.hpp"

namespace fivsim {

// unclassified: the observers asked for leave classification out (a lean sweep); undetermined:
// the evidence decides nothing (too few samples, not settled, no Lyapunov estimate)
enum class CaseClass : int {
  periodic = 0,
  chaotic = 1,
  no_stick_slip = 2,
  diverged = 3,
  unclassified = 4,
  quasi_periodic = 5,
  undetermined = 6
};

namespace detail {
// the mean length of the Lyapunov estimate's blocks (s)
template <class R>
FIVSIM_HD inline double mean_block_time(const R& r) {
  return r.lyapunov_blocks.count > 0 ? r.lyapunov_time / static_cast<double>(r.lyapunov_blocks.count) : nan("");
}
}  // namespace detail

// the samples a class is judged on: the kept points of ring `kind` that carry `code` (any code
// when code < −1), oldest first
struct SampleSet {
  const double* points;
  int kind;
  long seen;
  double code;
  int count;
  int capacity;
  int stride;
  // how far a sample of component c may move with the orbit's phase against the time grid: the
  // section's samples are interpolated to their event inside the step (O(dt²)), transition points
  // are taken at the step after the event (up to the component's largest change over one step)
  template <class R>
  FIVSIM_HD double jitter(const R& r, int c) const {
    return kind == 1 ? 0.0 : r.max_step_change[c];
  }
  // where the last sample of a filtered set was found: samples read in increasing order cost one
  // pass over the ring, not one each
  mutable int cursor_i = -1, cursor_pos = -1;
  FIVSIM_HD const double* at(int i) const {
    if (code < -1.0) return ring_point(points, kind, seen, capacity, stride, i);
    if (i == cursor_i) return ring_point(points, kind, seen, capacity, stride, cursor_pos);
    if (i < cursor_i) cursor_i = cursor_pos = -1;
    const int kept = static_cast<int>(seen < capacity ? seen : capacity);
    for (int pos = cursor_pos + 1; pos < kept; ++pos) {
      const double* row = ring_point(points, kind, seen, capacity, stride, pos);
      if (row[1] != code) continue;
      cursor_pos = pos;
      if (++cursor_i == i) return row;
    }
    return ring_point(points, kind, seen, capacity, stride, kept - 1);  // not reached for i < count
  }
};

// how far the samples of each phase mod N spread over samples [first, first + len): `normalized`
// against the tolerance (≤ 1 passes), `relative` against the attractor's range. The tolerance of a
// component is periodic_tol × its range over the trajectory, plus for transition points its
// largest change over one step: a point taken at a step rather than at the exact event moves by up
// to that much with the phase of the time grid.
struct PhaseSpread {
  double normalized = 0.0;
  double relative = 0.0;
};

template <class R>
FIVSIM_HD inline PhaseSpread phase_spread(const SampleSet& set, int first, int len, int N, const SweepAnalysis& an,
                                          int n_dof, const R& r) {
  PhaseSpread out;
  for (int c = 0; c < 2 * n_dof; ++c) {
    const RunningStats& st = r.series[c];
    const double range = st.max - st.min;
    const double floor = 1e-12 * (1.0 + fabs(st.max));
    const double scale = range > floor ? range : floor;
    const double tol = an.periodic_tol * scale + set.jitter(r, c);
    for (int g = 0; g < N; ++g) {
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (int i = first + g; i < first + len; i += N) {
        const double v = set.at(i)[2 + c];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
      if (!(hi >= lo)) continue;
      const double spread = hi - lo;
      out.normalized = max_value(out.normalized, spread / tol);
      out.relative = max_value(out.relative, spread / scale);
    }
  }
  return out;
}

// whether the samples of some phase mod N still creep: the means of the first, middle and last
// third of that phase's kept samples move one way, and the geometric series of that motion (ratio
// middle-to-last over first-to-middle) leaves more than the tolerance to go — a transient that
// contracts onto a cycle at a fraction of a per cent per sample passes any short window's test
template <class R>
FIVSIM_HD inline bool samples_creep(const SampleSet& set, int N, const SweepAnalysis& an, int n_dof, const R& r) {
  // thirds of at least three samples: the step jitter's sawtooth averages out of their means
  const int per_phase = set.count / N;
  if (per_phase < 9) return false;
  const int third = per_phase / 3;
  const int first = set.count - 3 * third * N;  // the last 3·third samples of each phase
  for (int c = 0; c < 2 * n_dof; ++c) {
    const RunningStats& st = r.series[c];
    const double range = st.max - st.min;
    const double floor = 1e-12 * (1.0 + fabs(st.max));
    const double tol = an.periodic_tol * (range > floor ? range : floor) + set.jitter(r, c);
    for (int g = 0; g < N; ++g) {
      double mean[3] = {0.0, 0.0, 0.0};
      for (int j = 0; j < 3 * third; ++j) mean[j / third] += set.at(first + g + j * N)[2 + c];
      const double d1 = (mean[1] - mean[0]) / third, d2 = (mean[2] - mean[1]) / third;
      if (d1 * d2 <= 0.0) continue;  // no one-way motion
      const double a1 = fabs(d1), a2 = fabs(d2);
      // motion within the jitter (the step grid's sawtooth for transition points) or a hundredth
      // of the tolerance is noise, not a trend
      if (a2 <= set.jitter(r, c) || a2 <= 0.01 * tol) continue;
      // what a geometric approach has left: a2·ρ/(1 − ρ) after the last third; none: drifting
      const double left = a2 < a1 ? a2 * (a2 / a1) / (1.0 - a2 / a1) : (a2 > tol ? HUGE_VAL : 0.0);
      if (left > tol) return true;
    }
  }
  return false;
}

// the smallest N ≤ max_period whose phases each stay within tolerance over a window of at least
// (K+1)·N samples: the last (K+1)·N (tail) or all of them, while all kept samples no longer creep
// towards their cycle. 0 when none; `relative` the chosen N's spread (else the smallest), `first` the
// window's first sample.
template <class R>
FIVSIM_HD inline int find_period(const SampleSet& set, bool tail, const SweepAnalysis& an, int n_dof, const R& r,
                                 double& relative, int& first) {
  const int K = an.confirmations;
  relative = HUGE_VAL;
  first = 0;
  // bit N−1: the samples are periodic-N within tolerance but creep, and so do those of N's
  // multiples. Only then: the thirds of a period-3 sequence read with N = 1 hold its phases in
  // unequal numbers, and their means move one way without any creep
  unsigned creeping = 0;
  for (int N = 1; N <= an.max_period; ++N) {
    const int need = (K + 1) * N;
    if (set.count < need) break;
    const int len = tail ? need : set.count;
    const int start = set.count - len;
    const PhaseSpread e = phase_spread(set, start, len, N, an, n_dof, r);
    bool creeps = samples_creep(set, N, an, n_dof, r);
    for (int d = 1; d < N && !creeps; ++d) creeps = N % d == 0 && (creeping >> (d - 1)) & 1u;
    if (creeps && e.normalized <= 1.0) creeping |= 1u << (N - 1);
    if (e.normalized <= 1.0 && !creeps) {
      relative = e.relative;
      first = start;
      return N;
    }
    relative = e.relative < relative ? e.relative : relative;
  }
  if (!(relative < HUGE_VAL)) relative = nan("");
  return 0;
}

// whether the samples keep their extent: each component's range over the second half of them is
// at least 0.8 of the first half's (a transient that contracts onto a cycle shrinks it; samples on
// an invariant curve do not)
template <class R>
FIVSIM_HD inline bool samples_stationary(const SampleSet& set, int n_dof, const SweepAnalysis& an, const R& r) {
  const int half = set.count / 2;
  for (int c = 0; c < 2 * n_dof; ++c) {
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    for (int i = set.count - 2 * half; i < set.count; ++i) {
      const int h = i < set.count - half ? 0 : 1;
      const double v = set.at(i)[2 + c];
      lo[h] = v < lo[h] ? v : lo[h];
      hi[h] = v > hi[h] ? v : hi[h];
    }
    const double range = r.series[c].max - r.series[c].min;
    const double first = hi[0] - lo[0], second = hi[1] - lo[1];
    if (first > an.periodic_tol * range && second < 0.8 * first) return false;
  }
  return true;
}

// the section samples, or without enough of them (a contact that never sticks, a section never
// crossed) the stick→slip points of the first contact with enough, else all transition points
// (where they are more)
template <class R>
FIVSIM_HD inline SampleSet class_samples(const double* points, const SweepAnalysis& an, int n_dof, int n_contacts,
                                         const R& r) {
  const int stride = point_stride(n_dof);
  const int need = an.confirmations + 1;
  const SampleSet section{points,
                          1,
                          r.points_seen[1],
                          -2.0,
                          static_cast<int>(r.points_seen[1] < an.capacity ? r.points_seen[1] : an.capacity),
                          an.capacity,
                          stride};
  if (section.count >= need) return section;
  SampleSet set = section;
  set.kind = 0;
  set.seen = r.points_seen[0];
  const int kept = static_cast<int>(set.seen < an.capacity ? set.seen : an.capacity);
  // stick→slip of whichever contact sticks: its points recur with the orbit
  for (int c = 0; c < n_contacts; ++c) {
    const double cc = static_cast<double>(static_cast<int>(EventKind::stick_to_slip) * 64 + c);
    int n = 0;
    for (int i = 0; i < kept; ++i) n += ring_point(points, 0, set.seen, an.capacity, stride, i)[1] == cc ? 1 : 0;
    if (n >= need) {
      set.code = cc;
      set.count = n;
      return set;
    }
  }
  set.count = kept;
  return kept > section.count ? set : section;
}

// what the case settled on, as the range of each q and u (r.settled_lo/hi, what its attractor is
// known by, sweep/basins.hpp): over samples [first, set.count) of `set`, or over the window's
// statistics where `set` is null (a steady case's state and the remains of its decay); NaN where
// it settled on nothing. A case whose exact orbit decided it keeps the orbit's (case_orbit.hpp).
template <class R>
FIVSIM_HD inline void record_settled_range(const SampleSet* set, int first, int n_dof, R& r) {
  if (r.orbit_settle_t >= 0.0 && r.status == Status::ok) return;
  for (int c = 0; c < 2 * n_dof; ++c) {
    double lo = nan(""), hi = nan("");
    if (!set) {
      if (r.klass == CaseClass::no_stick_slip) {
        lo = r.series[c].min;
        hi = r.series[c].max;
      }
    } else {
      lo = HUGE_VAL;
      hi = -HUGE_VAL;
      for (int i = first; i < set->count; ++i) {
        const double v = set->at(i)[2 + c];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
    }
    r.settled_lo[c] = lo;
    r.settled_hi[c] = hi;
  }
}

// the class and its evidence from the kept samples and the Lyapunov estimate; `tail`: judge
// periodicity on the last (K+1)·N samples (an adaptive case, whose ring holds its transient),
// else on all kept samples
template <class R>
FIVSIM_HD inline void classify_case(const double* points, const SweepAnalysis& an, int n_dof, int n_contacts, R& r,
                                    bool tail = false) {
  const int confirmed_n = r.period_n;
  r.period_n = 0;
  r.period_s = 0.0;
  r.samples = 0;
  r.recurrence = nan("");
  if (r.status != Status::ok) {
    r.klass = CaseClass::diverged;
    r.settled_at = -1.0;
    record_settled_range(nullptr, 0, n_dof, r);
    return;
  }
  if (r.transitions == 0) {
    r.klass = CaseClass::no_stick_slip;
    r.settled_at = -1.0;
    record_settled_range(nullptr, 0, n_dof, r);
    return;
  }
  const SampleSet set = class_samples(points, an, n_dof, n_contacts, r);
  r.samples = set.count;
  int first = 0;
  // an adaptive case that confirmed periodic-N keeps it (its statistics, and so the tolerance's
  // scale, have been taken afresh since); its evidence is the window that confirmed it plus the
  // orbit after, on the samples that confirmed it (the section's, or where it was never crossed
  // the transition points': class_samples chose the same then)
  const int confirmed = tail && r.settled_at >= 0.0 ? confirmed_n : 0;
  int N = 0;
  if (confirmed > 0 && set.count >= (an.confirmations + 1) * confirmed) {
    N = confirmed;
    const int window = (an.confirmations + 2) * confirmed;
    first = set.count - (set.count < window ? set.count : window);
    r.recurrence = phase_spread(set, first, set.count - first, N, an, n_dof, r).relative;
  } else {
    N = find_period(set, tail, an, n_dof, r, r.recurrence, first);
  }
  if (N > 0) {
    r.klass = CaseClass::periodic;
    r.period_n = N;
    const double t0 = set.at(first)[0], t1 = set.at(set.count - 1)[0];
    r.period_s = (t1 - t0) / static_cast<double>(set.count - 1 - first) * N;
    // an adaptive case keeps the moment its confirming window began
    if (!(tail && r.settled_at >= 0.0)) r.settled_at = t0;
    // one period: the orbit's N crossings, in whichever order the case came to them
    record_settled_range(&set, set.count - N, n_dof, r);
    return;
  }
  r.settled_at = -1.0;
  // the exponent and its error as growth per block (a cycle between section samples): a
  // dimensionless figure, the same for any model's time scale
  const double err = r.lyapunov_blocks.std_error() * detail::mean_block_time(r);
  const double lambda = r.lyapunov * detail::mean_block_time(r);
  const bool measured =
      an.lyapunov_every > 0 && r.lyapunov_blocks.count >= kLyapunovMinBlocks && is_finite(lambda) && is_finite(err);
  if (measured && lambda > an.lyapunov_zero && lambda > 3.0 * err)
    r.klass = CaseClass::chaotic;
  else if (measured && 3.0 * err <= an.lyapunov_zero && fabs(lambda) <= 3.0 * err + an.lyapunov_zero &&
           set.count >= 4 * (an.confirmations + 1) && samples_stationary(set, n_dof, an, r))
    r.klass = CaseClass::quasi_periodic;
  else
    r.klass = CaseClass::undetermined;
  // a chaotic or quasi-periodic case by the hull of its window's samples
  record_settled_range(r.klass == CaseClass::undetermined ? nullptr : &set, 0, n_dof, r);
}

}  // namespace fivsim
