// tests/integrate/rk_step_map_test.cpp — the Runge–Kutta one-step maps against closed forms: Φ of Gauss
// stages against the matrix exponential, the held and ramped force responses and the harmonic
// forcing against the exact solutions of an oscillator, and the measured orders of RK4 and of
// Gauss–Legendre with 1 and 2 stages.
#include "fivsim/integrate/rk_step_map.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <unsupported/Eigen/MatrixFunctions>

namespace fivsim {
namespace {

Eigen::MatrixXd mat1(double v) { return Eigen::MatrixXd::Constant(1, 1, v); }
Eigen::VectorXd vec1(double v) { return Eigen::VectorXd::Constant(1, v); }

// a damped 2-DoF chain, written out: y' = L y
struct TwoDof {
  Eigen::MatrixXd M{{2.0, 0.0}, {0.0, 1.0}};
  Eigen::MatrixXd C{{0.3, -0.1}, {-0.1, 0.1}};
  Eigen::MatrixXd K{{30.0, -10.0}, {-10.0, 10.0}};
  Eigen::MatrixXd L() const {
    Eigen::MatrixXd l = Eigen::MatrixXd::Zero(4, 4);
    l.topRightCorner(2, 2).setIdentity();
    l.bottomLeftCorner(2, 2) = -M.inverse() * K;
    l.bottomRightCorner(2, 2) = -M.inverse() * C;
    return l;
  }
};

TEST(RkStepMap, GaussPhiIsTheMatrixExponential) {
  const TwoDof sys;
  const Eigen::VectorXd z = Eigen::VectorXd::Zero(2);
  const double dt = 0.1;
  const Eigen::MatrixXd exact = (sys.L() * dt).exp();
  // [q/q] Padé of exp: error ~ (dt·|λ|)^(2q+1) / (2q)!² — below rounding from q = 6 on
  for (int q : {6, 10, 40, 100}) {
    const RkLinearMaps maps = rk_linear_maps(sys.M, sys.C, sys.K, z, z, z, 0.0, gauss_legendre(q), dt);
    EXPECT_LE((maps.Phi - exact).cwiseAbs().maxCoeff(), 1e-13) << "q=" << q;
  }
}

// m x'' + k x = F from rest: x(dt) = F/k (1 − cos ω dt), v(dt) = F/(m ω) sin ω dt
TEST(RkStepMap, HeldForceResponseIsExact) {
  const double m = 2.0, k = 50.0, w = std::sqrt(k / m), dt = 0.05;
  const RkLinearMaps maps =
      rk_linear_maps(mat1(m), mat1(0), mat1(k), vec1(0), vec1(0), vec1(0), 0.0, gauss_legendre(8), dt);
  EXPECT_NEAR(maps.R_held(0, 0), (1 - std::cos(w * dt)) / k, 1e-16);
  EXPECT_NEAR(maps.R_held(1, 0), std::sin(w * dt) / (m * w), 1e-15);
}

// m x'' + k x = F t/dt from rest: x(dt) = F/(k dt) (dt − sin(ω dt)/ω), v(dt) = F/(k dt)(1 − cos ω dt)
TEST(RkStepMap, RampedForceResponseIsExact) {
  const double m = 2.0, k = 50.0, w = std::sqrt(k / m), dt = 0.05;
  const RkLinearMaps maps =
      rk_linear_maps(mat1(m), mat1(0), mat1(k), vec1(0), vec1(0), vec1(0), 0.0, gauss_legendre(8), dt);
  EXPECT_NEAR(maps.R_ramp(0, 0), (dt - std::sin(w * dt) / w) / (k * dt), 1e-16);
  EXPECT_NEAR(maps.R_ramp(1, 0), (1 - std::cos(w * dt)) / (k * dt), 1e-15);
}

// m x'' + k x = F sin Ωt from rest: x = F/(k − mΩ²) (sin Ωt − (Ω/ω) sin ωt)
TEST(RkStepMap, HarmonicForcingOverManySteps) {
  const double m = 1.0, k = 4.0, w = 2.0, F = 0.7, Om = 3.1, dt = 0.05;
  const RkLinearMaps maps =
      rk_linear_maps(mat1(m), mat1(0), mat1(k), vec1(0), vec1(F), vec1(0), Om, gauss_legendre(6), dt);
  Eigen::Vector2d y(0.0, 0.0);
  double t = 0.0;
  for (int i = 0; i < 200; ++i) {
    y = maps.Phi * y + maps.P0 + std::sin(Om * t) * maps.Ps + std::cos(Om * t) * maps.Pc;
    t = (i + 1) * dt;
  }
  const double amp = F / (k - m * Om * Om);
  EXPECT_NEAR(y(0), amp * (std::sin(Om * t) - Om / w * std::sin(w * t)), 1e-12);
  EXPECT_NEAR(y(1), amp * Om * (std::cos(Om * t) - std::cos(w * t)), 1e-12);
}

// error of x(T) for the free oscillator x'' + 4x = 0, x(0) = 1, at step sizes h, h/2
double free_error(const ButcherTableau& tab, double dt) {
  const RkLinearMaps maps = rk_linear_maps(mat1(1), mat1(0), mat1(4), vec1(0), vec1(0), vec1(0), 0.0, tab, dt);
  const int steps = static_cast<int>(std::lround(2.0 / dt));
  Eigen::Vector2d y(1.0, 0.0);
  for (int i = 0; i < steps; ++i) y = maps.Phi * y;
  return std::abs(y(0) - std::cos(4.0));
}

TEST(RkStepMap, MeasuredOrders) {
  struct Case {
    ButcherTableau tab;
    double dt, order;
  };
  for (const Case& c : {Case{classical_rk4(), 0.02, 4.0}, Case{gauss_legendre(1), 0.01, 2.0},
                        Case{gauss_legendre(2), 0.02, 4.0}, Case{gauss_legendre(3), 0.1, 6.0}}) {
    const double e1 = free_error(c.tab, c.dt), e2 = free_error(c.tab, c.dt / 2);
    EXPECT_NEAR(std::log2(e1 / e2), c.order, 0.1) << c.tab.name << " errors " << e1 << ", " << e2;
  }
}

}  // namespace
}  // namespace fivsim
