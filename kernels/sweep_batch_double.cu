// kernels/sweep_batch_double.cu — the double-precision instantiations of the CUDA sweep backend
// (sweep_batch.cuh) and the device query.
#include "sweep_batch.cuh"

namespace fivsim::batch {

CudaDeviceInfo cuda_device_info() {
  CudaDeviceInfo info;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    info.description = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device";
    return info;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  info.available = true;
  info.description = prop.name;
  info.free_bytes = free_b;
  return info;
}

FIVSIM_SWEEP_DIMS_DOUBLE(FIVSIM_SWEEP_CUDA_INSTANCE)

}  // namespace fivsim::batch
