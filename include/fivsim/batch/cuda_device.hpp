// fivsim/batch/cuda_device.hpp — which CUDA device a process uses, how much memory it has free,
// and the default chunk that memory allows (src/batch/cuda_device.cpp; a build without CUDA
// answers from src/batch/cuda_unavailable.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace fivsim::batch {

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

// the default chunk of a CUDA sweep: the cases of case_bytes each that fill half the device's free
// memory, split evenly among the ranks that use the device, so that ranks sharing one GPU do not
// each plan on the memory the others take
inline long device_chunk_cases(std::size_t free_bytes, double case_bytes, int device_ranks) {
  return static_cast<long>(0.5 * static_cast<double>(free_bytes) / case_bytes / (device_ranks > 1 ? device_ranks : 1));
}

}  // namespace fivsim::batch
