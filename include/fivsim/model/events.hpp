// fivsim/model/events.hpp — nonsmooth events read off the sequence of contact states (below the
// integrators and the analysis, which both use it), as per-case code; a host run's log of them is
// model/event_log.hpp.
//
// Each step ends with one state per contact (free / stick / slip− / slip+, see moreau.hpp); a
// change between consecutive steps is an event: stick→slip, slip→stick, slip reversal (slip−
// ↔ slip+ without a stick step), separation (→ free) or reattachment (free →). The event time
// is the end of the first step in the new state, so with time stepping it is late by at most dt.
#pragma once

#include "fivsim/model/model.hpp"

namespace fivsim {

enum class EventKind : int {
  none = 0,
  stick_to_slip,
  slip_to_stick,
  slip_reversal,
  separation,
  reattachment,
};

inline constexpr int kEventKindCount = 6;

FIVSIM_HD inline const char* event_kind_name(EventKind k) {
  switch (k) {
    case EventKind::none:
      return "none";
    case EventKind::stick_to_slip:
      return "stick_to_slip";
    case EventKind::slip_to_stick:
      return "slip_to_stick";
    case EventKind::slip_reversal:
      return "slip_reversal";
    case EventKind::separation:
      return "separation";
    case EventKind::reattachment:
      return "reattachment";
  }
  return "?";
}

FIVSIM_HD inline bool is_slip(ContactState s) { return s == ContactState::slip_neg || s == ContactState::slip_pos; }

FIVSIM_HD inline EventKind classify_transition(ContactState from, ContactState to) {
  if (from == to) return EventKind::none;
  if (to == ContactState::free) return EventKind::separation;
  if (from == ContactState::free) return EventKind::reattachment;
  if (from == ContactState::stick) return EventKind::stick_to_slip;
  if (to == ContactState::stick) return EventKind::slip_to_stick;
  return EventKind::slip_reversal;
}

// the contact state implied by positions and velocities alone (used for the initial state,
// before any contact force is known): open gap → free, else by the sign of γ_T
template <class D>
FIVSIM_HD inline ContactState kinematic_contact_state(const Model<D>& m, const State<D>& s, int i,
                                                      typename D::scalar stick_tol) {
  if (m.kind[i] == ContactKind::given_normal ? !(m.Fn[i] > 0) : contact_gap(m, s, i) > 0) return ContactState::free;
  const auto v = contact_slip_velocity(m, s.u, i);
  if (v > stick_tol) return ContactState::slip_pos;
  if (v < -stick_tol) return ContactState::slip_neg;
  return ContactState::stick;
}

// the contact states and normal forces of a start state from its q and u: kinematic states, and
// λ_N = Fn for given_normal contacts (0 for the others until a step has run)
template <class D>
FIVSIM_HD inline void initial_contact_states(const Model<D>& m, State<D>& s, typename D::scalar stick_tol) {
  s.lamN.resize(m.n_contacts);
  s.lamT.resize(m.n_contacts);
  for (int i = 0; i < m.n_contacts; ++i) {
    if (m.kind[i] == ContactKind::given_normal) s.lamN[i] = m.Fn[i];
    s.contact[i] = kinematic_contact_state(m, s, i, stick_tol);
  }
}

}  // namespace fivsim
