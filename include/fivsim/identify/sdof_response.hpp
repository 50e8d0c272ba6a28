// fivsim/identify/sdof_response.hpp — the response of an identified single-DoF equation
// ẋ = Θ(x, u, u̇)·Ξ to a record's input, with the stick and slip event conditions of seed 003
// Eqs. 13–14, and its RMSE against the record (Eqs. 21–22).
//
// When the ẋ2 row has a sgn(x2) term with a negative coefficient −F̂, x2 = 0 is a stick set: the
// mass stops when x2 crosses zero and the remaining force a0 = ẋ2 − (−F̂ sgn x2) satisfies
// |a0| ≤ F̂ (Eq. 13), and breaks away when |a0| reaches F̂ (Eq. 14). Slip phases run classical RK4
// with the friction direction held; crossings and break-aways are located by bisection. The input
// between samples is the cubic Hermite interpolant of (u, u̇).
#pragma once

#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/identify/record.hpp"
#include "fivsim/identify/sindy.hpp"

namespace fivsim {

struct IdentifiedSdof {
  std::vector<LibraryTerm> terms;
  Eigen::MatrixXd xi;  // terms × 2 (ẋ1, ẋ2)
  // a known right-hand side added to the library terms (seed 004 Eq. 1: ṡ = f^k + f^u); empty: none
  std::function<void(double t, double x1, double x2, double& d1, double& d2)> known;
  double belt = 0.0;  // the belt's speed: the terms' w is x2 less it
};

struct SdofResponse {
  Eigen::VectorXd x;   // x1 at the record's times
  bool finite = true;  // false when the response blew up (the rest of x is NaN)
  double rmse = 0.0;   // against the record's x (infinite when not finite)
};

// starts from the record's first (x, v); `substeps` RK4 steps per sample interval
SdofResponse simulate_identified(const IdentifiedSdof& eq, const Record& record, int substeps = 8);

}  // namespace fivsim
