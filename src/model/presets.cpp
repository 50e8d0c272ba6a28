// src/model/presets.cpp — the seed models (seed 000 §3.1, §4.1; seed 001 §3; seed 002 Eq. 9;
// seed 003 Eq. 11).
#include "fivsim/model/presets.hpp"

#include <cmath>

namespace fivsim {
namespace {

ModelDescription empty_model(const char* type, int n) {
  ModelDescription d;
  d.type = type;
  d.M = Eigen::MatrixXd::Zero(n, n);
  d.C = Eigen::MatrixXd::Zero(n, n);
  d.K = Eigen::MatrixXd::Zero(n, n);
  d.f0 = Eigen::VectorXd::Zero(n);
  d.f_sin = Eigen::VectorXd::Zero(n);
  d.f_cos = Eigen::VectorXd::Zero(n);
  return d;
}

// a slider pressed onto the belt with a known normal force, sliding along DoF `dof`
ContactDescription belt_contact(int n, int dof, double v0, double Fn, const FrictionLaw& law) {
  ContactDescription c;
  c.w_N = Eigen::VectorXd::Zero(n);
  c.w_T = Eigen::VectorXd::Unit(n, dof);
  c.kind = ContactKind::given_normal;
  c.v_surface = v0;
  c.Fn = Fn;
  c.law = law;
  return c;
}

// a single-DoF oscillator forced at f_hz (the forcing amplitudes are the caller's)
ModelDescription forced_sdof(const char* type, double m, double c, double k, double f_hz) {
  ModelDescription d = empty_model(type, 1);
  d.M(0, 0) = m;
  d.C(0, 0) = c;
  d.K(0, 0) = k;
  d.omega = 2.0 * M_PI * f_hz;
  return d;
}

}  // namespace

ModelDescription make_slider_belt(const SliderBeltParams& p) {
  ModelDescription d = empty_model("slider_belt", 1);
  d.M(0, 0) = p.m;
  d.C(0, 0) = p.c;
  d.K(0, 0) = p.k;
  d.contacts.push_back(belt_contact(1, 0, p.v0, p.Fn, p.law));
  return d;
}

ModelDescription make_slider_chain(const SliderChainParams& p) {
  const int n = static_cast<int>(p.m.size());
  ModelDescription d = empty_model("slider_chain", n);
  // spring/damper i joins slider i-1 (or the wall, i = 0) to slider i
  auto add_link = [&](Eigen::MatrixXd& A, int i, double value) {
    A(i, i) += value;
    if (i > 0) {
      A(i - 1, i - 1) += value;
      A(i - 1, i) -= value;
      A(i, i - 1) -= value;
    }
  };
  for (int i = 0; i < n; ++i) {
    d.M(i, i) = p.m[i];
    add_link(d.K, i, p.k[i]);
    add_link(d.C, i, p.c[i]);
    d.contacts.push_back(belt_contact(n, i, p.v0, p.Fn[i], p.law));
  }
  return d;
}

ModelDescription make_mode_coupling_2dof(const ModeCouplingParams& p) {
  ModelDescription d = empty_model("mode_coupling_2dof", 2);
  d.M(0, 0) = d.M(1, 1) = p.m;
  d.C(0, 0) = p.c1;
  d.C(1, 1) = p.c2;
  // the inclined spring k3 at 45° along (1, −1)/√2 couples x and y with −k3/2
  d.K << p.k1 + 0.5 * p.k3, -0.5 * p.k3, -0.5 * p.k3, 0.5 * p.k3;
  d.f0(1) = -p.Fp;
  ContactDescription c;
  c.w_N = Eigen::Vector2d(0.0, 1.0);
  c.w_T = Eigen::Vector2d(1.0, 0.0);
  c.kind = ContactKind::spring;
  c.k_c = p.kc;
  c.v_surface = p.v0;
  c.law = p.law;
  d.contacts.push_back(c);
  return d;
}

ModelDescription make_base_excited_sdof(const BaseExcitedParams& p) {
  ModelDescription d = forced_sdof("base_excited_sdof", p.m, p.c, p.k, p.f_hz);
  // k u + c u̇ with u = A sin(ωt)
  d.f_sin(0) = p.k * p.A;
  d.f_cos(0) = p.c * p.A * d.omega;
  d.contacts.push_back(belt_contact(1, 0, 0.0, p.Fn, p.law));
  return d;
}

ModelDescription make_torsion_pendulum(const TorsionPendulumParams& p) {
  ModelDescription d = forced_sdof("torsion_pendulum", p.J2, p.c2, p.k2, p.f_hz);
  // −J2 φ̈1,m with φ̈1,m = A ω cos(ωt)
  d.f_cos(0) = -p.J2 * p.A * d.omega;
  d.contacts.push_back(belt_contact(1, 0, 0.0, p.Fn, p.law));
  return d;
}

}  // namespace fivsim
