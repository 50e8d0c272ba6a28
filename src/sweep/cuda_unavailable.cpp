// src/sweep/cuda_unavailable.cpp — the sweep engine's CUDA entry points in a build without CUDA:
// each one's declaration with the body that says so (core/cuda_device.hpp FIVSIM_WITHOUT_CUDA).
#include "fivsim/sweep/kernel_compiler.hpp"
#include "fivsim/sweep/orbit_shooter.hpp"
#include "fivsim/sweep/sweep_backend.hpp"
#include "fivsim/sweep/sweep_pinn_backend.hpp"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace fivsim::sweep {

template <class D>
FIVSIM_CUDA_PIPELINE(D)
FIVSIM_WITHOUT_CUDA_OBJECT template <class D>
FIVSIM_RUN_CHUNK_CUDA(D)
FIVSIM_WITHOUT_CUDA template <class D>
FIVSIM_SWEEP_KERNEL_LOCAL_BYTES(D) {
  return 0;
}
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_CUDA_INSTANCE)

FIVSIM_RUN_CHUNK_CUDA_PINN FIVSIM_WITHOUT_CUDA

    FIVSIM_SPECIALISE_PINN_ROUNDS {
  return {nullptr, {}, {"", "", 0.0, 0.0}};
}

std::string kernel_compiler_id() { return {}; }
FIVSIM_COMPILE_KERNEL FIVSIM_WITHOUT_CUDA

}  // namespace fivsim::sweep

namespace fivsim {

template <class D>
FIVSIM_CUDA_ORBIT_SHOOTER(D)
FIVSIM_WITHOUT_CUDA_OBJECT
#define FIVSIM_ORBIT_SHOTS_CUDA_STUB(D) template FIVSIM_CUDA_ORBIT_SHOOTER(D);
    FIVSIM_SWEEP_DIMS_DOUBLE(FIVSIM_ORBIT_SHOTS_CUDA_STUB)

}  // namespace fivsim
