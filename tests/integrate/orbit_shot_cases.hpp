// tests/integrate/orbit_shot_cases.hpp — a set of orbit shots of the demo chain for the backends' tests
// (sweep/orbit_shooter.hpp): return maps, break-away maps and segments of both slip directions from
// points spread over its state space, on the outer slider's half-belt-speed section.
#pragma once

#include <vector>

#include "fivsim/integrate/orbit_shot.hpp"

namespace fivsim {

// the outer slider's velocity falling through half the belt speed (0.15)
inline SwitchingSection half_belt_section() {
  SwitchingSection section;
  section.kind = SwitchingSectionKind::velocity;
  section.dof = 1;
  section.value = 0.15;
  section.direction = -1;
  return section;
}

// n shots, kinds in turn, each third a point `spacing` further along the section; segments last
// 0.5 s plus `growth` a shot
template <class D>
std::vector<OrbitShot<D>> chain_shots(int n, double spacing, double growth) {
  std::vector<OrbitShot<D>> shots(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    OrbitShot<D>& s = shots[static_cast<std::size_t>(i)];
    const double a = spacing * (i / 3);
    s.x[0] = 0.3 + a;
    s.x[1] = 0.6 - a;
    s.x[2] = 0.1;
    s.x[3] = 0.15;
    s.time = 200.0;
    s.kind = static_cast<ShotKind>(i % 3);
    s.modes[0] = s.modes[1] = i % 2 == 0 ? ContactState::slip_neg : ContactState::slip_pos;
    s.after[0] = s.after[1] = ContactState::stick;
    s.slot = 1;
    if (s.kind == ShotKind::segment) s.time = 0.5 + growth * i;
  }
  return shots;
}

}  // namespace fivsim
