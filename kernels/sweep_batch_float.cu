// kernels/sweep_batch_float.cu — the single-precision instantiations of the CUDA sweep backend
// (sweep_batch.cuh).
#include "sweep_batch.cuh"

namespace fivsim::sweep {

FIVSIM_SWEEP_DIMS_FLOAT(FIVSIM_SWEEP_CUDA_INSTANCE)

}  // namespace fivsim::sweep
