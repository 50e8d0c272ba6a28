// tests/pinn/irk_pinn_test.cpp — the dynamic IRK-PINN loss (pinn/irk_pinn.hpp): its gradient against
// central finite differences, zero loss exactly at the Gauss collocation step (the affine step map
// of rk_step_map.hpp, a second and independent construction), and a trained network that lands on
// that step.
#include "fivsim/pinn/irk_pinn.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "fivsim/integrate/butcher.hpp"
#include "fivsim/integrate/rk_step_map.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

using D = Dims<double, 2, 1>;

// seed 000 Model II with damping, so that M⁻¹, K and C all enter the loss
std::unique_ptr<Model<D>> model2() {
  const json doc = json::parse(R"({
    "name": "t",
    "model": {"type": "mode_coupling_2dof", "m": 5, "k1": 1000, "k3": 600, "kc": 500, "c1": 3, "c2": 2,
              "Fp": 20, "v0": 20},
    "friction": {"law": "coulomb", "mu": 0.4},
    "initial": {"q": [-0.01, -0.01], "u": [20, 20]},
    "integrator": {"method": "moreau", "dt": 0.001, "t_end": 1}
  })");
  const Scenario sc = parse_scenario(doc);
  auto m = std::make_unique<Model<D>>();
  make_model(sc.model, *m);
  return m;
}

struct Fixture {
  std::unique_ptr<Model<D>> m = model2();
  ButcherTableau tab = gauss_legendre(4);
  StageTable<double> table{4, tab.a.data(), tab.b.data(), tab.c.data()};
  double q[2] = {0.02, -0.01}, u[2] = {1.5, -0.7};
  std::vector<double> load = std::vector<double>(8);
  // stage loads: contact forces F_k (x: 3 + slope·k, y: −40) plus the model's external force
  void set_loads(double slope) {
    for (int k = 0; k < 4; ++k) {
      load[k * 2] = 3.0 + slope * k;
      load[k * 2 + 1] = -40.0;
    }
    irk_pinn_add_external_loads(*m, table, 0.3, 1e-3, load.data());
  }
  IrkPinnStep<double> step() {
    IrkPinnStep<double> st;
    st.dt = 1e-3;
    st.q = q;
    st.u = u;
    set_loads(1.0);  // a stage-varying force, as the advanced variants give
    st.load = load.data();
    return st;
  }
};

TEST(IrkPinnLoss, GradientMatchesFiniteDifferences) {
  Fixture f;
  const IrkPinnStep<double> st = f.step();
  std::vector<double> out(10), d_out(10), dummy(10), scratch(irk_pinn_scratch_size(2, 4));
  for (int i = 0; i < 10; ++i) out[i] = 0.3 * std::sin(1.3 * i) + (i % 2 ? -0.7 : 1.5);
  irk_pinn_loss(*f.m, f.table, st, out.data(), d_out.data(), scratch.data());
  for (int i = 0; i < 10; ++i) {
    auto plus = out, minus = out;
    const double h = 1e-6;
    plus[i] += h;
    minus[i] -= h;
    const double fd = (irk_pinn_loss(*f.m, f.table, st, plus.data(), dummy.data(), scratch.data()) -
                       irk_pinn_loss(*f.m, f.table, st, minus.data(), dummy.data(), scratch.data())) /
                      (2 * h);
    EXPECT_NEAR(d_out[i], fd, 1e-9 * (1 + std::abs(fd))) << "output " << i;
  }
}

TEST(IrkPinnLoss, VanishesAtTheCollocationStep) {
  // the exact stage velocities: solve the linear collocation system, i.e. minimise the quadratic
  // loss by Newton's method in one step (loss = ½ vᵀHv + gᵀv + c, H from finite differences of the
  // analytic gradient, which is affine in v)
  Fixture f;
  const IrkPinnStep<double> st = f.step();
  const int N = 10;
  std::vector<double> v(N, 0.0), g0(N), g(N), scratch(irk_pinn_scratch_size(2, 4));
  irk_pinn_loss(*f.m, f.table, st, v.data(), g0.data(), scratch.data());
  Eigen::MatrixXd H(N, N);
  for (int j = 0; j < N; ++j) {
    v.assign(N, 0.0);
    v[j] = 1.0;
    irk_pinn_loss(*f.m, f.table, st, v.data(), g.data(), scratch.data());
    for (int i = 0; i < N; ++i) H(i, j) = g[i] - g0[i];
  }
  Eigen::VectorXd rhs(N);
  for (int i = 0; i < N; ++i) rhs(i) = -g0[i];
  const Eigen::VectorXd sol = H.fullPivLu().solve(rhs);
  for (int i = 0; i < N; ++i) v[i] = sol(i);
  EXPECT_LT(irk_pinn_loss(*f.m, f.table, st, v.data(), g.data(), scratch.data()), 1e-26);

  // the end state against the affine Gauss map with the same stage forces (here held: F_k = F)
  f.set_loads(0.0);
  v.assign(N, 0.0);
  irk_pinn_loss(*f.m, f.table, st, v.data(), g0.data(), scratch.data());
  for (int j = 0; j < N; ++j) {
    v.assign(N, 0.0);
    v[j] = 1.0;
    irk_pinn_loss(*f.m, f.table, st, v.data(), g.data(), scratch.data());
    for (int i = 0; i < N; ++i) H(i, j) = g[i] - g0[i];
  }
  for (int i = 0; i < N; ++i) rhs(i) = -g0[i];
  const Eigen::VectorXd held = H.fullPivLu().solve(rhs);
  for (int i = 0; i < N; ++i) v[i] = held(i);
  double q_end[2], u_end[2];
  irk_pinn_end_state(2, f.table, st, v.data(), q_end, u_end);

  const Model<D>& m = *f.m;
  auto to = [](const auto& a, int r, int c) { return detail::to_eigen(a, r, c); };
  const RkLinearMaps maps =
      rk_linear_maps(to(m.M, 2, 2), to(m.C, 2, 2), to(m.K, 2, 2), detail::to_eigen(m.f0, 2),
                     detail::to_eigen(m.f_sin, 2), detail::to_eigen(m.f_cos, 2), m.omega, f.tab, st.dt);
  Eigen::VectorXd y(4);
  y << f.q[0], f.q[1], f.u[0], f.u[1];
  const Eigen::VectorXd F = (Eigen::VectorXd(2) << 3.0, -40.0).finished();
  const Eigen::VectorXd y_end = maps.Phi * y + maps.P0 + maps.R_held * F;
  EXPECT_NEAR(q_end[0], y_end(0), 1e-14);
  EXPECT_NEAR(q_end[1], y_end(1), 1e-14);
  EXPECT_NEAR(u_end[0], y_end(2), 1e-11);
  EXPECT_NEAR(u_end[1], y_end(3), 1e-11);
}

TEST(IrkPinnTrain, ANetworkLearnsTheStep) {
  Fixture f;
  const IrkPinnStep<double> st = f.step();
  const MlpLayout L = make_mlp_layout(2, {20, 20, 20}, 10, Activation::tanh_fn, OutputMap::linear);
  OptimizerOptions opt;
  opt.max_iter = 2000;
  opt.tol = 1e-24;
  const int np = L.param_count();
  std::vector<double> params(np), grad(np), work(optimizer_work_size(np, opt)), cache(L.cache_size()),
      scratch(2 * L.max_width()), d_out(10), loss_scratch(irk_pinn_scratch_size(2, 4));
  mlp_init(L, 1, 0, params.data());
  IrkPinnBuffers<double> buf{params.data(),  grad.data(),  work.data(),        cache.data(),
                             scratch.data(), d_out.data(), loss_scratch.data()};
  const OptimizerResult r = irk_pinn_train(*f.m, f.table, st, L, opt, buf);
  EXPECT_TRUE(r.converged) << "loss " << r.loss << " after " << r.iterations;
  // loss ≤ 1e-24 of velocities scaled by (1 + ‖u‖) = 2.5: each back-mapped velocity within ~1e-11
  const double* out = mlp_forward(L, params.data(), st.q, cache.data());
  std::vector<double> g(10);
  EXPECT_LE(irk_pinn_loss(*f.m, f.table, st, out, g.data(), loss_scratch.data()), 1e-24);
}

}  // namespace
}  // namespace fivsim
