// fivsim/cases/parameter_slots.hpp — what a swept number sets in a case, and how a case's row of
// values is written into the sweep's one model and start state (the typed slots of a sweep plan,
// sweep_plan.hpp). Plain structs and FIVSIM_HD code, so that a kernel applies its case's row
// itself and the rest of the model stays one copy that every case reads.
#pragma once

#include "fivsim/model/events.hpp"

namespace fivsim {

// the fields of a model and start state that a swept value sets as it is (a slot whose value
// reaches the model through its matrices is rebuilt on the host instead, sweep_plan.hpp)
enum class SlotKind : int {
  normal_force = 0,   // Fn of given_normal contact `index`
  surface_velocity,   // v_surface of contact `index`
  friction,           // parameter `param` of contact `index`'s friction law
  contact_stiffness,  // k_c of spring contact `index`
  contact_gap,        // gap0 of contact `index`
  start_q,            // initial position of DoF `index`
  start_u,            // initial velocity of DoF `index`
};

struct SlotTarget {
  SlotKind kind = SlotKind::normal_force;
  int index = 0;   // contact or DoF
  int param = 0;   // friction: the law's parameter
  int column = 0;  // which swept parameter gives the value
};

// every target of a plan, small enough to travel as a kernel argument
inline constexpr int kMaxSlotTargets = 64;
struct SlotTargets {
  int n = 0;
  SlotTarget t[kMaxSlotTargets];
};

// writes v into what t names (the conversions are make_model's and make_initial_state's)
template <class D>
FIVSIM_HD inline void apply_target(const SlotTarget& t, double v, Model<D>& m, State<D>& s) {
  using T = typename D::scalar;
  switch (t.kind) {
    case SlotKind::normal_force:
      m.Fn[t.index] = T(v);
      break;
    case SlotKind::surface_velocity:
      m.v_surface[t.index] = T(v);
      break;
    case SlotKind::friction:
      m.law[t.index].p[t.param] = v;
      break;
    case SlotKind::contact_stiffness:
      m.kc[t.index] = T(v);
      break;
    case SlotKind::contact_gap:
      m.gap0[t.index] = T(v);
      break;
    case SlotKind::start_q:
      s.q[t.index] = T(v);
      break;
    case SlotKind::start_u:
      s.u[t.index] = T(v);
      break;
  }
}

// a case from the sweep's model and start state: its row (value of swept parameter k at
// row[k * stride]) written into them, then the start state's contact states and normal forces
// from the case's own model and q, u
template <class D>
FIVSIM_HD inline void apply_row(const SlotTargets& targets, const double* row, long stride,
                                typename D::scalar stick_tol, Model<D>& m, State<D>& start) {
  for (int k = 0; k < targets.n; ++k) apply_target(targets.t[k], row[targets.t[k].column * stride], m, start);
  initial_contact_states(m, start, stick_tol);
}

}  // namespace fivsim
