// kernels/mlp_gemm.cuh — the `gemm` mapping's entry (kernels/mlp_gemm.cu), which the batched
// networks' dispatch (kernels/mlp_batch.cu) calls: a batch of least-squares fits evaluated, or
// trained, as one captured graph of cuBLAS products and element-wise kernels.
#pragma once

#include "fivsim/pinn/mlp_batch.hpp"

namespace fivsim {

template <class T>
DeviceOutcome mlp_fit_batch_cuda_gemm(const MlpLayout& L, const MlpFitBatch<T>& batch, int repeats, double& kernel_s);
// a trained batch: each step the plan at every network's evaluation point, then every network's
// optimizer tell (a warp a network), the two captured as one graph launched `steps` times
template <class T>
DeviceOutcome mlp_train_batch_cuda_gemm(const MlpLayout& L, const MlpTrainBatch<T>& batch, int steps,
                                        const OptimizerOptions& opt, double& kernel_s);

extern template DeviceOutcome mlp_fit_batch_cuda_gemm<double>(const MlpLayout&, const MlpFitBatch<double>&, int,
                                                              double&);
extern template DeviceOutcome mlp_fit_batch_cuda_gemm<float>(const MlpLayout&, const MlpFitBatch<float>&, int, double&);

extern template DeviceOutcome mlp_train_batch_cuda_gemm<double>(const MlpLayout&, const MlpTrainBatch<double>&, int,
                                                                const OptimizerOptions&, double&);
extern template DeviceOutcome mlp_train_batch_cuda_gemm<float>(const MlpLayout&, const MlpTrainBatch<float>&, int,
                                                               const OptimizerOptions&, double&);

}  // namespace fivsim
