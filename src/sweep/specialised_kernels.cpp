// src/sweep/specialised_kernels.cpp — specialised kernels compiled or taken from the cache and
// loaded onto the device (sweep/specialised_kernels.hpp); a build with CUDA only.
#include "fivsim/sweep/specialised_kernels.hpp"
#include "fivsim/core/stopwatch.hpp"

#include <cuda_runtime.h>

#include <chrono>

#include "fivsim/sweep/kernel_cache.hpp"
#include "fivsim/sweep/kernel_compiler.hpp"

namespace fivsim::sweep {
namespace {

// the first line of a message, for the one line a sweep says about its kernel
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

SpecialisedKernels::~SpecialisedKernels() {
  for (auto& [key, library] : libraries_) cudaLibraryUnload(static_cast<cudaLibrary_t>(library));
}

const void* SpecialisedKernels::get(const std::string& source, const char* name) {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    report_ = {"generic", "the device's architecture could not be read", 0.0, 0.0};
    return nullptr;
  }
  const std::string arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  const std::string key = kernel_cache_key({source, arch, kernel_compiler_id()}), entry = key + ":" + name;
  if (const auto it = kernels_.find(entry); it != kernels_.end()) return it->second;
  if (failed_.count(key) || failed_.count(entry)) return nullptr;
  // the module: loaded already (another of its entries), or now, from the cache or compiled
  const bool fresh = !libraries_.count(key);
  std::string how = "cached";
  std::map<std::string, KernelResources> resources;  // ptxas's, where it compiles
  double compile_s = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  if (fresh) {
    std::string image;
    const auto folder = kernel_cache_folder(options_.cache);
    if (folder)
      if (auto cached = load_cached_kernel(*folder, key)) image = std::move(*cached);
    if (image.empty()) {
      CompiledKernel compiled;
      const DeviceOutcome out = compile_kernel(source, arch, compiled, compile_s);
      if (!out.ok()) {
        failed_.insert(key);
        report_ = {"generic", first_line(out.error), compile_s, 0.0};
        return nullptr;
      }
      image = std::move(compiled.image);
      resources = std::move(compiled.resources);
      how = "compiled";
      if (folder && !store_cached_kernel(*folder, key, image)) how = "compiled (the cache folder is not writable)";
    }
    cudaLibrary_t library = nullptr;
    const cudaError_t err = cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (err != cudaSuccess) {
      cudaGetLastError();
      failed_.insert(key);
      report_ = {"generic", std::string("the specialised kernel did not load: ") + cudaGetErrorString(err), compile_s,
                 0.0};
      return nullptr;
    }
    libraries_[key] = library;
  }
  cudaKernel_t kernel = nullptr;
  const cudaError_t err = cudaLibraryGetKernel(&kernel, static_cast<cudaLibrary_t>(libraries_[key]), name);
  if (err != cudaSuccess) {
    cudaGetLastError();
    failed_.insert(entry);
    report_ = {"generic", std::string("the specialised kernel did not load: ") + cudaGetErrorString(err), compile_s,
               0.0};
    return nullptr;
  }
  kernels_[entry] = reinterpret_cast<const void*>(kernel);
  cudaFuncAttributes attr{};
  const bool known = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)) == cudaSuccess;
  cudaGetLastError();
  // the report tells of the sweep's main kernel, the first one asked for of a module
  if (fresh) {
    const auto spilled = resources.find(name);
    report_.kernel = "specialised";
    report_.how = how;
    report_.registers = known ? attr.numRegs : -1;
    report_.local_bytes = known ? static_cast<long>(attr.localSizeBytes) : -1;
    report_.spill_stores = spilled != resources.end() ? spilled->second.spill_stores : -1;
    report_.spill_loads = spilled != resources.end() ? spilled->second.spill_loads : -1;
  }
  report_.compile_s += compile_s;
  report_.load_s += seconds_since(t0);
  return kernels_[entry];
}

}  // namespace fivsim::sweep
