// tests/model/presets_test.cpp — the preset matrices and contacts (docs/DESIGN.md §4 table) and the
// compilation into the step-path model (M⁻¹, Delassus blocks, capacity checks).
#include "fivsim/model/presets.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fivsim {
namespace {

TEST(Presets, SliderChainIsATridiagonalChain) {
  SliderChainParams p;
  p.m = {1, 2, 3};
  p.k = {10, 20, 30};
  p.c = {0.1, 0.2, 0.3};
  p.Fn = {5, 6, 7};
  p.v0 = 0.4;
  const ModelDescription d = make_slider_chain(p);
  Eigen::Matrix3d K;
  K << 30, -20, 0, -20, 50, -30, 0, -30, 30;
  EXPECT_TRUE(d.K.isApprox(K));
  EXPECT_NEAR(d.C(1, 1), 0.5, 1e-15);
  EXPECT_NEAR(d.C(0, 1), -0.2, 1e-15);
  ASSERT_EQ(d.n_contacts(), 3);
  EXPECT_EQ(d.lcp_size(), 6);  // given normal forces: Λ_L and γ_R per slider (seed 000 Eq. 28)
  EXPECT_DOUBLE_EQ(d.contacts[2].Fn, 7.0);
  EXPECT_DOUBLE_EQ(d.contacts[2].w_T(2), 1.0);
  EXPECT_DOUBLE_EQ(d.contacts[1].v_surface, 0.4);
}

TEST(Presets, ModeCouplingMatchesDocumentedConvention) {
  ModeCouplingParams p;
  p.m = 5;
  p.k1 = 1000;
  p.k3 = 600;
  p.kc = 500;
  p.Fp = 200;
  p.v0 = 1;
  const ModelDescription d = make_mode_coupling_2dof(p);
  Eigen::Matrix2d K;
  K << 1300, -300, -300, 300;
  EXPECT_TRUE(d.K.isApprox(K));
  EXPECT_DOUBLE_EQ(d.f0(1), -200.0);  // preload toward the belt (−y)
  ASSERT_EQ(d.n_contacts(), 1);
  EXPECT_EQ(d.contacts[0].kind, ContactKind::spring);
  EXPECT_EQ(d.lcp_size(), 3);  // Λ_N, Λ_L, γ_R (seed 000 Eq. 14)
  // sliding with the slider slower than the belt: λ_T = +μ k_c (−y) adds μ k_c to K_xy; with
  // this convention the linearised sliding system flutters (complex eigenvalues) above μ_c
  auto flutter = [&](double mu) {
    Eigen::Matrix2d Ks = K;
    Ks(0, 1) += mu * p.kc;
    Ks(1, 1) += p.kc;
    Eigen::EigenSolver<Eigen::Matrix2d> es(Ks / p.m);
    return std::abs(es.eigenvalues()(0).imag()) > 1e-9;
  };
  EXPECT_FALSE(flutter(0.4));  // seed 000 Example 1
  EXPECT_TRUE(flutter(1.2));   // seed 000 Example 2
}

TEST(Presets, BaseExcitationForce) {
  BaseExcitedParams p;
  p.m = 1;
  p.k = 358.706;
  p.c = 0.0658;
  p.A = 0.0015;
  p.f_hz = 0.95;
  p.Fn = 0.0856;
  const ModelDescription d = make_base_excited_sdof(p);
  Model<HostDims> m;
  make_model(d, m);
  // f(t) = k A sin ωt + c A ω cos ωt (seed 003 Eq. 11)
  const double w = 2 * M_PI * 0.95, t = 0.37;
  Vec<double, kHostMaxDof> f;
  external_force(m, t, f);
  EXPECT_NEAR(f[0], 358.706 * 0.0015 * std::sin(w * t) + 0.0658 * 0.0015 * w * std::cos(w * t), 1e-14);
}

TEST(Presets, MakeModelFormsDelassusBlocks) {
  ModelDescription d;
  d.type = "linear_multibody";
  d.M = Eigen::Matrix2d{{2, 0.5}, {0.5, 1}};
  d.C = d.K = Eigen::Matrix2d::Zero();
  d.f0 = d.f_sin = d.f_cos = Eigen::Vector2d::Zero();
  ContactDescription c;
  c.kind = ContactKind::rigid;
  c.w_N = Eigen::Vector2d(0, 1);
  c.w_T = Eigen::Vector2d(1, 1);
  d.contacts = {c};
  Model<HostDims> m;
  make_model(d, m);
  const Eigen::Matrix2d Minv = d.M.inverse();
  EXPECT_NEAR(m.GNN(0, 0), c.w_N.dot(Minv * c.w_N), 1e-15);
  EXPECT_NEAR(m.GNT(0, 0), c.w_N.dot(Minv * c.w_T), 1e-15);
  EXPECT_NEAR(m.GTT(0, 0), c.w_T.dot(Minv * c.w_T), 1e-15);
  EXPECT_EQ(m.normal_slot[0], 0);
  EXPECT_EQ(m.n_normal, 1);
}

TEST(Presets, MakeModelRejectsWhatDoesNotFit) {
  SliderChainParams p;
  p.m = p.k = p.c = p.Fn = std::vector<double>(3, 1.0);
  Model<Dims<double, 2, 2>> small;
  EXPECT_THROW(make_model(make_slider_chain(p), small), ModelError);
  ModelDescription bad = make_slider_belt({});
  bad.M(0, 0) = -1.0;
  Model<HostDims> m;
  EXPECT_THROW(make_model(bad, m), ModelError);
}

}  // namespace
}  // namespace fivsim
