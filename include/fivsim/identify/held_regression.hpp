// fivsim/identify/held_regression.hpp — extended SINDy's step 3 as a constrained regression: the
// parameters (k̂, ĉ, F̂f) of seed 003 Eq. 12 that fit the slip samples best in least squares,
//   ẋ2 = k̂ (u − x1) + ĉ (u̇ − x2) − F̂f sgn(x2),
// subject to every stop sample being held by friction (Eq. 16 read as inequalities, not as the max
// that Eqs. 18–20 match against Eq. 17):
//   |ĉ u̇ + k̂ (u − x1)| ≤ F̂f + δ   for each stop sample.
// A stuck sample's holding force is at most the static force whatever the sampling rate, so the
// truth satisfies every constraint; δ allows for the samples Eq. 15 calls stopped just after a
// break-away (|x2| ≤ v_stop while the force already exceeds F̂f: see held_slack). Where the slip
// fit already holds every stop sample it is the answer (a clean record keeps its step-2
// precision), else the fit moves only as far as the stop samples demand. Three unknowns and two
// half-planes per stop sample: a primal active-set quadratic program (at most three active
// constraints) on scaled unknowns.
#pragma once

#include "fivsim/core/c_library.hpp"

#include <Eigen/Dense>

#include "fivsim/identify/stick_slip_bounds.hpp"

namespace fivsim {

struct HeldRegression {
  double k = 0.0, c = 0.0, F = 0.0;
  double rss = 0.0;    // the residual sum of squares over the slip samples
  long samples = 0;    // slip samples
  int active = 0;      // stop constraints that hold the answer (0: the slip fit as it is)
  int iterations = 0;  // active-set iterations
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();  // of (k, c, F): σ² (JᵀJ)⁻¹ on the free directions
  bool ok = false;  // false: too few slip samples, or the slip columns are dependent
};

// stop uses x1, u, du; slip all five (BoundSamples); slack: δ per stop sample (null: none). Needs
// at least four slip samples.
HeldRegression held_regression(const BoundSamples& stop, const BoundSamples& slip, const double* slack = nullptr);

// δ of a stop sample: after a break-away the holding force h grows at ḣ and the velocity as
// ∫(h − F) ≈ ḣ t²/2, so a sample still under v_stop is at most √(2 v_stop / ḣ) past it and its
// force exceeds F̂f by at most √(2 v_stop ḣ); ḣ = |k̂ u̇ + ĉ ü| at the step-2 estimate
inline double held_slack(double v_stop, double holding_rate) { return sqrt(2.0 * v_stop * fabs(holding_rate)); }

}  // namespace fivsim
