// tests/identify/identify_test_problems.hpp — the seed 003 synthetic system shared by the identification
// tests: Table 1's mass-normalised oscillator with Coulomb friction, base-excited at A = 0.0015 m.
#pragma once

#include "fivsim/model/presets.hpp"

namespace fivsim_test {

// k̂ = 358.706, ĉ = 0.0658, F̂f = 0.0856 (m = 1), forced at f_hz
inline fivsim::BaseExcitedParams seed003_oscillator(double f_hz) {
  fivsim::BaseExcitedParams p;
  p.m = 1.0;
  p.k = 358.706;
  p.c = 0.0658;
  p.Fn = 0.0856;
  p.law.kind = fivsim::FrictionLawKind::coulomb;
  p.law.p[0] = 1.0;
  p.A = 0.0015;
  p.f_hz = f_hz;
  return p;
}

}  // namespace fivsim_test
