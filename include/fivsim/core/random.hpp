// fivsim/core/random.hpp — counter-based random numbers (splitmix64), usable on host and device.
//
// A draw depends only on its counters (seed, stream, index), never on a sequence before it, so a
// sweep case or a network weight gets the same value on any backend, thread count or chunking.
#pragma once

#include "fivsim/core/c_library.hpp"

#include "fivsim/core/config.hpp"

namespace fivsim {

// splitmix64's finaliser: a bijective mix of one 64-bit word
FIVSIM_HD inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// uniform in [0, 1) from (seed, stream, index), 53 random bits
FIVSIM_HD inline double unit_draw(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t z = mix64(mix64(seed ^ mix64(stream)) + index);
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace fivsim
