// fivsim/analysis/sweep_analysis.hpp — what every case of a sweep observes: its Poincaré section
// and classification settings (SweepAnalysis), and the rings in which a case keeps its last
// transition points and section samples, each row [t, code, q0.., u0..] with code the event
// kind·64 + contact, or −1 for a section sample (docs/DESIGN.md §5 points.csv). Plain structs and
// FIVSIM_HD functions: the case runners (cases/case_runner.hpp) fill the rings on CPU and GPU, the
// classification (analysis/classification.hpp) reads them.
#pragma once

#include "fivsim/analysis/observers.hpp"
#include "fivsim/core/small_linalg.hpp"

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
  // lyapunov_every steps (the switching method: its variational equations, every step); 0 = not
  // estimated
  int lyapunov_every = 0;
  double lyapunov_d0 = 1e-8;
  double lyapunov_zero = 0.1;        // |λ| × the mean cycle below this counts as zero (growth per cycle)
  long chaos_window = kChaosWindow;  // adaptive: cycles of positive exponent before a case stops as chaotic
  int confirmations = 3;             // K: periodic-N needs (K+1)·N samples, N apart within tolerance
  bool adaptive = false;             // stop each case when its class is known (t_end the longest)
  unsigned observers = kObserveBifurcation;
  // output_error: q[reference_dof] against reference[k] at step k (host or device memory, read only)
  const double* reference = nullptr;
  long reference_n = 0;
  int reference_dof = 0;
  // output_error: each case also keeps its residual series q[dof] − reference[k] (reference_n
  // doubles after its point rings; the least-squares Jacobians of a grey-box search)
  bool keep_residuals = false;
};

inline constexpr int kPointKinds = 2;  // 0 transitions, 1 section samples

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

}  // namespace fivsim
