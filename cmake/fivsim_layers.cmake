# cmake/fivsim_layers.cmake — the engine's parts and which may use which (docs/DESIGN.md §1), read
# by CMakeLists.txt (one library target per part, linking only these) and by check_layers.cmake
# (every `#include "fivsim/<part>/…"` of a part's files against them). Lowest first.
set(FIVSIM_PARTS core friction model lcp pinn integrate analysis identify cases io sweep app)
set(FIVSIM_USES_core "")
set(FIVSIM_USES_friction core)
set(FIVSIM_USES_model core friction)
set(FIVSIM_USES_lcp core model)
set(FIVSIM_USES_pinn core model lcp)
set(FIVSIM_USES_integrate core model lcp pinn)
set(FIVSIM_USES_analysis core model integrate)
set(FIVSIM_USES_identify core model integrate pinn)
# the per-case code of sweeps, host and device alike (FIVSIM_HD over plain structs): what the
# kernels compile, below every part that reads files
set(FIVSIM_USES_cases core model lcp pinn integrate analysis)
set(FIVSIM_USES_io core model lcp integrate analysis identify)
set(FIVSIM_USES_sweep core model lcp pinn integrate analysis cases io)
# the application: every piece of work a front end starts (run, compare, stability, identify with
# its populations scored by sweeps, a batch of identifications, sweep, merge) as one library call,
# the option values parsed once
set(FIVSIM_USES_app core model lcp pinn integrate analysis identify cases io sweep)
# the front ends (src/cli/, src/python/): they start work through app alone; io's files and scenario
# parsing, the model, friction laws and the core's errors they may read directly
set(FIVSIM_FRONT_ENDS cli python)
set(FIVSIM_FRONT_END_USES core friction model integrate io app)

# the kernels (kernels/) by the part whose target compiles or includes them
set(FIVSIM_KERNELS_core cuda_util.cuh)
set(FIVSIM_KERNELS_pinn mlp_batch.cu mlp_gemm.cu mlp_gemm.cuh)
set(FIVSIM_KERNELS_identify identify_bounds.cu)
set(FIVSIM_KERNELS_sweep sweep_batch.cuh sweep_batch_double.cu sweep_batch_float.cu device_batch.cuh sweep_pinn.cu
  orbit_shots.cu case_table.cuh kept_buffer.cuh)

# FIVSIM_REACH_<part>: what the part may use, its uses' uses included (a lower part's headers come
# with the link)
foreach(_part IN LISTS FIVSIM_PARTS)
  set(_reach ${FIVSIM_USES_${_part}})
  foreach(_used IN LISTS FIVSIM_USES_${_part})
    list(APPEND _reach ${FIVSIM_REACH_${_used}})
  endforeach()
  list(REMOVE_DUPLICATES _reach)
  set(FIVSIM_REACH_${_part} ${_reach})
endforeach()
