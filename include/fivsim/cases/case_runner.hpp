// fivsim/cases/case_runner.hpp — one case of a sweep from start to end, reduced on the fly to the
// numbers of a bifurcation diagram (docs/DESIGN.md §2 observers, §5 cases.csv / points.csv).
//
// Written once as FIVSIM_HD code over plain structs: the CPU backend calls it from an OpenMP loop,
// the CUDA kernel from one thread per case (kernels/sweep_batch.cuh). The stepper is Moreau's
// (moreau.hpp) or, given the case's Runge–Kutta step map, RK4-LCP / Gauss IRK-LCP (rk_lcp.hpp), or
// the event-driven switching integrator (switching.hpp), whose mode changes and section samples
// reach the runner at their exact times rather than being found between steps.
// After analysis.t_transient it keeps, per case and without storing the trajectory:
//   - running statistics (RMS, min, max) of every series q.., u.., lamN.., lamT..;
//   - time fractions in free / stick / slip− / slip+ and the largest LCP residual;
//   - the last `capacity` transition points (seed 001 Fig. 5: positions at stick↔slip and
//     separation events) and the last `capacity` Poincaré samples on the scenario's section
//     (the break-away of a contact after a stick of at least two steps — on a belt, u leaving the
//     belt speed downwards — at the moment its stick margin extrapolates to zero inside the step;
//     a velocity crossing, interpolated linearly inside the step; or stroboscopic);
//   - a classification with its evidence (docs/METHODS.md "Classes"): periodic-N when the last
//     (K+1)·N samples, grouped by phase mod N, each stay within a tolerance relative to the
//     attractor's size; chaotic when the largest Lyapunov exponent is positive beyond three
//     standard errors; quasi-periodic when it is zero within them (and they are small) and the
//     samples do not contract;
//     no-stick-slip without events, diverged on a failed step, and otherwise undetermined (too
//     few samples, or not settled) — never chaotic by default;
//   - with analysis.adaptive, the case stops once periodic-N has repeated K times (after one more
//     orbit, over which its statistics are taken) or its exponent is positive beyond its error,
//     and at t_end at the latest: each case runs as long as its attractor needs.
// Points are kept in ring buffers in caller-provided memory (a slice of the chunk's point buffer),
// each row [t, code, q0.., u0..]; code is the event kind·64 + contact, or −1 for a section sample.
#pragma once

#include "fivsim/model/events.hpp"
#include "fivsim/analysis/observers.hpp"
#include "fivsim/analysis/statistics.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/integrate/switching.hpp"

namespace fivsim {

enum class SectionKind : int { none = 0, velocity = 1, stroboscopic = 2, stick_to_slip = 3 };

// the Poincaré section and the classification settings shared by all cases of a sweep
struct SweepAnalysis {
  SectionKind section = SectionKind::stick_to_slip;
  int contact = 0;  // stick_to_slip section: the contact whose break-away is sampled
  int dof = 0;      // velocity section: u[dof] = value
  double value = 0.0;
  int direction = -1;          // −1 crossing from above, +1 from below, 0 both
  double period = 0.0;         // stroboscopic: sample every period, starting at t_transient
  double periodic_tol = 1e-3;  // relative to each component's range over the trajectory
  int max_period = 8;          // largest N tested for periodic-N
  int capacity = 32;           // points kept per kind (transitions, section samples)
  // largest Lyapunov exponent (Benettin): a twin trajectory d0 away, renormalised every
  // lyapunov_every steps; 0 = not estimated
  int lyapunov_every = 0;
  double lyapunov_d0 = 1e-8;
  double lyapunov_zero = 0.1;  // |λ| × the mean cycle below this counts as zero (growth per cycle)
  int confirmations = 3;       // K: periodic-N needs (K+1)·N samples, N apart within tolerance
  bool adaptive = false;       // stop each case when its class is known (t_end the longest)
  unsigned observers = kObserveBifurcation;
  // output_error: q[reference_dof] against reference[k] at step k (host or device memory, read only)
  const double* reference = nullptr;
  long reference_n = 0;
  int reference_dof = 0;
  // output_error: each case also keeps its residual series q[dof] − reference[k] (reference_n
  // doubles after its point rings; the least-squares Jacobians of a grey-box search)
  bool keep_residuals = false;
};

// batch means of the Lyapunov estimate that a class may rest on
inline constexpr long kLyapunovMinBlocks = 16;

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

inline constexpr int kPointKinds = 2;  // 0 transitions, 1 section samples

// one case's immutable input: its model, start state and time grid
template <class D>
struct CaseSetup {
  Model<D> model;
  State<D> start;
  double dt = 0.0;
  long steps = 0;
  double t_transient = 0.0;
};

template <class D>
struct CaseResult {
  static constexpr int NS = 2 * D::max_dof + 2 * D::max_contacts;
  Status status = Status::ok;
  long steps = 0;                               // steps completed
  double failed_at = 0.0;                       // start time of the failing step
  RunningStats series[NS];                      // q.., u.., lamN.., lamT.. after t_transient
  double max_step_change[2 * D::max_dof] = {};  // largest |Δq_i|, |Δu_i| over one step after t_transient
  long in_state[4] = {0, 0, 0, 0};              // contact-steps in free / stick / slip− / slip+
  long transitions = 0;                         // events after t_transient, all contacts
  long section_hits = 0;                        // Poincaré samples after t_transient
  double max_lcp_residual = 0.0;
  double output_sse = 0.0;  // output_error: Σ (q[dof] − reference)² over the steps compared
  long output_samples = 0;
  long points_seen[kPointKinds] = {0, 0};  // points offered to each ring (kept: the last capacity)
  double lyapunov = 0.0;                   // largest Lyapunov exponent estimate (1/s), when asked for
  double lyapunov_time = 0.0;              // time over which it was averaged
  BatchMeans lyapunov_blocks;              // its growth rate per block (a block closes at each section sample)
  double lyapunov_block_sum = 0.0, lyapunov_block_time = 0.0;  // the open block
  CaseClass klass = CaseClass::undetermined;
  int period_n = 0;       // N of periodic-N
  double period_s = 0.0;  // N × mean time between section samples
  // the evidence of the class
  int samples = 0;  // samples the class was judged on
  // largest spread of a phase over the window, relative to the range (N chosen, else the best)
  double recurrence = 0.0;
  double settled_at = -1.0;  // time of the first sample of the periodic window (−1: not periodic)
};

// row width of the point buffer for n_dof degrees of freedom
FIVSIM_HD inline int point_stride(int n_dof) { return 2 + 2 * n_dof; }

// doubles of one case's point rings
FIVSIM_HD inline long case_rings_size(int n_dof, int capacity) {
  return static_cast<long>(kPointKinds) * capacity * point_stride(n_dof);
}

// doubles of point buffer one case needs: its rings, then its residual series when kept
FIVSIM_HD inline long case_points_size(int n_dof, const SweepAnalysis& an) {
  return case_rings_size(n_dof, an.capacity) + (an.keep_residuals ? an.reference_n : 0);
}

// the i-th oldest kept point of ring `kind` (0 ≤ i < kept)
FIVSIM_HD inline const double* ring_point(const double* points, int kind, long seen, int capacity, int stride, int i) {
  const long kept = seen < capacity ? seen : capacity;
  const long first = seen - kept;
  const long slot = (first + i) % capacity;
  return points + (static_cast<long>(kind) * capacity + slot) * stride;
}

namespace detail {

template <class T>
FIVSIM_HD inline void push_point(double* points, int kind, long& seen, int capacity, int n, double t, double code,
                                 const T* q, const T* u) {
  if (capacity <= 0) return;
  const int stride = point_stride(n);
  double* row = points + (static_cast<long>(kind) * capacity + seen % capacity) * stride;
  row[0] = t;
  row[1] = code;
  for (int i = 0; i < n; ++i) {
    row[2 + i] = static_cast<double>(q[i]);
    row[2 + n + i] = static_cast<double>(u[i]);
  }
  ++seen;
}

// a law's static friction coefficients, bounding a positive and a negative stick force (μ at zero
// relative velocity), found once per case so that a stick step pays no transcendental function
struct StaticFriction {
  double plus = 0.0, minus = 0.0;
};
FIVSIM_HD inline StaticFriction static_friction(const FrictionLaw& law) {
  StaticFriction mu;
  friction_bounds(law, 0.0, mu.plus, mu.minus);
  return mu;
}

// how far a sticking contact's friction force is inside its cone: μ(0)·λN − |λT|
FIVSIM_HD inline double stick_margin(const StaticFriction& mu, double lamN, double lamT) {
  return (lamT >= 0.0 ? mu.minus : mu.plus) * lamN - fabs(lamT);
}

// where in its step a break-away happened: the stick margins at the ends of the two steps before
// it, extrapolated linearly to zero (the spring force that breaks the stick grows smoothly), as a
// fraction of the step; 1 (the step's end, the grid's sample) when they do not close. A sample
// taken there moves by O(dt²) with the orbit's phase against the time grid, not by O(dt).
FIVSIM_HD inline double break_away_fraction(double margin_1, double margin_2) {
  if (!(margin_1 >= 0.0) || !(margin_2 > margin_1)) return 1.0;
  const double theta = margin_1 / (margin_2 - margin_1);
  return theta < 1.0 ? theta : 1.0;
}

}  // namespace detail

// the position in the ring of the j-th oldest kept point whose code is `code` (any code when
// code < −1), or −1
FIVSIM_HD inline int nth_with_code(const double* points, int kind, long seen, int capacity, int stride, double code,
                                   int j) {
  const int kept = static_cast<int>(seen < capacity ? seen : capacity);
  for (int i = 0; i < kept; ++i) {
    if (code >= -1.0 && ring_point(points, kind, seen, capacity, stride, i)[1] != code) continue;
    if (j-- == 0) return i;
  }
  return -1;
}

namespace detail {
// the mean length of the Lyapunov estimate's blocks (s)
template <class D>
FIVSIM_HD inline double mean_block_time(const CaseResult<D>& r) {
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

template <class D>
FIVSIM_HD inline PhaseSpread phase_spread(const SampleSet& set, int first, int len, int N, const SweepAnalysis& an,
                                          int n_dof, const CaseResult<D>& r) {
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
template <class D>
FIVSIM_HD inline bool samples_creep(const SampleSet& set, int N, const SweepAnalysis& an, int n_dof,
                                    const CaseResult<D>& r) {
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
template <class D>
FIVSIM_HD inline int find_period(const SampleSet& set, bool tail, const SweepAnalysis& an, int n_dof,
                                 const CaseResult<D>& r, double& relative, int& first) {
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
template <class D>
FIVSIM_HD inline bool samples_stationary(const SampleSet& set, int n_dof, const SweepAnalysis& an,
                                         const CaseResult<D>& r) {
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
template <class D>
FIVSIM_HD inline SampleSet class_samples(const double* points, const SweepAnalysis& an, int n_dof, int n_contacts,
                                         const CaseResult<D>& r) {
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

// the class and its evidence from the kept samples and the Lyapunov estimate; `tail`: judge
// periodicity on the last (K+1)·N samples (an adaptive case, whose ring holds its transient),
// else on all kept samples
template <class D>
FIVSIM_HD inline void classify_case(const double* points, const SweepAnalysis& an, int n_dof, int n_contacts,
                                    CaseResult<D>& r, bool tail = false) {
  const int confirmed_n = r.period_n;
  r.period_n = 0;
  r.period_s = 0.0;
  r.samples = 0;
  r.recurrence = nan("");
  if (r.status != Status::ok) {
    r.klass = CaseClass::diverged;
    r.settled_at = -1.0;
    return;
  }
  if (r.transitions == 0) {
    r.klass = CaseClass::no_stick_slip;
    r.settled_at = -1.0;
    return;
  }
  const SampleSet set = class_samples(points, an, n_dof, n_contacts, r);
  r.samples = set.count;
  int first = 0;
  // an adaptive case that confirmed periodic-N keeps it (its statistics, and so the tolerance's
  // scale, have been taken afresh since); its evidence is the window that confirmed it plus the
  // orbit after
  const int confirmed = tail && r.settled_at >= 0.0 ? confirmed_n : 0;
  int N = 0;
  if (confirmed > 0 && set.kind == 1 && set.count >= (an.confirmations + 1) * confirmed) {
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
}

// scratch of the two steppers
template <class D>
struct CaseWorkspace {
  MoreauWorkspace<D> moreau;
  RkLcpWorkspace<D> rk;
};

// the perturbed twin of a case for the Lyapunov estimate
template <class D>
struct LyapunovTwin {
  State<D> s;
  CaseWorkspace<D> ws;
};

namespace detail {

template <class D>
FIVSIM_HD inline void reset_workspace(CaseWorkspace<D>& ws) {
  ws.moreau.has_basis = false;
  ws.rk.has_basis = false;
  ws.rk.ramp_ready = false;
}

// distance of the twin from the case in (q, u), and the twin pulled back to distance d0 along it
template <class D>
FIVSIM_HD inline double renormalise_twin(const State<D>& s, State<D>& twin, int nq, double d0) {
  using T = typename D::scalar;
  double d2 = 0.0;
  for (int i = 0; i < nq; ++i) {
    const double dq = static_cast<double>(twin.q[i] - s.q[i]), du = static_cast<double>(twin.u[i] - s.u[i]);
    d2 += dq * dq + du * du;
  }
  const double d = sqrt(d2);
  // a twin that merged with the case (both stuck to the belt) starts again d0 away in q0
  const double scale = d > 0.0 ? d0 / d : 0.0;
  for (int i = 0; i < nq; ++i) {
    twin.q[i] = s.q[i] + T(scale) * (twin.q[i] - s.q[i]);
    twin.u[i] = s.u[i] + T(scale) * (twin.u[i] - s.u[i]);
  }
  if (!(d > 0.0)) twin.q[0] = s.q[0] + T(d0);
  return d;
}

// statistics start again (the orbit that follows a confirmation is what they describe)
template <class D>
FIVSIM_HD inline void restart_statistics(CaseResult<D>& r) {
  for (int c = 0; c < CaseResult<D>::NS; ++c) r.series[c] = RunningStats();
  for (int c = 0; c < 2 * D::max_dof; ++c) r.max_step_change[c] = 0.0;
  for (int c = 0; c < 4; ++c) r.in_state[c] = 0;
  r.transitions = 0;
}

// an adaptive case's new section sample: whether the case is done. Once the last (K+1)·N samples
// confirm periodic-N, the case records when that window began, starts its statistics afresh and
// runs one more orbit (N samples) over which they are taken.
template <class D>
FIVSIM_HD inline bool adaptive_sample(const double* points, const SweepAnalysis& an, int nq, CaseResult<D>& r,
                                      long& confirmed_until) {
  if (confirmed_until >= 0) return r.section_hits >= confirmed_until;
  const int stride = point_stride(nq);
  SampleSet set{points, 1, r.points_seen[1], -2.0, 0, an.capacity, stride};
  set.count = static_cast<int>(set.seen < an.capacity ? set.seen : an.capacity);
  double relative = 0.0;
  int first = 0;
  const int N = find_period(set, true, an, nq, r, relative, first);
  if (N == 0) return false;
  r.settled_at = set.at(first)[0];
  r.period_n = N;
  confirmed_until = r.section_hits + N;
  restart_statistics(r);
  return false;
}

}  // namespace detail

// the classical steppers of a case and its twin (which = 0, 1): Moreau's, or the Runge–Kutta LCP
// stepper of rk_map when it is given. run_case_with takes any type with these two members (the
// PINN steppers of a sweep are another, cases/pinn_case.hpp).
template <class D>
struct ClassicalCaseStepper {
  const Model<D>* m;
  const RkStepMap<D>* rk_map;
  typename D::scalar dt;
  const StepOptions* opt;
  CaseWorkspace<D>* ws[2];
  FIVSIM_HD StepReport step(int which, State<D>& s) {
    return rk_map ? rk_lcp_step(*m, *rk_map, s, *opt, ws[which]->rk) : moreau_step(*m, s, dt, *opt, ws[which]->moreau);
  }
  FIVSIM_HD void reset(int which) { detail::reset_workspace(*ws[which]); }
};

// the switching integrator (integrate/switching.hpp) as a case stepper: each step advances to the
// next output time, and the mode changes and section samples in between reach the runner through
// its sink at their exact times (exact_events)
template <class D>
struct SwitchingCaseStepper {
  static constexpr bool exact_events = true;
  const Model<D>* m;
  double dt;
  SwitchingSettings set;
  SwitchingSection section;  // the case's; its twin watches none
  SwitchingWorkspace<D>* ws[2];
  template <class Sink>
  FIVSIM_HD StepReport step(int which, State<D>& s, Sink& sink) {
    SwitchingWorkspace<D>& w = *ws[which];
    const SwitchingSection sec = which == 0 ? section : SwitchingSection();
    const int nq = dof_count(*m);
    const double t = static_cast<double>(s.t);
    StepReport rep;
    bool moved = !w.started;
    for (int i = 0; i < nq && !moved; ++i) moved = s.q[i] != w.q_out[i] || s.u[i] != w.u_out[i];
    if (moved) {
      // a new case, or a twin pulled back towards its case: the integration starts again from s
      rep.status = switching_start(*m, set, sec, w, t, s.q.v, s.u.v, w.started, sink);
      if (rep.status != Status::ok) return rep;
    }
    rep.status = switching_advance(*m, set, sec, w, t + dt, sink);
    if (rep.status == Status::ok) switching_output(*m, w, t + dt, s);
    return rep;
  }
  FIVSIM_HD void reset(int which) { ws[which]->started = false; }
};

// the section a switching case locates itself (the break-away section comes from its events)
FIVSIM_HD inline SwitchingSection switching_section(const SweepAnalysis& an, double t_transient) {
  SwitchingSection sec;
  if (an.section == SectionKind::velocity) {
    sec.kind = SwitchingSectionKind::velocity;
    sec.dof = an.dof;
    sec.value = an.value;
    sec.direction = an.direction;
  } else if (an.section == SectionKind::stroboscopic) {
    sec.kind = SwitchingSectionKind::stroboscopic;
    sec.period = an.period;
    sec.start = t_transient;
  }
  return sec;
}

namespace detail {
// whether a stepper reports its events at their exact times (exact_events) rather than leaving
// the runner to find them between steps
template <class S, class = void>
struct has_exact_events {
  static constexpr bool value = false;
};
template <class S>
struct has_exact_events<S, decltype(void(S::exact_events))> {
  static constexpr bool value = S::exact_events;
};

template <class Stepper, class St, class Sink>
FIVSIM_HD inline StepReport step_with(Stepper& stepper, int which, St& s, Sink& sink) {
  if constexpr (has_exact_events<Stepper>::value)
    return stepper.step(which, s, sink);
  else
    return stepper.step(which, s);
}
}  // namespace detail

// one case's progress through its time grid, between steps: what the runner keeps of the
// trajectory (statistics, rings, the Lyapunov estimate, the adaptive stop) and where it is. The
// case's stepper is driven from outside — by run_case_with, step after step, or by a lockstep
// orchestrator that advances many cases one step at a time (cases/pinn_case.hpp) — and
// reports each step here: before_step, the step of the case (and its twin), after_step.
template <class D>
struct CaseRun {
  using T = typename D::scalar;
  const CaseSetup<D>* setup = nullptr;
  const SweepAnalysis* an = nullptr;
  const StepOptions* opt = nullptr;
  State<D>* s = nullptr;
  State<D>* twin = nullptr;  // null: no Lyapunov estimate (not asked for, or the twin failed)
  CaseResult<D>* r = nullptr;
  double* points = nullptr;
  double* residuals = nullptr;  // keep_residuals: after the rings
  int nq = 0, nc = 0;
  unsigned obs = 0;
  long k = 1;  // the step to take next
  double lyapunov_sum = 0.0;
  Vec<T, D::max_dof> q_prev, u_prev;
  double t_prev = 0.0;
  ContactState last[D::max_contacts] = {};
  long stick_from = 0;                      // step at which the section contact last began to stick
  double margin_1 = -1.0, margin_2 = -1.0;  // its stick margins at the ends of the last two stick steps
  bool break_away_section = false;
  detail::StaticFriction mu0;
  double t0 = 0.0, dt = 0.0;
  double next_strobe = 0.0;
  long confirmed_until = -1;  // adaptive: the section hit that ends the case once periodic-N is confirmed
  // exact events (the switching stepper)
  bool stop = false, sink_on = true;
  double stick_since = -1.0;  // when the section contact began its current stick (−1: not sticking)

  // the case at its start: s (and the twin, d0 away in q0) set from the setup, r cleared. The
  // caller resets its stepper for the case (and the twin when `twin` is still set).
  FIVSIM_HD void begin(const CaseSetup<D>& setup_, const SweepAnalysis& an_, const StepOptions& opt_, State<D>& s_,
                       CaseResult<D>& r_, double* points_, State<D>* twin_) {
    setup = &setup_;
    an = &an_;
    opt = &opt_;
    s = &s_;
    r = &r_;
    points = points_;
    const Model<D>& m = setup->model;
    nq = dof_count(m);
    nc = contact_count(m);
    obs = an->observers;
    residuals = an->keep_residuals ? points + case_rings_size(nq, an->capacity) : nullptr;
    *s = setup->start;
    *r = CaseResult<D>();
    twin = an->lyapunov_every > 0 ? twin_ : nullptr;
    if (twin) {
      *twin = setup->start;
      twin->q[0] += T(an->lyapunov_d0);
    }
    break_away_section = an->section == SectionKind::stick_to_slip && an->contact < nc;
    mu0 = break_away_section ? detail::static_friction(m.law[an->contact]) : detail::StaticFriction();
    for (int i = 0; i < nc; ++i) last[i] = s->contact[i];
    t0 = static_cast<double>(s->t);
    dt = setup->dt;
    next_strobe = setup->t_transient;
    if (obs & kObserveOutputError) observe_output(0);
  }

  // output_error: the state after `step` steps against the reference's sample `step`
  FIVSIM_HD void observe_output(long step) {
    if (step >= an->reference_n) return;
    const double e = static_cast<double>(s->q[an->reference_dof]) - an->reference[step];
    r->output_sse += e * e;
    ++r->output_samples;
    if (residuals) residuals[step] = e;
  }

  FIVSIM_HD bool running() const { return k <= setup->steps; }

  FIVSIM_HD void before_step() {
    q_prev = s->q;
    u_prev = s->u;
    t_prev = static_cast<double>(s->t);
  }

  // a Poincaré sample: kept, closes a Lyapunov block (blocks of whole cycles), and tells whether
  // an adaptive case is done
  FIVSIM_HD bool section_sample(double ts, const T* qs, const T* us) {
    ++r->section_hits;
    detail::push_point(points, 1, r->points_seen[1], an->capacity, nq, ts, -1.0, qs, us);
    if (twin && r->lyapunov_block_time > 0.0) {
      r->lyapunov_blocks.add(r->lyapunov_block_sum / r->lyapunov_block_time);
      r->lyapunov_block_sum = r->lyapunov_block_time = 0.0;
    }
    if (an->adaptive && detail::adaptive_sample(points, *an, nq, *r, confirmed_until)) return true;
    // chaos shows in the exponent's sign, whatever the samples do (judged as a block closes),
    // until periodic-N is confirmed: its last orbit then runs to its end
    if (an->adaptive && twin && confirmed_until < 0 && r->lyapunov_blocks.count >= kLyapunovMinBlocks &&
        r->lyapunov_time > 0.0) {
      const double cycle = detail::mean_block_time(*r);
      const double lambda = lyapunov_sum / r->lyapunov_time;
      if (lambda * cycle > an->lyapunov_zero && lambda > 3.0 * r->lyapunov_blocks.std_error()) return true;
    }
    return false;
  }

  // an exact event of the switching stepper: transitions and section samples at their own times
  FIVSIM_HD void on_event(const SwitchingEvent<T>& e) {
    if (!sink_on) return;  // the twin's
    if (e.section) {
      if ((obs & kObservePoincare) && e.t >= setup->t_transient && !stop) stop = section_sample(e.t, e.q, e.u);
      return;
    }
    const EventKind kind = classify_transition(e.from, e.to);
    if (kind != EventKind::none && e.t >= setup->t_transient) {
      if (obs & kObserveTransitions) {
        ++r->transitions;
        detail::push_point(points, 0, r->points_seen[0], an->capacity, nq, e.t,
                           static_cast<double>(int(kind) * 64 + e.contact), e.q, e.u);
      }
      if (break_away_section && (obs & kObservePoincare) && kind == EventKind::stick_to_slip &&
          e.contact == an->contact && stick_since >= 0.0 && !stop)
        stop = section_sample(e.t, e.q, e.u);
    }
    if (e.contact == an->contact) stick_since = e.to == ContactState::stick ? e.t : -1.0;
  }

  // the step just taken (rep: the case's; twin_failed: its twin's step failed): observed and
  // counted; false when the case is done (failed, stopped, or adaptive and decided)
  template <bool exact>
  FIVSIM_HD bool after_step(const StepReport& rep, bool twin_failed) {
    if (rep.status != Status::ok) {
      r->status = rep.status;
      r->failed_at = t0 + static_cast<double>(k - 1) * dt;
      return false;
    }
    const long step = k++;
    // time from the step count, as the host driver does (simulation.hpp)
    const double t = t0 + static_cast<double>(step) * dt;
    s->t = T(t);
    r->steps = step;
    if ((obs & kObserveLcpResidual) && rep.lcp_residual > r->max_lcp_residual) r->max_lcp_residual = rep.lcp_residual;
    if (obs & kObserveOutputError) observe_output(step);
    const bool settled = t >= setup->t_transient;
    if (twin) {
      // the twin stops (and the estimate with it) if its own step fails
      if (twin_failed) {
        twin = nullptr;
        r->lyapunov_time = 0.0;
        r->lyapunov_blocks = BatchMeans();
      } else {
        twin->t = T(t);
        if (step % an->lyapunov_every == 0) {
          const double d = detail::renormalise_twin(*s, *twin, nq, an->lyapunov_d0);
          // intervals that start after the transient count
          if (t - an->lyapunov_every * dt >= setup->t_transient - 0.5 * dt && d > 0.0) {
            const double growth = log(d / an->lyapunov_d0);
            lyapunov_sum += growth;
            r->lyapunov_time += an->lyapunov_every * dt;
            r->lyapunov_block_sum += growth;
            r->lyapunov_block_time += an->lyapunov_every * dt;
          }
        }
      }
    }

    bool break_away = false;
    if (!exact && (obs & (kObserveTransitions | kObservePoincare))) {
      for (int i = 0; i < nc; ++i) {
        const EventKind e = classify_transition(last[i], s->contact[i]);
        if (e != EventKind::none && settled) {
          if (obs & kObserveTransitions) {
            ++r->transitions;
            detail::push_point(points, 0, r->points_seen[0], an->capacity, nq, t, static_cast<double>(int(e) * 64 + i),
                               s->q.v, s->u.v);
          }
          // a stick of a single step is the velocity grazing the belt's, not a stick phase
          break_away = break_away || (e == EventKind::stick_to_slip && i == an->contact && step - stick_from > 1);
        }
        if (i == an->contact && s->contact[i] == ContactState::stick && last[i] != ContactState::stick)
          stick_from = step;
        if (break_away_section && i == an->contact && s->contact[i] == ContactState::stick) {
          margin_2 = margin_1;
          margin_1 = detail::stick_margin(mu0, static_cast<double>(s->lamN[i]), static_cast<double>(s->lamT[i]));
        }
        last[i] = s->contact[i];
      }
    }
    if (!settled) return true;

    if (obs & kObserveMinMax) {
      int c = 0;
      for (int i = 0; i < nq; ++i) r->series[c++].add(static_cast<double>(s->q[i]));
      for (int i = 0; i < nq; ++i) r->series[c++].add(static_cast<double>(s->u[i]));
      // a transition point taken at the step after its event moves with the time grid by up to a
      // step's change; an exact event's does not (its jitter stays 0)
      for (int i = 0; i < nq && !exact; ++i) {
        const double dq = fabs(static_cast<double>(s->q[i] - q_prev[i]));
        const double du = fabs(static_cast<double>(s->u[i] - u_prev[i]));
        if (dq > r->max_step_change[i]) r->max_step_change[i] = dq;
        if (du > r->max_step_change[nq + i]) r->max_step_change[nq + i] = du;
      }
      for (int i = 0; i < nc; ++i) r->series[2 * nq + i].add(static_cast<double>(s->lamN[i]));
      for (int i = 0; i < nc; ++i) r->series[2 * nq + nc + i].add(static_cast<double>(s->lamT[i]));
    } else {
      int c = 0;
      for (int i = 0; i < nq; ++i) r->series[c++].add_square(static_cast<double>(s->q[i]));
      for (int i = 0; i < nq; ++i) r->series[c++].add_square(static_cast<double>(s->u[i]));
      for (int i = 0; i < nc; ++i) r->series[c++].add_square(static_cast<double>(s->lamN[i]));
      for (int i = 0; i < nc; ++i) r->series[c++].add_square(static_cast<double>(s->lamT[i]));
    }
    if (obs & kObserveFractions)
      for (int i = 0; i < nc; ++i) ++r->in_state[static_cast<int>(s->contact[i])];
    if (exact) return !stop;
    if (!(obs & kObservePoincare)) return true;

    // Poincaré section: the break-away state, or the crossing point by linear interpolation inside
    // the step
    double theta = -1.0;
    if (an->section == SectionKind::stick_to_slip && break_away) {
      theta = detail::break_away_fraction(margin_1, margin_2);
    } else if (an->section == SectionKind::velocity) {
      const double eps = opt->stick_tol;
      const double a = static_cast<double>(u_prev[an->dof]) - an->value;
      const double b = static_cast<double>(s->u[an->dof]) - an->value;
      const bool down = a > -eps && b <= -eps;
      const bool up = a < eps && b >= eps;
      if ((an->direction <= 0 && down) || (an->direction >= 0 && up)) theta = a / (a - b);
    } else if (an->section == SectionKind::stroboscopic && t >= next_strobe) {
      theta = t > t_prev ? (next_strobe - t_prev) / (t - t_prev) : 1.0;
      next_strobe += an->period;
    }
    if (theta >= 0.0 && t_prev >= setup->t_transient) {
      theta = theta > 1.0 ? 1.0 : theta;
      T qs[D::max_dof] = {}, us[D::max_dof] = {};
      for (int i = 0; i < nq; ++i) {
        qs[i] = q_prev[i] + T(theta) * (s->q[i] - q_prev[i]);
        us[i] = u_prev[i] + T(theta) * (s->u[i] - u_prev[i]);
      }
      if (section_sample(t_prev + theta * dt, qs, us)) return false;
    }
    return true;
  }

  // the estimate and the class, once the case has stopped
  FIVSIM_HD void finish() {
    // not asked for: 0; asked for but no window (or the twin failed): NaN
    r->lyapunov = r->lyapunov_time > 0.0 ? lyapunov_sum / r->lyapunov_time : (an->lyapunov_every > 0 ? nan("") : 0.0);
    if (observes_class(obs))
      classify_case(points, *an, nq, nc, *r, an->adaptive);
    else
      r->klass = r->status == Status::ok ? CaseClass::unclassified : CaseClass::diverged;
  }
};

// runs one case with `stepper` (step(which, state), reset(which); which 0 is the case, 1 its
// twin); `points` holds kPointKinds × capacity rows for the case; with a twin state (and
// an.lyapunov_every > 0) it also estimates the largest Lyapunov exponent
template <class D, class Stepper>
FIVSIM_HD inline void run_case_with(const CaseSetup<D>& setup, const SweepAnalysis& an, const StepOptions& opt,
                                    Stepper& stepper, State<D>& s, CaseResult<D>& r, double* points,
                                    State<D>* twin = nullptr) {
  constexpr bool exact = detail::has_exact_events<Stepper>::value;
  CaseRun<D> run;
  run.begin(setup, an, opt, s, r, points, twin);
  stepper.reset(0);
  if (run.twin) stepper.reset(1);
  auto sink = [&](const SwitchingEvent<typename D::scalar>& e) { run.on_event(e); };
  while (run.running()) {
    run.before_step();
    // the case and its twin go through one call site, so that the stepper is inlined once
    StepReport rep;
    bool twin_failed = false;
    for (int w = 0; w < (run.twin ? 2 : 1); ++w) {
      run.sink_on = w == 0;
      const StepReport rw = detail::step_with(stepper, w, w == 0 ? s : *run.twin, sink);
      if (w == 0)
        rep = rw;
      else
        twin_failed = rw.status != Status::ok;
    }
    if (!run.template after_step<exact>(rep, twin_failed)) break;
  }
  run.finish();
}

// runs one case with Moreau time stepping, or with the Runge–Kutta LCP stepper of `rk_map` when
// it is given (run_case_with with the classical steppers)
template <class D>
FIVSIM_HD inline void run_case(const CaseSetup<D>& setup, const RkStepMap<D>* rk_map, const SweepAnalysis& an,
                               const StepOptions& opt, CaseWorkspace<D>& ws, State<D>& s, CaseResult<D>& r,
                               double* points, LyapunovTwin<D>* twin = nullptr) {
  ClassicalCaseStepper<D> stepper{
      &setup.model, rk_map, typename D::scalar(setup.dt), &opt, {&ws, twin ? &twin->ws : nullptr}};
  run_case_with(setup, an, opt, stepper, s, r, points, twin ? &twin->s : nullptr);
}

// the switching integrator's scratch for a case and its twin
template <class D>
struct SwitchingCaseWorkspace {
  SwitchingWorkspace<D> ws[2];
};

// runs one case with the switching integrator (integrator.method switching): the same observers
// and classes, its events and section samples exact; dt is the interval at which the statistics
// (and the Lyapunov twin's renormalisation) sample the trajectory
template <class D>
FIVSIM_HD inline void run_switching_case(const CaseSetup<D>& setup, const SwitchingSettings& set,
                                         const SweepAnalysis& an, const StepOptions& opt, SwitchingCaseWorkspace<D>& ws,
                                         State<D>& s, CaseResult<D>& r, double* points, State<D>* twin = nullptr) {
  SwitchingCaseStepper<D> stepper{
      &setup.model, setup.dt, set, switching_section(an, setup.t_transient), {&ws.ws[0], &ws.ws[1]}};
  run_case_with(setup, an, opt, stepper, s, r, points, twin);
}

}  // namespace fivsim
