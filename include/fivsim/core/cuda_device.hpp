// fivsim/core/cuda_device.hpp — which CUDA device a process uses and how much memory it has free:
// the one question every part with a device backend asks (the sweep engine, the batched networks,
// identification's bound grid), so it sits at the bottom (src/core/cuda_device.cpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace fivsim {

// what every CUDA entry point of the engine (the sweep backends, the batched networks, the bound
// grid) reports: "" or why it failed, and whether the device ran out of memory (a smaller batch may
// fit). kernels/cuda_util.cuh makes one from a cudaError_t
struct DeviceOutcome {
  std::string error;
  bool out_of_memory = false;
  DeviceOutcome() = default;
  DeviceOutcome(std::string why, bool oom = false) : error(std::move(why)), out_of_memory(oom) {}
  DeviceOutcome(const char* why) : error(why) {}
  bool ok() const { return error.empty(); }
};

// the outcome of every CUDA entry point in a build without CUDA (src/<part>/cuda_unavailable.cpp)
inline DeviceOutcome built_without_cuda() { return DeviceOutcome("fivsim was built without CUDA"); }

// a CUDA entry point is declared once, by a macro of its signature (as Ginkgo's GKO_DECLARE_*): its
// header declares it, its kernel defines and instantiates it, and a build without CUDA defines it
// with one of these bodies (src/<part>/cuda_unavailable.cpp). An entry point that returns a
// DeviceOutcome names its device time `kernel_s`; one that makes a backend object throws
#define FIVSIM_WITHOUT_CUDA      \
  {                              \
    kernel_s = 0.0;              \
    return built_without_cuda(); \
  }
#define FIVSIM_WITHOUT_CUDA_OBJECT \
  { throw std::runtime_error(built_without_cuda().error); }

struct CudaDeviceInfo {
  bool available = false;
  // a GPU is there but cannot run this build's kernels (its compute capability is not built for):
  // `--device auto` then says so and runs on the CPU
  bool unusable_gpu = false;
  std::string description;  // device name, or why there is none ("no CUDA device…", "no usable CUDA device…")
  std::size_t free_bytes = 0;
  int ordinal = 0;           // the device this process uses
  std::string uuid;          // its UUID (32 hex digits): the same GPU whatever the ordinal
  int major = 0, minor = 0;  // its compute capability
  // what the driver reserves local memory for: every thread the device can keep resident
  int multiprocessors = 0;
  int threads_per_multiprocessor = 0;
};
// the device `ordinal` modulo the number present (each rank of an MPI sweep picks its own by its
// rank on the node), made current for this process's later CUDA calls; judged by judged_device
CudaDeviceInfo cuda_device_info(int ordinal = 0);

// the CUDA architectures this build's kernels were compiled for (CMAKE_CUDA_ARCHITECTURES, e.g.
// "80-real,86-real,89-real,90"; "" without CUDA)
const char* cuda_build_architectures();

// whether a GPU of compute capability major.minor loads a kernel built for `architectures` (CMake's
// list, entries separated by ';' or ','): machine code for sm_XY runs on X.Z with Z >= Y, PTX for compute_XY is
// compiled by the driver for any capability >= X.Y; "N" alone is both, "N-real" machine code, "N-virtual" PTX
bool kernel_image_loads(int major, int minor, const std::string& architectures);

// `found` (a device present, its name and capability) as fivsim may use it: unavailable, with why
// and what to rebuild with, where `architectures` has no image that loads on it
CudaDeviceInfo judged_device(CudaDeviceInfo found, const std::string& architectures);

}  // namespace fivsim
