// fivsim/analysis/curve_problem.hpp — a fold, period doubling or Hopf point followed in a second
// parameter as a continuation problem over a base problem (analysis/equilibrium_problem.hpp,
// orbit_problem.hpp): a minimally augmented system (Govaerts 2000 §4; Kuznetsov 2004 §10.2).
#pragma once

#include <cmath>
#include <vector>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "fivsim/analysis/continuation.hpp"

namespace fivsim {

// a bifurcation of the solutions of `Base` followed in a second parameter p2 — a fold or period
// doubling of orbits (OrbitProblem), a Hopf point of equilibria (EquilibriumProblem): unknowns
// w = (z, p1), z the base problem's (an orbit's section point and multipliers of its conditions,
// an equilibrium's state), F = [the base residual at (p1, p2); g], g the last unknown of the
// bordered system [[M, b], [cᵀ, 0]] (v, g) = (0, 1) — zero exactly where M is singular: M the base
// problem's critical_matrix of its Jacobian; b and c M's singular vectors at the curve's first
// point (a minimally augmented system: Govaerts 2000 §4; Kuznetsov 2004 §10.2). g's row and F_p2
// by forward differences
template <class Base>
class CurveProblem : public ContinuationProblem {
  using VectorXd = Eigen::VectorXd;
  using MatrixXd = Eigen::MatrixXd;

 public:
  CurveProblem(Base& base, BifurcationKind kind) : base_(base), kind_(kind) {}
  int size() const override { return base_.size() + 1; }

  // b and c from M at w: its smallest singular value's left and right vectors
  bool border_at(const VectorXd& w, double p2) {
    VectorXd Fo;
    MatrixXd J;
    base_.set_second(p2);
    if (!base_.evaluate(w.head(base_.size()), w(base_.size()), Fo, &J, nullptr)) return false;
    const MatrixXd M = matrix(J);
    const Eigen::JacobiSVD<MatrixXd> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
    b_ = svd.matrixU().col(M.rows() - 1);
    c_ = svd.matrixV().col(M.cols() - 1);
    return true;
  }

  bool evaluate(const VectorXd& w, double p2, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    const int n = base_.size();
    // the points of g's differences, and every base evaluation below announced: one batch of shots
    std::vector<PendingEvaluation> ahead{{w.head(n), w(n), p2, Fx != nullptr}};
    if (Fx)
      for (int j = 0; j <= n; ++j) {
        VectorXd wj = w;
        wj(j) += difference_step(w(j));
        ahead.push_back({wj.head(n), wj(n), p2, false});
      }
    double hp = difference_step(p2);
    if (Fp) ahead.push_back({w.head(n), w(n), p2 + hp, false});
    base_.prefetch(ahead);
    VectorXd Fo, Fp1;
    MatrixXd J;
    double g = 0.0;
    if (!base_rows(w, p2, Fo, J, Fx ? &Fp1 : nullptr, g)) return false;
    const long events = base_.last_events();
    F.resize(n + 1);
    F.head(n) = Fo;
    F(n) = g;
    if (Fx) {
      Fx->setZero(n + 1, n + 1);
      Fx->topLeftCorner(n, n) = J;
      Fx->block(0, n, n, 1) = Fp1;
      for (int j = 0; j <= n; ++j) {
        double h = difference_step(w(j));
        VectorXd Fj;
        double gj = 0.0;
        if (!one_side(w, j, h, p2, events, Fj, gj)) return false;
        (*Fx)(n, j) = (gj - g) / h;
      }
    }
    if (Fp) {
      VectorXd Fh;
      double gh = 0.0;
      if (!one_side(w, n + 1, hp, p2, events, Fh, gh)) return false;
      Fp->resize(n + 1);
      Fp->head(n) = (Fh - Fo) / hp;
      (*Fp)(n) = (gh - g) / hp;
    }
    return true;
  }

  // the base problem's at the curve's point (an orbit's events a period): where it changes, the
  // orbits whose bifurcation the curve follows graze
  long signature(const VectorXd& w, double p2) override {
    base_.set_second(p2);
    const int n = base_.size();
    return base_.signature(w.head(n), w(n));
  }
  // no stability along a curve: its points are bifurcations of the base problem's solutions
  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd&) override { return {}; }
  double period(const VectorXd& w, double p2) override {
    base_.set_second(p2);
    const int n = base_.size();
    return base_.period_at(w.head(n), w(n));
  }

 private:
  MatrixXd matrix(const MatrixXd& J) const { return base_.critical_matrix(kind_, J); }
  // the base residual and Jacobian at (z, p1, p2), F_p1 where asked, and g
  bool base_rows(const VectorXd& w, double p2, VectorXd& Fo, MatrixXd& J, VectorXd* Fp1, double& g) {
    const int n = base_.size();
    base_.set_second(p2);
    if (!base_.evaluate(w.head(n), w(n), Fo, &J, Fp1)) return false;
    const MatrixXd M = matrix(J);
    const int m = static_cast<int>(M.rows());
    MatrixXd B = MatrixXd::Zero(m + 1, m + 1);
    B.topLeftCorner(m, m) = M;
    B.block(0, m, m, 1) = b_;
    B.block(m, 0, 1, m) = c_.transpose();
    VectorXd rhs = VectorXd::Zero(m + 1);
    rhs(m) = 1.0;
    const VectorXd v = B.partialPivLu().solve(rhs);
    g = v(m);
    return std::isfinite(g);
  }

  // the base rows and g a difference h along unknown j of w (j = n + 1: along p2) forward; where
  // the orbit there has other events than at w and the one backward has not (a grazing point
  // within h: the map is smooth on each side only) backward, h returned negative
  bool one_side(const VectorXd& w, int j, double& h, double p2, long events, VectorXd& Fj, double& gj) {
    const int n = base_.size();
    const auto at = [&](double step, VectorXd& Fs, double& gs) {
      VectorXd ws = w;
      double p2s = p2;
      (j <= n ? ws(j) : p2s) += step;
      MatrixXd Js;
      return base_rows(ws, p2s, Fs, Js, nullptr, gs);
    };
    if (!at(h, Fj, gj)) return false;
    if (events == 0 || base_.last_events() == events) return true;
    VectorXd Fb;
    double gb = 0.0;
    if (at(-h, Fb, gb) && base_.last_events() == events) {
      Fj = Fb;
      gj = gb;
      h = -h;
    }
    return true;
  }

  // an orbit's g holds the error of DP (its variational equations at the integrator's tolerance,
  // ~1e-8 of its size): differences of 1e-5 keep that error below a percent of g's derivatives
  static constexpr double kDifference = 1e-5;
  static double difference_step(double v) { return kDifference * (1.0 + std::abs(v)); }
  Base& base_;
  BifurcationKind kind_;
  VectorXd b_, c_;
};

}  // namespace fivsim
