// src/identify/cuda_unavailable.cpp — the bound grid's CUDA entry point in a build without CUDA:
// its one declaration with the body that says so (core/cuda_device.hpp FIVSIM_WITHOUT_CUDA).
#include "fivsim/identify/stick_slip_bounds.hpp"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace fivsim {

FIVSIM_STICK_SLIP_BOUND_GRID_CUDA FIVSIM_WITHOUT_CUDA

}  // namespace fivsim
