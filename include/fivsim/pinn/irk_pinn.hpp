// fivsim/pinn/irk_pinn.hpp — the dynamic part of the IRK-PINN: one time step of
// M q̈ + C q̇ + K q = f(t) + F learned by a network in Raissi's discrete-time form (seed 000
// §2.3.2, Eqs. 21–26, Fig. 5).
//
// The network takes q_A and outputs the R stage velocities V_1 … V_R and the end velocity V_{R+1}.
// Through the Butcher table (a, b, c) they give the stage displacements and accelerations
//   Q_k = q_A + dt Σ_r a_kr V_r,   acc_k = M⁻¹(f(t_A + c_k dt) − K Q_k − C V_k + F_k)   (Eqs. 25–26)
// and are mapped back to the start of the step (Eqs. 21–22):
//   U_k = V_k − dt Σ_r a_kr acc_r  (k ≤ R),   U_{R+1} = V_{R+1} − dt Σ_k b_k acc_k.
// The loss (Eq. 24, squared) is the mean of (U_k − u_A)² over the R+1 outputs and n coordinates,
// divided by (1 + ‖u_A‖∞)² so that one tolerance serves any velocity scale. At zero loss the
// outputs are the Gauss collocation step itself; the end state is q_E = q_A + dt Σ_k b_k V_k,
// u_E = V_{R+1}. The stage loads f(t_A + c_k dt) + F_k, with F_k the contact forces of stage k
// (held or interpolated, pinn_step.hpp), are fixed over a step's training and formed once
// (irk_pinn_add_external_loads).
#pragma once

#include "fivsim/model/model.hpp"
#include "fivsim/pinn/mlp.hpp"
#include "fivsim/pinn/optimizer.hpp"

namespace fivsim {

// a Butcher table in plain arrays (a row-major R × R), readable on the device
template <class T>
struct StageTable {
  int R = 0;
  const T* a = nullptr;
  const T* b = nullptr;
  const T* c = nullptr;
};

// the table over R² + 2R values stored a, b, c one after the other
template <class T>
FIVSIM_HD inline StageTable<T> stage_table_of(const T* values, int R) {
  return StageTable<T>{R, values, values + R * R, values + R * R + R};
}

// one step's data: the start state, the step and the stage loads (R × n, generalised:
// f(t_A + c_k dt) + F_k)
template <class T>
struct IrkPinnStep {
  T dt = T(0);
  const T* q = nullptr;
  const T* u = nullptr;
  const T* load = nullptr;
};

// adds the external force f(t_A + c_k dt) of every stage to the stage forces in `load` (R × n)
template <class D>
FIVSIM_HD inline void irk_pinn_add_external_loads(const Model<D>& m, const StageTable<typename D::scalar>& tab,
                                                  typename D::scalar t, typename D::scalar dt,
                                                  typename D::scalar* load) {
  using T = typename D::scalar;
  const int n = dof_count(m);
  for (int k = 0; k < tab.R; ++k) {
    const T tk = t + tab.c[k] * dt;
    const T sw = sin(m.omega * tk), cw = cos(m.omega * tk);
    for (int d = 0; d < n; ++d) load[k * n + d] += m.f0[d] + m.f_sin[d] * sw + m.f_cos[d] * cw;
  }
}

// scratch values irk_pinn_loss needs
FIVSIM_HD inline int irk_pinn_scratch_size(int n, int R) { return 4 * (R + 1) * n; }

// the loss of the outputs `out` (n(R+1)) and its gradient d_out with respect to them
template <class D>
FIVSIM_HD inline typename D::scalar irk_pinn_loss(const Model<D>& m, const StageTable<typename D::scalar>& tab,
                                                  const IrkPinnStep<typename D::scalar>& st,
                                                  const typename D::scalar* out, typename D::scalar* d_out,
                                                  typename D::scalar* scratch) {
  using T = typename D::scalar;
  const int n = dof_count(m), R = tab.R;
  T* Q = scratch;            // R × n stage displacements, then dL/dQ
  T* acc = Q + R * n;        // R × n stage accelerations, then dL/dacc
  T* e = acc + R * n;        // (R+1) × n back-mapped velocity errors U_k − u_A
  T* tmp = e + (R + 1) * n;  // n
  const T* V = out;
  T umax = T(0);
  for (int d = 0; d < n; ++d) umax = max_value(umax, abs_value(st.u[d]));
  const T scale = T(1) / ((T(1) + umax) * (T(1) + umax));
  // stage displacements and accelerations
  for (int k = 0; k < R; ++k) {
    for (int d = 0; d < n; ++d) {
      T s = T(0);
      for (int r = 0; r < R; ++r) s += tab.a[k * R + r] * V[r * n + d];
      Q[k * n + d] = st.q[d] + st.dt * s;
    }
    for (int d = 0; d < n; ++d) {
      T h = st.load[k * n + d];
      for (int j = 0; j < n; ++j) h -= m.K(d, j) * Q[k * n + j] + m.C(d, j) * V[k * n + j];
      tmp[d] = h;
    }
    for (int d = 0; d < n; ++d) {
      T s = T(0);
      for (int j = 0; j < n; ++j) s += m.Minv(d, j) * tmp[j];
      acc[k * n + d] = s;
    }
  }
  // back-mapped start velocities and the loss
  T loss = T(0);
  for (int k = 0; k <= R; ++k)
    for (int d = 0; d < n; ++d) {
      T s = T(0);
      for (int r = 0; r < R; ++r) s += (k < R ? tab.a[k * R + r] : tab.b[r]) * acc[r * n + d];
      const T err = V[k * n + d] - st.dt * s - st.u[d];
      e[k * n + d] = err;
      loss += err * err;
    }
  const T w = T(2) * scale / T((R + 1) * n);
  // backward: dL/dV_k directly, dL/dacc_r, then through acc to Q and V, then Q to V
  for (int k = 0; k <= R; ++k)
    for (int d = 0; d < n; ++d) d_out[k * n + d] = w * e[k * n + d];
  for (int r = 0; r < R; ++r)
    for (int d = 0; d < n; ++d) {
      T s = tab.b[r] * e[R * n + d];
      for (int k = 0; k < R; ++k) s += tab.a[k * R + r] * e[k * n + d];
      acc[r * n + d] = -st.dt * w * s;  // dL/dacc_r
    }
  for (int r = 0; r < R; ++r) {
    // g = M⁻ᵀ dL/dacc_r; dL/dQ_r = −Kᵀ g; dL/dV_r += −Cᵀ g
    for (int j = 0; j < n; ++j) {
      T s = T(0);
      for (int d = 0; d < n; ++d) s += m.Minv(d, j) * acc[r * n + d];
      tmp[j] = s;
    }
    for (int j = 0; j < n; ++j) {
      T gq = T(0), gv = T(0);
      for (int d = 0; d < n; ++d) {
        gq -= m.K(d, j) * tmp[d];
        gv -= m.C(d, j) * tmp[d];
      }
      Q[r * n + j] = gq;
      d_out[r * n + j] += gv;
    }
  }
  for (int r = 0; r < R; ++r)
    for (int d = 0; d < n; ++d) {
      T s = T(0);
      for (int k = 0; k < R; ++k) s += tab.a[k * R + r] * Q[k * n + d];
      d_out[r * n + d] += st.dt * s;
    }
  return loss * scale / T((R + 1) * n);
}

// the end state of a step from the network's outputs: q_E = q_A + dt Σ b_k V_k, u_E = V_{R+1}
template <class T>
FIVSIM_HD inline void irk_pinn_end_state(int n, const StageTable<T>& tab, const IrkPinnStep<T>& st, const T* out,
                                         T* q_end, T* u_end) {
  for (int d = 0; d < n; ++d) {
    T s = T(0);
    for (int k = 0; k < tab.R; ++k) s += tab.b[k] * out[k * n + d];
    q_end[d] = st.q[d] + st.dt * s;
    u_end[d] = out[tab.R * n + d];
  }
}

// the memory of one dynamic network: weights (kept from step to step) and training scratch
template <class T>
struct IrkPinnBuffers {
  T* params = nullptr;        // layout.param_count()
  T* grad = nullptr;          // layout.param_count()
  T* work = nullptr;          // optimizer_work_size(param_count, options)
  T* cache = nullptr;         // layout.cache_size()
  T* scratch = nullptr;       // 2 · layout.max_width()
  T* d_out = nullptr;         // layout.outputs()
  T* loss_scratch = nullptr;  // irk_pinn_scratch_size(n, R)
};

// the loss of the network with parameters p on the step, and its gradient into g (param_count
// values): one forward and one backward pass through buf's cache and scratch
template <class D>
FIVSIM_HD inline typename D::scalar irk_pinn_objective(const Model<D>& m, const StageTable<typename D::scalar>& tab,
                                                       const IrkPinnStep<typename D::scalar>& st, const MlpLayout& L,
                                                       const IrkPinnBuffers<typename D::scalar>& buf,
                                                       const typename D::scalar* p, typename D::scalar* g) {
  using T = typename D::scalar;
  const T* out = mlp_forward(L, p, st.q, buf.cache);
  const T loss = irk_pinn_loss(m, tab, st, out, buf.d_out, buf.loss_scratch);
  for (int i = 0; i < L.param_count(); ++i) g[i] = T(0);
  mlp_backward(L, p, buf.cache, buf.d_out, g, buf.scratch);
  return loss;
}

// trains the network on one step (from its current weights) and returns the training outcome
template <class D>
FIVSIM_HD inline OptimizerResult irk_pinn_train(const Model<D>& m, const StageTable<typename D::scalar>& tab,
                                                const IrkPinnStep<typename D::scalar>& st, const MlpLayout& L,
                                                const OptimizerOptions& opt, IrkPinnBuffers<typename D::scalar>& buf) {
  using T = typename D::scalar;
  auto objective = [&](const T* p, T* g) { return irk_pinn_objective(m, tab, st, L, buf, p, g); };
  return minimize(L.param_count(), buf.params, buf.grad, objective, opt, buf.work);
}

}  // namespace fivsim
