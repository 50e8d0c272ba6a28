// fivsim/cases/case_steppers.hpp — the steppers a sweep's case runs (cases/case_runner.hpp drives
// them): the classical ones, Moreau's or the Runge–Kutta LCP stepper, over their workspace, and the
// event-driven switching integrator with its tangent for the Lyapunov exponent; and what the runner
// asks of a stepper type (exact events, an orbit probe, its own tangent growth). FIVSIM_HD code
// over plain structs, as the runner.
#pragma once

#include "fivsim/analysis/sweep_analysis.hpp"
#include "fivsim/integrate/moreau.hpp"
#include "fivsim/integrate/rk_lcp.hpp"
#include "fivsim/integrate/switching.hpp"
#include "fivsim/integrate/switching_tangent.hpp"

namespace fivsim {

// scratch of the two steppers
template <class D>
struct CaseWorkspace {
  MoreauWorkspace<D> moreau;
  RkLcpWorkspace<D> rk;
};

namespace detail {

template <class D>
FIVSIM_HD inline void reset_workspace(CaseWorkspace<D>& ws) {
  ws.moreau.has_basis = false;
  ws.rk.has_basis = false;
  ws.rk.ramp_ready = false;
}

}  // namespace detail

// the classical steppers of a case and its twin (which = 0, 1): Moreau's, or the Runge–Kutta LCP
// stepper of rk_map when it is given. run_case_with takes any type with these two members (the
// PINN steppers of a sweep are another, cases/pinn_case.hpp).
template <class D>
struct ClassicalCaseStepper {
  const Model<D>* m;
  const RkStepMap<D>* rk_map;
  typename D::scalar dt;
  const StepOptions* opt;
  CaseWorkspace<D>* ws[2];
  FIVSIM_HD StepReport step(int which, State<D>& s) {
    return rk_map ? rk_lcp_step(*m, *rk_map, s, *opt, ws[which]->rk) : moreau_step(*m, s, dt, *opt, ws[which]->moreau);
  }
  FIVSIM_HD void reset(int which) { detail::reset_workspace(*ws[which]); }
};

// what a stepper's tangent vector did since it was last asked: log of its growth over `time`
// seconds; failed: the estimate stops (annihilated: with an exponent of −∞, a multiplier of zero)
struct TangentGrowth {
  double log = 0.0, time = 0.0;
  bool failed = false, annihilated = false;
};

// the switching integrator (integrate/switching.hpp) as a case stepper: each step advances to the
// next output time, and the mode changes and section samples in between reach the runner through
// its sink at their exact times (exact_events). Given a tangent, its largest Lyapunov exponent
// comes from the variational equations (switching_tangent.hpp: Φ through every event with its
// saltation matrix) rather than a perturbed twin, whose distance an event biases: one vector of
// Φ followed from the first step that starts after the transient, normalised at every step, its
// log growth and the time it covered handed to the runner (take_growth).
template <class D>
struct SwitchingCaseStepper {
  static constexpr bool exact_events = true;
  const Model<D>* m;
  double dt;
  SwitchingSettings set;
  SwitchingSection section;
  SwitchingWorkspace<D>* ws;
  SwitchingTangent<D>* tangent = nullptr;  // null: no exponent
  double tangent_from = 0.0;               // the transient's end
  double tangent_t = -1.0;                 // ws.t where the vector was last normalised (−1: not yet started)
  TangentGrowth growth{};                  // since the runner last took it

  template <class Sink>
  FIVSIM_HD StepReport step(int, State<D>& s, Sink& sink) {
    SwitchingWorkspace<D>& w = *ws;
    const double t = static_cast<double>(s.t);
    StepReport rep;
    if (!w.started) {
      rep.status = switching_start(*m, set, section, w, t, s.q.v, s.u.v, false, sink);
      if (rep.status != Status::ok) return rep;
    }
    if (tangent && tangent_t < 0.0 && t >= tangent_from - 0.5 * dt) start_tangent();
    if (tangent_t >= 0.0 && !growth.failed) {
      TangentHooks<D> hooks{*tangent};
      rep.status = switching_advance(*m, set, section, w, t + dt, sink, hooks);
      if (rep.status == Status::ok) normalise_tangent(hooks.ok);
    } else {
      rep.status = switching_advance(*m, set, section, w, t + dt, sink);
    }
    if (rep.status == Status::ok) switching_output(*m, w, t + dt, s);
    return rep;
  }
  FIVSIM_HD void reset(int) {
    ws->started = false;
    tangent_t = -1.0;
    growth = TangentGrowth();
  }
  // the growth since the last call, which then starts afresh
  FIVSIM_HD TangentGrowth take_growth() {
    const TangentGrowth g = growth;
    growth.log = growth.time = 0.0;
    return g;
  }

 private:
  // Φ's first column along (1, …, 1)/√ny, a direction no mode's invariant subspace favours
  FIVSIM_HD void start_tangent() {
    using T = typename D::scalar;
    const int ny = 2 * dof_count(*m);
    tangent_reset(*m, *tangent);
    tangent->cols = 1;
    for (int i = 0; i < ny; ++i) tangent->phi[i][0] = T(1.0 / sqrt(static_cast<double>(ny)));
    tangent_t = ws->t;
  }
  FIVSIM_HD void normalise_tangent(bool ok) {
    using T = typename D::scalar;
    const int ny = 2 * dof_count(*m);
    double norm2 = 0.0;
    for (int i = 0; i < ny; ++i) norm2 += static_cast<double>(tangent->phi[i][0] * tangent->phi[i][0]);
    const double norm = sqrt(norm2);
    // a singular sticking set or a vector that overflowed: the estimate stops; a vector an event
    // annihilated (a multiplier of exactly zero): −∞
    if (!ok || !(norm < HUGE_VAL)) {
      growth.failed = true;
      return;
    }
    growth.log += norm > 0.0 ? log(norm) : -HUGE_VAL;
    growth.time += ws->t - tangent_t;
    tangent_t = ws->t;
    if (norm > 0.0)
      for (int i = 0; i < ny; ++i) tangent->phi[i][0] = T(tangent->phi[i][0] / T(norm));
    else
      growth.failed = growth.annihilated = true;
  }
};

// the section a switching case locates itself (the break-away section comes from its events)
FIVSIM_HD inline SwitchingSection switching_section(const SweepAnalysis& an, double t_transient) {
  SwitchingSection sec;
  if (an.section == SectionKind::velocity) {
    sec.kind = SwitchingSectionKind::velocity;
    sec.dof = an.dof;
    sec.value = an.value;
    sec.direction = an.direction;
  } else if (an.section == SectionKind::stroboscopic) {
    sec.kind = SwitchingSectionKind::stroboscopic;
    sec.period = an.period;
    sec.start = t_transient;
  }
  return sec;
}

namespace detail {
// whether a stepper reports its events at their exact times (exact_events) rather than leaving
// the runner to find them between steps
template <class S, class = void>
struct has_exact_events {
  static constexpr bool value = false;
};
template <class S>
struct has_exact_events<S, decltype(void(S::exact_events))> {
  static constexpr bool value = S::exact_events;
};

// whether a stepper shoots the case's orbit between steps (probe_orbit(run), cases/case_orbit.hpp)
template <class S, class = void>
struct has_orbit_probe {
  static constexpr bool value = false;
};
template <class S>
struct has_orbit_probe<S, decltype(void(&S::probe_orbit))> {
  static constexpr bool value = true;
};

// whether a stepper estimates the Lyapunov exponent from its own tangent (take_growth())
template <class S, class = void>
struct has_tangent_growth {
  static constexpr bool value = false;
};
template <class S>
struct has_tangent_growth<S, decltype(void(&S::take_growth))> {
  static constexpr bool value = true;
};

template <class Stepper, class St, class Sink>
FIVSIM_HD inline StepReport step_with(Stepper& stepper, int which, St& s, Sink& sink) {
  if constexpr (has_exact_events<Stepper>::value)
    return stepper.step(which, s, sink);
  else
    return stepper.step(which, s);
}
}  // namespace detail

}  // namespace fivsim
