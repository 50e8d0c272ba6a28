# cmake/fivsim_cuda_architectures.cmake — the CUDA architectures of a build that names none
# (CMAKE_CUDA_ARCHITECTURES unset): this machine's GPUs where it has some (one architecture each:
# the quickest build that runs here); else the GPUs users have — Ampere (sm_80 A100, sm_86 RTX 30 /
# A6000), Ada (sm_89 RTX 40 / L40S) and Hopper (sm_90 H100 / H200) as machine code, with PTX of
# sm_90 that the driver compiles for later GPUs. FIVSIM_CUDA_FOR_RELEASE=ON takes the second list
# on a machine with a GPU too. Checking builds (CI) name 90-virtual: PTX alone. Read by
# CMakeLists.txt and by the test of what a default build loads on (tests/cuda_architectures/).
set(FIVSIM_RELEASE_CUDA_ARCHITECTURES 80-real 86-real 89-real 90)

macro(fivsim_default_cuda_architectures)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(_fivsim_caps "")
    if(NOT FIVSIM_CUDA_FOR_RELEASE)
      execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE _fivsim_caps RESULT_VARIABLE _fivsim_smi ERROR_QUIET)
      if(NOT _fivsim_smi EQUAL 0)
        set(_fivsim_caps "")
      endif()
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _fivsim_caps "${_fivsim_caps}")
    endif()
    if(_fivsim_caps)
      string(REPLACE "." "" _fivsim_caps "${_fivsim_caps}")
      list(REMOVE_DUPLICATES _fivsim_caps)
      set(CMAKE_CUDA_ARCHITECTURES ${_fivsim_caps})
      message(STATUS "fivsim: CUDA architectures ${_fivsim_caps}: this machine's GPUs")
    else()
      set(CMAKE_CUDA_ARCHITECTURES ${FIVSIM_RELEASE_CUDA_ARCHITECTURES})
      message(STATUS "fivsim: CUDA architectures 80, 86, 89, 90 and PTX 90 (the GPUs users have)")
    endif()
  endif()
endmacro()
