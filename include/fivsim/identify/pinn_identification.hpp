// fivsim/identify/pinn_identification.hpp — the friction torque of a measured motion by a pair of
// physics-informed networks (seed 002 §4.3, Eq. 23): N1(t, φ1) → φ2 is fitted to the measured
// response, N2(t, φ1) → τ_f is held to the balance of moments
//
//     J2 φ̈2 + c φ̇2 + k φ2 + τ_f = J1 φ̈1          (Eq. 23 when c = k = 0)
//
// with the inertias (and c, k when the model has them) fixed or trainable within bounds; a bounded
// coefficient is θ ↦ lo + (hi − lo)·(1 + tanh θ)/2. The seed trains on every fifth sample and tests
// on all of them; so does fivsim (train_every).
//
// φ̈2 and φ̇2 of N1 are central differences of N1 over the training samples (spacing h = s·dt), so
// the physics loss is linear in N1's outputs and its gradient runs through the ordinary backward
// pass (pinn/mlp.hpp); φ̈1 comes from the measured input (Savitzky–Golay, identify/record.hpp).
// Inputs are scaled to [−1, 1], N1's output by the record's amplitude and N2's by the size of the
// torques in the balance, so one learning rate suits any units.
//
// Eq. 23 alone does not determine the inertias: for any (J1, J2) the torque N2 = J1 φ̈1 − J2 φ̈2
// closes the balance, so trainable inertias end wherever the training happens to leave them inside
// their bounds (the bounds matter, as in the seed); the torque is only as right as the inertias.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "fivsim/pinn/mlp.hpp"
#include "fivsim/pinn/optimizer.hpp"

namespace fivsim {

// a coefficient of the balance: fixed at `value`, or trained from `value` within [lo, hi]
struct PinnCoefficient {
  double value = 0.0;
  double lo = 0.0, hi = 0.0;
  bool trainable = false;
};

struct PinnIdentifyOptions {
  std::vector<int> hidden = {20, 20, 20};  // both networks
  Activation activation = Activation::tanh_fn;
  OptimizerOptions optimizer;  // the seed: Adam, 10⁴ epochs
  int train_every = 5;         // training samples: every s-th sample
  double physics_weight = 1.0;
  std::uint64_t seed = 1;  // network initialisation
  PinnCoefficient J1, J2, c, k;
  int progress_every = 0;      // > 0: a line on stderr every this many loss evaluations
  std::function<void()> poll;  // before each loss evaluation, when set (IdentifyConfig::poll)
};

// what one training sees: uniformly sampled t, the measured response x = φ2, the input u = φ1
// and its acceleration ddu = φ̈1 at every sample
struct PinnIdentifyData {
  Eigen::VectorXd t, x, u, ddu;
};

struct PinnIdentifyResult {
  double J1 = 0.0, J2 = 0.0, c = 0.0, k = 0.0;             // as trained
  Eigen::VectorXd x;                                       // N1 at every sample
  Eigen::VectorXd tau;                                     // N2 (the torque τ_f) at every sample
  double loss = 0.0, data_loss = 0.0, physics_loss = 0.0;  // scaled, at the end of training
  double rmse = 0.0;  // of N1 against the measured x over every sample (the seed's test set)
  long training_samples = 0;
  int iterations = 0;
  long evaluations = 0;
  double wall_s = 0.0;
};

// the loss of seed 002 Eq. 23 over a flat parameter vector [N1 | N2 | θ of the trainable
// coefficients J1, J2, c, k in that order], with its analytic gradient
class PinnIdentifyProblem {
 public:
  // throws std::invalid_argument for fewer than 5 training samples, mismatched sizes or a
  // non-uniform t
  PinnIdentifyProblem(const PinnIdentifyData& data, const PinnIdentifyOptions& options);

  int parameter_count() const { return n1_ + n2_ + static_cast<int>(trainable_.size()); }
  // the networks from the seed, the coefficients at their values
  Eigen::VectorXd initial_parameters() const;
  // the loss at p; the gradient into grad (parameter_count() values) when grad is not null.
  // Deterministic: the per-sample gradients are summed in fixed blocks, whatever the thread count.
  double loss(const double* p, double* grad) const;
  // the data part and the weighted physics part of the loss at p
  void loss_terms(const double* p, double& data_loss, double& physics_loss) const;
  // the coefficient values J1, J2, c, k at p
  void coefficients(const double* p, double out[4]) const;
  // N1 (x) and N2 (τ_f) at every sample of the data
  void predict(const double* p, Eigen::VectorXd& x, Eigen::VectorXd& tau) const;
  long training_samples() const { return m_; }

 private:
  double evaluate(const double* p, double* grad, double* data_loss, double* physics_loss) const;
  void inputs_at(long i, double in[2]) const;

  PinnIdentifyData data_;
  PinnIdentifyOptions options_;
  MlpLayout net_;
  int n1_ = 0, n2_ = 0;
  std::vector<int> trainable_;  // indices 0..3 into (J1, J2, c, k)
  PinnCoefficient coef_[4];
  long stride_ = 1, m_ = 0;                                      // training sample i_k = k·stride_, k < m_
  double h_ = 0.0;                                               // stride_·dt
  double t0_ = 0.0, t_half_ = 1.0, u_mid_ = 0.0, u_half_ = 1.0;  // input scaling
  double x_mid_ = 0.0, x_scale_ = 1.0, tau_scale_ = 1.0;         // output scaling
};

// trains the pair from the seed and returns the torque, the fitted response and the coefficients
PinnIdentifyResult pinn_identify(const PinnIdentifyData& data, const PinnIdentifyOptions& options);

}  // namespace fivsim
