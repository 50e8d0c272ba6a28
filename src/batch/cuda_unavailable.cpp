// src/batch/cuda_unavailable.cpp — the kernel launchers in a build without CUDA: they say so
// instead of failing to link.
#include "../../kernels/moreau_batch.cuh"

namespace fivsim::batch::detail {

bool query_cuda_device(std::string& description) {
  description = "fivsim was built without CUDA (FIVSIM_CUDA=OFF or no nvcc)";
  return false;
}

std::string launch_moreau_batch(const Model<SmallDims>&, double, long, const StepOptions&, int, double*,
                                double*, int*) {
  return "fivsim was built without CUDA";
}

}  // namespace fivsim::batch::detail
