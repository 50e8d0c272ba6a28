// fivsim/analysis/equilibrium_problem.hpp — the equilibria of the switching model as a
// continuation problem (analysis/continuation.hpp): F(y, p) = f(y) in the modes taken at y
// (integrate/switching_tangent.hpp), F_y exact, F_p by central differences.
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Eigenvalues>

#include "fivsim/analysis/continuation.hpp"
#include "fivsim/analysis/continuation_shots.hpp"
#include "fivsim/integrate/switching_tangent.hpp"

namespace fivsim {

// the equilibria of the switching model: F(y, p) = f(y) of the modes it takes at y, with the
// parameter written into the model (ContinuedModel); F_p by central differences at fixed modes
template <class D>
class EquilibriumProblem : public ContinuationProblem {
 public:
  EquilibriumProblem(const ContinuedModel<D>& model, SwitchingSettings set)
      : model_(model), set_(set), ny_(2 * model.dof()) {}
  int size() const override { return ny_; }

  bool evaluate(const Eigen::VectorXd& x, double p, Eigen::VectorXd& F, Eigen::MatrixXd* Fx,
                Eigen::VectorXd* Fp) override {
    F.resize(ny_);
    ContactState modes[D::max_contacts];
    if (!field(x, p, F.data(), nullptr, modes)) return false;
    if (Fx) {
      Fx->resize(ny_, ny_);
      for (int i = 0; i < ny_; ++i)
        for (int j = 0; j < ny_; ++j) (*Fx)(i, j) = tan_->jac[i][j];
    }
    if (Fp) {
      // the modes of the point itself on both sides: F_p of one vector field
      const double h = parameter_step(p);
      Eigen::VectorXd up(ny_), down(ny_);
      if (!field(x, p + h, up.data(), modes, nullptr) || !field(x, p - h, down.data(), modes, nullptr)) return false;
      *Fp = (up - down) / (2.0 * h);
    }
    return true;
  }

  Eigen::VectorXcd eigenvalues(const Eigen::VectorXd&, double, const Eigen::MatrixXd& Fx) override {
    return Eigen::EigenSolver<Eigen::MatrixXd>(Fx, false).eigenvalues();
  }

  // a plan of two parameters (a Hopf point's curve): the second one's value from now on
  void set_second(double value) { second_ = value; }
  // the matrix singular at a bifurcation of `kind` followed in a second parameter (CurveProblem):
  // at a Hopf point 2F_x ⊙ I, whose eigenvalues are the sums of F_x's pairs
  Eigen::MatrixXd critical_matrix(BifurcationKind, const Eigen::MatrixXd& J) const { return bialternate_sum(J); }
  // an equilibrium's period, for a curve's points
  double period_at(const Eigen::VectorXd&, double) { return 0.0; }
  // an equilibrium's field is evaluated when asked: nothing to shoot ahead
  void prefetch(const std::vector<PendingEvaluation>&) {}
  // an equilibrium has no events
  long last_events() const { return 0; }

  // the modes at (x, p): stick, slip or free per contact
  void modes_at(const Eigen::VectorXd& x, double p, std::vector<ContactState>& out) {
    Eigen::VectorXd F(ny_);
    ContactState modes[D::max_contacts];
    out.clear();
    if (!field(x, p, F.data(), nullptr, modes)) return;
    out.assign(modes, modes + model_.contacts());
  }

 private:
  bool field(const Eigen::VectorXd& x, double p, double* f, const ContactState* fixed, ContactState* taken) {
    model_.at(p, second_, *at_);
    typename D::scalar y[2 * D::max_dof], fy[2 * D::max_dof];
    for (int i = 0; i < ny_; ++i) y[i] = x(i);
    if (!switching_field(at_->model, set_, *ws_, *tan_, 0.0, y, fy, fixed)) return false;
    for (int i = 0; i < ny_; ++i) f[i] = fy[i];
    if (taken)
      for (int i = 0; i < at_->model.n_contacts; ++i) taken[i] = ws_->mode[i];
    return true;
  }

  const ContinuedModel<D>& model_;
  SwitchingSettings set_;
  int ny_ = 0;
  double second_ = 0.0;
  std::unique_ptr<ModelAt<D>> at_ = std::make_unique<ModelAt<D>>();
  std::unique_ptr<SwitchingWorkspace<D>> ws_ = std::make_unique<SwitchingWorkspace<D>>();
  std::unique_ptr<SwitchingTangent<D>> tan_ = std::make_unique<SwitchingTangent<D>>();
};

}  // namespace fivsim
