// src/identify/greybox.cpp — least squares, RLS, Nelder–Mead and a genetic algorithm
// (identify/greybox.hpp; seed 002 §3.3).
#include "fivsim/identify/greybox.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fivsim/core/random.hpp"

namespace fivsim {

Eigen::VectorXd least_squares_fit(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y) {
  return phi.colPivHouseholderQr().solve(y);
}

Eigen::VectorXd recursive_least_squares(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y, double lambda,
                                        double p0) {
  const long n = phi.cols();
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(n);
  Eigen::MatrixXd P = p0 * Eigen::MatrixXd::Identity(n, n);
  for (long i = 0; i < phi.rows(); ++i) {
    const Eigen::VectorXd p = phi.row(i).transpose();
    const Eigen::VectorXd Pp = P * p;
    const Eigen::VectorXd K = Pp / (lambda + p.dot(Pp));
    theta += K * (y(i) - p.dot(theta));
    P = (P - K * Pp.transpose()) / lambda;
    P = 0.5 * (P + P.transpose());  // keep it symmetric against rounding
  }
  return theta;
}

SearchResult nelder_mead(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& scale,
                         const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int max_iter, double ftol, double xtol) {
  const long n = x0.size();
  SearchResult r;
  auto clamp = [&](Eigen::VectorXd x) { return x.cwiseMax(lo).cwiseMin(hi).eval(); };
  auto eval = [&](const Eigen::VectorXd& x) {
    ++r.evaluations;
    const double v = f(x);
    return std::isfinite(v) ? v : HUGE_VAL;
  };
  std::vector<Eigen::VectorXd> s(n + 1);
  std::vector<double> fs(n + 1);
  s[0] = clamp(x0);
  for (long i = 0; i < n; ++i) {
    Eigen::VectorXd x = s[0];
    x(i) += scale(i);
    if (x(i) > hi(i)) x(i) = s[0](i) - scale(i);
    s[i + 1] = clamp(x);
  }
  for (long i = 0; i <= n; ++i) fs[i] = eval(s[i]);
  std::vector<long> order(n + 1);
  const Eigen::VectorXd box = (hi - lo).cwiseMax(1e-300);
  for (r.iterations = 0; r.iterations < max_iter; ++r.iterations) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](long a, long b) { return fs[a] < fs[b]; });
    const long best = order[0], worst = order[n], second = order[n - 1];
    double diameter = 0.0;
    for (long i = 0; i <= n; ++i) diameter = std::max(diameter, ((s[i] - s[best]).cwiseQuotient(box)).cwiseAbs().maxCoeff());
    if (fs[worst] - fs[best] <= ftol * (1.0 + std::abs(fs[best])) && diameter <= xtol) break;
    Eigen::VectorXd centroid = Eigen::VectorXd::Zero(n);
    for (long i = 0; i <= n; ++i)
      if (i != worst) centroid += s[i];
    centroid /= static_cast<double>(n);
    const Eigen::VectorXd xr = clamp(centroid + (centroid - s[worst]));
    const double fr = eval(xr);
    if (fr < fs[best]) {
      const Eigen::VectorXd xe = clamp(centroid + 2.0 * (centroid - s[worst]));
      const double fe = eval(xe);
      if (fe < fr) s[worst] = xe, fs[worst] = fe;
      else s[worst] = xr, fs[worst] = fr;
      continue;
    }
    if (fr < fs[second]) {
      s[worst] = xr, fs[worst] = fr;
      continue;
    }
    // contraction: outside when the reflection beat the worst, inside otherwise
    const bool outside = fr < fs[worst];
    const Eigen::VectorXd xc = clamp(outside ? centroid + 0.5 * (xr - centroid) : centroid + 0.5 * (s[worst] - centroid));
    const double fc = eval(xc);
    if (fc < (outside ? fr : fs[worst])) {
      s[worst] = xc, fs[worst] = fc;
      continue;
    }
    for (long i = 0; i <= n; ++i) {
      if (i == best) continue;
      s[i] = clamp(s[best] + 0.5 * (s[i] - s[best]));
      fs[i] = eval(s[i]);
    }
  }
  const long best = std::min_element(fs.begin(), fs.end()) - fs.begin();
  r.x = s[best];
  r.f = fs[best];
  return r;
}

SearchResult genetic_search(const BatchObjective& f, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                            int population, int generations, std::uint64_t seed) {
  const long n = lo.size();
  const int P = std::max(4, population);
  std::uint64_t draw = 0;
  auto uniform = [&]() { return unit_draw(seed, 0x6761ULL, draw++); };
  auto gauss = [&]() {
    const double a = uniform(), b = uniform();
    return std::sqrt(-2.0 * std::log(1.0 - a)) * std::cos(2.0 * M_PI * b);
  };
  Eigen::MatrixXd pop(n, P);
  for (int j = 0; j < P; ++j)
    for (long i = 0; i < n; ++i) pop(i, j) = lo(i) + uniform() * (hi(i) - lo(i));
  SearchResult r;
  Eigen::VectorXd fit = f(pop);
  r.evaluations += P;
  for (int g = 0; g < generations; ++g) {
    ++r.iterations;
    std::vector<int> rank(P);
    std::iota(rank.begin(), rank.end(), 0);
    std::stable_sort(rank.begin(), rank.end(), [&](int a, int b) { return fit(a) < fit(b); });
    auto tournament = [&]() {
      int best = static_cast<int>(uniform() * P);
      for (int k = 0; k < 2; ++k) {
        const int c = static_cast<int>(uniform() * P);
        if (fit(c) < fit(best)) best = c;
      }
      return best;
    };
    Eigen::MatrixXd next(n, P);
    next.col(0) = pop.col(rank[0]);
    next.col(1) = pop.col(rank[1]);
    for (int j = 2; j < P; ++j) {
      const Eigen::VectorXd a = pop.col(tournament()), b = pop.col(tournament());
      for (long i = 0; i < n; ++i) {
        const double lo_ab = std::min(a(i), b(i)), d = std::abs(a(i) - b(i));
        double x = lo_ab - 0.5 * d + uniform() * 2.0 * d;
        if (uniform() < 1.0 / static_cast<double>(n)) x += 0.1 * (hi(i) - lo(i)) * gauss();
        next(i, j) = std::clamp(x, lo(i), hi(i));
      }
    }
    pop = next;
    fit = f(pop);
    r.evaluations += P;
  }
  long best = 0;
  fit.minCoeff(&best);
  r.x = pop.col(best);
  r.f = fit(best);
  return r;
}

}  // namespace fivsim
