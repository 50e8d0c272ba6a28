// kernels/moreau_batch.cuh — the launcher interface between host code and the batch kernels.
// Plain structs only (no Eigen), so that nvcc never compiles host linear algebra.
#pragma once

#include <string>

#include "fivsim/integrate/moreau.hpp"

namespace fivsim::batch::detail {

// the fixed-size instantiation of the small-model kernel
using SmallDims = Dims<double, 2, 2>;

// true and the device name, or false and why not
bool query_cuda_device(std::string& description);

// steps every case `steps` times; q, u, status are host arrays (SoA, q[dof * n_cases + case]);
// returns an empty string or the CUDA error
std::string launch_moreau_batch(const Model<SmallDims>& model, double dt, long steps,
                                const StepOptions& options, int n_cases, double* q, double* u,
                                int* status);

}  // namespace fivsim::batch::detail
