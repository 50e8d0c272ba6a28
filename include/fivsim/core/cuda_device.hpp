// fivsim/core/cuda_device.hpp — which CUDA device a process uses and how much memory it has free:
// the one question every part with a device backend asks (the sweep engine, the batched networks,
// identification's bound grid), so it sits at the bottom (src/core/cuda_device.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace fivsim {

struct CudaDeviceInfo {
  bool available = false;
  std::string description;  // device name, or why there is none
  std::size_t free_bytes = 0;
  int ordinal = 0;          // the device this process uses
  std::string uuid;         // its UUID (32 hex digits): the same GPU whatever the ordinal
};
// the device `ordinal` modulo the number present (each rank of an MPI sweep picks its own by its
// rank on the node), made current for this process's later CUDA calls
CudaDeviceInfo cuda_device_info(int ordinal = 0);

}  // namespace fivsim
