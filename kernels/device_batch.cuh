// kernels/device_batch.cuh — a CaseBatch (sweep/sweep_backend.hpp) on the device: the setups and
// step maps it points at (a shared one copied once) and each swept parameter's values of its
// cases, for the sweep kernels of sweep_batch.cuh and sweep_pinn.cu.
#pragma once

#include <cuda_runtime.h>

#include "cuda_util.cuh"
#include "fivsim/sweep/sweep_backend.hpp"

namespace fivsim::sweep {

// a batch's setups, maps and rows copied to the device (shared setups and maps once), and the
// batch that points at them
template <class D>
struct DeviceBatch {
  cuda::DevicePtr<CaseSetup<D>> setups;
  cuda::DevicePtr<RkStepMap<D>> maps;
  cuda::DevicePtr<double> rows;
  CaseBatch<D> batch;

  cudaError_t upload(const CaseBatch<D>& h) {
    cudaError_t err = cudaSuccess;
    const std::size_t n = static_cast<std::size_t>(h.n);
    const std::size_t n_setups = h.setup_stride ? n : 1, n_maps = h.maps ? (h.map_stride ? n : 1) : 0;
    const std::size_t n_rows = h.targets.n > 0 ? n * static_cast<std::size_t>(h.n_params) : 0;
    setups = cuda::device_alloc<CaseSetup<D>>(n_setups, err);
    maps = cuda::device_alloc<RkStepMap<D>>(n_maps, err);
    rows = cuda::device_alloc<double>(n_rows, err);
    if (err == cudaSuccess)
      err = cudaMemcpy(setups.get(), h.setups, sizeof(CaseSetup<D>) * n_setups, cudaMemcpyHostToDevice);
    if (err == cudaSuccess && n_maps > 0)
      err = cudaMemcpy(maps.get(), h.maps, sizeof(RkStepMap<D>) * n_maps, cudaMemcpyHostToDevice);
    // each parameter's values of the batch's cases, packed (the host's rows are the whole chunk's)
    for (int k = 0; k < h.n_params && n_rows > 0 && err == cudaSuccess; ++k)
      err = cudaMemcpy(rows.get() + k * n, h.rows + k * h.row_stride, sizeof(double) * n, cudaMemcpyHostToDevice);
    batch = h;
    batch.setups = setups.get();
    batch.maps = n_maps > 0 ? maps.get() : nullptr;
    batch.rows = n_rows > 0 ? rows.get() : nullptr;
    batch.row_stride = h.n;
    return err;
  }
};

}  // namespace fivsim::sweep
