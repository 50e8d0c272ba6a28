// src/identify/cuda_unavailable.cpp — the bound grid's CUDA entry point in a build without CUDA: it
// says so (core/cuda_device.hpp's built_without_cuda) instead of failing to link.
#include "fivsim/identify/stick_slip_bounds.hpp"

namespace fivsim {

DeviceOutcome stick_slip_bound_grid_cuda(const BoundSamples&, const BoundSamples&, const GridAxis&, const GridAxis&,
                                         std::vector<double>&, std::vector<double>&, double&) {
  return built_without_cuda();
}

}  // namespace fivsim
