// src/core/cuda_device.cpp — which CUDA device this process uses and how much memory it has free
// (a plain C++ file over the CUDA runtime API; the kernels are in kernels/). A build without CUDA
// answers that there is none.
#include "fivsim/core/cuda_device.hpp"

#ifdef FIVSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace fivsim {

#ifndef FIVSIM_HAVE_CUDA
CudaDeviceInfo cuda_device_info(int) {
  CudaDeviceInfo info;
  info.description = "no CUDA device: fivsim was built without CUDA (FIVSIM_CUDA=OFF or no nvcc)";
  return info;
}
#else
CudaDeviceInfo cuda_device_info(int ordinal) {
  CudaDeviceInfo info;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    // the driver's words in brackets: "no CUDA-capable device is detected", "CUDA driver version is insufficient..."
    info.description = err != cudaSuccess ? std::string("no CUDA device (the CUDA runtime says: ") + cudaGetErrorString(err) + ")"
                                          : std::string("no CUDA device");
    return info;
  }
  info.ordinal = ordinal % count;
  err = cudaSetDevice(info.ordinal);
  cudaDeviceProp prop{};
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, info.ordinal);
  std::size_t free_b = 0, total_b = 0;
  if (err == cudaSuccess) err = cudaMemGetInfo(&free_b, &total_b);
  if (err != cudaSuccess) {
    info.description = std::string("no usable CUDA device (device ") + std::to_string(info.ordinal) +
                       ": " + cudaGetErrorString(err) + ")";
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
#endif

}  // namespace fivsim
