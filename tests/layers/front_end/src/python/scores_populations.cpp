// a front end that starts work past app: what the layer check must refuse (ctest
// LayersRefuseAFrontEndReachingPastApp)
#include "fivsim/sweep/greybox_sweeps.hpp"
