// fivsim/model/model_description.hpp — the host-side model description and its compilation into
// the fixed-capacity Model of the step path (model.hpp).
//
// A description holds dynamic Eigen matrices (what presets and the scenario parser produce);
// make_model checks it against the capacities of an instantiation, inverts M and forms the
// Delassus blocks G_XY = W_Xᵀ M⁻¹ W_Y of seed 000 Eqs. 10–11 once.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/friction/dynamic_laws.hpp"
#include "fivsim/model/model.hpp"

namespace fivsim {

struct ContactDescription {
  Eigen::VectorXd w_N;  // normal direction (zero for a given_normal contact without a normal DoF)
  Eigen::VectorXd w_T;  // tangential direction
  ContactKind kind = ContactKind::given_normal;
  double k_c = 0.0;        // spring contact stiffness
  double v_surface = 0.0;  // surface (belt) velocity along w_T
  double Fn = 0.0;         // given normal force
  double gap0 = 0.0;       // gap at q = 0
  FrictionLaw law;
  // a dynamic law (Dahl, LuGre, GMS) replaces `law`; only the smooth integrator runs it
  bool dynamic = false;
  DynamicFrictionLaw dynamic_law;
};

struct ModelDescription {
  std::string type;  // preset name, or "linear_multibody"
  Eigen::MatrixXd M, C, K;
  Eigen::VectorXd f0, f_sin, f_cos;  // f(t) = f0 + f_sin sin(ωt) + f_cos cos(ωt)
  double omega = 0.0;
  std::vector<ContactDescription> contacts;

  int dof() const { return static_cast<int>(M.rows()); }
  int n_contacts() const { return static_cast<int>(contacts.size()); }
  bool has_dynamic_friction() const {
    for (const auto& c : contacts)
      if (c.dynamic) return true;
    return false;
  }
  int n_normal() const {
    int k = 0;
    for (const auto& c : contacts) k += c.kind == ContactKind::given_normal ? 0 : 1;
    return k;
  }
  // number of LCP unknowns of one step (seed 000 Eq. 12: Λ_N per rigid/spring contact,
  // Λ_L and γ_R per contact)
  int lcp_size() const { return n_normal() + 2 * n_contacts(); }
};

// thrown when a description does not fit an instantiation or is not a valid model
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class D>
void make_model(const ModelDescription& desc, Model<D>& m) {
  using T = typename D::scalar;
  const int n = desc.dof();
  const int nc = desc.n_contacts();
  if (n < 1) throw ModelError("model has no degrees of freedom");
  if (n > D::max_dof)
    throw ModelError("model has " + std::to_string(n) + " degrees of freedom; at most " + std::to_string(D::max_dof) +
                     " are supported");
  if (nc > D::max_contacts)
    throw ModelError("model has " + std::to_string(nc) + " contacts; at most " + std::to_string(D::max_contacts) +
                     " are supported");
  if (D::exact && (n != D::max_dof || nc != D::max_contacts))
    throw ModelError("an exact instantiation holds " + std::to_string(D::max_dof) + " DoF and " +
                     std::to_string(D::max_contacts) + " contacts, not " + std::to_string(n) + " and " +
                     std::to_string(nc));
  Eigen::LLT<Eigen::MatrixXd> llt(desc.M);
  if (llt.info() != Eigen::Success || !desc.M.isApprox(desc.M.transpose()))
    throw ModelError("mass matrix is not symmetric positive definite");
  const Eigen::MatrixXd Minv = llt.solve(Eigen::MatrixXd::Identity(n, n));

  Eigen::MatrixXd WN = Eigen::MatrixXd::Zero(n, nc), WT = Eigen::MatrixXd::Zero(n, nc);
  for (int i = 0; i < nc; ++i) {
    WN.col(i) = desc.contacts[i].w_N;
    WT.col(i) = desc.contacts[i].w_T;
  }
  const Eigen::MatrixXd GNN = WN.transpose() * Minv * WN, GNT = WN.transpose() * Minv * WT,
                        GTN = WT.transpose() * Minv * WN, GTT = WT.transpose() * Minv * WT;

  auto copy_mat = [](const Eigen::MatrixXd& src, auto& dst) {
    dst.resize(static_cast<int>(src.rows()), static_cast<int>(src.cols()));
    for (int i = 0; i < src.rows(); ++i)
      for (int j = 0; j < src.cols(); ++j) dst(i, j) = T(src(i, j));
  };
  auto copy_vec = [n](const Eigen::VectorXd& src, auto& dst) {
    dst.resize(n);
    for (int i = 0; i < src.size(); ++i) dst[i] = T(src(i));
  };
  m.n_dof = n;
  m.n_contacts = nc;
  copy_mat(desc.M, m.M);
  copy_mat(Minv, m.Minv);
  copy_mat(desc.C, m.C);
  copy_mat(desc.K, m.K);
  copy_vec(desc.f0, m.f0);
  copy_vec(desc.f_sin, m.f_sin);
  copy_vec(desc.f_cos, m.f_cos);
  m.omega = T(desc.omega);
  copy_mat(WN, m.WN);
  copy_mat(WT, m.WT);
  copy_mat(GNN, m.GNN);
  copy_mat(GNT, m.GNT);
  copy_mat(GTN, m.GTN);
  copy_mat(GTT, m.GTT);
  int slot = 0;
  for (int i = 0; i < nc; ++i) {
    const auto& c = desc.contacts[i];
    m.kind[i] = c.kind;
    m.kc[i] = T(c.k_c);
    m.v_surface[i] = T(c.v_surface);
    m.Fn[i] = T(c.Fn);
    m.gap0[i] = T(c.gap0);
    m.law[i] = c.law;
    m.normal_slot[i] = c.kind == ContactKind::given_normal ? -1 : slot++;
  }
  m.n_normal = slot;
  bool diagonal = true;
  for (int i = 0; i < nc; ++i)
    for (int j = 0; j < nc; ++j) diagonal = diagonal && (i == j || GTT(i, j) == 0.0);
  m.decoupled_friction = nc > 0 && slot == 0 && diagonal;
}

}  // namespace fivsim
