// tests/lcp/lcp_build_test.cpp — the one-step contact LCP (seed 000 Eqs. 12, 14, 28) against its
// printed form and against hand-solved single steps of a block on a floor.
#include "fivsim/lcp/lcp_build.hpp"

#include <gtest/gtest.h>

#include "fivsim/integrate/moreau.hpp"
#include "fivsim/model/model_description.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

using D = Dims<double, 2, 2>;

TEST(LcpBuild, GivenNormalIsSeedEq28) {
  SliderBeltParams p;
  p.m = 2.0;
  p.k = 3.0;
  p.v0 = 0.5;
  p.Fn = 10.0;
  p.law.kind = FrictionLawKind::stribeck_rational;
  p.law.p[0] = 0.1;
  p.law.p[1] = 1.0;
  Model<D> m;
  make_model(make_slider_belt(p), m);
  State<D> s{};
  s.q.resize(1, 0.2);
  s.u.resize(1, 0.1);
  const double dt = 0.01;
  Vec<double, 2> u_free{};
  u_free.resize(1, s.u[0] + dt * (-3.0 * 0.2) / 2.0);
  ContactLcp<D> lcp;
  contact_lcp_coefficients(m, s, dt, lcp);
  Vec<double, 1> gap_rate{};
  moreau_gap_rates(m, s, u_free, dt, gap_rate);
  build_contact_lcp(m, delassus_response(m), gap_rate, u_free, dt, lcp);
  const double mu = 0.1 / (1.0 + std::abs(0.1 - 0.5));  // μ at the start-of-step γ_T
  const double Pk = 10.0 * dt;
  ASSERT_EQ(lcp.A.rows, 2);
  EXPECT_DOUBLE_EQ(lcp.A(0, 0), 0.5);  // G_TT = 1/m
  EXPECT_DOUBLE_EQ(lcp.A(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(lcp.A(1, 0), -1.0);
  EXPECT_DOUBLE_EQ(lcp.A(1, 1), 0.0);
  EXPECT_NEAR(lcp.b[0], -(u_free[0] - 0.5) - 0.5 * mu * Pk, 1e-15);
  EXPECT_NEAR(lcp.b[1], 2 * mu * Pk, 1e-15);
}

// block of mass m on a floor (q = [x, y], gap = y), gravity and a horizontal pull F
struct Floor {
  Model<D> m;
  State<D> s{};
  Floor(ContactKind kind, double F, double y0) {
    ModelDescription d;
    d.type = "linear_multibody";
    d.M = Eigen::Matrix2d::Identity() * 2.0;
    d.C = d.K = Eigen::Matrix2d::Zero();
    d.f0 = Eigen::Vector2d(F, -2.0 * 9.81);
    d.f_sin = d.f_cos = Eigen::Vector2d::Zero();
    ContactDescription c;
    c.kind = kind;
    c.k_c = 1e4;
    c.w_N = Eigen::Vector2d(0, 1);
    c.w_T = Eigen::Vector2d(1, 0);
    c.law.kind = FrictionLawKind::coulomb;
    c.law.p[0] = 0.5;
    d.contacts = {c};
    make_model(d, m);
    s.q.resize(2);
    s.u.resize(2);
    s.q[1] = y0;
  }
};

class LcpBuildFloor : public ::testing::TestWithParam<LcpSolverKind> {};

TEST_P(LcpBuildFloor, RigidStickHoldsThePull) {
  Floor f(ContactKind::rigid, 5.0, 0.0);  // 5 N < μ m g = 9.81 N
  StepOptions opt;
  opt.solver = GetParam();
  MoreauWorkspace<D> ws;
  ASSERT_EQ(moreau_step(f.m, f.s, 1e-3, opt, ws).status, Status::ok);
  EXPECT_NEAR(f.s.lamN[0], 2.0 * 9.81, 1e-9);
  EXPECT_NEAR(f.s.lamT[0], -5.0, 1e-9);
  EXPECT_NEAR(f.s.u[0], 0.0, 1e-12);
  EXPECT_NEAR(f.s.q[1], 0.0, 1e-15);
  EXPECT_EQ(f.s.contact[0], ContactState::stick);
}

TEST_P(LcpBuildFloor, RigidSlipAtTheCoulombLimit) {
  Floor f(ContactKind::rigid, 15.0, 0.0);  // 15 N > 9.81 N
  StepOptions opt;
  opt.solver = GetParam();
  MoreauWorkspace<D> ws;
  ASSERT_EQ(moreau_step(f.m, f.s, 1e-3, opt, ws).status, Status::ok);
  EXPECT_NEAR(f.s.lamT[0], -0.5 * 2.0 * 9.81, 1e-9);
  EXPECT_NEAR(f.s.u[0], 1e-3 * (15.0 - 9.81) / 2.0, 1e-12);
  EXPECT_EQ(f.s.contact[0], ContactState::slip_pos);
}

TEST_P(LcpBuildFloor, OpenGapIsFree) {
  Floor f(ContactKind::rigid, 15.0, 0.3);
  StepOptions opt;
  opt.solver = GetParam();
  MoreauWorkspace<D> ws;
  ASSERT_EQ(moreau_step(f.m, f.s, 1e-3, opt, ws).status, Status::ok);
  EXPECT_EQ(f.s.lamN[0], 0.0);
  EXPECT_EQ(f.s.lamT[0], 0.0);
  EXPECT_EQ(f.s.contact[0], ContactState::free);
  EXPECT_NEAR(f.s.u[1], -9.81e-3, 1e-15);
}

TEST_P(LcpBuildFloor, SpringContactForceIsStiffnessTimesPenetration) {
  Floor f(ContactKind::spring, 0.0, -1e-3);
  StepOptions opt;
  opt.solver = GetParam();
  MoreauWorkspace<D> ws;
  ASSERT_EQ(moreau_step(f.m, f.s, 1e-3, opt, ws).status, Status::ok);
  // Ω_N = λ_N + k_c g_N^E = 0 while in contact (seed 000 Eq. 14)
  EXPECT_GT(f.s.lamN[0], 0.0);
  EXPECT_NEAR(f.s.lamN[0], -1e4 * f.s.q[1], 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Solvers, LcpBuildFloor, ::testing::Values(LcpSolverKind::lemke, LcpSolverKind::enumerate),
                         [](const auto& info) { return std::string(lcp_solver_name(info.param)); });

}  // namespace
}  // namespace fivsim
