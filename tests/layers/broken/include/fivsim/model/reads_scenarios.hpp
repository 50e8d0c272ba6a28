// tests/layers/broken/ — a tree whose model part includes io, a part above it: the layer check
// (cmake/check_layers.cmake) must refuse it (ctest LayersRefuseAnUpwardInclude).
#pragma once

#include "fivsim/io/scenario.hpp"
