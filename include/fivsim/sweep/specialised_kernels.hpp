// fivsim/sweep/specialised_kernels.hpp — a sweep's specialised kernels on the device: each from
// the ones loaded so far, the disk cache (sweep/kernel_cache.hpp) or NVRTC
// (sweep/kernel_compiler.hpp), loaded as a library of the CUDA runtime; where none can be had the
// report says why and the generic kernel runs. A build with CUDA only (kernels/sweep_batch.cuh).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "fivsim/sweep/kernel_compiler.hpp"
#include "fivsim/sweep/sweep_backend.hpp"

namespace fivsim::sweep {

class SpecialisedKernels {
 public:
  explicit SpecialisedKernels(KernelOptions options) : options_(std::move(options)) {}
  ~SpecialisedKernels();
  SpecialisedKernels(const SpecialisedKernels&) = delete;
  SpecialisedKernels& operator=(const SpecialisedKernels&) = delete;

  // the kernel `name` of `source` compiled for the current device, as cudaLaunchKernel takes it;
  // null where it cannot be had (report() says why; the same source is not tried again)
  const void* get(const std::string& source, const char* name);
  const KernelReport& report() const { return report_; }
  // the generic kernel runs after all: the report says why
  void fall_back(const std::string& why) {
    report_.kernel = "generic";
    report_.how = why;
  }

 private:
  KernelOptions options_;
  KernelReport report_;
  std::map<std::string, void*> libraries_;      // cudaLibrary_t, by cache key
  std::map<std::string, const void*> kernels_;  // by cache key and entry name
  std::set<std::string> failed_;                // cache keys, or keys and entry names
};

}  // namespace fivsim::sweep
