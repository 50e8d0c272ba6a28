// fivsim/batch/cuda_device.hpp — the device a sweep runs on (core/cuda_device.hpp) and the default
// chunk its free memory allows.
#pragma once

#include <cstddef>

#include "fivsim/core/cuda_device.hpp"

namespace fivsim::batch {

using fivsim::CudaDeviceInfo;
using fivsim::cuda_device_info;

// the default chunk of a CUDA sweep: the cases of case_bytes each that fill half the device's free
// memory, split evenly among the ranks that use the device, so that ranks sharing one GPU do not
// each plan on the memory the others take
inline long device_chunk_cases(std::size_t free_bytes, double case_bytes, int device_ranks) {
  return static_cast<long>(0.5 * static_cast<double>(free_bytes) / case_bytes / (device_ranks > 1 ? device_ranks : 1));
}

}  // namespace fivsim::batch
