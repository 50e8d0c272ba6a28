// src/batch/cuda_batch.cpp — host side of the batch engine: compiles the model description into
// the fixed-size kernel model and hands the cases to the CUDA launcher.
#include "fivsim/batch/cuda_batch.hpp"

#include <memory>

#include "../../kernels/moreau_batch.cuh"

namespace fivsim::batch {

CudaDeviceInfo cuda_device_info() {
  CudaDeviceInfo info;
  info.available = detail::query_cuda_device(info.description);
  return info;
}

BatchStepResult moreau_batch_cuda(const ModelDescription& desc, double dt, long steps,
                                  const StepOptions& options, int n_cases, std::vector<double>& q,
                                  std::vector<double>& u) {
  BatchStepResult res;
  const CudaDeviceInfo info = cuda_device_info();
  if (!info.available) {
    res.message = info.description;
    return res;
  }
  auto model = std::make_unique<Model<detail::SmallDims>>();
  try {
    make_model(desc, *model);
  } catch (const ModelError& e) {
    res.message = e.what();
    return res;
  }
  const std::size_t n = static_cast<std::size_t>(model->n_dof) * static_cast<std::size_t>(n_cases);
  if (q.size() != n || u.size() != n) {
    res.message = "q and u must hold dof * n_cases values";
    return res;
  }
  res.status.assign(static_cast<std::size_t>(n_cases), 0);
  res.message = detail::launch_moreau_batch(*model, dt, steps, options, n_cases, q.data(), u.data(),
                                            res.status.data());
  res.ran = res.message.empty();
  if (res.ran) res.message = info.description;
  return res;
}

}  // namespace fivsim::batch
