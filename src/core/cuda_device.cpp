// src/core/cuda_device.cpp — which CUDA device this process uses and how much memory it has free
// (a plain C++ file over the CUDA runtime API; the kernels are in kernels/). A build without CUDA
// answers that there is none.
#include "fivsim/core/cuda_device.hpp"

#ifdef FIVSIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace fivsim {

const char* cuda_build_architectures() {
#ifdef FIVSIM_CUDA_ARCHITECTURES
  return FIVSIM_CUDA_ARCHITECTURES;
#else
  return "";
#endif
}

bool kernel_image_loads(int major, int minor, const std::string& architectures) {
  const int capability = 10 * major + minor;
  std::string entries = architectures;
  std::replace(entries.begin(), entries.end(), ',', ';');
  std::stringstream list(entries);
  for (std::string entry; std::getline(list, entry, ';');) {
    const std::size_t dash = entry.find('-');
    const std::string number = entry.substr(0, dash), kind = dash == std::string::npos ? "" : entry.substr(dash + 1);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
    const int built = std::atoi(number.c_str());
    // machine code: the same major capability, minor at least the built one
    if (kind != "virtual" && built / 10 == major && built <= capability) return true;
    // PTX: compiled by the driver for its own or any later capability
    if (kind != "real" && built <= capability) return true;
  }
  return false;
}

CudaDeviceInfo judged_device(CudaDeviceInfo found, const std::string& architectures) {
  if (!found.available || kernel_image_loads(found.major, found.minor, architectures)) return found;
  const std::string capability = std::to_string(found.major) + "." + std::to_string(found.minor);
  found.available = false;
  found.unusable_gpu = true;
  found.description = "no usable CUDA device: " + found.description + " (compute capability " + capability +
                      ") cannot run this build's kernels (built for " +
                      (architectures.empty() ? std::string("none") : architectures) +
                      "); rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(found.major) +
                      std::to_string(found.minor) + " (or native)";
  return found;
}

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
    info.description = err != cudaSuccess
                           ? std::string("no CUDA device (the CUDA runtime says: ") + cudaGetErrorString(err) + ")"
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
    info.description = std::string("no usable CUDA device (device ") + std::to_string(info.ordinal) + ": " +
                       cudaGetErrorString(err) + ")";
    return info;
  }
  info.available = true;
  info.description = prop.name;
  info.major = prop.major;
  info.minor = prop.minor;
  info.free_bytes = free_b;
  info.multiprocessors = prop.multiProcessorCount;
  info.threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  static const char* const hex = "0123456789abcdef";
  for (const char byte : prop.uuid.bytes) {
    info.uuid += hex[(static_cast<unsigned char>(byte) >> 4) & 15];
    info.uuid += hex[static_cast<unsigned char>(byte) & 15];
  }
  // a GPU this build has no kernel image for is not used (a launch would fail on every kernel)
  return judged_device(info, cuda_build_architectures());
}
#endif

}  // namespace fivsim
