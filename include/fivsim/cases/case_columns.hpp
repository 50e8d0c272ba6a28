// fivsim/cases/case_columns.hpp — one case's row of a sweep's case table (cases.csv, results.h5)
// from its result, and a chunk's counts of classes and statuses, written once as FIVSIM_HD code:
// the host fills a chunk's columns and counts with them after the CPU backend, and device kernels
// where the chunk ran (kernels/sweep_batch.cuh), so that only the columns and counts leave the
// device. The columns' names and kinds: sweep/result_table.hpp case_schema, in the same order.
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/cases/case_runner.hpp"
#include "fivsim/integrate/pinn_step.hpp"

namespace fivsim {

// what a case reduces to, as columns (cases.csv's header, left to right):
//   case, the swept parameters, class, period_n, period (when classified), n_transitions,
//   n_section, rms_ / min_ / max_ of every series, frac_free … frac_slip_pos, lyapunov,
//   max_lcp_residual, steps, status, failed_at, failed_step, and the PINN training counts;
// each group only where its observer is on (case_runner.hpp)
struct CaseTableLayout {
  int n_dof = 0, n_contacts = 0, n_params = 0;
  unsigned observers = kObserveBifurcation;
  bool lyapunov = false;
  bool pinn = false;
};

// the number of columns
FIVSIM_HD inline int case_column_count(const CaseTableLayout& l) {
  const unsigned o = l.observers;
  const int ns = 2 * l.n_dof + 2 * l.n_contacts;
  return 1 + l.n_params + (observes_class(o) ? 6 + 4 * l.n_dof : 0) + ((o & kObserveTransitions) ? 1 : 0) +
         ((o & kObservePoincare) ? 1 : 0) + ns * ((o & kObserveMinMax) ? 3 : 1) + ((o & kObserveFractions) ? 4 : 0) +
         (l.lyapunov ? 2 : 0) + ((o & kObserveLcpResidual) ? 1 : 0) + ((o & kObserveOutputError) ? 1 : 0) +
         ((o & kObserveOrbit) ? 7 : 0) + 4 + (l.pinn ? 4 : 0);
}

// the row of case `number` (its swept values params[k · param_stride], its result, its PINN totals
// where l.pinn) into out[c · stride] for every column c in order
template <class D>
FIVSIM_HD inline void case_row(const CaseTableLayout& l, long number, const double* params, long param_stride,
                               const CaseResult<D>& r, const PinnTotals* pinn, double* out, long stride) {
  const unsigned o = l.observers;
  const int ns = 2 * l.n_dof + 2 * l.n_contacts;
  long at = 0;
  const auto put = [&](double v) {
    out[at] = v;
    at += stride;
  };
  // a failed case's statistics cover only the steps before it failed: NaN, never numbers that read
  // as data (a row that is not periodic has no period either)
  const double nan = NAN;
  const bool failed = r.status != Status::ok;
  put(static_cast<double>(number));
  for (int k = 0; k < l.n_params; ++k) put(params[k * param_stride]);
  if (observes_class(o)) {
    put(static_cast<double>(static_cast<int>(r.klass)));
    put(static_cast<double>(r.period_n));
    put(r.klass == CaseClass::periodic && !failed ? r.period_s : nan);
    put(static_cast<double>(r.samples));
    put(r.recurrence);
    put(r.settled_at >= 0.0 ? r.settled_at : nan);
    for (int k = 0; k < 2 * l.n_dof; ++k) put(r.settled_lo[k]);
    for (int k = 0; k < 2 * l.n_dof; ++k) put(r.settled_hi[k]);
  }
  if (o & kObserveTransitions) put(static_cast<double>(r.transitions));
  if (o & kObservePoincare) put(static_cast<double>(r.section_hits));
  // series slots: q, u at 0..2nq−1, lamN at 2nq.., lamT at 2nq+nc.. (case_runner.hpp)
  for (int k = 0; k < ns; ++k) put(failed ? nan : r.series[k].rms());
  if (o & kObserveMinMax) {
    for (int k = 0; k < ns; ++k) put(failed ? nan : r.series[k].min);
    for (int k = 0; k < ns; ++k) put(failed ? nan : r.series[k].max);
  }
  if (o & kObserveFractions) {
    const long all = r.in_state[0] + r.in_state[1] + r.in_state[2] + r.in_state[3];
    for (int k = 0; k < 4; ++k)
      put(failed ? nan : static_cast<double>(r.in_state[k]) / static_cast<double>(all > 1 ? all : 1));
  }
  if (l.lyapunov) {
    put(failed ? nan : r.lyapunov);
    // the standard error of the per-cycle batch means
    put(failed ? nan : r.lyapunov_blocks.std_error());
  }
  if (o & kObserveLcpResidual) put(r.max_lcp_residual);
  // the root mean square of q[dof] − reference over the steps compared (NaN: none)
  if (o & kObserveOutputError)
    put(r.output_samples > 0 && !failed ? sqrt(r.output_sse / static_cast<double>(r.output_samples)) : nan);
  if (o & kObserveOrbit) {
    // NaN where Newton found no orbit
    const bool orbit = r.orbit_n > 0 && !failed;
    put(static_cast<double>(r.orbit_n));
    put(orbit ? r.orbit_residual : nan);
    put(orbit ? r.orbit_period : nan);
    put(orbit ? r.orbit_multiplier : nan);
    put(orbit ? r.orbit_multiplier_arg : nan);
    put(orbit ? 1.0 - r.orbit_multiplier : nan);
    put(orbit && r.orbit_settle_t >= 0.0 ? r.orbit_settle_t : nan);
  }
  put(static_cast<double>(r.steps));
  put(static_cast<double>(static_cast<int>(r.status)));
  // a failed case: the time and the number of the step that failed (NaN/Inf, an LCP failure)
  put(failed ? r.failed_at : 0.0);
  put(failed ? static_cast<double>(r.steps + 1) : 0.0);
  if (l.pinn) {
    put(static_cast<double>(pinn->iterations));
    put(static_cast<double>(pinn->lcp_iterations));
    put(pinn->max_loss);
    put(static_cast<double>(pinn->unconverged));
  }
}

// periodic-N is counted (and coded in results.h5) for N = 1 … 32, analysis.max_period's limit
inline constexpr int kPeriodicClassCodes = 32;
inline constexpr int kCountedClasses = 8, kCountedStatuses = 32;

// a chunk's cases by (class, N: periodic-N, else 0) and by status code, and their steps; a code
// past the tables (none the engine makes) is counted apart
struct CaseCounts {
  unsigned long long by_class[kCountedClasses][kPeriodicClassCodes + 1];
  unsigned long long by_status[kCountedStatuses];
  unsigned long long steps, other_class, other_status;
};

// where case r counts in c (a pointer into c's tables, null for none), for a host's increment or a
// device's atomic one
template <class D>
FIVSIM_HD inline unsigned long long* case_class_count(CaseCounts& c, const CaseResult<D>& r) {
  const int k = static_cast<int>(r.klass), n = r.klass == CaseClass::periodic ? r.period_n : 0;
  if (r.klass == CaseClass::unclassified) return nullptr;
  if (k < 0 || k >= kCountedClasses || n < 0 || n > kPeriodicClassCodes) return &c.other_class;
  return &c.by_class[k][n];
}
template <class D>
FIVSIM_HD inline unsigned long long* case_status_count(CaseCounts& c, const CaseResult<D>& r) {
  const int st = static_cast<int>(r.status);
  return st >= 0 && st < kCountedStatuses ? &c.by_status[st] : &c.other_status;
}

}  // namespace fivsim
