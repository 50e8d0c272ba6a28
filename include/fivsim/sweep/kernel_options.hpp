// fivsim/sweep/kernel_options.hpp — what a sweep asks of its device kernels (specialised to the
// scenario or the prebuilt ones, where compiled ones are kept, what they send back) and what it got.
#pragma once

#include <string>

namespace fivsim::sweep {

// how the CUDA pipeline chooses a chunk's kernel: specialised to the scenario (generated and
// compiled by NVRTC: sweep/kernel_source.hpp) or the prebuilt generic one; compiled kernels kept
// in `cache` (sweep/kernel_cache.hpp kernel_cache_folder: "" the default folder, "off" none)
struct KernelOptions {
  bool specialise = true;
  std::string cache;
  // whether a chunk's point rings come back to the host (its files hold points, or a grey-box
  // search reads its residual series); else they stay on the device, where its kernels read them
  bool points_to_host = true;
};

// the kernel a sweep's chunks ran
struct KernelReport {
  std::string kernel;      // "specialised", "generic", or "" where no chunk ran on the device
  std::string how;         // specialised: "compiled" or "cached"; generic: why (asked for, or what failed)
  double compile_s = 0.0;  // NVRTC's time, where it compiled
  double load_s = 0.0;     // the image's load onto the device
  // a specialised kernel's registers and local memory a thread (the device's attributes), and the
  // bytes ptxas spilled where it compiled (−1: loaded from the cache, or unknown)
  int registers = -1;
  long local_bytes = -1, spill_stores = -1, spill_loads = -1;
};

}  // namespace fivsim::sweep
