// src/pinn/cuda_unavailable.cpp — the batched networks' CUDA entry points in a build without CUDA:
// they say so (core/cuda_device.hpp's built_without_cuda) instead of failing to link.
#include "fivsim/pinn/mlp_batch.hpp"

namespace fivsim {

template <class T>
DeviceOutcome mlp_fit_batch_cuda(const MlpLayout&, const MlpFitBatch<T>&, int, double& kernel_s, MlpCudaMapping) {
  kernel_s = 0.0;
  return built_without_cuda();
}
template <class T>
DeviceOutcome lcp_pinn_batch_cuda(const MlpLayout&, const LcpPinnBatch<T>&, int, double& kernel_s) {
  kernel_s = 0.0;
  return built_without_cuda();
}
template <class T>
DeviceOutcome mlp_train_batch_cuda(const MlpLayout&, const MlpTrainBatch<T>&, int, const OptimizerOptions&,
                                   double& kernel_s) {
  kernel_s = 0.0;
  return built_without_cuda();
}

#define FIVSIM_MLP_CUDA_STUBS(T)                                                                                       \
  template DeviceOutcome mlp_fit_batch_cuda<T>(const MlpLayout&, const MlpFitBatch<T>&, int, double&, MlpCudaMapping); \
  template DeviceOutcome lcp_pinn_batch_cuda<T>(const MlpLayout&, const LcpPinnBatch<T>&, int, double&);               \
  template DeviceOutcome mlp_train_batch_cuda<T>(const MlpLayout&, const MlpTrainBatch<T>&, int,                       \
                                                 const OptimizerOptions&, double&);
FIVSIM_MLP_CUDA_STUBS(double)
FIVSIM_MLP_CUDA_STUBS(float)
#undef FIVSIM_MLP_CUDA_STUBS

}  // namespace fivsim
