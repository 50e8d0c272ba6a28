// src/pinn/cuda_unavailable.cpp — the batched networks' CUDA entry points in a build without CUDA:
// each one's declaration with the body that says so (core/cuda_device.hpp FIVSIM_WITHOUT_CUDA).
#include "fivsim/pinn/mlp_batch.hpp"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace fivsim {

template <class T>
FIVSIM_MLP_FIT_BATCH_CUDA(T)
FIVSIM_WITHOUT_CUDA template <class T>
FIVSIM_LCP_PINN_BATCH_CUDA(T)
FIVSIM_WITHOUT_CUDA template <class T>
FIVSIM_MLP_TRAIN_BATCH_CUDA(T)
FIVSIM_WITHOUT_CUDA

    FIVSIM_MLP_BATCH_CUDA_ENTRIES(template, double) FIVSIM_MLP_BATCH_CUDA_ENTRIES(template, float)

}  // namespace fivsim
