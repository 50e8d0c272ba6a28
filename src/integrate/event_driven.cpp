// src/integrate/event_driven.cpp — the event-driven reference (integrate/event_driven.hpp).
#include "fivsim/integrate/event_driven.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/numeric/odeint.hpp>

namespace fivsim {
namespace {

namespace odeint = boost::numeric::odeint;
using OdeState = std::vector<double>;

// what an event function watches; it is positive while the current mode holds
enum class Watch { closed_gap, open_gap, slip_velocity, stick_upper, stick_lower };

struct EventFunction {
  int contact;
  Watch watch;
};

// the dynamics of one mode (a ContactState per contact) and its event functions
class ModalSystem {
 public:
  explicit ModalSystem(const ModelDescription& d)
      : d_(d), n_(d.dof()), nc_(d.n_contacts()), WN_(n_, nc_), WT_(n_, nc_) {
    Minv_ = d.M.llt().solve(Eigen::MatrixXd::Identity(n_, n_));
    for (int i = 0; i < nc_; ++i) {
      WN_.col(i) = d.contacts[i].w_N;
      WT_.col(i) = d.contacts[i].w_T;
    }
    mode_.assign(nc_, ContactState::free);
    lamN_.setZero(nc_);
    lamT_.setZero(nc_);
    gap_.setZero(nc_);
    gamma_.setZero(nc_);
    a_.setZero(n_);
    rhs_.setZero(n_);
  }

  int dof() const { return n_; }
  int contacts() const { return nc_; }
  std::vector<ContactState>& mode() { return mode_; }
  long evaluations() const { return evaluations_; }
  const Eigen::VectorXd& lamN() const { return lamN_; }
  const Eigen::VectorXd& lamT() const { return lamT_; }
  const Eigen::VectorXd& gamma() const { return gamma_; }
  const Eigen::VectorXd& gap() const { return gap_; }

  // laws continuous through γ_T = 0 never stick
  bool smooth_law(int i) const { return friction_is_smooth(d_.contacts[i].law.kind); }
  bool spring(int i) const { return d_.contacts[i].kind == ContactKind::spring; }
  // a given_normal contact without load never touches
  bool loaded(int i) const { return spring(i) || d_.contacts[i].Fn > 0.0; }
  // the static bounds λ_T ∈ [−μ⁺(0)λ_N, μ⁻(0)λ_N] (friction_bounds at v = 0)
  double mu_plus0(int i) const {
    double p, m;
    friction_bounds(d_.contacts[i].law, 0.0, p, m);
    return p;
  }
  double mu_minus0(int i) const {
    double p, m;
    friction_bounds(d_.contacts[i].law, 0.0, p, m);
    return m;
  }

  // forces and acceleration of the current mode at (t, y)
  void evaluate(double t, const double* y) {
    ++evaluations_;
    const Eigen::Map<const Eigen::VectorXd> q(y, n_), u(y + n_, n_);
    rhs_.noalias() = d_.f0 - d_.C * u - d_.K * q;
    if (d_.omega != 0.0) {
      rhs_ += d_.f_sin * std::sin(d_.omega * t) + d_.f_cos * std::cos(d_.omega * t);
    } else {
      rhs_ += d_.f_cos;
    }
    stick_.clear();
    for (int i = 0; i < nc_; ++i) {
      const auto& c = d_.contacts[i];
      gap_(i) = WN_.col(i).dot(q) + c.gap0;
      gamma_(i) = WT_.col(i).dot(u) - c.v_surface;
      double lamN = 0.0, lamT = 0.0;
      if (mode_[i] != ContactState::free) lamN = spring(i) ? -c.k_c * gap_(i) : c.Fn;
      if (mode_[i] == ContactState::stick) {
        stick_.push_back(i);
      } else if (mode_[i] != ContactState::free) {
        // the sign comes from the mode, so that the force stays smooth up to the event
        if (smooth_law(i)) {
          lamT = -friction_coefficient(c.law, gamma_(i)) * lamN;
        } else if (mode_[i] == ContactState::slip_pos) {
          lamT = -sliding_magnitude(c.law, std::abs(gamma_(i))) * lamN;
        } else {
          lamT = sliding_magnitude(c.law, -std::abs(gamma_(i))) * lamN;
        }
      }
      lamN_(i) = lamN;
      lamT_(i) = lamT;
      rhs_ += WN_.col(i) * lamN + WT_.col(i) * lamT;
    }
    if (stick_.empty()) {
      a_.noalias() = Minv_ * rhs_;
      return;
    }
    // sticking contacts keep w_Tᵀ q̈ = 0; their forces solve the Schur complement system
    const int s = static_cast<int>(stick_.size());
    Eigen::MatrixXd WS(n_, s);
    for (int k = 0; k < s; ++k) WS.col(k) = WT_.col(stick_[k]);
    const Eigen::MatrixXd MinvWS = Minv_ * WS;
    const Eigen::VectorXd free_acc = Minv_ * rhs_;
    const Eigen::VectorXd lamS = (WS.transpose() * MinvWS).ldlt().solve(-WS.transpose() * free_acc);
    for (int k = 0; k < s; ++k) lamT_(stick_[k]) = lamS(k);
    a_ = free_acc + MinvWS * lamS;
  }

  void operator()(const OdeState& y, OdeState& dy, double t) {
    evaluate(t, y.data());
    for (int i = 0; i < n_; ++i) {
      dy[i] = y[n_ + i];
      dy[n_ + i] = a_(i);
    }
  }

  // the event functions of the current mode, in a fixed order
  std::vector<EventFunction> event_functions() const {
    std::vector<EventFunction> out;
    for (int i = 0; i < nc_; ++i) {
      if (spring(i)) out.push_back({i, mode_[i] == ContactState::free ? Watch::open_gap : Watch::closed_gap});
      if (mode_[i] == ContactState::free) continue;
      if (mode_[i] == ContactState::stick) {
        out.push_back({i, Watch::stick_upper});
        out.push_back({i, Watch::stick_lower});
      } else {
        out.push_back({i, Watch::slip_velocity});
      }
    }
    return out;
  }

  // their values at (t, y)
  void event_values(double t, const double* y, const std::vector<EventFunction>& fns, std::vector<double>& v) {
    evaluate(t, y);
    v.resize(fns.size());
    for (std::size_t k = 0; k < fns.size(); ++k) {
      const int i = fns[k].contact;
      switch (fns[k].watch) {
        case Watch::closed_gap:
          v[k] = -gap_(i);
          break;
        case Watch::open_gap:
          v[k] = gap_(i);
          break;
        case Watch::slip_velocity:
          v[k] = mode_[i] == ContactState::slip_pos ? gamma_(i) : -gamma_(i);
          break;
        case Watch::stick_upper:
          v[k] = mu_minus0(i) * lamN_(i) - lamT_(i);
          break;
        case Watch::stick_lower:
          v[k] = lamT_(i) + mu_plus0(i) * lamN_(i);
          break;
      }
    }
  }

  // the tangential mode of a touching contact from its slip velocity alone
  static ContactState slip_state(double gamma) { return gamma > 0 ? ContactState::slip_pos : ContactState::slip_neg; }

  // makes the modes consistent at (t, y): contacts marked `try_stick` stick when their holding
  // forces lie within the static bounds; the worst violator slips in the direction of its excess
  // and the rest are re-checked, until all hold
  void settle(double t, const double* y, const std::vector<bool>& try_stick) {
    for (int i = 0; i < nc_; ++i)
      if (try_stick[i] && mode_[i] != ContactState::free && !smooth_law(i)) mode_[i] = ContactState::stick;
    for (int round = 0; round <= nc_; ++round) {
      evaluate(t, y);
      int worst = -1;
      double worst_excess = 0.0;
      ContactState worst_to = ContactState::stick;
      for (int i = 0; i < nc_; ++i) {
        if (mode_[i] != ContactState::stick) continue;
        const double scale = std::max(std::abs(lamN_(i)), 1e-300);
        const double up = (lamT_(i) - mu_minus0(i) * lamN_(i)) / scale;
        const double lo = (-mu_plus0(i) * lamN_(i) - lamT_(i)) / scale;
        if (up > worst_excess) {
          worst = i;
          worst_excess = up;
          worst_to = ContactState::slip_neg;  // the belt cannot pull hard enough: falls behind
        }
        if (lo > worst_excess) {
          worst = i;
          worst_excess = lo;
          worst_to = ContactState::slip_pos;
        }
      }
      if (worst < 0) return;
      mode_[worst] = worst_to;
    }
  }

 private:
  const ModelDescription& d_;
  int n_, nc_;
  Eigen::MatrixXd Minv_, WN_, WT_;
  std::vector<ContactState> mode_;
  std::vector<int> stick_;
  Eigen::VectorXd lamN_, lamT_, gap_, gamma_, a_, rhs_;
  long evaluations_ = 0;
};

// the largest natural angular frequency of the model with its springs closed (the step cap)
double fastest_frequency(const ModelDescription& d) {
  Eigen::MatrixXd K = d.K;
  for (const auto& c : d.contacts)
    if (c.kind == ContactKind::spring) K += c.k_c * c.w_N * c.w_N.transpose();
  const Eigen::MatrixXd A = d.M.llt().solve(K);
  const Eigen::VectorXcd ev = A.eigenvalues();
  double w2 = 0.0;
  for (int i = 0; i < ev.size(); ++i) w2 = std::max(w2, std::abs(ev(i)));
  return std::max(std::sqrt(w2), d.omega);
}

}  // namespace

bool event_driven_supports(const ModelDescription& d, std::string* why) {
  for (int i = 0; i < d.n_contacts(); ++i) {
    if (d.contacts[i].dynamic) {
      if (why)
        *why = "contact " + std::to_string(i) +
               " has a dynamic friction law (internal state, no stick set): it runs with the smooth method";
      return false;
    }
    if (d.contacts[i].kind == ContactKind::rigid) {
      if (why)
        *why = "contact " + std::to_string(i) +
               " is rigid: the event-driven reference covers spring and given_normal contacts (no impacts)";
      return false;
    }
  }
  return true;
}

EventDrivenOutcome simulate_event_driven(const ModelDescription& d, const Eigen::VectorXd& q0,
                                         const Eigen::VectorXd& u0, double t0, double t_end, double sample_dt,
                                         const EventDrivenOptions& opt,
                                         const std::function<void(const ReferenceSample&)>& observe) {
  std::string why;
  if (!event_driven_supports(d, &why)) throw ModelError(why);
  if (!(sample_dt > 0.0) || !(t_end > t0))
    throw ModelError("event-driven reference: need sample_dt > 0 and t_end > t0");
  ModalSystem sys(d);
  const int n = sys.dof(), nc = sys.contacts();
  EventDrivenOutcome out;

  OdeState y(2 * n);
  for (int i = 0; i < n; ++i) {
    y[i] = q0(i);
    y[n + i] = u0(i);
  }

  // initial modes as the time steppers classify a state (events.hpp: by gap and by the sign of
  // γ_T, stick when γ_T = 0), then settled: a contact at rest whose holding force is out of
  // bounds breaks away at t0, logged as an event there
  auto& mode = sys.mode();
  auto log_changes = [&](const std::vector<ContactState>& before, double t_at, const OdeState& y_at) {
    for (int i = 0; i < nc; ++i) {
      if (mode[i] == before[i]) continue;
      Event e;
      e.t = t_at;
      e.contact = i;
      e.from = before[i];
      e.to = mode[i];
      e.kind = classify_transition(before[i], mode[i]);
      e.q.assign(y_at.begin(), y_at.begin() + n);
      out.events.push_back(std::move(e));
    }
  };
  {
    for (int i = 0; i < nc; ++i) mode[i] = sys.loaded(i) ? ContactState::slip_pos : ContactState::free;
    sys.evaluate(t0, y.data());
    std::vector<bool> try_stick(nc, false);
    for (int i = 0; i < nc; ++i) {
      if (!sys.loaded(i) || (sys.spring(i) && sys.gap()(i) > 0.0)) {
        mode[i] = ContactState::free;
        continue;
      }
      const double g = sys.gamma()(i);
      mode[i] = g == 0.0 && !sys.smooth_law(i) ? ContactState::stick : sys.slip_state(g);
      try_stick[i] = g == 0.0;
    }
    const std::vector<ContactState> kinematic = mode;
    sys.settle(t0, y.data(), try_stick);
    log_changes(kinematic, t0, y);
  }

  const double w_max = fastest_frequency(d);
  const double max_step = opt.max_step > 0 ? opt.max_step
                          : w_max > 0      ? 2.0 * M_PI / w_max / 40.0
                                           : (t_end - t0) / 100.0;
  auto stepper = odeint::make_dense_output(opt.abs_tol, opt.rel_tol, max_step, odeint::runge_kutta_dopri5<OdeState>());

  ReferenceSample sample;
  sample.contact.resize(nc);
  long next_sample = 0;
  const long last_sample = static_cast<long>(std::floor((t_end - t0) / sample_dt * (1 + 1e-12)));
  OdeState ys(2 * n);
  // samples up to t_upto, from the dense output of the current step (or the state itself)
  auto emit_until = [&](double t_upto, bool dense) {
    while (next_sample <= last_sample) {
      const double ts = t0 + static_cast<double>(next_sample) * sample_dt;
      if (ts > t_upto) break;
      if (dense) {
        stepper.calc_state(ts, ys);
      } else {
        ys = y;
      }
      sys.evaluate(ts, ys.data());
      sample.t = ts;
      sample.q = Eigen::Map<const Eigen::VectorXd>(ys.data(), n);
      sample.u = Eigen::Map<const Eigen::VectorXd>(ys.data() + n, n);
      sample.lamN = sys.lamN();
      sample.lamT = sys.lamT();
      for (int i = 0; i < nc; ++i) sample.contact[i] = mode[i];
      observe(sample);
      ++next_sample;
    }
  };

  double t = t0;
  double dt_guess = std::min(max_step, sample_dt);
  std::vector<EventFunction> fns;
  std::vector<double> phi_a, phi_b, phi_m;
  std::vector<bool> armed;
  auto restart = [&](bool arm_zeros) {
    stepper.initialize(y, t, dt_guess);
    fns = sys.event_functions();
    sys.event_values(t, y.data(), fns, phi_a);
    // a function that starts at zero (its contact just changed mode) waits until it is positive;
    // at the first start it is armed: a state on a boundary that leaves through it (a stick at its
    // breakaway force) changes mode at once instead of holding the mode for ever
    armed.assign(fns.size(), false);
    for (std::size_t k = 0; k < fns.size(); ++k) armed[k] = phi_a[k] > 0.0 || (arm_zeros && phi_a[k] == 0.0);
  };
  restart(true);
  emit_until(t, false);

  while (t < t_end) {
    const auto span = stepper.do_step(std::ref(sys));
    ++out.steps;
    const double ta = span.first, tb = span.second;
    dt_guess = stepper.current_time_step();
    const OdeState& yb = stepper.current_state();
    bool finite = true;
    for (double v : yb) finite = finite && std::isfinite(v);
    if (!finite) {
      out.status = Status::nonfinite;
      out.message = "the state became NaN or Inf";
      break;
    }
    sys.event_values(tb, yb.data(), fns, phi_b);
    // the earliest crossing among the armed functions, located by bisection on the dense output
    double t_event = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < fns.size(); ++k) {
      if (!armed[k] || !(phi_b[k] < 0.0)) continue;
      double lo = ta, hi = std::min(tb, t_event);
      // only a crossing before the earliest one found so far matters
      stepper.calc_state(hi, ys);
      sys.event_values(hi, ys.data(), fns, phi_m);
      if (!(phi_m[k] < 0.0)) continue;
      while (hi - lo > opt.event_tol) {
        const double mid = 0.5 * (lo + hi);
        stepper.calc_state(mid, ys);
        sys.event_values(mid, ys.data(), fns, phi_m);
        (phi_m[k] < 0.0 ? hi : lo) = mid;
      }
      t_event = hi;
    }
    for (std::size_t k = 0; k < fns.size(); ++k)
      if (!armed[k] && phi_b[k] > 0.0) armed[k] = true;

    if (!(t_event <= tb)) {
      emit_until(std::min(tb, t_end), true);
      t = tb;
      y = yb;
      continue;
    }
    if (t_event > t_end) {
      emit_until(t_end, true);
      t = t_end;
      break;
    }
    // the event: samples before it in the old mode, then the new modes
    emit_until(t_event, true);
    stepper.calc_state(t_event, y);
    t = t_event;
    sys.event_values(t, y.data(), fns, phi_m);
    const std::vector<ContactState> before = mode;
    std::vector<bool> try_stick(nc, false);
    auto at_rest = [&](int i) { return std::abs(sys.gamma()(i)) <= 1e-9 * (1.0 + std::abs(d.contacts[i].v_surface)); };
    for (std::size_t k = 0; k < fns.size(); ++k) {
      // the crossing function and every armed one at zero now fire (simultaneous events)
      if (!armed[k] || phi_m[k] > 1e3 * opt.abs_tol) continue;
      const int i = fns[k].contact;
      switch (fns[k].watch) {
        case Watch::closed_gap:
          mode[i] = ContactState::free;
          break;
        case Watch::open_gap:
          mode[i] = sys.slip_state(sys.gamma()(i));
          try_stick[i] = at_rest(i);
          break;
        case Watch::slip_velocity:
          if (sys.smooth_law(i)) {
            mode[i] = mode[i] == ContactState::slip_pos ? ContactState::slip_neg : ContactState::slip_pos;
          } else {
            try_stick[i] = true;
          }
          break;
        case Watch::stick_upper:
          mode[i] = ContactState::slip_neg;
          break;
        case Watch::stick_lower:
          mode[i] = ContactState::slip_pos;
          break;
      }
    }
    // sticks where the holding force allows it; otherwise slips the way the force points
    // (the old direction after a graze, the other one for a slip reversal)
    sys.settle(t, y.data(), try_stick);
    // a new stick starts with γ_T exactly zero
    for (int i = 0; i < nc; ++i) {
      if (mode[i] != ContactState::stick || before[i] == ContactState::stick) continue;
      const Eigen::VectorXd w = d.contacts[i].w_T;
      Eigen::Map<Eigen::VectorXd> u(y.data() + n, n);
      u -= w * ((w.dot(u) - d.contacts[i].v_surface) / w.squaredNorm());
    }
    log_changes(before, t, y);
    if (static_cast<long>(out.events.size()) > opt.max_events) {
      out.status = Status::too_many_events;
      out.message = "more than " + std::to_string(opt.max_events) + " events (chattering or Zeno behaviour)";
      break;
    }
    restart(false);
  }
  out.t_final = t;
  out.rhs_evaluations = sys.evaluations();
  return out;
}

}  // namespace fivsim
