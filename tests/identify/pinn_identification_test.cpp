// tests/identify/pinn_identification_test.cpp — the friction torque by physics-informed networks
// (identify/pinn_identification.hpp, seed 002 §4.3 Eq. 23): the analytic gradient against central
// differences, thread-count invariance, and the torque of a closed-form motion recovered from
// its samples, with fixed and with trainable coefficients.
#include "fivsim/identify/pinn_identification.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>
#include <omp.h>

#include "fivsim/identify/record.hpp"

namespace fivsim {
namespace {

// φ1 = a sin(ω1 t), φ2 = b sin(ω2 t) + d cos(ω3 t + 0.3): both smooth, so Eq. 23's torque
// τ = J1 φ̈1 − J2 φ̈2 − c φ̇2 − k φ2 is known in closed form at every sample
struct ClosedForm {
  double a = 0.03, w1 = 0.6, b = 0.002, w2 = 1.3, d = 0.001, w3 = 0.4;
  double x(double t) const { return b * std::sin(w2 * t) + d * std::cos(w3 * t + 0.3); }
  double dx(double t) const { return b * w2 * std::cos(w2 * t) - d * w3 * std::sin(w3 * t + 0.3); }
  double ddx(double t) const { return -b * w2 * w2 * std::sin(w2 * t) - d * w3 * w3 * std::cos(w3 * t + 0.3); }
  double u(double t) const { return a * std::sin(w1 * t); }
  double ddu(double t) const { return -a * w1 * w1 * std::sin(w1 * t); }

  PinnIdentifyData data(long n, double t_end) const {
    PinnIdentifyData s;
    s.t = Eigen::VectorXd::LinSpaced(n, 0.0, t_end);
    s.x = s.t.unaryExpr([this](double t) { return x(t); });
    s.u = s.t.unaryExpr([this](double t) { return u(t); });
    s.ddu = s.t.unaryExpr([this](double t) { return ddu(t); });
    return s;
  }
  Eigen::VectorXd torque(const Eigen::VectorXd& t, double J1, double J2, double c, double k) const {
    return t.unaryExpr([&](double s) { return J1 * ddu(s) - J2 * ddx(s) - c * dx(s) - k * x(s); });
  }
};

PinnCoefficient fixed(double v) { return {v, v, v, false}; }
PinnCoefficient trained(double v, double lo, double hi) { return {v, lo, hi, true}; }

// the trainings of the closed-form tests: 2 × 20 tanh, 1000 Adam steps then 1500 L-BFGS iterations
PinnIdentifyOptions closed_form_training() {
  PinnIdentifyOptions o;
  o.hidden = {20, 20};
  o.train_every = 5;
  o.optimizer.kind = OptimizerKind::adam_lbfgs;
  o.optimizer.adam_iter = 1000;
  o.optimizer.learning_rate = 5e-3;
  o.optimizer.max_iter = 1500;
  return o;
}

TEST(PinnIdentification, GradientMatchesCentralDifferences) {
  const ClosedForm f;
  PinnIdentifyOptions o;
  o.hidden = {6, 5};
  o.train_every = 4;
  o.physics_weight = 0.7;
  o.J1 = trained(1e-3, 5e-4, 2e-3);
  o.J2 = trained(2e-4, 1e-4, 4e-4);
  o.c = trained(0.1, 0.0, 0.3);
  o.k = trained(0.5, 0.2, 1.0);
  const PinnIdentifyProblem problem(f.data(81, 8.0), o);
  Eigen::VectorXd p = problem.initial_parameters();
  // away from the initial point, so that no term of the gradient is trivially zero
  for (long i = 0; i < p.size(); ++i) p(i) += 0.05 * std::sin(1.7 * static_cast<double>(i) + 0.2);
  Eigen::VectorXd g(p.size());
  problem.loss(p.data(), g.data());
  const double eps = 1e-6;
  double worst = 0.0;
  for (long i = 0; i < p.size(); ++i) {
    Eigen::VectorXd a = p, b = p;
    a(i) += eps;
    b(i) -= eps;
    const double fd = (problem.loss(a.data(), nullptr) - problem.loss(b.data(), nullptr)) / (2.0 * eps);
    worst = std::max(worst, std::abs(fd - g(i)) / std::max(1.0, std::abs(fd)));
  }
  // central differences are accurate to O(eps²·f''') + rounding 1e-16/eps
  EXPECT_LT(worst, 1e-7);
}

TEST(PinnIdentification, LossAndGradientDoNotDependOnTheThreadCount) {
  const ClosedForm f;
  PinnIdentifyOptions o;
  o.hidden = {8, 8};
  o.train_every = 1;
  o.J2 = trained(2e-4, 1e-4, 4e-4);
  o.J1 = fixed(1e-3);
  // 301 training samples: ten gradient blocks
  const PinnIdentifyProblem problem(f.data(301, 10.0), o);
  const Eigen::VectorXd p = problem.initial_parameters();
  Eigen::VectorXd g1(p.size()), g2(p.size());
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double l1 = problem.loss(p.data(), g1.data());
  omp_set_num_threads(2);
  const double l2 = problem.loss(p.data(), g2.data());
  omp_set_num_threads(threads);
  EXPECT_EQ(l1, l2);
  EXPECT_EQ((g1 - g2).cwiseAbs().maxCoeff(), 0.0);
}

TEST(PinnIdentification, RecoversTheTorqueOfAClosedFormMotion) {
  const ClosedForm f;
  PinnIdentifyOptions o = closed_form_training();
  o.J1 = fixed(1e-3);
  o.J2 = fixed(2e-4);
  const PinnIdentifyData data = f.data(501, 10.0);
  const PinnIdentifyResult r = pinn_identify(data, o);
  const Eigen::VectorXd truth = f.torque(data.t, 1e-3, 2e-4, 0.0, 0.0);
  // the networks are tested on every sample (trained on every fifth); the torque away from the
  // two end samples, where the difference stencil of the balance leaves N2 unconstrained
  const long n = data.t.size(), edge = o.train_every;
  const Eigen::VectorXd err = (r.tau - truth).segment(edge, n - 2 * edge);
  const double rel = root_mean_square(err) / root_mean_square(truth);
  std::printf("closed form: loss %.3e, x rmse %.3e (of %.3e), torque error %.3e relative, %d iterations, %.2f s\n",
              r.loss, r.rmse, root_mean_square(data.x), rel, r.iterations, r.wall_s);
  EXPECT_LT(r.rmse, 1e-3 * root_mean_square(data.x));
  EXPECT_LT(rel, 0.01);
}

TEST(PinnIdentification, TrainableCoefficientsStayInTheirBoundsAndCloseTheBalance) {
  // Eq. 23 with the disk's stiffness and damping: τ_f is what remains of the balance for the
  // coefficients as trained, which stay inside their bounds
  const ClosedForm f;
  PinnIdentifyOptions o = closed_form_training();
  o.J1 = fixed(1e-3);
  o.J2 = trained(2.1e-4, 1.9e-4, 2.3e-4);
  o.c = fixed(0.02);
  o.k = trained(0.07, 0.05, 0.09);
  const PinnIdentifyData data = f.data(501, 10.0);
  const PinnIdentifyResult r = pinn_identify(data, o);
  EXPECT_GE(r.J2, 1.9e-4);
  EXPECT_LE(r.J2, 2.3e-4);
  EXPECT_GE(r.k, 0.05);
  EXPECT_LE(r.k, 0.09);
  EXPECT_EQ(r.J1, 1e-3);
  EXPECT_EQ(r.c, 0.02);
  const Eigen::VectorXd truth = f.torque(data.t, r.J1, r.J2, r.c, r.k);
  const long n = data.t.size(), edge = o.train_every;
  const double rel = root_mean_square((r.tau - truth).segment(edge, n - 2 * edge)) / root_mean_square(truth);
  std::printf("trainable: J2 %.4e, k %.4e, torque error %.3e relative\n", r.J2, r.k, rel);
  EXPECT_LT(rel, 0.01);
}

TEST(PinnIdentification, RefusesTooFewSamplesAndMismatchedColumns) {
  const ClosedForm f;
  PinnIdentifyOptions o;
  o.train_every = 5;
  EXPECT_THROW(PinnIdentifyProblem(f.data(20, 1.0), o), std::invalid_argument);
  PinnIdentifyData d = f.data(100, 1.0);
  d.ddu.conservativeResize(99);
  EXPECT_THROW(PinnIdentifyProblem(d, o), std::invalid_argument);
  o.J2 = trained(1.0, 2.0, 2.0);
  EXPECT_THROW(PinnIdentifyProblem(f.data(100, 1.0), o), std::invalid_argument);
}

}  // namespace
}  // namespace fivsim
