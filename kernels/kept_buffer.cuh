// kernels/kept_buffer.cuh — the CUDA pipeline's buffers (kernels/sweep_batch.cuh), kept from
// chunk to chunk.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace fivsim::sweep {

// memory that keeps its size from chunk to chunk and grows when a chunk needs more: on the device
// (Pinned false) or pinned on the host, where the device copies into it asynchronously
template <class T, bool Pinned>
struct KeptBuffer {
  T* data = nullptr;
  std::size_t capacity = 0;
  KeptBuffer() = default;
  KeptBuffer(const KeptBuffer&) = delete;
  KeptBuffer& operator=(const KeptBuffer&) = delete;
  ~KeptBuffer() { release(); }
  void release() {
    if (Pinned)
      cudaFreeHost(data);
    else
      cudaFree(data);
    data = nullptr;
    capacity = 0;
  }
  cudaError_t ensure(std::size_t count) {
    if (count <= capacity) return cudaSuccess;
    release();
    const cudaError_t err = Pinned ? cudaMallocHost(&data, count * sizeof(T)) : cudaMalloc(&data, count * sizeof(T));
    if (err == cudaSuccess)
      capacity = count;
    else
      data = nullptr;
    return err;
  }
};
template <class T>
using DeviceBuffer = KeptBuffer<T, false>;
template <class T>
using PinnedBuffer = KeptBuffer<T, true>;

}  // namespace fivsim::sweep
