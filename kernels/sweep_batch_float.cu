// kernels/sweep_batch_float.cu — the single-precision instantiations of the CUDA sweep backend
// (sweep_batch.cuh).
#include "sweep_batch.cuh"

namespace fivsim::batch {

#define FIVSIM_SWEEP_INSTANTIATE_CUDA(D)                                                                     \
  template std::string run_chunk_cuda<D>(const CaseSetup<D>*, const RkStepMap<D>*, long, const SweepAnalysis&, \
                                         const StepOptions&, CaseResult<D>*, double*, double&);
FIVSIM_SWEEP_DIMS_FLOAT(FIVSIM_SWEEP_INSTANTIATE_CUDA)
#undef FIVSIM_SWEEP_INSTANTIATE_CUDA

}  // namespace fivsim::batch
