// fivsim/identify/held_uncertainty.hpp — 95 % intervals of extended SINDy's held step 3
// (identify/held_regression.hpp; seed 003 Eq. 12 with Eq. 16 as inequalities). Two parts:
//  - the spread: a bootstrap over the excitation's cycles (whole cycles, so that the noise the
//    derivative filter correlates over a window and each cycle's stick phases stay together),
//    the percentile interval of the resampled estimates; with fewer than kMinBootstrapCycles
//    cycles the regression's covariance σ²(JᵀJ)⁻¹ instead;
//  - what no resampling sees, added on each side: the filter's bias (on a clean record the whole
//    error), bounded by the change of the estimate when ẋ2 is taken with the Savitzky–Golay
//    window doubled (if the bias grows at least linearly with the window, |b(2w+1) − b(w)| ≥
//    |b(w)|); and, where stop constraints are active, the distance from the unconstrained slip fit
//    that they pulled the estimate.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/identify/held_regression.hpp"

namespace fivsim {

inline constexpr int kMinBootstrapCycles = 4;

// the samples of step 3 over a whole record: its columns, the stop and slip samples (record
// indices, Eq. 15) and each stop sample's slack δ
struct HeldData {
  Eigen::VectorXd x1, x2, dx2, u, du;  // per record sample
  std::vector<long> stop, slip;
  std::vector<double> slack;  // per stop sample (held_slack)

  // the held regression over the stop samples at positions `stop_at` (into `stop`) and the slip
  // samples at record indices `slip_rows`
  HeldRegression fit(const std::vector<long>& stop_at, const std::vector<long>& slip_rows) const;
  // over all of them
  HeldRegression fit() const;
};

// the first sample of each cycle of a periodic input: its upward crossings of its mean
std::vector<long> cycle_starts(const Eigen::VectorXd& u);

struct HeldIntervals {
  double lo[3] = {}, hi[3] = {};     // (k, c, F): the 95 % interval
  double spread[3] = {};             // the bootstrap's standard deviation (or the covariance's)
  double filter_change[3] = {};      // the estimate with the window doubled minus the estimate
  double constraint_change[3] = {};  // the slip fit without the stop constraints minus the estimate (0: none active)
  bool bootstrap = false;            // false: the spread is the covariance's
  int cycles = 0, resamples = 0;
  int check_window = 0;  // the doubled window
};

// the intervals of `estimate` (data.fit()); dx2_check: ẋ2 with the window doubled (per record
// sample); deterministic for a seed
HeldIntervals held_intervals(const HeldData& data, const HeldRegression& estimate, const Eigen::VectorXd& dx2_check,
                             int check_window, int resamples = 200, std::uint64_t seed = 1);

}  // namespace fivsim
