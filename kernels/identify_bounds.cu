// kernels/identify_bounds.cu — the CUDA backend of the extended-SINDy bound grid (seed 003
// Eqs. 16–17; identify/stick_slip_bounds.hpp, plain arrays): one thread per (k̂, ĉ) grid point running the same
// FIVSIM_HD loops as the OpenMP backend over the stop and slip samples, which every thread reads
// in the same order (broadcast through the caches). nvcc does not contract to FMA
// (CMakeLists.txt), so the surfaces equal the CPU's.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda_util.cuh"
#include "fivsim/identify/stick_slip_bounds.hpp"

namespace fivsim {
namespace {

// threads a block of the bound grid: one grid point each
constexpr int kBoundGridBlock = 128;

__global__ void bound_grid_kernel(BoundSamples stop, BoundSamples slip, GridAxis k, GridAxis c, double* phi1,
                                  double* phi2) {
  const long p = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= static_cast<long>(k.n) * c.n) return;
  const int i = static_cast<int>(p / c.n), j = static_cast<int>(p % c.n);
  phi1[p] = stick_lower_bound(stop, k.at(i), c.at(j));
  phi2[p] = slip_upper_bound(slip, k.at(i), c.at(j));
}

// copies the arrays of a sample set to the device; the returned set points at them
BoundSamples to_device(const BoundSamples& s, std::vector<cuda::DevicePtr<double>>& keep, cudaError_t& err) {
  BoundSamples d;
  d.n = s.n;
  const double* host[5] = {s.x1, s.x2, s.dx2, s.u, s.du};
  const double** dev[5] = {&d.x1, &d.x2, &d.dx2, &d.u, &d.du};
  for (int a = 0; a < 5; ++a) {
    if (host[a] == nullptr || s.n == 0) continue;
    keep.push_back(cuda::device_alloc<double>(static_cast<std::size_t>(s.n), err));
    if (err != cudaSuccess) return d;
    err = cudaMemcpy(keep.back().get(), host[a], sizeof(double) * s.n, cudaMemcpyHostToDevice);
    *dev[a] = keep.back().get();
  }
  return d;
}

}  // namespace

FIVSIM_STICK_SLIP_BOUND_GRID_CUDA {
  cudaError_t err = cudaSuccess;
  std::vector<cuda::DevicePtr<double>> keep;
  const BoundSamples d_stop = to_device(stop, keep, err);
  const BoundSamples d_slip = to_device(slip, keep, err);
  const long points = static_cast<long>(k.n) * c.n;
  if (points <= 0) return DeviceOutcome("CUDA: the bound grid has no points (k and c need at least one value each)");
  auto d_phi1 = cuda::device_alloc<double>(static_cast<std::size_t>(points), err);
  auto d_phi2 = cuda::device_alloc<double>(static_cast<std::size_t>(points), err);
  if (err != cudaSuccess) return device_outcome(err);
  const int block = kBoundGridBlock;
  const unsigned grid = static_cast<unsigned>((points + block - 1) / block);
  err = cuda::timed_launches(
      1, [&] { bound_grid_kernel<<<grid, block>>>(d_stop, d_slip, k, c, d_phi1.get(), d_phi2.get()); }, kernel_s);
  phi1.resize(static_cast<std::size_t>(points));
  phi2.resize(static_cast<std::size_t>(points));
  if (err == cudaSuccess) err = cudaMemcpy(phi1.data(), d_phi1.get(), sizeof(double) * points, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpy(phi2.data(), d_phi2.get(), sizeof(double) * points, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) return device_outcome(err);
  return {};
}

}  // namespace fivsim
