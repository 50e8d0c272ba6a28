// src/integrate/rk_step_map.cpp — the affine one-step maps of Runge–Kutta methods for the linear
// smooth model (integrate/rk_step_map.hpp).
#include "fivsim/integrate/rk_step_map.hpp"

#include <cmath>
#include <stdexcept>

namespace fivsim {

RkLinearMaps rk_linear_maps(const Eigen::MatrixXd& M, const Eigen::MatrixXd& C, const Eigen::MatrixXd& K,
                            const Eigen::VectorXd& f0, const Eigen::VectorXd& f_sin, const Eigen::VectorXd& f_cos,
                            double omega, const ButcherTableau& tab, double dt) {
  const int n = static_cast<int>(M.rows());
  const int N = 2 * n;
  const int s = tab.stages;
  if (!(dt > 0.0)) throw std::invalid_argument("rk_linear_maps: dt must be > 0");
  const Eigen::MatrixXd Minv = M.llt().solve(Eigen::MatrixXd::Identity(n, n));
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(N, N);
  L.topRightCorner(n, n).setIdentity();
  L.bottomLeftCorner(n, n) = -Minv * K;
  L.bottomRightCorner(n, n) = -Minv * C;
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(N, n);  // a generalised force → ẏ
  E.bottomRows(n) = Minv;

  // S = I − dt A⊗L, factorised once
  Eigen::MatrixXd S = Eigen::MatrixXd::Identity(s * N, s * N);
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j)
      if (tab.A(i, j) != 0.0) S.block(i * N, j * N, N, N) -= dt * tab.A(i, j) * L;
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(S);

  // y_E = y_A + dt Σ_i b_i (L Y_i + G_i)
  auto combine = [&](const Eigen::MatrixXd& Y, const Eigen::MatrixXd& G) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(N, Y.cols());
    for (int i = 0; i < s; ++i) out += dt * tab.b[i] * (L * Y.middleRows(i * N, N) + G.middleRows(i * N, N));
    return out;
  };

  RkLinearMaps maps;
  {
    Eigen::MatrixXd rhs(s * N, N);
    for (int i = 0; i < s; ++i) rhs.middleRows(i * N, N).setIdentity();
    const Eigen::MatrixXd Y = lu.solve(rhs);
    maps.Phi = Eigen::MatrixXd::Identity(N, N) + combine(Y, Eigen::MatrixXd::Zero(s * N, N));
  }
  // response to a force carried by stage k with weight w_k
  auto response = [&](const Eigen::VectorXd& w) {
    Eigen::MatrixXd G(s * N, n), rhs(s * N, n);
    for (int i = 0; i < s; ++i) {
      G.middleRows(i * N, N) = w(i) * E;
      double aw = 0.0;
      for (int j = 0; j < s; ++j) aw += tab.A(i, j) * w(j);
      rhs.middleRows(i * N, N) = dt * aw * E;
    }
    return Eigen::MatrixXd(combine(lu.solve(rhs), G));
  };
  const Eigen::VectorXd c = Eigen::Map<const Eigen::VectorXd>(tab.c.data(), s);
  maps.R_held = response(Eigen::VectorXd::Ones(s));
  maps.R_ramp = response(c);
  Eigen::VectorXd wc(s), ws(s);
  for (int i = 0; i < s; ++i) {
    wc(i) = std::cos(omega * c(i) * dt);
    ws(i) = std::sin(omega * c(i) * dt);
  }
  const Eigen::MatrixXd R_cos = response(wc), R_sin = response(ws);
  // f(t_A + c_k dt) = f0 + sin ωt_A (f_sin cos ωc_k dt − f_cos sin ωc_k dt)
  //                      + cos ωt_A (f_sin sin ωc_k dt + f_cos cos ωc_k dt)
  maps.P0 = maps.R_held * f0;
  maps.Ps = R_cos * f_sin - R_sin * f_cos;
  maps.Pc = R_sin * f_sin + R_cos * f_cos;
  return maps;
}

}  // namespace fivsim
