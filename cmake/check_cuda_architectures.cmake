# cmake/check_cuda_architectures.cmake — what a default build's device code loads on: builds
# tests/cuda_architectures (a kernel with the architectures a build that names none takes on a
# machine without a GPU) and lists its images with scripts/tools/kernel_images.py, which fails unless
# sm_80, 8.6, 8.9 and 9.0 load (and later GPUs through PTX) and 7.5 does not. Run by ctest
# (Kernels.DefaultBuildLoadsOnAmpereAdaAndHopper):
#   cmake -DROOT=<source tree> -DWORK=<scratch folder> -DPYTHON=python3 -P cmake/check_cuda_architectures.cmake
foreach(_var ROOT WORK PYTHON)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_cuda_architectures: -D${_var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${ROOT}/tests/cuda_architectures -B ${WORK} -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "configuring the probe failed:\n${_out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "building the probe failed:\n${_out}")
endif()
execute_process(COMMAND ${PYTHON} ${ROOT}/scripts/tools/kernel_images.py ${WORK}/libprobe.a --loads 8.0 8.6 8.9 9.0 10.0 12.0
                        --loads-not 7.5
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "a default build's kernels do not load where they should")
endif()
file(REMOVE_RECURSE ${WORK})
