// fivsim/core/stopwatch.hpp — wall-clock seconds since a time point of the steady clock, as every
// part that says where its time went measures them.
#pragma once

#include <chrono>

namespace fivsim {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace fivsim
