// fivsim/core/status.hpp — status codes shared by LCP solvers, steppers and the command line.
#pragma once

#ifndef __CUDACC_RTC__
#include <ostream>
#endif

#include "fivsim/core/config.hpp"

namespace fivsim {

enum class Status : int {
  ok = 0,
  lcp_ray,            // Lemke: the entering column has no positive pivot (ray termination)
  lcp_cycling,        // Lemke: pivot limit reached without z0 leaving the basis
  lcp_no_solution,    // enumeration: no complementary basis gives a solution
  lcp_zero_diagonal,  // PGS: a diagonal entry of A is not positive
  lcp_not_converged,  // PGS: iteration limit reached above tolerance
  lcp_inaccurate,     // any solver: the final natural-map residual is above tolerance
  lcp_too_large,      // the problem exceeds the solver's size limit
  nonfinite,          // a state or an LCP entry became NaN or Inf
  too_many_events,    // event-driven reference: the event budget ran out (chattering, Zeno)
};

FIVSIM_HD inline const char* status_name(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::lcp_ray:
      return "lcp_ray";
    case Status::lcp_cycling:
      return "lcp_cycling";
    case Status::lcp_no_solution:
      return "lcp_no_solution";
    case Status::lcp_zero_diagonal:
      return "lcp_zero_diagonal";
    case Status::lcp_not_converged:
      return "lcp_not_converged";
    case Status::lcp_inaccurate:
      return "lcp_inaccurate";
    case Status::lcp_too_large:
      return "lcp_too_large";
    case Status::nonfinite:
      return "nonfinite";
    case Status::too_many_events:
      return "too_many_events";
  }
  return "unknown";
}

#ifndef __CUDACC_RTC__
// gtest prints a status by its name
inline std::ostream& operator<<(std::ostream& os, Status s) { return os << status_name(s); }
#endif

}  // namespace fivsim
