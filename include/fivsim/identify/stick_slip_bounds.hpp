// fivsim/identify/stick_slip_bounds.hpp — the bound surfaces of extended SINDy at one grid point
// (seed 003 Eqs. 16–17) as FIVSIM_HD loops over plain arrays, shared by the OpenMP backend
// (src/identify/extended_sindy.cpp) and the CUDA kernel (kernels/identify_bounds.cu).
#pragma once

#include "fivsim/core/c_library.hpp"

#include <vector>

#include "fivsim/core/config.hpp"
#include "fivsim/core/cuda_device.hpp"

namespace fivsim {

// the samples the bounds need, as plain arrays (stop samples use x1, u, du; slip ones all five)
struct BoundSamples {
  const double* x1 = nullptr;
  const double* x2 = nullptr;
  const double* dx2 = nullptr;
  const double* u = nullptr;
  const double* du = nullptr;
  long n = 0;
};

// Eq. 16 at one grid point: the largest holding force over the stop samples
FIVSIM_HD inline double stick_lower_bound(const BoundSamples& stop, double k, double c) {
  // compare-and-select rather than fmax: the loop then vectorises (no NaN rules to keep)
  double phi = 0.0;
  for (long j = 0; j < stop.n; ++j) {
    const double f = fabs(c * stop.du[j] + k * (stop.u[j] - stop.x1[j]));
    phi = f > phi ? f : phi;
  }
  return phi;
}

// Eq. 17 at one grid point: the smallest friction force over the slip samples
FIVSIM_HD inline double slip_upper_bound(const BoundSamples& slip, double k, double c) {
  double phi = HUGE_VAL;
  for (long l = 0; l < slip.n; ++l) {
    const double f = fabs(c * (slip.du[l] - slip.x2[l]) + k * (slip.u[l] - slip.x1[l]) - slip.dx2[l]);
    phi = f < phi ? f : phi;
  }
  return phi;
}

// a uniform axis a..b with n points
struct GridAxis {
  double a = 0.0, b = 0.0;
  int n = 0;
  FIVSIM_HD double at(int i) const { return n > 1 ? a + (b - a) * i / (n - 1) : a; }
};

// the grid of both bounds on the CUDA device, one thread per grid point (kernels/identify_bounds.cu;
// a build without CUDA says it has none): Φ1 and Φ2 row-major (k.n × c.n) and the kernels' seconds,
// complete only on success. Plain arrays: device code never sees Eigen
#define FIVSIM_STICK_SLIP_BOUND_GRID_CUDA                                                                           \
  DeviceOutcome stick_slip_bound_grid_cuda(const BoundSamples& stop, const BoundSamples& slip, const GridAxis& k,   \
                                           const GridAxis& c, std::vector<double>& phi1, std::vector<double>& phi2, \
                                           double& kernel_s)
FIVSIM_STICK_SLIP_BOUND_GRID_CUDA;

}  // namespace fivsim
