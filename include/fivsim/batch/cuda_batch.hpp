// fivsim/batch/cuda_batch.hpp — the CUDA entry points of the batch engine.
//
// For now one entry: many cases of one model, each from its own initial state, stepped with the
// same FIVSIM_HD Moreau stepper the CPU uses (integrate/moreau.hpp), one thread per case. The
// sweep command of a later issue builds on it. Without a CUDA build or without a device the
// functions report that instead of failing.
#pragma once

#include <string>
#include <vector>

#include "fivsim/integrate/moreau.hpp"
#include "fivsim/model/model_description.hpp"

namespace fivsim::batch {

struct CudaDeviceInfo {
  bool available = false;
  std::string description;  // device name, or why there is none
};

CudaDeviceInfo cuda_device_info();

struct BatchStepResult {
  bool ran = false;              // false when no device / no CUDA build (see message)
  std::string message;
  std::vector<int> status;       // per case: Status of the first failing step, or ok
};

// Steps n_cases copies of `model` for `steps` Moreau steps of size dt. q and u are
// structure-of-arrays, q[dof * n_cases + case], updated in place. Models up to 2 DoF and 2
// contacts run in a small fixed-size instantiation; larger ones are rejected with a message.
BatchStepResult moreau_batch_cuda(const ModelDescription& model, double dt, long steps,
                                  const StepOptions& options, int n_cases, std::vector<double>& q,
                                  std::vector<double>& u);

}  // namespace fivsim::batch
