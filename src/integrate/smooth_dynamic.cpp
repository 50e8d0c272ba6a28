// src/integrate/smooth_dynamic.cpp — the `smooth` method (integrate/smooth_dynamic.hpp).
#include "fivsim/integrate/smooth_dynamic.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/numeric/odeint.hpp>

namespace fivsim {
namespace {

namespace odeint = boost::numeric::odeint;
using Vector = boost::numeric::ublas::vector<double>;
using Matrix = boost::numeric::ublas::matrix<double>;

// the ODE in x = [q, u, z_0.., z_1.., …] with each contact's internal states in turn
class SmoothSystem {
 public:
  explicit SmoothSystem(const ModelDescription& d) : d_(d), n_(d.dof()), nc_(d.n_contacts()) {
    Minv_ = d.M.llt().solve(Eigen::MatrixXd::Identity(n_, n_));
    offset_.assign(nc_ + 1, 2 * n_);
    for (int i = 0; i < nc_; ++i)
      offset_[i + 1] = offset_[i] + (d.contacts[i].dynamic ? dynamic_friction_states(d.contacts[i].dynamic_law) : 0);
    state_.assign(nc_, DynamicFrictionState{});
  }

  int size() const { return offset_[nc_]; }
  long evaluations() const { return evaluations_; }

  double slip_velocity(const Vector& x, int i) const {
    double g = -d_.contacts[i].v_surface;
    for (int k = 0; k < n_; ++k) g += d_.contacts[i].w_T(k) * x(n_ + k);
    return g;
  }

  // λ_T of contact i and, for a dynamic law, ż into zdot (the contact's mode flags from state_)
  double friction(const Vector& x, int i, double* zdot) const {
    const ContactDescription& c = d_.contacts[i];
    const double g = slip_velocity(x, i);
    if (!c.dynamic) return -c.Fn * friction_coefficient(c.law, g);
    DynamicFrictionState s = state_[i];
    for (int k = 0; k < offset_[i + 1] - offset_[i]; ++k) s.z[k] = x(offset_[i] + k);
    dynamic_friction_rates(c.dynamic_law, s, g, zdot);
    return -c.Fn * dynamic_friction_force(c.dynamic_law, s, g, zdot);
  }

  void operator()(const Vector& x, Vector& dxdt, double t) {
    ++evaluations_;
    Eigen::VectorXd force = d_.f0 + d_.f_sin * std::sin(d_.omega * t) + d_.f_cos * std::cos(d_.omega * t);
    for (int k = 0; k < n_; ++k) {
      double cu = 0.0, kq = 0.0;
      for (int j = 0; j < n_; ++j) {
        cu += d_.C(k, j) * x(n_ + j);
        kq += d_.K(k, j) * x(j);
      }
      force(k) -= cu + kq;
    }
    for (int i = 0; i < nc_; ++i) {
      double zdot[kGmsMaxElements] = {};
      const double lamT = friction(x, i, zdot);
      force += d_.contacts[i].w_N * d_.contacts[i].Fn + d_.contacts[i].w_T * lamT;
      for (int k = 0; k < offset_[i + 1] - offset_[i]; ++k) dxdt(offset_[i] + k) = zdot[k];
    }
    const Eigen::VectorXd a = Minv_ * force;
    for (int k = 0; k < n_; ++k) {
      dxdt(k) = x(n_ + k);
      dxdt(n_ + k) = a(k);
    }
  }

  // forward-difference Jacobian and ∂f/∂t (the system is small; Rosenbrock 4 needs both)
  void jacobian(const Vector& x, Matrix& J, double t, Vector& dfdt) {
    const std::size_t m = x.size();
    Vector f0(m), f1(m), xp = x;
    (*this)(x, f0, t);
    for (std::size_t j = 0; j < m; ++j) {
      const double h = 1e-7 * std::max(std::abs(x(j)), 1e-6);
      xp(j) = x(j) + h;
      (*this)(xp, f1, t);
      for (std::size_t i = 0; i < m; ++i) J(i, j) = (f1(i) - f0(i)) / h;
      xp(j) = x(j);
    }
    const double ht = 1e-7 * std::max(std::abs(t), 1.0);
    (*this)(x, f1, t + ht);
    for (std::size_t i = 0; i < m; ++i) dfdt(i) = (f1(i) - f0(i)) / ht;
  }

  // GMS mode switches at the end of an accepted step; true when a mode (or a clamped z) changed
  bool update_modes(Vector& x) {
    bool changed = false;
    for (int i = 0; i < nc_; ++i) {
      const ContactDescription& c = d_.contacts[i];
      if (!c.dynamic || c.dynamic_law.kind != DynamicLawKind::gms) continue;
      DynamicFrictionState& s = state_[i];
      const DynamicFrictionState before = s;
      const int m = offset_[i + 1] - offset_[i];
      for (int k = 0; k < m; ++k) s.z[k] = x(offset_[i] + k);
      gms_update_modes(c.dynamic_law, s, slip_velocity(x, i));
      for (int k = 0; k < m; ++k) {
        changed = changed || s.slipping[k] != before.slipping[k] || s.z[k] != x(offset_[i] + k);
        x(offset_[i] + k) = s.z[k];
      }
    }
    return changed;
  }

  ReferenceSample sample(const Vector& x, double t, double stick_tol) const {
    ReferenceSample s;
    s.t = t;
    s.q.resize(n_);
    s.u.resize(n_);
    for (int k = 0; k < n_; ++k) {
      s.q(k) = x(k);
      s.u(k) = x(n_ + k);
    }
    s.lamN.resize(nc_);
    s.lamT.resize(nc_);
    s.contact.resize(nc_);
    for (int i = 0; i < nc_; ++i) {
      double zdot[kGmsMaxElements] = {};
      s.lamN(i) = d_.contacts[i].Fn;
      s.lamT(i) = friction(x, i, zdot);
      const double g = slip_velocity(x, i);
      s.contact[i] = g > stick_tol    ? ContactState::slip_pos
                     : g < -stick_tol ? ContactState::slip_neg
                                      : ContactState::stick;
    }
    return s;
  }

 private:
  const ModelDescription& d_;
  int n_, nc_;
  Eigen::MatrixXd Minv_;
  std::vector<int> offset_;
  std::vector<DynamicFrictionState> state_;
  long evaluations_ = 0;
};

}  // namespace

bool smooth_supports(const ModelDescription& d, std::string* why) {
  for (int i = 0; i < d.n_contacts(); ++i) {
    const ContactDescription& c = d.contacts[i];
    std::string reason;
    if (c.kind != ContactKind::given_normal)
      reason = "the smooth method handles contacts with a given normal force only (contact " + std::to_string(i) + ")";
    else if (!c.dynamic && !friction_is_smooth(c.law.kind))
      reason = std::string(
                   "the smooth method integrates smooth friction laws only (dahl, lugre, gms, coulomb_tanh, "
                   "asymmetric); '") +
               kFrictionLawInfo[static_cast<int>(c.law.kind)].name +
               "' is set-valued at zero slip and needs an LCP method or switching";
    if (!reason.empty()) {
      if (why) *why = reason;
      return false;
    }
  }
  return true;
}

SmoothOutcome simulate_smooth(const ModelDescription& d, const Eigen::VectorXd& q0, const Eigen::VectorXd& u0,
                              double t_end, double sample_dt, double stick_tol, const SmoothOptions& options,
                              const std::function<void(const ReferenceSample&)>& observe) {
  std::string why;
  if (!smooth_supports(d, &why)) throw ModelError(why);
  SmoothSystem sys(d);
  const int n = d.dof();
  Vector x(sys.size());
  for (int k = 0; k < sys.size(); ++k) x(k) = 0.0;
  for (int k = 0; k < n; ++k) {
    x(k) = q0(k);
    x(n + k) = u0(k);
  }
  SmoothOutcome out;
  const double max_step = options.max_step > 0.0 ? options.max_step : sample_dt;
  using Controller = odeint::rosenbrock4_controller<odeint::rosenbrock4<double>>;
  odeint::rosenbrock4_dense_output<Controller> stepper(Controller(options.abs_tol, options.rel_tol, max_step));
  auto system =
      std::make_pair([&](const Vector& s, Vector& ds, double t) { sys(s, ds, t); },
                     [&](const Vector& s, Matrix& J, double t, Vector& dfdt) { sys.jacobian(s, J, t, dfdt); });
  sys.update_modes(x);
  stepper.initialize(x, 0.0, std::min(max_step, 1e-6));
  const long samples = static_cast<long>(std::llround(t_end / sample_dt));
  Vector xs(sys.size());
  observe(sys.sample(x, 0.0, stick_tol));
  long next = 1;  // the next output sample
  while (next <= samples) {
    stepper.do_step(system);
    ++out.steps;
    const double t_now = stepper.current_time();
    for (; next <= samples && static_cast<double>(next) * sample_dt <= t_now; ++next) {
      const double ts = static_cast<double>(next) * sample_dt;
      stepper.calc_state(ts, xs);
      observe(sys.sample(xs, ts, stick_tol));
    }
    Vector xc = stepper.current_state();
    bool finite = true;
    for (std::size_t k = 0; k < xc.size(); ++k) finite = finite && std::isfinite(xc(k));
    if (!finite) {
      out.status = Status::nonfinite;
      out.message = "the state became NaN or Inf";
      out.t_final = t_now;
      break;
    }
    if (sys.update_modes(xc)) stepper.initialize(xc, t_now, stepper.current_time_step());
    out.t_final = t_now;
  }
  out.rhs_evaluations = sys.evaluations();
  return out;
}

}  // namespace fivsim
