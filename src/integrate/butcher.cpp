// src/integrate/butcher.cpp — Gauss–Legendre and RK4 tableaus (integrate/butcher.hpp).
#include "fivsim/integrate/butcher.hpp"

#include <cmath>
#include <stdexcept>

namespace fivsim {

bool ButcherTableau::explicit_method() const {
  for (int i = 0; i < stages; ++i)
    for (int j = i; j < stages; ++j)
      if (A(i, j) != 0.0) return false;
  return true;
}

namespace {

// P_q(x) and P_q'(x) by the three-term recurrence
void legendre(int q, double x, double& p, double& dp) {
  double p0 = 1.0, p1 = x;
  if (q == 0) {
    p = 1.0;
    dp = 0.0;
    return;
  }
  for (int k = 2; k <= q; ++k) {
    const double pk = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  p = p1;
  dp = q * (x * p1 - p0) / (x * x - 1.0);
}

}  // namespace

ButcherTableau gauss_legendre(int q) {
  if (q < 1 || q > kMaxGaussStages)
    throw std::invalid_argument("gauss_legendre: stages must be in 1.." + std::to_string(kMaxGaussStages));
  std::vector<double> x(q), w(q);
  // roots of P_q on (−1, 1), descending, by Newton from the Tricomi-type initial guesses
  for (int i = 0; i < q; ++i) {
    double r = std::cos(M_PI * (i + 0.75) / (q + 0.5));
    double p = 0.0, dp = 1.0;
    for (int it = 0; it < 100; ++it) {
      legendre(q, r, p, dp);
      const double step = p / dp;
      r -= step;
      if (std::abs(step) <= 1e-16 * std::abs(r) + 1e-300) break;
    }
    legendre(q, r, p, dp);
    x[i] = r;
    w[i] = 2.0 / ((1.0 - r * r) * dp * dp);
  }
  ButcherTableau t;
  t.name = "gauss" + std::to_string(q);
  t.stages = q;
  t.order = 2 * q;
  t.b.resize(q);
  t.c.resize(q);
  // ascending nodes on [0, 1]; barycentric weights of Legendre points: (−1)^i √((1 − x²) w)
  std::vector<double> bary(q);
  for (int i = 0; i < q; ++i) {
    const int src = q - 1 - i;
    t.c[i] = 0.5 * (1.0 + x[src]);
    t.b[i] = 0.5 * w[src];
    bary[i] = ((i % 2) ? -1.0 : 1.0) * std::sqrt((1.0 - x[src] * x[src]) * w[src]);
  }
  // a_ij = c_i Σ_k b_k ℓ_j(c_i c_k)
  t.a.assign(static_cast<std::size_t>(q) * q, 0.0);
  std::vector<double> ell(q);
  for (int i = 0; i < q; ++i) {
    for (int k = 0; k < q; ++k) {
      const double tau = t.c[i] * t.c[k];
      // second barycentric form; tau never equals a node except by accident, handled exactly
      int hit = -1;
      double denom = 0.0;
      for (int j = 0; j < q; ++j) {
        const double d = tau - t.c[j];
        if (d == 0.0) {
          hit = j;
          break;
        }
        ell[j] = bary[j] / d;
        denom += ell[j];
      }
      for (int j = 0; j < q; ++j) {
        const double l = hit >= 0 ? (j == hit ? 1.0 : 0.0) : ell[j] / denom;
        t.a[static_cast<std::size_t>(i * q + j)] += t.c[i] * t.b[k] * l;
      }
    }
  }
  return t;
}

ButcherTableau classical_rk4() {
  ButcherTableau t;
  t.name = "rk4";
  t.stages = 4;
  t.order = 4;
  t.a = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
  t.b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  t.c = {0, 0.5, 0.5, 1};
  return t;
}

}  // namespace fivsim
