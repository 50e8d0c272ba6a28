// fivsim/model/event_log.hpp — a host run's events (model/events.hpp) collected as its states
// arrive, one step at a time, with the positions at each (no trajectory is stored).
#pragma once

#include <utility>
#include <vector>

#include "fivsim/model/events.hpp"

namespace fivsim {

struct Event {
  double t = 0.0;
  int contact = 0;
  ContactState from = ContactState::free;
  ContactState to = ContactState::free;
  EventKind kind = EventKind::none;
  std::vector<double> q;  // positions when the event was seen
};

// collects events as states arrive, one step at a time (no trajectory is stored)
class EventLog {
 public:
  template <class D>
  void start(const Model<D>& m, const State<D>& s) {
    last_.assign(s.contact, s.contact + m.n_contacts);
  }

  template <class D>
  void observe(const Model<D>& m, const State<D>& s) {
    for (int i = 0; i < m.n_contacts; ++i) {
      const EventKind k = classify_transition(last_[i], s.contact[i]);
      if (k != EventKind::none) {
        Event e;
        e.t = static_cast<double>(s.t);
        e.contact = i;
        e.from = last_[i];
        e.to = s.contact[i];
        e.kind = k;
        e.q.assign(s.q.v, s.q.v + m.n_dof);
        events_.push_back(std::move(e));
        ++counts_[static_cast<int>(k)];
      }
      last_[i] = s.contact[i];
    }
  }

  const std::vector<Event>& events() const { return events_; }
  long count(EventKind k) const { return counts_[static_cast<int>(k)]; }

 private:
  std::vector<ContactState> last_;
  std::vector<Event> events_;
  long counts_[kEventKindCount] = {0, 0, 0, 0, 0, 0};
};

}  // namespace fivsim
