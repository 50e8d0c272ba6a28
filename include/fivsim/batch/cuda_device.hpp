// fivsim/batch/cuda_device.hpp — the device a sweep runs on (core/cuda_device.hpp), as the batch
// engine names it; how much of its memory a chunk may take is memory_budget.hpp's.
#pragma once

#include "fivsim/core/cuda_device.hpp"

namespace fivsim::batch {

using fivsim::cuda_device_info;
using fivsim::CudaDeviceInfo;

}  // namespace fivsim::batch
