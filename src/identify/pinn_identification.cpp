// src/identify/pinn_identification.cpp — the friction torque by physics-informed networks
// (identify/pinn_identification.hpp; seed 002 §4.3, Eq. 23).
#include "fivsim/identify/pinn_identification.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "fivsim/identify/record.hpp"

namespace fivsim {
namespace {

// training samples per gradient block: the blocks are summed in order, so the gradient does not
// depend on how many threads computed them
constexpr long kBlock = 32;

double bounded(const PinnCoefficient& c, double theta) { return c.lo + (c.hi - c.lo) * 0.5 * (1.0 + std::tanh(theta)); }

double bounded_slope(const PinnCoefficient& c, double theta) {
  const double th = std::tanh(theta);
  return (c.hi - c.lo) * 0.5 * (1.0 - th * th);
}

double magnitude(const PinnCoefficient& c) {
  return c.trainable ? std::max({std::abs(c.lo), std::abs(c.hi), std::abs(c.value)}) : std::abs(c.value);
}

// half the range of a signal (1 for a constant one, so that scaling never divides by zero)
double half_range(const Eigen::VectorXd& v, double& mid) {
  const double lo = v.minCoeff(), hi = v.maxCoeff();
  mid = 0.5 * (lo + hi);
  return hi > lo ? 0.5 * (hi - lo) : 1.0;
}

}  // namespace

PinnIdentifyProblem::PinnIdentifyProblem(const PinnIdentifyData& data, const PinnIdentifyOptions& options)
    : data_(data), options_(options) {
  const long n = data.t.size();
  if (data.x.size() != n || data.u.size() != n || data.ddu.size() != n)
    throw std::invalid_argument("pinn identification: t, x, u and ddu need one value per sample");
  if (options.train_every < 1) throw std::invalid_argument("pinn identification: train_every must be at least 1");
  stride_ = options.train_every;
  m_ = n > 0 ? (n - 1) / stride_ + 1 : 0;
  if (m_ < 5) throw std::invalid_argument("pinn identification: fewer than 5 training samples");
  if (!uniformly_sampled(data.t)) throw std::invalid_argument("pinn identification: t must be uniform");
  h_ = stride_ * (data.t(n - 1) - data.t(0)) / static_cast<double>(n - 1);
  net_ = make_mlp_layout(2, options.hidden, 1, options.activation, OutputMap::linear);
  n1_ = n2_ = net_.param_count();
  coef_[0] = options.J1;
  coef_[1] = options.J2;
  coef_[2] = options.c;
  coef_[3] = options.k;
  for (int j = 0; j < 4; ++j)
    if (coef_[j].trainable) {
      if (!(coef_[j].hi > coef_[j].lo))
        throw std::invalid_argument("pinn identification: a trainable coefficient needs lo < hi");
      trainable_.push_back(j);
    }

  t0_ = data.t(0);
  t_half_ = 0.5 * (data.t(n - 1) - data.t(0));
  u_half_ = half_range(data.u, u_mid_);
  x_scale_ = half_range(data.x, x_mid_);
  // the torques of the balance, each at its coefficient's largest magnitude, over the training
  // samples (the data's own differences stand in for N1's)
  double a2 = 0.0, a1 = 0.0, a0 = 0.0, au = 0.0;
  for (long k = 1; k + 1 < m_; ++k) {
    const long i = k * stride_;
    const double xm = data.x(i - stride_), x0 = data.x(i), xp = data.x(i + stride_);
    a2 += std::pow((xp - 2.0 * x0 + xm) / (h_ * h_), 2);
    a1 += std::pow((xp - xm) / (2.0 * h_), 2);
    a0 += x0 * x0;
    au += data.ddu(i) * data.ddu(i);
  }
  const double inner = static_cast<double>(m_ - 2);
  tau_scale_ = std::max({magnitude(coef_[1]) * std::sqrt(a2 / inner), magnitude(coef_[2]) * std::sqrt(a1 / inner),
                         magnitude(coef_[3]) * std::sqrt(a0 / inner), magnitude(coef_[0]) * std::sqrt(au / inner)});
  if (!(tau_scale_ > 0.0) || !std::isfinite(tau_scale_)) tau_scale_ = 1.0;
}

void PinnIdentifyProblem::inputs_at(long i, double in[2]) const {
  in[0] = (data_.t(i) - t0_) / t_half_ - 1.0;
  in[1] = (data_.u(i) - u_mid_) / u_half_;
}

Eigen::VectorXd PinnIdentifyProblem::initial_parameters() const {
  Eigen::VectorXd p(parameter_count());
  // N1 and N2 from their own streams of the seed
  mlp_init(net_, options_.seed, 1, p.data());
  mlp_init(net_, options_.seed, 2, p.data() + n1_);
  for (std::size_t j = 0; j < trainable_.size(); ++j) {
    const PinnCoefficient& c = coef_[trainable_[j]];
    // the inverse of the bounded map, kept off the bounds where its slope vanishes
    const double s = std::clamp(2.0 * (c.value - c.lo) / (c.hi - c.lo) - 1.0, -0.999, 0.999);
    p(n1_ + n2_ + static_cast<long>(j)) = std::atanh(s);
  }
  return p;
}

void PinnIdentifyProblem::coefficients(const double* p, double out[4]) const {
  for (int j = 0; j < 4; ++j) out[j] = coef_[j].value;
  for (std::size_t j = 0; j < trainable_.size(); ++j)
    out[trainable_[j]] = bounded(coef_[trainable_[j]], p[n1_ + n2_ + j]);
}

double PinnIdentifyProblem::loss(const double* p, double* grad) const { return evaluate(p, grad, nullptr, nullptr); }

void PinnIdentifyProblem::loss_terms(const double* p, double& data_loss, double& physics_loss) const {
  evaluate(p, nullptr, &data_loss, &physics_loss);
}

double PinnIdentifyProblem::evaluate(const double* p, double* grad, double* data_loss, double* physics_loss) const {
  const int cs = net_.cache_size();
  const long m = m_;
  std::vector<double> cache1(static_cast<std::size_t>(m * cs)), cache2(static_cast<std::size_t>(m * cs));
  std::vector<double> xh(static_cast<std::size_t>(m)), tau(static_cast<std::size_t>(m));
  const double* p1 = p;
  const double* p2 = p + n1_;
#pragma omp parallel for schedule(static)
  for (long k = 0; k < m; ++k) {
    double in[2];
    inputs_at(k * stride_, in);
    xh[k] = x_mid_ + x_scale_ * mlp_forward(net_, p1, in, cache1.data() + k * cs)[0];
    tau[k] = tau_scale_ * mlp_forward(net_, p2, in, cache2.data() + k * cs)[0];
  }
  double J[4];
  coefficients(p, J);
  const double J1 = J[0], J2 = J[1], c = J[2], kk = J[3];
  const double w = options_.physics_weight;
  const double inner = static_cast<double>(m - 2);

  // the losses, and dL/dx̂ (dx), dL/dτ (dtau) per training sample and dL/dcoefficient (dJ)
  std::vector<double> dx(static_cast<std::size_t>(m), 0.0), dtau(static_cast<std::size_t>(m), 0.0);
  double dJ[4] = {0.0, 0.0, 0.0, 0.0};
  double ld = 0.0, lp = 0.0;
  for (long k = 0; k < m; ++k) {
    const double e = (xh[k] - data_.x(k * stride_)) / x_scale_;
    ld += e * e / static_cast<double>(m);
    dx[k] += 2.0 * e / (static_cast<double>(m) * x_scale_);
  }
  const double h2 = h_ * h_;
  for (long k = 1; k + 1 < m; ++k) {
    const double d2 = (xh[k + 1] - 2.0 * xh[k] + xh[k - 1]) / h2;
    const double d1 = (xh[k + 1] - xh[k - 1]) / (2.0 * h_);
    const double ddu = data_.ddu(k * stride_);
    const double r = J2 * d2 + c * d1 + kk * xh[k] + tau[k] - J1 * ddu;
    lp += w * (r / tau_scale_) * (r / tau_scale_) / inner;
    // dL/dr
    const double g = 2.0 * w * r / (inner * tau_scale_ * tau_scale_);
    dx[k - 1] += g * (J2 / h2 - c / (2.0 * h_));
    dx[k] += g * (-2.0 * J2 / h2 + kk);
    dx[k + 1] += g * (J2 / h2 + c / (2.0 * h_));
    dtau[k] = g;
    dJ[0] -= g * ddu;
    dJ[1] += g * d2;
    dJ[2] += g * d1;
    dJ[3] += g * xh[k];
  }
  if (data_loss) *data_loss = ld;
  if (physics_loss) *physics_loss = lp;
  if (!grad) return ld + lp;

  const int np = parameter_count();
  const long blocks = (m + kBlock - 1) / kBlock;
  const int wmax = net_.max_width();
  std::vector<double> block_grad(static_cast<std::size_t>(blocks * (n1_ + n2_)), 0.0);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < blocks; ++b) {
    double* g = block_grad.data() + b * (n1_ + n2_);
    std::vector<double> scratch(static_cast<std::size_t>(2 * wmax));
    for (long k = b * kBlock; k < std::min(m, (b + 1) * kBlock); ++k) {
      const double d1 = dx[k] * x_scale_, d2 = dtau[k] * tau_scale_;
      mlp_backward(net_, p1, cache1.data() + k * cs, &d1, g, scratch.data());
      if (d2 != 0.0) mlp_backward(net_, p2, cache2.data() + k * cs, &d2, g + n1_, scratch.data());
    }
  }
  std::fill(grad, grad + np, 0.0);
  for (long b = 0; b < blocks; ++b)
    for (int i = 0; i < n1_ + n2_; ++i) grad[i] += block_grad[static_cast<std::size_t>(b * (n1_ + n2_) + i)];
  for (std::size_t j = 0; j < trainable_.size(); ++j) {
    const int which = trainable_[j];
    const long at = n1_ + n2_ + static_cast<long>(j);
    grad[at] = dJ[which] * bounded_slope(coef_[which], p[at]);
  }
  return ld + lp;
}

void PinnIdentifyProblem::predict(const double* p, Eigen::VectorXd& x, Eigen::VectorXd& tau) const {
  const long n = data_.t.size();
  x.resize(n);
  tau.resize(n);
  const int cs = net_.cache_size();
#pragma omp parallel
  {
    std::vector<double> cache(static_cast<std::size_t>(cs));
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) {
      double in[2];
      inputs_at(i, in);
      x(i) = x_mid_ + x_scale_ * mlp_forward(net_, p, in, cache.data())[0];
      tau(i) = tau_scale_ * mlp_forward(net_, p + n1_, in, cache.data())[0];
    }
  }
}

PinnIdentifyResult pinn_identify(const PinnIdentifyData& data, const PinnIdentifyOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const PinnIdentifyProblem problem(data, options);
  const int n = problem.parameter_count();
  Eigen::VectorXd p = problem.initial_parameters();
  std::vector<double> grad(static_cast<std::size_t>(n)),
      work(static_cast<std::size_t>(optimizer_work_size(n, options.optimizer)));
  long evaluations = 0;
  auto objective = [&](const double* x, double* g) {
    if (options.poll) options.poll();
    const double f = problem.loss(x, g);
    ++evaluations;
    if (options.progress_every > 0 && evaluations % options.progress_every == 0)
      std::fprintf(stderr, "pinn: %ld loss evaluations, loss %.4e, %.1f s\n", evaluations, f,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return f;
  };
  const OptimizerResult opt = minimize(n, p.data(), grad.data(), objective, options.optimizer, work.data());

  PinnIdentifyResult r;
  double J[4];
  problem.coefficients(p.data(), J);
  r.J1 = J[0];
  r.J2 = J[1];
  r.c = J[2];
  r.k = J[3];
  problem.loss_terms(p.data(), r.data_loss, r.physics_loss);
  r.loss = r.data_loss + r.physics_loss;
  problem.predict(p.data(), r.x, r.tau);
  r.rmse = root_mean_square(r.x - data.x);
  r.training_samples = problem.training_samples();
  r.iterations = opt.iterations;
  r.evaluations = evaluations;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace fivsim
