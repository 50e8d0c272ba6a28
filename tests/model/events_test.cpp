// tests/model/events_test.cpp — transition classification and the streaming event log (model/events.hpp,
// model/event_log.hpp).
#include "fivsim/model/event_log.hpp"

#include <gtest/gtest.h>

#include "fivsim/model/model_description.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using S = ContactState;

TEST(Events, ClassifiesEveryTransition) {
  EXPECT_EQ(classify_transition(S::stick, S::stick), EventKind::none);
  EXPECT_EQ(classify_transition(S::stick, S::slip_neg), EventKind::stick_to_slip);
  EXPECT_EQ(classify_transition(S::stick, S::slip_pos), EventKind::stick_to_slip);
  EXPECT_EQ(classify_transition(S::slip_pos, S::stick), EventKind::slip_to_stick);
  EXPECT_EQ(classify_transition(S::slip_neg, S::slip_pos), EventKind::slip_reversal);
  EXPECT_EQ(classify_transition(S::slip_pos, S::slip_neg), EventKind::slip_reversal);
  EXPECT_EQ(classify_transition(S::stick, S::free), EventKind::separation);
  EXPECT_EQ(classify_transition(S::slip_neg, S::free), EventKind::separation);
  EXPECT_EQ(classify_transition(S::free, S::stick), EventKind::reattachment);
  EXPECT_EQ(classify_transition(S::free, S::slip_pos), EventKind::reattachment);
}

TEST(Events, LogRecordsTimeStateAndPosition) {
  SliderBeltParams p;
  p.Fn = 1.0;
  p.v0 = 1.0;
  Model<HostDims> m;
  make_model(make_slider_belt(p), m);
  State<HostDims> s;
  s.q.resize(1);
  s.u.resize(1);
  s.contact[0] = S::stick;
  EventLog log;
  log.start(m, s);
  const S seq[] = {S::stick, S::slip_neg, S::slip_neg, S::slip_pos, S::stick};
  for (int k = 0; k < 5; ++k) {
    s.t = 0.1 * (k + 1);
    s.q[0] = k;
    s.contact[0] = seq[k];
    log.observe(m, s);
  }
  ASSERT_EQ(log.events().size(), 3u);
  EXPECT_EQ(log.events()[0].kind, EventKind::stick_to_slip);
  EXPECT_DOUBLE_EQ(log.events()[0].t, 0.2);
  EXPECT_DOUBLE_EQ(log.events()[0].q[0], 1.0);
  EXPECT_EQ(log.events()[1].kind, EventKind::slip_reversal);
  EXPECT_EQ(log.events()[2].kind, EventKind::slip_to_stick);
  EXPECT_EQ(log.events()[2].from, S::slip_pos);
  EXPECT_EQ(log.count(EventKind::slip_reversal), 1);
}

}  // namespace
}  // namespace fivsim
