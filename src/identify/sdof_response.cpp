// src/identify/sdof_response.cpp — response of an identified single-DoF equation with stick and
// slip events (identify/sdof_response.hpp; seed 003 Eqs. 13–14, 21–22).
#include "fivsim/identify/sdof_response.hpp"

#include <cmath>
#include <limits>

namespace fivsim {
namespace {

class IdentifiedSystem {
 public:
  IdentifiedSystem(const IdentifiedSdof& eq, const Record& r) : eq_(eq), r_(r) {
    for (std::size_t j = 0; j < eq.terms.size(); ++j)
      if (eq.terms[j].name == "sgn(x2)") sgn_ = static_cast<int>(j);
    friction_ = sgn_ >= 0 ? -eq.xi(sgn_, 1) : 0.0;
    dt_ = r.sample_dt();
  }

  // stick logic applies when the equation has a dissipative sgn(x2) term
  bool sticks() const { return sgn_ >= 0 && friction_ > 0.0; }
  double friction() const { return friction_; }

  // u and u̇ at t: cubic Hermite on the samples (zero without input)
  void input(double t, double& u, double& du) const {
    u = du = 0.0;
    if (!r_.has_input()) return;
    const long n = r_.size();
    const double s = (t - r_.t(0)) / dt_;
    const long i = std::min(std::max<long>(0, static_cast<long>(std::floor(s))), n - 2);
    const double h = s - static_cast<double>(i);
    const double u0 = r_.u(i), u1 = r_.u(i + 1), m0 = r_.du(i) * dt_, m1 = r_.du(i + 1) * dt_;
    const double h2 = h * h, h3 = h2 * h;
    u = (2 * h3 - 3 * h2 + 1) * u0 + (h3 - 2 * h2 + h) * m0 + (-2 * h3 + 3 * h2) * u1 + (h3 - h2) * m1;
    du = ((6 * h2 - 6 * h) * u0 + (3 * h2 - 4 * h + 1) * m0 + (-6 * h2 + 6 * h) * u1 + (3 * h2 - 2 * h) * m1) / dt_;
  }

  // ẋ with the sgn(x2) term taken as `dir` (the held slip direction; 0 leaves it out)
  void rhs(double t, double x1, double x2, double dir, double& d1, double& d2) const {
    double u, du;
    input(t, u, du);
    const double x[kSindyVars] = {x1, x2, u, du, relative_velocity(x2, eq_.belt)};
    d1 = d2 = 0.0;
    if (eq_.known) eq_.known(t, x1, x2, d1, d2);
    for (std::size_t j = 0; j < eq_.terms.size(); ++j) {
      const double theta = static_cast<int>(j) == sgn_ && sticks() ? dir : evaluate_term(eq_.terms[j], x);
      d1 += eq_.xi(j, 0) * theta;
      d2 += eq_.xi(j, 1) * theta;
    }
  }

  // the force per unit mass on a stopped mass without friction (Eqs. 13–14)
  double free_force(double t, double x1) const {
    double d1, d2;
    rhs(t, x1, 0.0, 0.0, d1, d2);
    return d2;
  }

  void rk4(double t, double h, double dir, double& x1, double& x2) const {
    double a1, a2, b1, b2, c1, c2, e1, e2;
    rhs(t, x1, x2, dir, a1, a2);
    rhs(t + h / 2, x1 + h / 2 * a1, x2 + h / 2 * a2, dir, b1, b2);
    rhs(t + h / 2, x1 + h / 2 * b1, x2 + h / 2 * b2, dir, c1, c2);
    rhs(t + h, x1 + h * c1, x2 + h * c2, dir, e1, e2);
    x1 += h / 6 * (a1 + 2 * b1 + 2 * c1 + e1);
    x2 += h / 6 * (a2 + 2 * b2 + 2 * c2 + e2);
  }

 private:
  const IdentifiedSdof& eq_;
  const Record& r_;
  int sgn_ = -1;
  double friction_ = 0.0;
  double dt_ = 0.0;
};

int sign_of(double a) { return a > 0.0 ? 1 : (a < 0.0 ? -1 : 0); }

}  // namespace

SdofResponse simulate_identified(const IdentifiedSdof& eq, const Record& record, int substeps) {
  const IdentifiedSystem sys(eq, record);
  const long n = record.size();
  SdofResponse out;
  out.x = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  double x1 = record.x(0), x2 = record.v(0), t = record.t(0);
  const double F = sys.friction();
  // the mode: +1 / −1 slipping in that direction, 0 stuck
  int dir = sign_of(x2);
  if (sys.sticks() && dir == 0) {
    const double a0 = sys.free_force(t, x1);
    dir = std::abs(a0) > F ? sign_of(a0) : 0;
  }
  out.x(0) = x1;
  for (long i = 1; i < n; ++i) {
    for (int s = 0; s < substeps; ++s) {
      const double t_end =
          record.t(0) + (static_cast<double>(i - 1) + static_cast<double>(s + 1) / substeps) * record.sample_dt();
      // events inside one substep are bounded; each one is located by bisection
      for (int guard = 0; guard < 16 && t < t_end; ++guard) {
        if (!sys.sticks()) {
          sys.rk4(t, t_end - t, 0.0, x1, x2);
          t = t_end;
          break;
        }
        if (dir == 0) {
          // stuck: break away where |a0| first exceeds F̂ (Eq. 14)
          if (std::abs(sys.free_force(t_end, x1)) <= F) {
            t = t_end;
            break;
          }
          double lo = t, hi = t_end;
          for (int b = 0; b < 60 && hi - lo > 1e-14 * std::max(1.0, std::abs(hi)); ++b) {
            const double mid = 0.5 * (lo + hi);
            (std::abs(sys.free_force(mid, x1)) > F ? hi : lo) = mid;
          }
          t = hi;
          dir = sign_of(sys.free_force(t, x1));
          continue;
        }
        double y1 = x1, y2 = x2;
        sys.rk4(t, t_end - t, dir, y1, y2);
        if (sign_of(y2) != -dir) {
          x1 = y1, x2 = y2, t = t_end;
          break;
        }
        // x2 crosses zero inside the step: the step length that lands on it
        double lo = 0.0, hi = t_end - t;
        for (int b = 0; b < 60 && hi - lo > 1e-15; ++b) {
          const double mid = 0.5 * (lo + hi);
          double z1 = x1, z2 = x2;
          sys.rk4(t, mid, dir, z1, z2);
          (sign_of(z2) == -dir ? hi : lo) = mid;
        }
        sys.rk4(t, lo, dir, x1, x2);
        t += lo;
        x2 = 0.0;
        // stop when the friction can hold the mass (Eq. 13), else slip the other way
        const double a0 = sys.free_force(t, x1);
        dir = std::abs(a0) <= F ? 0 : sign_of(a0);
      }
    }
    if (!std::isfinite(x1) || !std::isfinite(x2) || std::abs(x1) > 1e100) {
      out.finite = false;
      out.rmse = std::numeric_limits<double>::infinity();
      return out;
    }
    out.x(i) = x1;
  }
  out.rmse = std::sqrt((out.x - record.x).squaredNorm() / static_cast<double>(n));
  return out;
}

}  // namespace fivsim
