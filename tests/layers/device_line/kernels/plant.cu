// tests/layers/device_line/ — a kernel that reaches a host library through a per-case header: the
// device line of cmake/check_layers.cmake must refuse it (ctest LayersRefuseAKernelReachingAHostLibrary).
#include "fivsim/cases/case_runner.hpp"
