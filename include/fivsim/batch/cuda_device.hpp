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
  int count = 0;            // the devices this process sees
};
// the device `ordinal` modulo the number present (each rank of an MPI sweep picks its own by its
// rank on the node), made current for this process's later CUDA calls
CudaDeviceInfo cuda_device_info(int ordinal = 0);

// the default chunk of a CUDA sweep: the cases of case_bytes each that fill half the device's free
// memory, split among the ranks of a node that share the device (node_ranks over devices, rounded
// up), so that ranks sharing one GPU do not each plan on the memory the others take
inline long device_chunk_cases(std::size_t free_bytes, double case_bytes, int node_ranks, int devices) {
  const int sharing = devices > 0 && node_ranks > devices ? (node_ranks + devices - 1) / devices : 1;
  return static_cast<long>(0.5 * static_cast<double>(free_bytes) / case_bytes / sharing);
}

}  // namespace fivsim::batch
