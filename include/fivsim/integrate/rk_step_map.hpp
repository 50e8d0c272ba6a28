// fivsim/integrate/rk_step_map.hpp — building the one-step maps of the Runge–Kutta LCP steppers
// (rk_lcp.hpp) on the host.
//
// For y' = L y + [0; M⁻¹ g(t)] with L = [[0, I], [−M⁻¹K, −M⁻¹C]] and a Butcher tableau (A, b, c),
// the stage values solve (I − dt A⊗L) Y = 1⊗y_A + dt (A⊗I) G and y_E = y_A + dt (bᵀ⊗I)(L Y + G)
// (seed 000 Eqs. 21–22 in first-order form). The stage system is factorised once (dense LU, size
// 2n·q) and gives Φ, the responses R_w to a force F carried by stage k with weight w_k (held:
// w = 1; ramp: w = c), and the forcing vectors of f(t) = f0 + f_sin sin ωt + f_cos cos ωt
// (sin ω(t_A + c_k dt) expanded, so that a step needs sin ωt_A and cos ωt_A only).
#pragma once

#include <Eigen/Dense>

#include "fivsim/integrate/butcher.hpp"
#include "fivsim/integrate/rk_lcp.hpp"

namespace fivsim {

struct RkLinearMaps {
  Eigen::MatrixXd Phi;             // 2n × 2n
  Eigen::MatrixXd R_held, R_ramp;  // 2n × n
  Eigen::VectorXd P0, Ps, Pc;      // 2n
};

// the maps of one step of size dt for M q̈ + C q̇ + K q = f(t) + F
RkLinearMaps rk_linear_maps(const Eigen::MatrixXd& M, const Eigen::MatrixXd& C, const Eigen::MatrixXd& K,
                            const Eigen::VectorXd& f0, const Eigen::VectorXd& f_sin, const Eigen::VectorXd& f_cos,
                            double omega, const ButcherTableau& tableau, double dt);

namespace detail {

template <class T, int R, int C>
Eigen::MatrixXd to_eigen(const Mat<T, R, C>& a, int rows, int cols) {
  Eigen::MatrixXd e(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) e(i, j) = static_cast<double>(a(i, j));
  return e;
}

template <class T, int C>
Eigen::VectorXd to_eigen(const Vec<T, C>& v, int n) {
  Eigen::VectorXd e(n);
  for (int i = 0; i < n; ++i) e(i) = static_cast<double>(v[i]);
  return e;
}

template <class T, int R, int C>
void from_eigen(const Eigen::MatrixXd& e, Mat<T, R, C>& a) {
  a.resize(static_cast<int>(e.rows()), static_cast<int>(e.cols()));
  for (int i = 0; i < e.rows(); ++i)
    for (int j = 0; j < e.cols(); ++j) a(i, j) = static_cast<T>(e(i, j));
}

template <class T, int C>
void from_eigen(const Eigen::VectorXd& e, Vec<T, C>& v) {
  v.resize(static_cast<int>(e.size()));
  for (int i = 0; i < e.size(); ++i) v[i] = static_cast<T>(e(i));
}

}  // namespace detail

// the step map of model m for one tableau, step size and treatment of the stage forces
template <class D>
void make_rk_step_map(const Model<D>& m, const ButcherTableau& tableau, double dt, StageForces forces,
                      RkStepMap<D>& map) {
  using detail::from_eigen;
  using detail::to_eigen;
  const int n = m.n_dof, nc = m.n_contacts;
  const RkLinearMaps maps =
      rk_linear_maps(to_eigen(m.M, n, n), to_eigen(m.C, n, n), to_eigen(m.K, n, n), to_eigen(m.f0, n),
                     to_eigen(m.f_sin, n), to_eigen(m.f_cos, n), static_cast<double>(m.omega), tableau, dt);
  map.dt = static_cast<typename D::scalar>(dt);
  map.forces = forces;
  from_eigen(maps.Phi, map.Phi);
  from_eigen(maps.P0, map.P0);
  from_eigen(maps.Ps, map.Ps);
  from_eigen(maps.Pc, map.Pc);
  from_eigen(maps.R_held, map.R_held);
  from_eigen(maps.R_ramp, map.R_ramp);
  from_eigen(Eigen::MatrixXd(maps.R_held - maps.R_ramp), map.R_prev);
  // response blocks: gap rows see the position response / dt², slip rows the velocity response / dt
  const Eigen::MatrixXd WN = to_eigen(m.WN, n, nc), WT = to_eigen(m.WT, n, nc);
  auto blocks = [&](const Eigen::MatrixXd& R, auto& NN, auto& NT, auto& TN, auto& TT) {
    const Eigen::MatrixXd Rq = R.topRows(n) / (dt * dt), Ru = R.bottomRows(n) / dt;
    from_eigen(Eigen::MatrixXd(WN.transpose() * Rq * WN), NN);
    from_eigen(Eigen::MatrixXd(WN.transpose() * Rq * WT), NT);
    from_eigen(Eigen::MatrixXd(WT.transpose() * Ru * WN), TN);
    from_eigen(Eigen::MatrixXd(WT.transpose() * Ru * WT), TT);
  };
  blocks(maps.R_held, map.held_NN, map.held_NT, map.held_TN, map.held_TT);
  blocks(maps.R_ramp, map.ramp_NN, map.ramp_NT, map.ramp_TN, map.ramp_TT);
}

}  // namespace fivsim
