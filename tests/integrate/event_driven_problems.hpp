// tests/integrate/event_driven_problems.hpp — problems shared by the tests of the two event-driven
// integrators (the host reference, event_driven_test.cpp; the per-case switching model,
// switching_test.cpp): a bundled scenario by name, and a Coulomb slider with a closed form.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fivsim/io/scenario.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim::test_problems {

inline Scenario bundled(const std::string& name) {
  return parse_scenario(load_json_file(FIVSIM_SOURCE_DIR "/scenarios/" + name + ".json"));
}

// m = k = 1, belt 0.5, Coulomb μ Fn = 1, from rest at x = 0:
//   slip−  x = 1 − cos t, u = sin t            until u = 0.5 at t1 = π/6 (holding force 0.134 < 1)
//   stick  x = 1 − √3/2 + 0.5 (t − t1)         until k x = μ Fn at t2 = t1 + √3
//   slip−  x = 1 + 0.5 sin(t − t2)             (back at the belt speed only at t2 + 2π, a graze)
struct CoulombSlider {
  static constexpr double t1 = M_PI / 6;
  static double t2() { return t1 + std::sqrt(3.0); }
  static ModelDescription model() {
    SliderBeltParams p;
    p.m = p.k = 1.0;
    p.v0 = 0.5;
    p.Fn = 10.0;
    p.law.kind = FrictionLawKind::coulomb;
    p.law.p[0] = 0.1;
    return make_slider_belt(p);
  }
  // the closed form at t
  static void at(double t, double& x, double& u, ContactState& st) {
    if (t <= t1) {
      x = 1 - std::cos(t), u = std::sin(t), st = ContactState::slip_neg;
    } else if (t <= t2()) {
      x = 1 - std::sqrt(3.0) / 2 + 0.5 * (t - t1), u = 0.5, st = ContactState::stick;
    } else {
      x = 1 + 0.5 * std::sin(t - t2()), u = 0.5 * std::cos(t - t2()), st = ContactState::slip_neg;
    }
  }
  // the run's events are the closed form's two, at t1 and t2 to 1e-11 s
  static void expect_events(const std::vector<Event>& events) {
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, EventKind::slip_to_stick);
    EXPECT_NEAR(events[0].t, t1, 1e-11);
    EXPECT_EQ(events[1].kind, EventKind::stick_to_slip);
    EXPECT_EQ(events[1].to, ContactState::slip_neg);
    EXPECT_NEAR(events[1].t, t2(), 1e-11);
  }
};

}  // namespace fivsim::test_problems
