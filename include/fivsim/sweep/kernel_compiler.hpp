// fivsim/sweep/kernel_compiler.hpp — NVRTC (the CUDA Toolkit's run-time compiler) compiling a
// generated kernel (sweep/kernel_source.hpp). fivsim's per-case headers are embedded in the binary
// at build time (cmake/embed_headers.cmake), so that an installed fivsim needs no source tree; no
// device is needed to compile.
#pragma once

#include <map>
#include <string>

#include "fivsim/core/cuda_device.hpp"

namespace fivsim::sweep {

// an entry's resources as ptxas reports them (−1: not reported)
struct KernelResources {
  int registers = -1;
  long stack_frame = -1, spill_stores = -1, spill_loads = -1;  // bytes a thread
};

struct CompiledKernel {
  std::string image;  // a cubin for an sm_XY architecture, PTX for a compute_XY one
  std::string log;    // the compiler's messages
  // each entry's resources by name (a cubin's; none for PTX, which ptxas has not seen)
  std::map<std::string, KernelResources> resources;
};

// the compiler's version and the options it is given, for the cache's key ("" without CUDA)
std::string kernel_compiler_id();

// how a kernel is compiled: optimised (a sweep's), or as a checking build's tests compile it, with
// NVRTC's -G (no optimiser: a switching kernel's source in a third of a second, not ten), or with
// the optimised front end and ptxas unoptimised: the stack frames as the optimised build lays them
// out, in half the time (its registers and spills are not the optimised build's)
enum class KernelBuild : int { optimised = 0, checking = 1, frames = 2 };

// `source` compiled for `arch` ("sm_90", "compute_90"); kernel_s gets the compile's seconds. A
// compile error is the outcome's error with the compiler's log
#define FIVSIM_COMPILE_KERNEL                                                                           \
  DeviceOutcome compile_kernel(const std::string& source, const std::string& arch, CompiledKernel& out, \
                               double& kernel_s, KernelBuild build)
DeviceOutcome compile_kernel(const std::string& source, const std::string& arch, CompiledKernel& out, double& kernel_s,
                             KernelBuild build = KernelBuild::optimised);

}  // namespace fivsim::sweep
