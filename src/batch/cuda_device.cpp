// src/batch/cuda_device.cpp — which CUDA device this process uses and how much memory it has free
// (a plain C++ file over the CUDA runtime API; the kernels are in kernels/).
#include <cuda_runtime_api.h>

#include "fivsim/batch/cuda_device.hpp"

namespace fivsim::batch {

CudaDeviceInfo cuda_device_info(int ordinal) {
  CudaDeviceInfo info;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    info.description = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device";
    return info;
  }
  info.ordinal = ordinal % count;
  err = cudaSetDevice(info.ordinal);
  cudaDeviceProp prop{};
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, info.ordinal);
  std::size_t free_b = 0, total_b = 0;
  if (err == cudaSuccess) err = cudaMemGetInfo(&free_b, &total_b);
  if (err != cudaSuccess) {
    info.description = std::string("device ") + std::to_string(info.ordinal) + ": " + cudaGetErrorString(err);
    return info;
  }
  info.available = true;
  info.description = prop.name;
  info.free_bytes = free_b;
  static const char* const hex = "0123456789abcdef";
  for (const char byte : prop.uuid.bytes) {
    info.uuid += hex[(static_cast<unsigned char>(byte) >> 4) & 15];
    info.uuid += hex[static_cast<unsigned char>(byte) & 15];
  }
  return info;
}

}  // namespace fivsim::batch
