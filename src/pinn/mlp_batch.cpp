// src/pinn/mlp_batch.cpp — the CPU backend of the batched networks (mlp_batch.hpp): an OpenMP
// loop over the networks of a network-major batch, each with its own cache and scratch (and, when
// trained, its own optimizer state), a fit's points one after another or as matrix products
// (mlp_batch_policy.hpp's mappings).
#include "fivsim/pinn/mlp_batch.hpp"

#include <omp.h>

#include "fivsim/pinn/mlp_gemm.hpp"

#include <vector>

namespace fivsim {

namespace {

// runs eval(b, cache, scratch) for every network on `threads` threads (0: all)
template <class T, class Eval>
void for_each_network(const MlpLayout& L, long networks, int threads, Eval&& eval) {
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    std::vector<T> cache(static_cast<std::size_t>(L.cache_size())),
        scratch(static_cast<std::size_t>(mlp_batch_scratch_size(L)));
#pragma omp for schedule(static)
    for (long b = 0; b < networks; ++b) eval(b, cache.data(), scratch.data());
  }
}

}  // namespace

template <class T>
void mlp_fit_batch_cpu(const MlpLayout& L, const MlpFitBatch<T>& batch, int threads, MlpCpuMapping mapping) {
  const long np = L.param_count(), nin = L.inputs(), nout = L.outputs(), P = batch.points;
  if (mapping == MlpCpuMapping::automatic) mapping = choose_cpu_mapping(mlp_batch_shape(L, batch.points));
  if (mapping == MlpCpuMapping::gemm) {
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
    {
      MlpGemmWork<T> work;
#pragma omp for schedule(static)
      for (long b = 0; b < batch.networks; ++b)
        batch.loss[b] = mlp_least_squares_gemm<T>(L, batch.points, batch.params + b * np, batch.inputs + b * P * nin,
                                                  batch.targets + b * P * nout, batch.grad + b * np, work);
    }
    return;
  }
  for_each_network<T>(L, batch.networks, threads, [&](long b, T* cache, T* scratch) {
    batch.loss[b] = mlp_least_squares<T>(L, batch.points, batch.params + b * np, batch.inputs + b * P * nin,
                                         batch.targets + b * P * nout, batch.grad + b * np, cache, scratch);
  });
}

template <class T>
void lcp_pinn_batch_cpu(const MlpLayout& L, const LcpPinnBatch<T>& batch, int threads) {
  const long np = L.param_count(), n = batch.n;
  for_each_network<T>(L, batch.networks, threads, [&](long k, T* cache, T* scratch) {
    LcpMatrix<T, kLcpBatchMax> A;
    LcpVector<T, kLcpBatchMax> b;
    lcp_batch_problem(batch.A + k * n * n, batch.b + k * n, static_cast<int>(n), A, b);
    batch.loss[k] =
        lcp_pinn_residuals(L, A, b, batch.params + k * np, batch.grad + k * np, cache, scratch, batch.residual[k]);
  });
}

template <class T>
void mlp_train_batch_cpu(const MlpLayout& L, const MlpTrainBatch<T>& batch, int steps, const OptimizerOptions& opt,
                         int threads) {
  const long np = L.param_count(), nin = L.inputs(), nout = L.outputs(), P = batch.points;
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    std::vector<T> cache(static_cast<std::size_t>(L.cache_size())),
        scratch(static_cast<std::size_t>(mlp_batch_scratch_size(L))), grad(static_cast<std::size_t>(np)),
        work(static_cast<std::size_t>(optimizer_work_size(static_cast<int>(np), opt)));
#pragma omp for schedule(static)
    for (long b = 0; b < batch.networks; ++b)
      batch.loss[b] = mlp_train_network<T>(L, batch.points, batch.params + b * np, batch.inputs + b * P * nin,
                                           batch.targets + b * P * nout, steps, opt, grad.data(), work.data(),
                                           cache.data(), scratch.data());
  }
}

template void mlp_fit_batch_cpu<double>(const MlpLayout&, const MlpFitBatch<double>&, int, MlpCpuMapping);
template void mlp_fit_batch_cpu<float>(const MlpLayout&, const MlpFitBatch<float>&, int, MlpCpuMapping);
template void lcp_pinn_batch_cpu<double>(const MlpLayout&, const LcpPinnBatch<double>&, int);
template void lcp_pinn_batch_cpu<float>(const MlpLayout&, const LcpPinnBatch<float>&, int);
template void mlp_train_batch_cpu<double>(const MlpLayout&, const MlpTrainBatch<double>&, int, const OptimizerOptions&,
                                          int);
template void mlp_train_batch_cpu<float>(const MlpLayout&, const MlpTrainBatch<float>&, int, const OptimizerOptions&,
                                         int);

}  // namespace fivsim
