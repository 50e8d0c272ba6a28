// tests/lcp/lcp_test_problems.hpp — small LCP problems for the solver tests.
#pragma once

#include <initializer_list>
#include <random>
#include <vector>

#include "fivsim/lcp/lcp.hpp"

namespace fivsim::test {

using Mat6 = LcpMatrix<double, 6>;
using Vec6 = LcpVector<double, 6>;

struct Problem6 {
  Mat6 A;
  Vec6 b;
};

inline Problem6 make_problem(std::initializer_list<std::initializer_list<double>> rows,
                             std::initializer_list<double> b) {
  Problem6 p;
  const int n = static_cast<int>(b.size());
  p.A.resize(n, n);
  p.b.resize(n);
  int i = 0;
  for (const auto& row : rows) {
    int j = 0;
    for (double v : row) p.A(i, j++) = v;
    ++i;
  }
  i = 0;
  for (double v : b) p.b[i++] = v;
  return p;
}

// A = B Bᵀ + 0.1·I, b uniform in [−1, 1]
inline Problem6 random_spd(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> B(n * n);
  for (double& v : B) v = u(rng);
  Problem6 p;
  p.A.resize(n, n);
  p.b.resize(n);
  for (int i = 0; i < n; ++i) {
    p.b[i] = u(rng);
    for (int j = 0; j < n; ++j) {
      double s = i == j ? 0.1 : 0.0;
      for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
      p.A(i, j) = s;
    }
  }
  return p;
}

// strictly row-diagonally dominant with a positive diagonal, hence a P-matrix; nonsymmetric
inline Problem6 random_p_matrix(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Problem6 p;
  p.A.resize(n, n);
  p.b.resize(n);
  for (int i = 0; i < n; ++i) {
    p.b[i] = u(rng);
    double off = 0.0;
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      p.A(i, j) = u(rng);
      off += std::abs(p.A(i, j));
    }
    p.A(i, i) = off + 0.05 + std::abs(u(rng));
  }
  return p;
}

}  // namespace fivsim::test
