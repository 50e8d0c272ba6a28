// src/batch/cuda_unavailable.cpp — the sweep engine's CUDA backend in a build without CUDA: it says
// so (core/cuda_device.hpp's built_without_cuda) instead of failing to link.
#include <stdexcept>

#include "fivsim/batch/orbit_shooter.hpp"
#include "fivsim/batch/sweep_backend.hpp"
#include "fivsim/batch/sweep_pinn_backend.hpp"

namespace fivsim::batch {

template <class D>
struct CudaPipeline<D>::Impl {};
template <class D>
CudaPipeline<D>::CudaPipeline(InjectedFailures*) {}
template <class D>
CudaPipeline<D>::~CudaPipeline() = default;
template <class D>
DeviceOutcome CudaPipeline<D>::launch(int, const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&) {
  return built_without_cuda();
}
template <class D>
DeviceOutcome CudaPipeline<D>::finish(int, CaseResult<D>*, double*, double& kernel_s) {
  kernel_s = 0.0;
  return built_without_cuda();
}

template <class D>
DeviceOutcome run_chunk_cuda(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&, CaseResult<D>*, double*,
                             double& kernel_s) {
  kernel_s = 0.0;
  return built_without_cuda();
}

template <class D>
std::size_t sweep_kernel_local_bytes() {
  return 0;
}

FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_CUDA_INSTANCE)

DeviceOutcome run_chunk_cuda_pinn(const PinnChunk&, const SweepAnalysis&, const StepOptions&,
                                  CaseResult<PinnSweepDims>*, double*, PinnTotals*, double& kernel_s) {
  kernel_s = 0.0;
  return built_without_cuda();
}

}  // namespace fivsim::batch

namespace fivsim {

template <class D>
struct CudaOrbitShooter<D>::Device {};
template <class D>
CudaOrbitShooter<D>::CudaOrbitShooter() {
  throw std::runtime_error(built_without_cuda().error);
}
template <class D>
CudaOrbitShooter<D>::~CudaOrbitShooter() = default;
template <class D>
void CudaOrbitShooter<D>::shoot(const std::vector<ShotJob<D>>&) {
  throw std::runtime_error(built_without_cuda().error);
}

#define FIVSIM_ORBIT_SHOTS_CUDA_INSTANCE(D) template class CudaOrbitShooter<batch::D>;
FIVSIM_SWEEP_DIMS_DOUBLE(FIVSIM_ORBIT_SHOTS_CUDA_INSTANCE)

}  // namespace fivsim
