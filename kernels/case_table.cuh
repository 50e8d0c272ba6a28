// kernels/case_table.cuh — a batch's case table and counts made on the device from its results
// (cases/case_columns.hpp: the host's own per-case code), so that only they come back
// (sweep/sweep_backend.hpp DeviceTable; the pipeline of kernels/sweep_batch.cuh launches them).
#pragma once

#include <cuda_runtime.h>

#include "fivsim/cases/case_columns.hpp"

namespace fivsim::sweep {

// the case table of a batch's n cases (cases/case_columns.hpp case_row), column c of case i at
// table[c · n + i]; rows: the swept values, parameter k of case i at rows[k · n + i]
template <class D>
__global__ void case_table_kernel(CaseTableLayout layout, long first, long n, const CaseResult<D>* __restrict__ results,
                                  const double* __restrict__ rows, double* __restrict__ table) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  case_row(layout, first + i, rows ? rows + i : nullptr, n, results[i], static_cast<const PinnTotals*>(nullptr),
           table + i, n);
}

// a batch's counts (CaseCounts): each block's in shared memory, then added to the batch's
template <class D>
__global__ void case_counts_kernel(const CaseResult<D>* __restrict__ results, long n, CaseCounts* __restrict__ counts) {
  __shared__ CaseCounts block;
  constexpr int kWords = static_cast<int>(sizeof(CaseCounts) / sizeof(unsigned long long));
  unsigned long long* words = reinterpret_cast<unsigned long long*>(&block);
  for (int k = threadIdx.x; k < kWords; k += blockDim.x) words[k] = 0;
  __syncthreads();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const CaseResult<D>& r = results[i];
    atomicAdd(&block.steps, static_cast<unsigned long long>(r.steps));
    if (unsigned long long* k = case_class_count(block, r)) atomicAdd(k, 1ull);
    atomicAdd(case_status_count(block, r), 1ull);
  }
  __syncthreads();
  unsigned long long* total = reinterpret_cast<unsigned long long*>(counts);
  for (int k = threadIdx.x; k < kWords; k += blockDim.x)
    if (words[k] != 0) atomicAdd(total + k, words[k]);
}

// counts added word by word
inline void add_counts(const CaseCounts& from, CaseCounts& to) {
  constexpr int kWords = static_cast<int>(sizeof(CaseCounts) / sizeof(unsigned long long));
  const unsigned long long* a = reinterpret_cast<const unsigned long long*>(&from);
  unsigned long long* b = reinterpret_cast<unsigned long long*>(&to);
  for (int k = 0; k < kWords; ++k) b[k] += a[k];
}

}  // namespace fivsim::sweep
