// src/identify/cuda_unavailable.cpp — the bound grid's CUDA entry point in a build without CUDA: it
// says so (core/cuda_device.hpp's built_without_cuda) instead of failing to link.
#include "fivsim/identify/extended_sindy.hpp"

namespace fivsim {

DeviceOutcome stick_slip_bounds_cuda(const BoundSamples&, const BoundSamples&, const GridAxis&, const GridAxis&,
                                     BoundSurfaces&) {
  return built_without_cuda();
}

}  // namespace fivsim
