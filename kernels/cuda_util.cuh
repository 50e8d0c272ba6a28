// kernels/cuda_util.cuh — small host-side helpers shared by the CUDA translation units: owning
// device pointers, allocation that carries the first error, and a pair of timing events.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

#include "fivsim/core/cuda_device.hpp"

namespace fivsim::cuda {

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
template <class T>
using DevicePtr = std::unique_ptr<T, DeviceFree>;

// allocates count values unless an earlier call failed (err carries the first error)
template <class T>
DevicePtr<T> device_alloc(std::size_t count, cudaError_t& err) {
  void* p = nullptr;
  if (err == cudaSuccess && count > 0) err = cudaMalloc(&p, count * sizeof(T));
  return DevicePtr<T>(static_cast<T*>(p));
}

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  // seconds between the two recorded events, after waiting for the second
  cudaError_t elapsed(double& seconds) const {
    cudaError_t err = cudaEventSynchronize(stop);
    float ms = 0.0f;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    seconds = err == cudaSuccess ? ms * 1e-3 : 0.0;
    return err;
  }
};

// launch() `repeats` times (at least once) between two events recorded on `stream`; returns the
// launches' error or the wait's (not an earlier call's), and their device time in seconds
template <class Launch>
cudaError_t timed_launches(int repeats, Launch&& launch, double& seconds, cudaStream_t stream = nullptr) {
  // an earlier call's error (a failed allocation before a retry) would be taken for the launches'
  cudaGetLastError();
  EventPair ev;
  cudaEventRecord(ev.start, stream);
  for (int r = 0; r < (repeats > 0 ? repeats : 1); ++r) launch();
  cudaEventRecord(ev.stop, stream);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = ev.elapsed(seconds);
  return err;
}

}  // namespace fivsim::cuda

namespace fivsim {

// a CUDA call's error as the engine reports it (cudaErrorMemoryAllocation marks out of memory)
inline DeviceOutcome device_outcome(cudaError_t err) {
  if (err == cudaSuccess) return {};
  return DeviceOutcome(cudaGetErrorString(err), err == cudaErrorMemoryAllocation);
}

}  // namespace fivsim
