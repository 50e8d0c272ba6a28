// src/identify/greybox.cpp — least squares, RLS, Nelder–Mead (serial and simplices stepped together),
// Levenberg–Marquardt and a genetic algorithm (identify/greybox.hpp; seed 002 §3.3).
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

namespace {

// a Nelder–Mead simplex between iterations: what the serial and the batched searches share
struct Simplex {
  std::vector<Eigen::VectorXd> x;
  std::vector<double> f;
  int iterations = 0;
  bool done = false;
  bool shrinking = false;    // batched: its iteration ends with a shrink, whose vertices are next
  double best_f = HUGE_VAL;  // the best value so far, and the iteration that found it
  int best_at = 0;
};

// the bounds of a search, its clamp, and the convergence tolerances
struct SearchBox {
  Eigen::VectorXd lo, hi, width;
  double ftol, xtol;
  Eigen::VectorXd clamp(const Eigen::VectorXd& x) const { return x.cwiseMax(lo).cwiseMin(hi); }
};

enum Move { kReflect, kExpand, kOutside, kInside, kMoves };

// one iteration's vertices by rank and the four points it may move the worst vertex to
struct SimplexIteration {
  long best = 0, worst = 0, second = 0;
  Eigen::VectorXd points[kMoves];
};

// a finite value, or +∞ (a failed simulation loses every comparison)
double finite_or_huge(double v) { return std::isfinite(v) ? v : HUGE_VAL; }

// x0 and x0 + scale_i e_i, each step turned back inside at the upper bound
std::vector<Eigen::VectorXd> simplex_vertices(const Eigen::VectorXd& x0, const Eigen::VectorXd& scale,
                                              const SearchBox& box) {
  const long n = x0.size();
  std::vector<Eigen::VectorXd> s(static_cast<std::size_t>(n + 1));
  s[0] = box.clamp(x0);
  for (long i = 0; i < n; ++i) {
    Eigen::VectorXd x = s[0];
    x(i) += scale(i);
    if (x(i) > box.hi(i)) x(i) = s[0](i) - scale(i);
    s[static_cast<std::size_t>(i + 1)] = box.clamp(x);
  }
  return s;
}

// ranks the vertices and builds the moves; false once the simplex has converged: its diameter
// below xtol of the box, and the spread of its values below ftol·(1 + |f_best|) or its best value
// not lowered for 10(n + 1) iterations (an objective with noise at that scale, a simulated
// response with located events, never agrees closer)
bool plan_iteration(Simplex& s, const SearchBox& box, SimplexIteration& it) {
  const long n = static_cast<long>(s.x.size()) - 1;
  std::vector<long> order(static_cast<std::size_t>(n + 1));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](long a, long b) { return s.f[a] < s.f[b]; });
  it.best = order[0];
  it.worst = order[n];
  it.second = order[n - 1];
  if (s.f[it.best] < s.best_f) s.best_f = s.f[it.best], s.best_at = s.iterations;
  const bool stalled = s.iterations - s.best_at >= 10 * (n + 1);
  double diameter = 0.0;
  const Eigen::VectorXd width = box.width.cwiseMax(1e-300);
  for (long i = 0; i <= n; ++i)
    diameter = std::max(diameter, ((s.x[i] - s.x[it.best]).cwiseQuotient(width)).cwiseAbs().maxCoeff());
  const bool agree = s.f[it.worst] - s.f[it.best] <= box.ftol * (1.0 + std::abs(s.f[it.best]));
  if (diameter <= box.xtol && (agree || stalled)) return false;
  Eigen::VectorXd centroid = Eigen::VectorXd::Zero(n);
  for (long i = 0; i <= n; ++i)
    if (i != it.worst) centroid += s.x[i];
  centroid /= static_cast<double>(n);
  const Eigen::VectorXd away = centroid - s.x[it.worst];
  it.points[kReflect] = box.clamp(centroid + away);
  it.points[kExpand] = box.clamp(centroid + 2.0 * away);
  it.points[kOutside] = box.clamp(centroid + 0.5 * (it.points[kReflect] - centroid));
  it.points[kInside] = box.clamp(centroid - 0.5 * away);
  return true;
}

// the serial rule (reflection 1, expansion 2, contraction ½): `value(move)` gives the objective at
// a move's point, evaluated when asked or looked up; true when the iteration must shrink instead
template <class Value>
bool take_move(Simplex& s, const SimplexIteration& it, Value&& value) {
  auto replace_worst = [&](Move m, double v) {
    s.x[it.worst] = it.points[m];
    s.f[it.worst] = v;
    return false;
  };
  const double fr = value(kReflect);
  if (fr < s.f[it.best]) {
    const double fe = value(kExpand);
    return fe < fr ? replace_worst(kExpand, fe) : replace_worst(kReflect, fr);
  }
  if (fr < s.f[it.second]) return replace_worst(kReflect, fr);
  // contraction: outside when the reflection beat the worst, inside otherwise
  const bool outside = fr < s.f[it.worst];
  const Move m = outside ? kOutside : kInside;
  const double fc = value(m);
  if (fc < (outside ? fr : s.f[it.worst])) return replace_worst(m, fc);
  return true;
}

// the shrink's new vertices, halfway to the best (the best stays)
std::vector<Eigen::VectorXd> shrink_points(const Simplex& s, long best, const SearchBox& box) {
  std::vector<Eigen::VectorXd> out;
  for (std::size_t i = 0; i < s.x.size(); ++i)
    if (static_cast<long>(i) != best) out.push_back(box.clamp(s.x[best] + 0.5 * (s.x[i] - s.x[best])));
  return out;
}

void apply_shrink(Simplex& s, long best, const std::vector<Eigen::VectorXd>& points, const double* values) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    if (static_cast<long>(i) == best) continue;
    s.x[i] = points[k];
    s.f[i] = values[k++];
  }
}

long best_vertex(const Simplex& s) { return std::min_element(s.f.begin(), s.f.end()) - s.f.begin(); }

}  // namespace

SearchResult nelder_mead(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& scale,
                         const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int max_iter, double ftol, double xtol) {
  SearchResult r;
  const SearchBox box{lo, hi, hi - lo, ftol, xtol};
  auto eval = [&](const Eigen::VectorXd& x) {
    ++r.evaluations;
    return finite_or_huge(f(x));
  };
  Simplex s;
  s.x = simplex_vertices(x0, scale, box);
  for (const Eigen::VectorXd& x : s.x) s.f.push_back(eval(x));
  SimplexIteration it;
  for (; s.iterations < max_iter && plan_iteration(s, box, it); ++s.iterations) {
    // the serial search evaluates a move only when the rule asks for it
    if (!take_move(s, it, [&](Move m) { return eval(it.points[m]); })) continue;
    const std::vector<Eigen::VectorXd> points = shrink_points(s, it.best, box);
    std::vector<double> values;
    for (const Eigen::VectorXd& x : points) values.push_back(eval(x));
    apply_shrink(s, it.best, points, values.data());
  }
  const long best = best_vertex(s);
  r.x = s.x[best];
  r.f = s.f[best];
  r.iterations = s.iterations;
  return r;
}

SearchResult nelder_mead_simplices(const BatchObjective& f, const Eigen::MatrixXd& starts, const Eigen::VectorXd& scale,
                                   const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int max_iter, double ftol,
                                   double xtol) {
  const long n = starts.rows(), count = starts.cols();
  const SearchBox box{lo, hi, hi - lo, ftol, xtol};
  SearchResult r;
  std::vector<Simplex> simplices(static_cast<std::size_t>(count));
  std::vector<SimplexIteration> its(simplices.size());
  std::vector<std::vector<Eigen::VectorXd>> shrinks(simplices.size());
  // the batch of one call: the points asked for, and where each simplex's points begin
  std::vector<Eigen::VectorXd> points;
  std::vector<long> first(simplices.size());
  auto evaluate = [&]() {
    Eigen::MatrixXd batch(n, static_cast<long>(points.size()));
    for (std::size_t j = 0; j < points.size(); ++j) batch.col(static_cast<long>(j)) = points[j];
    Eigen::VectorXd v = f(batch);
    for (long j = 0; j < v.size(); ++j) v(j) = finite_or_huge(v(j));
    r.evaluations += static_cast<long>(points.size());
    ++r.batches;
    return v;
  };
  // first batch: every simplex's vertices
  for (std::size_t k = 0; k < simplices.size(); ++k) {
    simplices[k].x = simplex_vertices(starts.col(static_cast<long>(k)), scale, box);
    first[k] = static_cast<long>(points.size());
    points.insert(points.end(), simplices[k].x.begin(), simplices[k].x.end());
  }
  Eigen::VectorXd v = evaluate();
  for (std::size_t k = 0; k < simplices.size(); ++k)
    simplices[k].f.assign(v.data() + first[k], v.data() + first[k] + n + 1);
  for (;;) {
    points.clear();
    for (std::size_t k = 0; k < simplices.size(); ++k) {
      Simplex& s = simplices[k];
      first[k] = static_cast<long>(points.size());
      if (s.done) continue;
      if (s.shrinking) {
        shrinks[k] = shrink_points(s, its[k].best, box);
        points.insert(points.end(), shrinks[k].begin(), shrinks[k].end());
      } else if (s.iterations < max_iter && plan_iteration(s, box, its[k])) {
        // every move the rule might ask for, evaluated before it asks
        points.insert(points.end(), its[k].points, its[k].points + kMoves);
      } else {
        s.done = true;
      }
    }
    if (points.empty()) break;
    v = evaluate();
    for (std::size_t k = 0; k < simplices.size(); ++k) {
      Simplex& s = simplices[k];
      if (s.done) continue;
      const double* at = v.data() + first[k];
      if (s.shrinking) {
        apply_shrink(s, its[k].best, shrinks[k], at);
        s.shrinking = false;
        ++s.iterations;
      } else if (take_move(s, its[k], [&](Move m) { return at[m]; })) {
        s.shrinking = true;  // the iteration ends with the next batch
      } else {
        ++s.iterations;
      }
    }
  }
  r.f = HUGE_VAL;
  for (const Simplex& s : simplices) {
    r.iterations += s.iterations;
    const long b = best_vertex(s);
    if (r.x.size() == 0 || s.f[b] < r.f) r.x = s.x[b], r.f = s.f[b];
  }
  return r;
}

Eigen::MatrixXd difference_batch(const Eigen::VectorXd& x, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                                 double fd_step, Eigen::VectorXd& h) {
  const long n = x.size();
  Eigen::MatrixXd batch(n, n + 1);
  h.resize(n);
  batch.col(0) = x;
  for (long i = 0; i < n; ++i) {
    h(i) = fd_step * (hi(i) - lo(i));
    if (x(i) + h(i) > hi(i)) h(i) = -h(i);
    batch.col(i + 1) = x;
    batch(i, i + 1) += h(i);
  }
  return batch;
}

Eigen::MatrixXd difference_jacobian(const Eigen::MatrixXd& residuals, long at, const Eigen::VectorXd& h) {
  Eigen::MatrixXd J(residuals.rows(), h.size());
  for (long i = 0; i < h.size(); ++i) J.col(i) = (residuals.col(at + 1 + i) - residuals.col(at)) / h(i);
  return J;
}

SearchResult levenberg_marquardt(const BatchResiduals& residuals, const Eigen::VectorXd& x0, const Eigen::VectorXd& lo,
                                 const Eigen::VectorXd& hi, int max_iter, double fd_step, double ftol, double xtol) {
  const long n = x0.size();
  const SearchBox box{lo, hi, hi - lo, ftol, xtol};
  SearchResult r;
  // a point and its n differenced neighbours as n + 1 columns of the batch
  auto with_neighbours = [&](const Eigen::VectorXd& x, Eigen::MatrixXd& batch, long at, Eigen::VectorXd& h) {
    batch.middleCols(at, n + 1) = difference_batch(x, lo, hi, fd_step, h);
  };
  struct Point {
    Eigen::VectorXd x, r;
    Eigen::MatrixXd J;
    double f = HUGE_VAL;
  };
  // the batch's point at column `at`: its residuals, mean square and Jacobian
  auto read = [&](const Eigen::MatrixXd& res, long at, const Eigen::VectorXd& x, const Eigen::VectorXd& h) {
    Point p;
    p.x = x;
    p.r = res.col(at);
    if (!p.r.allFinite()) return p;
    p.f = p.r.squaredNorm() / static_cast<double>(p.r.size());
    p.J = difference_jacobian(res, at, h);
    if (!p.J.allFinite()) p.f = HUGE_VAL;
    return p;
  };
  auto run = [&](const Eigen::MatrixXd& batch) {
    r.evaluations += batch.cols();
    ++r.batches;
    return residuals(batch);
  };
  Eigen::MatrixXd batch(n, n + 1);
  Eigen::VectorXd h(n);
  with_neighbours(box.clamp(x0), batch, 0, h);
  Point at = read(run(batch), 0, box.clamp(x0), h);
  if (!std::isfinite(at.f)) {
    r.x = at.x;
    r.f = HUGE_VAL;
    return r;
  }
  static constexpr double kDamping[3] = {0.1, 1.0, 10.0};
  double mu = 1e-3;
  for (; r.iterations < max_iter && mu < 1e16 && at.f > 0.0; ++r.iterations) {
    const Eigen::MatrixXd JtJ = at.J.transpose() * at.J;
    const Eigen::VectorXd g = at.J.transpose() * at.r;
    // Marquardt's scaling by diag JᵀJ, kept off zero for a parameter the output does not see
    const Eigen::VectorXd d = JtJ.diagonal().cwiseMax(1e-12 * std::max(1.0, JtJ.diagonal().maxCoeff()));
    batch.resize(n, 3 * (n + 1));
    std::vector<Eigen::VectorXd> steps_h(3, Eigen::VectorXd(n));
    for (int k = 0; k < 3; ++k) {
      Eigen::MatrixXd A = JtJ;
      A.diagonal() += mu * kDamping[k] * d;
      with_neighbours(box.clamp(at.x - A.ldlt().solve(g)), batch, k * (n + 1), steps_h[static_cast<std::size_t>(k)]);
    }
    const Eigen::MatrixXd res = run(batch);
    int chosen = -1;
    Point best;
    for (int k = 0; k < 3; ++k) {
      Point p = read(res, k * (n + 1), batch.col(k * (n + 1)), steps_h[static_cast<std::size_t>(k)]);
      if (p.f < best.f) best = std::move(p), chosen = k;
    }
    if (chosen < 0 || !(best.f < at.f)) {
      mu *= 100.0;  // no trial lowered f: a shorter, steeper step next
      continue;
    }
    const double drop = at.f - best.f;
    const double moved = ((best.x - at.x).cwiseQuotient(box.width.cwiseMax(1e-300))).cwiseAbs().maxCoeff();
    mu *= kDamping[chosen];
    at = std::move(best);
    if (drop <= ftol * at.f || moved <= xtol) {
      ++r.iterations;
      break;
    }
  }
  r.x = at.x;
  r.f = at.f;
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
  ++r.batches;
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
    ++r.batches;
  }
  long best = 0;
  fit.minCoeff(&best);
  r.x = pop.col(best);
  r.f = fit(best);
  return r;
}

}  // namespace fivsim
