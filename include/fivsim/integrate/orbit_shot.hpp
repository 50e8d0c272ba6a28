// fivsim/integrate/orbit_shot.hpp — one shot of a periodic orbit's Newton as a self-contained
// per-case job: the N-th return to a velocity section, the N-th break-away of a contact, or one
// segment of a multiple-shooting orbit with the boundary that ends it (switching_orbit.hpp), each
// with the variational equations' Jacobian. What to shoot and what it gave sit in one plain
// struct, so that the shots of many Newton iterations — every branch of a continuation, each
// segment, each side of a difference in the parameter — run as one batch of cases on CPU threads
// or device threads (sweep/orbit_shooter.hpp), and scratch (OrbitWork) stays with the thread.
#pragma once

#include "fivsim/integrate/switching_orbit.hpp"

namespace fivsim {

enum class ShotKind : unsigned char {
  return_map,     // P^N(x) on a velocity section: switching_return_map
  breakaway_map,  // the N-th break-away of `contact` from x in `modes`: switching_breakaway_map
  segment,        // the flow of `modes` held for `time`, then boundary `slot` into `after`
};

template <class D>
struct OrbitShot {
  using T = typename D::scalar;
  static constexpr int NY = 2 * D::max_dof;
  // what to shoot
  ShotKind kind = ShotKind::return_map;
  T x[NY] = {};
  ContactState modes[D::max_contacts] = {};  // break-away: the modes just after it; segment: those held
  ContactState after[D::max_contacts] = {};  // segment: the next segment's modes
  int contact = 0, crossings = 1;
  int slot = 0;       // segment: the event function of its boundary (kSectionBoundary: the section)
  double time = 0.0;  // maps: the longest a return may take; segment: its duration
  // what it gave (ok false: nothing below holds)
  bool ok = false;
  T x_end[NY];
  T dp[NY][NY];
  double t_end = 0.0;
  ContactState modes_end[D::max_contacts];  // break-away: the modes just after the N-th (else `modes`)
  int events = 0;                           // maps: the mode changes before the N-th crossing or break-away
  T crossing_speed = T(0);                  // return map: the section coordinate's rate there
  SegmentBoundary<D> boundary;              // segment: its boundary at x_end
};

// the shot s on model m, scratch w (any state: every shot starts its run afresh)
template <class D>
FIVSIM_HD_NOINLINE inline void run_orbit_shot(const Model<D>& m, const SwitchingSettings& set,
                                              const SwitchingSection& section, OrbitShot<D>& s, OrbitWork<D>& w) {
  using T = typename D::scalar;
  const int ny = 2 * dof_count(m), nc = contact_count(m);
  // scratch fresh from device memory holds anything: a map runs the modes it meets, a segment
  // holds its own (switching_segment sets and clears this)
  w.ws.hold_modes = false;
  switch (s.kind) {
    case ShotKind::return_map:
      s.ok = switching_return_map(m, set, section, w, 0.0, s.x, s.crossings, s.time);
      break;
    case ShotKind::breakaway_map:
      s.ok = switching_breakaway_map(m, set, w, 0.0, s.x, s.modes, s.contact, s.crossings, s.time);
      break;
    case ShotKind::segment:
      s.ok = switching_segment(m, set, w, s.x, s.modes, s.time) &&
             switching_boundary(m, set, section, w, w.x_end, s.modes, s.slot, s.after, s.boundary);
      w.t_end = s.time;
      break;
  }
  if (!s.ok) return;
  for (int i = 0; i < ny; ++i) {
    s.x_end[i] = w.x_end[i];
    for (int j = 0; j < ny; ++j) s.dp[i][j] = w.dp[i][j];
  }
  s.t_end = w.t_end;
  // what only one kind gives, from it alone (the scratch holds an earlier shot's otherwise)
  const bool returns = s.kind == ShotKind::return_map, breaks_away = s.kind == ShotKind::breakaway_map;
  for (int i = 0; i < nc; ++i) s.modes_end[i] = breaks_away ? w.modes_end[i] : s.modes[i];
  s.events = returns || breaks_away ? w.events : 0;
  s.crossing_speed = returns ? w.crossing_speed : T(0);
}

}  // namespace fivsim
