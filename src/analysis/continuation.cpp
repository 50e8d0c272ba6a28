// src/analysis/continuation.cpp — pseudo-arclength continuation with fold and Hopf test functions
// (analysis/continuation.hpp; Keller 1977, Kuznetsov 2004 §10.2).
#include "fivsim/analysis/continuation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fivsim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// a point (x, p) as one vector z of n + 1 numbers
VectorXd joined(const VectorXd& x, double p) {
  VectorXd z(x.size() + 1);
  z << x, p;
  return z;
}

class Corrector {
 public:
  Corrector(ContinuationProblem& problem, const ContinuationSettings& set) : problem_(problem), set_(set) {}

  // Newton on [F(z); τᵀ(z − z0) − σ] = 0 from z0 + σ τ; the corrected point in z, its F_x and F_p
  // in Fx / Fp, and the iterations taken; false where it does not converge
  bool correct(const VectorXd& z0, const VectorXd& tau, double sigma, VectorXd& z, int& iterations) {
    n_ = problem_.size();
    z = z0 + sigma * tau;
    MatrixXd A(n_ + 1, n_ + 1);
    VectorXd rhs(n_ + 1);
    for (int it = 1; it <= set_.max_newton; ++it) {
      if (!problem_.evaluate(z.head(n_), z(n_), F_, &Fx_, &Fp_) || !F_.allFinite()) return false;
      A.topLeftCorner(n_, n_) = Fx_;
      A.topRightCorner(n_, 1) = Fp_;
      A.bottomRows(1) = tau.transpose();
      rhs.head(n_) = -F_;
      rhs(n_) = sigma - tau.dot(z - z0);
      const VectorXd dz = A.fullPivLu().solve(rhs);
      if (!dz.allFinite()) return false;
      z += dz;
      if (dz.cwiseAbs().maxCoeff() <= set_.tol * (1.0 + z.cwiseAbs().maxCoeff())) {
        // F, F_x and F_p at the corrected point, for its tangent and its tests
        if (!problem_.evaluate(z.head(n_), z(n_), F_, &Fx_, &Fp_) || !F_.allFinite()) return false;
        if (F_.cwiseAbs().maxCoeff() > 1e3 * set_.tol * (1.0 + z.cwiseAbs().maxCoeff())) continue;
        iterations = it;
        return true;
      }
    }
    return false;
  }

  // the unit tangent at the last corrected point, oriented along `along` (τᵀ along > 0)
  VectorXd tangent(const VectorXd& along) {
    n_ = problem_.size();
    MatrixXd A(n_ + 1, n_ + 1);
    A.topLeftCorner(n_, n_) = Fx_;
    A.topRightCorner(n_, 1) = Fp_;
    A.bottomRows(1) = along.transpose();
    VectorXd e = VectorXd::Zero(n_ + 1);
    e(n_) = 1.0;
    VectorXd t = A.fullPivLu().solve(e);
    t.normalize();
    return t.dot(along) < 0.0 ? VectorXd(-t) : t;
  }

  const MatrixXd& Fx() const { return Fx_; }
  const VectorXd& Fp() const { return Fp_; }
  void set_jacobians(const MatrixXd& Fx, const VectorXd& Fp) {
    Fx_ = Fx;
    Fp_ = Fp;
  }

 private:
  ContinuationProblem& problem_;
  const ContinuationSettings& set_;
  int n_ = 0;
  VectorXd F_, Fp_;
  MatrixXd Fx_;
};

// a map's fixed point: its multipliers pt.eig sorted by modulus, its stability and the test
// functions of its multipliers
void judge_multipliers(ContinuationPoint& pt) {
  std::sort(pt.eig.data(), pt.eig.data() + pt.eig.size(),
            [](const std::complex<double>& a, const std::complex<double>& b) {
              return std::abs(a) != std::abs(b) ? std::abs(a) > std::abs(b) : a.imag() > b.imag();
            });
  pt.max_real = pt.eig.size() > 0 ? std::abs(pt.eig(0)) : 0.0;  // the largest modulus
  pt.stable = pt.max_real < 1.0 - 1e-9;
  pt.hopf_test = -HUGE_VAL;
  pt.pd_test = HUGE_VAL;
  pt.torus_test = -HUGE_VAL;
  for (int i = 0; i < pt.eig.size(); ++i) {
    if (std::abs(pt.eig(i).imag()) <= 1e-9 * (1.0 + std::abs(pt.eig(i))))
      pt.pd_test = std::min(pt.pd_test, pt.eig(i).real() + 1.0);
    else
      pt.torus_test = std::max(pt.torus_test, std::abs(pt.eig(i)) - 1.0);
  }
}

// the point's eigenvalues (largest real part first) and test functions
void judge(ContinuationProblem& problem, const MatrixXd& Fx, const VectorXd& tau, ContinuationPoint& pt) {
  pt.eig = problem.eigenvalues(pt.x, pt.p, Fx);
  pt.fold_test = tau(tau.size() - 1);
  pt.period = problem.period(pt.x, pt.p);
  pt.signature = problem.signature(pt.x, pt.p);
  if (problem.multipliers()) {
    judge_multipliers(pt);
    return;
  }
  pt.pd_test = HUGE_VAL;
  pt.torus_test = -HUGE_VAL;
  std::sort(pt.eig.data(), pt.eig.data() + pt.eig.size(),
            [](const std::complex<double>& a, const std::complex<double>& b) {
              return a.real() != b.real() ? a.real() > b.real() : a.imag() > b.imag();
            });
  pt.max_real = pt.eig.size() > 0 ? pt.eig(0).real() : -HUGE_VAL;
  // a real part below this is zero: the size of the spectrum times the rounding of an eigensolver
  const double scale = pt.eig.size() > 0 ? pt.eig.cwiseAbs().maxCoeff() : 0.0;
  pt.stable = pt.max_real < -1e-12 * (1.0 + scale);
  // the largest real part of a complex pair less a rounding margin: an undamped pair sits on the
  // axis within rounding and counts as ≤ 0 (the collision of two such pairs that leave it, a
  // flutter point, is then a crossing too)
  pt.hopf_test = -HUGE_VAL;
  for (int i = 0; i < pt.eig.size(); ++i)
    if (std::abs(pt.eig(i).imag()) > 1e-9 * (1.0 + scale))
      pt.hopf_test = std::max(pt.hopf_test, pt.eig(i).real() - 1e-10 * (1.0 + scale));
}

double test_of(const ContinuationPoint& pt, BifurcationKind k) {
  switch (k) {
    case BifurcationKind::fold:
      return pt.fold_test;
    case BifurcationKind::hopf:
      return pt.hopf_test;
    case BifurcationKind::period_doubling:
      return pt.pd_test;
    default:
      return pt.torus_test;
  }
}

// the smooth function a bracketed sign change is located on. A fold: dp/ds. A Hopf point where a
// damped pair crosses: its real part, without the margin. A pair that leaves the axis where two
// undamped ones collide (flutter): Re[((λ₁ − λ₂)/2)²] of the two eigenvalues of the upper
// half-plane nearest iω (ω the crossing's frequency), which is −(half their distance)² before the
// collision and +(real part)² after — the discriminant of the pair, smooth through it, where the
// real parts themselves are ill-conditioned near the double eigenvalue (errors of ε|J|²/distance)
struct LocatingTest {
  BifurcationKind kind = BifurcationKind::fold;
  bool collision = false;
  double omega = 0.0;
  double operator()(const ContinuationPoint& pt) const {
    if (kind != BifurcationKind::hopf) return test_of(pt, kind);
    if (!collision) {
      double re = -HUGE_VAL;
      for (int i = 0; i < pt.eig.size(); ++i)
        if (pt.eig(i).imag() != 0.0) re = std::max(re, pt.eig(i).real());
      return re;
    }
    int a = -1, b = -1;
    for (int i = 0; i < pt.eig.size(); ++i) {
      if (!(pt.eig(i).imag() > 0.0)) continue;
      const double d = std::abs(pt.eig(i) - std::complex<double>(0.0, omega));
      if (a < 0 || d < std::abs(pt.eig(a) - std::complex<double>(0.0, omega))) {
        b = a;
        a = i;
      } else if (b < 0 || d < std::abs(pt.eig(b) - std::complex<double>(0.0, omega))) {
        b = i;
      }
    }
    if (b < 0) return nan("");
    const std::complex<double> half = 0.5 * (pt.eig(a) - pt.eig(b));
    return (half * half).real();
  }
};

// the test a sign change between `before` and `after` is located on
LocatingTest locating_test(BifurcationKind k, const ContinuationPoint& before, const ContinuationPoint& after) {
  LocatingTest t;
  t.kind = k;
  if (k != BifurcationKind::hopf) return t;
  const ContinuationPoint& unstable = before.hopf_test >= 0.0 ? before : after;
  const ContinuationPoint& neutral = before.hopf_test >= 0.0 ? after : before;
  // the crossing pair on the unstable side: the complex eigenvalue of largest real part
  double re = -HUGE_VAL;
  for (int i = 0; i < unstable.eig.size(); ++i)
    if (unstable.eig(i).imag() > 0.0 && unstable.eig(i).real() > re) {
      re = unstable.eig(i).real();
      t.omega = unstable.eig(i).imag();
    }
  // on the other side every complex pair on the axis within the margin: undamped, a collision
  t.collision = true;
  const double scale = neutral.eig.size() > 0 ? neutral.eig.cwiseAbs().maxCoeff() : 0.0;
  for (int i = 0; i < neutral.eig.size(); ++i)
    if (neutral.eig(i).imag() != 0.0 && std::abs(neutral.eig(i).real()) > 1e-10 * (1.0 + scale)) t.collision = false;
  return t;
}

bool changes_sign(double a, double b) {
  return std::isfinite(a) && std::isfinite(b) && ((a < 0.0 && b >= 0.0) || (a >= 0.0 && b < 0.0));
}

// back to the description of the branch's last point `last` where a restart on a new side failed
// (a problem that adapts may have laid itself out for the other side, in as many unknowns or not)
void adapt_back(ContinuationProblem& problem, const ContinuationPoint& last, int n) {
  if (problem.size() == n && problem.point_size() == n) return;
  VectorXd x = last.x;
  problem.adapt(x, last.p);
}

// the branch restarted at z_at, a point whose signature differs from the last one's (`before`,
// its tangent τ): the problem adapted to the point first; the tangent at z_at from its own
// Jacobians — a nonsmooth orbit's branch has a corner at a grazing point, where the last tangent
// misses it — oriented so that a short step keeps z_at's signature (along τ where both do, along
// τ's parameter where the unknowns changed); the point in `at`, its tangent in tau_at, the grazing
// point in `bif` (`turns` where the branch turns back in p: two orbits meet and vanish there, a
// nonsmooth fold). False where neither orientation stays on the new side
bool restart_on_new_side(ContinuationProblem& problem, Corrector& corr, const ContinuationSettings& set,
                         const VectorXd& z_in, const VectorXd& tau, const ContinuationPoint& before, double ds,
                         ContinuationPoint& at, VectorXd& tau_at, Bifurcation& bif) {
  const int n_before = static_cast<int>(tau.size()) - 1, n_in = static_cast<int>(z_in.size()) - 1;
  VectorXd x_at = z_in.head(n_in);
  if (!problem.adapt(x_at, z_in(n_in))) return false;
  const int n = problem.size();
  const VectorXd z_at = joined(x_at, z_in(n_in));
  VectorXd along = tau;
  if (n != n_before) {
    along = VectorXd::Zero(n + 1);
    along(n) = tau(n_before) >= 0.0 ? 1.0 : -1.0;
  }
  const long signature = problem.signature(z_at.head(n), z_at(n));
  VectorXd F, Fp, zx;
  MatrixXd Fx;
  if (!problem.evaluate(z_at.head(n), z_at(n), F, &Fx, &Fp)) return false;
  corr.set_jacobians(Fx, Fp);
  const VectorXd t = corr.tangent(along);
  const double sigma = std::clamp(0.1 * ds, set.ds_min, set.ds_max);
  bool found = false;
  for (const double sign : {1.0, -1.0}) {
    int its = 0;
    if (!corr.correct(z_at, sign * t, sigma, zx, its) || problem.signature(zx.head(n), zx(n)) != signature) continue;
    tau_at = sign * t;
    found = true;
    break;
  }
  if (!found) return false;
  corr.set_jacobians(Fx, Fp);
  at.x = z_at.head(n);
  at.p = z_at(n);
  judge(problem, Fx, tau_at, at);
  // a problem that adapted back to the branch's own description found no new side
  if (at.signature == before.signature) return false;
  bif.kind = BifurcationKind::grazing;
  bif.p = at.p;
  bif.x = at.x;
  bif.signature_before = before.signature;
  bif.signature_after = at.signature;
  bif.turns = (tau_at(n) > 0.0) != (tau(n_before) > 0.0);
  return true;
}

// the test functions' sign changes between `prev` and `pt` (ds along τ from z, prev's point; z_pt
// pt's), each located on the arclength from prev by the Illinois method, every trial corrected onto
// the branch; into `found` (after branch point `after_point`) where it lies in [p_min, p_max]
void locate_test_zeros(ContinuationProblem& problem, Corrector& corr, const ContinuationSettings& set,
                       const VectorXd& z, const VectorXd& tau, double ds, const ContinuationPoint& prev,
                       const ContinuationPoint& pt, const VectorXd& z_pt, long after_point,
                       std::vector<Bifurcation>& found) {
  const int n = problem.size();
  for (BifurcationKind k :
       {BifurcationKind::fold, BifurcationKind::hopf, BifurcationKind::period_doubling, BifurcationKind::torus}) {
    if (!changes_sign(test_of(prev, k), test_of(pt, k))) continue;
    const LocatingTest test = locating_test(k, prev, pt);
    double fa = test(prev), fb = test(pt);
    double a = 0.0, b = ds, pa = prev.p, pb = pt.p;
    VectorXd zx = z_pt;
    ContinuationPoint at = pt;
    int side = 0;
    for (int it = 0; it < 100 && std::abs(pb - pa) > set.locate_tol; ++it) {
      double sigma = (a * fb - b * fa) / (fb - fa);
      if (!(sigma > a && sigma < b)) sigma = 0.5 * (a + b);
      int its = 0;
      if (!corr.correct(z, tau, sigma, zx, its)) break;
      at.x = zx.head(n);
      at.p = zx(n);
      judge(problem, corr.Fx(), corr.tangent(tau), at);
      const double f = test(at);
      if (!std::isfinite(f)) break;
      if (changes_sign(fa, f)) {
        b = sigma, fb = f, pb = at.p;
        if (side == -1) fa *= 0.5;
        side = -1;
      } else {
        a = sigma, fa = f, pa = at.p;
        if (side == 1) fb *= 0.5;
        side = 1;
      }
    }
    Bifurcation bif;
    bif.kind = k;
    bif.p = at.p;
    bif.x = at.x;
    bif.after_point = after_point;
    bif.test = test(at);
    // a torus point's pair: its angle on the circle
    if (k == BifurcationKind::torus)
      for (int i = 0; i < at.eig.size(); ++i)
        if (std::abs(at.eig(i).imag()) > 0.0) bif.frequency = std::max(bif.frequency, std::abs(std::arg(at.eig(i))));
    // the crossing pair's frequency: the complex pair of largest real part
    if (k == BifurcationKind::hopf) {
      double re = -HUGE_VAL;
      for (int i = 0; i < at.eig.size(); ++i)
        if (std::abs(at.eig(i).imag()) > 0.0 && at.eig(i).real() > re) {
          re = at.eig(i).real();
          bif.frequency = std::abs(at.eig(i).imag());
        }
    }
    // a multiplier's crossing is located on a test that carries the integrator's error: the
    // point moves to the zero of the test on the orbit solved finer there (one secant step with
    // the test's slope between the bracketing points), and the step's length is the error of
    // the coarser location
    ContinuationPoint fine;
    if ((k == BifurcationKind::period_doubling || k == BifurcationKind::torus) &&
        problem.refined_eigenvalues(at.x, at.p, fine.eig)) {
      judge_multipliers(fine);
      const double slope = (test(pt) - test(prev)) / (pt.p - prev.p);
      const double shift = -test(fine) / slope;
      if (std::isfinite(shift)) {
        bif.p_error = std::abs(shift);
        if (bif.p_error <= std::abs(pt.p - prev.p)) bif.p = at.p + shift;
      }
    }
    if (bif.p >= set.p_min && bif.p <= set.p_max) found.push_back(bif);
  }
}

// A change of the problem's signature between `prev` and `pt` (z, τ the last point's, ds the step
// to pt): located by bisection on the arclength from prev (each trial corrected onto the branch)
// to locate_tol in p, and the branch restarted at the first point found on the new side. The test
// functions' zeros between prev and the grazing point's old side are located first, into
// `before` (after branch point `after_point`): the multipliers jump at the grazing point, so that
// a sign change across it is no crossing, while one short of it is
bool cross_signature_change(ContinuationProblem& problem, Corrector& corr, const ContinuationSettings& set,
                            const VectorXd& z, const VectorXd& tau, double ds, const ContinuationPoint& prev,
                            const ContinuationPoint& pt, long after_point, std::vector<Bifurcation>& before,
                            ContinuationPoint& at, VectorXd& tau_at, Bifurcation& bif) {
  const int n = problem.size();
  double a = 0.0, b = ds, pa = prev.p, pb = pt.p;
  VectorXd zx, z_at = joined(pt.x, pt.p), z_old = z;
  for (int it = 0; it < 100 && std::abs(pb - pa) > set.locate_tol; ++it) {
    const double sigma = 0.5 * (a + b);
    int its = 0;
    if (!corr.correct(z, tau, sigma, zx, its)) break;
    if (problem.signature(zx.head(n), zx(n)) == prev.signature) {
      a = sigma, pa = zx(n);
      z_old = zx;
    } else {
      b = sigma, pb = zx(n);
      z_at = zx;
    }
  }
  ContinuationPoint old;
  old.x = z_old.head(n);
  old.p = z_old(n);
  VectorXd F, Fp;
  MatrixXd Fx;
  if (a > 0.0 && problem.evaluate(old.x, old.p, F, &Fx, &Fp)) {
    corr.set_jacobians(Fx, Fp);
    judge(problem, Fx, corr.tangent(tau), old);
    locate_test_zeros(problem, corr, set, z, tau, a, prev, old, z_old, after_point, before);
  }
  if (!restart_on_new_side(problem, corr, set, z_at, tau, prev, ds, at, tau_at, bif)) {
    adapt_back(problem, prev, n);
    before.clear();
    return false;
  }
  bif.test = pb - pa;
  return true;
}

// a multiplier within 1e-3 of one: where a branch of orbits stalls there, its cause is smooth (the
// augmented Jacobian singular with DP − I: a branch point, such as a doubled orbit's end on the
// orbit it doubles), not a nonsmooth fold another orbit's branch meets
bool has_unit_multiplier(const ContinuationPoint& pt) {
  for (int i = 0; i < pt.eig.size(); ++i)
    if (std::abs(pt.eig(i) - 1.0) < 1e-3) return true;
  return false;
}

// Where the steps fail below ds_min at `last` (its tangent τ) and the problem has a signature: a branch that
// ends at a nonsmooth fold, where it meets another orbit's (a stick phase of zero length: the
// stick-slip cycle and the slip cycle that grazes). The other branch passes through the same point:
// Newton at last's parameter from the problem's own guesses of it, then from last's state moved a
// little along each coordinate, by 1e-9 to 1e-2 of its size, until it converges to a point of
// another signature nearby; then the branch restarts there. False where none is found
bool jump_at_stall(ContinuationProblem& problem, Corrector& corr, const ContinuationSettings& set, const VectorXd& tau,
                   const ContinuationPoint& last, ContinuationPoint& at, VectorXd& tau_at, Bifurcation& bif) {
  const int n = problem.size(), np = problem.point_size();
  const double scale = 1.0 + last.x.head(np).cwiseAbs().maxCoeff();
  // the problem's own guesses first (a vanishing segment dropped), corrected a little back along
  // the branch (1e-8 to 1e-6 of the parameter's size): at the stall the two orbits are too close for
  // a run to tell their events apart; then moved points
  for (int k = 0;; ++k) {
    VectorXd guess = last.x;
    if (!problem.other_branch_guess(guess, last.p, k)) break;
    for (const double back : {1e-8, 1e-7, 1e-6}) {
      const double p = last.p - std::copysign(back * (1.0 + std::abs(last.p)), tau(n));
      VectorXd x = guess;
      const bool found = solve_at_fixed_parameter(problem, x, p, set) && problem.signature(x, p) != last.signature &&
                         (x.head(np) - last.x.head(np)).cwiseAbs().maxCoeff() <= 1e-3 * scale;
      if (found && restart_on_new_side(problem, corr, set, joined(x, p), tau, last, set.ds, at, tau_at, bif)) {
        bif.test = (x.head(np) - last.x.head(np)).norm();
        return true;
      }
    }
    adapt_back(problem, last, n);
  }
  for (const double eps : {1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2})
    for (int i = 0; i < np; ++i)
      for (const double sign : {1.0, -1.0}) {
        VectorXd x = last.x;
        x(i) += sign * eps * scale;
        // the point moved, then described (and corrected) as the problem describes it there
        const bool found = problem.adapt(x, last.p) && solve_at_fixed_parameter(problem, x, last.p, set) &&
                           problem.signature(x, last.p) != last.signature &&
                           (x.head(np) - last.x.head(np)).cwiseAbs().maxCoeff() <= 1e2 * eps * scale;
        if (found && restart_on_new_side(problem, corr, set, joined(x, last.p), tau, last, set.ds, at, tau_at, bif)) {
          bif.test = (x.head(np) - last.x.head(np)).norm();
          return true;
        }
        adapt_back(problem, last, n);
      }
  return false;
}

}  // namespace

Eigen::MatrixXd bialternate_sum(const Eigen::MatrixXd& A) {
  const int n = static_cast<int>(A.rows()), m = n * (n - 1) / 2;
  // basis index of the pair (i, j), i > j
  const auto at = [](int i, int j) { return i * (i - 1) / 2 + j; };
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(m, m);
  for (int p = 1; p < n; ++p)
    for (int q = 0; q < p; ++q) {
      // X = A E + E Aᵀ for E = e_p e_qᵀ − e_q e_pᵀ: A's column p in X's column q, −A's column q in
      // column p, and their transposes in rows p and q
      Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, n);
      X.col(q) += A.col(p);
      X.col(p) -= A.col(q);
      X.row(p) += A.col(q).transpose();
      X.row(q) -= A.col(p).transpose();
      for (int r = 1; r < n; ++r)
        for (int c = 0; c < r; ++c) B(at(r, c), at(p, q)) = X(r, c);
    }
  return B;
}

const char* bifurcation_name(BifurcationKind k) {
  switch (k) {
    case BifurcationKind::fold:
      return "fold";
    case BifurcationKind::hopf:
      return "hopf";
    case BifurcationKind::period_doubling:
      return "period_doubling";
    case BifurcationKind::grazing:
      return "grazing";
    default:
      return "torus";
  }
}

bool solve_at_fixed_parameter(ContinuationProblem& problem, VectorXd& x, double p, const ContinuationSettings& set,
                              int* iterations) {
  VectorXd F;
  MatrixXd Fx;
  for (int it = 1; it <= set.max_newton; ++it) {
    if (!problem.evaluate(x, p, F, &Fx, nullptr) || !F.allFinite()) return false;
    const VectorXd dx = Fx.fullPivLu().solve(-F);
    if (!dx.allFinite()) return false;
    x += dx;
    if (dx.cwiseAbs().maxCoeff() <= set.tol * (1.0 + x.cwiseAbs().maxCoeff())) {
      if (!problem.evaluate(x, p, F, nullptr, nullptr)) return false;
      if (F.cwiseAbs().maxCoeff() > 1e3 * set.tol * (1.0 + x.cwiseAbs().maxCoeff())) continue;
      if (iterations) *iterations = it;
      return true;
    }
  }
  return false;
}

namespace {

// a stalled branch's grazing point next to point z: the predictor's points along the tangent from
// ds_min to ds_max, then the point's state at parameters 1e-7 … 1e-3 (relative) either side (the
// corrector's differences reach that far: where they cross a grazing point it fails before the
// branch gets there); the first whose signature differs from the point's (0: the problem could
// not say, no orbit from there)
void find_graze_near(ContinuationProblem& problem, const VectorXd& z, const VectorXd& tau,
                     const ContinuationSettings& set, long here, ContinuationBranch& branch) {
  const int n = problem.size();
  const auto differs = [&](const VectorXd& y) {
    const long near = problem.signature(y.head(n), y(n));
    if (near == 0 || near == here) return false;
    branch.graze_ahead = near;
    branch.graze_at = y(n);
    return true;
  };
  for (double h = set.ds_min; h <= set.ds_max; h *= 4.0)
    if (differs(z + h * tau)) return;
  for (double h = 1e-7; h <= 1e-3; h *= 2.0)
    for (const double way : {-1.0, 1.0}) {
      VectorXd y = z;
      y(n) += way * h * (1.0 + std::fabs(z(n)));
      if (differs(y)) return;
    }
}

}  // namespace

ContinuationBranch continue_branch(ContinuationProblem& problem, const VectorXd& x0, double p0,
                                   const ContinuationSettings& set) {
  const int n0 = problem.size();
  ContinuationBranch branch;
  Corrector corr(problem, set);
  // the first point and its tangent, oriented towards the direction asked
  VectorXd F, Fp;
  MatrixXd Fx;
  if (!problem.evaluate(x0, p0, F, &Fx, &Fp)) {
    branch.stop = "the first point is not a point of the problem";
    return branch;
  }
  corr.set_jacobians(Fx, Fp);
  VectorXd along = VectorXd::Zero(n0 + 1);
  along(n0) = set.direction >= 0 ? 1.0 : -1.0;
  VectorXd z = joined(x0, p0), tau = corr.tangent(along);
  ContinuationPoint first;
  first.x = x0;
  first.p = p0;
  judge(problem, Fx, tau, first);
  branch.points.push_back(first);

  double ds = std::clamp(set.ds, set.ds_min, set.ds_max);
  int jumps = 0;  // onto another orbit's branch where this one ended at a nonsmooth fold
  // the branch goes on from `at` (a grazing point's far side) along tau_at, the grazing point kept
  const auto restart_from = [&](ContinuationPoint& at, const VectorXd& tau_at, Bifurcation& bif) {
    if (bif.p >= set.p_min && bif.p <= set.p_max) {
      bif.after_point = static_cast<long>(branch.points.size()) - 1;
      branch.bifurcations.push_back(bif);
    }
    // the arclength on: in the section point and p where the unknowns changed at the restart
    const VectorXd z_at = joined(at.x, at.p);
    const int np = problem.point_size();
    at.s = branch.points.back().s + (z_at.size() == z.size()
                                         ? (z_at - z).norm()
                                         : std::hypot((at.x.head(np) - z.head(np)).norm(), at.p - z(z.size() - 1)));
    branch.points.push_back(at);
    z = joined(at.x, at.p);
    tau = tau_at;
  };
  while (static_cast<long>(branch.points.size()) < set.max_points) {
    VectorXd z_new;
    int iterations = 0;
    if (!corr.correct(z, tau, ds, z_new, iterations)) {
      ds *= 0.5;
      ContinuationPoint at;
      VectorXd tau_at;
      Bifurcation bif;
      if (ds < set.ds_min && branch.points.back().signature != 0 && jumps < 8 && problem.multipliers() &&
          !has_unit_multiplier(branch.points.back()) &&
          jump_at_stall(problem, corr, set, tau, branch.points.back(), at, tau_at, bif)) {
        ++jumps;
        restart_from(at, tau_at, bif);
        ds = std::clamp(set.ds, set.ds_min, set.ds_max);
        continue;
      }
      if (ds < set.ds_min) {
        branch.stop = "step below ds_min";
        find_graze_near(problem, z, tau, set, branch.points.back().signature, branch);
        break;
      }
      continue;
    }
    // the problem's unknowns now (a restart on a new side may have laid them out again)
    const int n = problem.size();
    const VectorXd tau_new = corr.tangent(tau);
    const MatrixXd Fx_new = corr.Fx();
    const VectorXd Fp_new = corr.Fp();
    ContinuationPoint pt;
    pt.x = z_new.head(n);
    pt.p = z_new(n);
    pt.s = branch.points.back().s + ds;
    pt.newton = iterations;
    judge(problem, Fx_new, tau_new, pt);
    const ContinuationPoint& prev = branch.points.back();
    // the signature changes (a grazing): located, and the branch restarted there on the new side
    if (pt.signature != prev.signature) {
      ContinuationPoint at;
      VectorXd tau_at;
      Bifurcation bif;
      std::vector<Bifurcation> before;
      if (cross_signature_change(problem, corr, set, z, tau, ds, prev, pt, static_cast<long>(branch.points.size()) - 1,
                                 before, at, tau_at, bif)) {
        branch.bifurcations.insert(branch.bifurcations.end(), before.begin(), before.end());
        restart_from(at, tau_at, bif);
        continue;
      }
    }
    // a sign change of a test function between the last point and this one
    locate_test_zeros(problem, corr, set, z, tau, ds, prev, pt, z_new, static_cast<long>(branch.points.size()) - 1,
                      branch.bifurcations);
    // out of [p_min, p_max]: the last point on the bound, corrected at that fixed p
    const bool above = pt.p > set.p_max, below = pt.p < set.p_min;
    if (above || below) {
      const double bound = above ? set.p_max : set.p_min;
      const double w = (bound - prev.p) / (pt.p - prev.p);
      VectorXd x = prev.x + w * (pt.x - prev.x);
      if (solve_at_fixed_parameter(problem, x, bound, set)) {
        VectorXd Fb, Fpb;
        MatrixXd Fxb;
        problem.evaluate(x, bound, Fb, &Fxb, &Fpb);
        corr.set_jacobians(Fxb, Fpb);
        ContinuationPoint last;
        last.x = x;
        last.p = bound;
        last.s = prev.s + (joined(x, bound) - z).norm();
        judge(problem, Fxb, corr.tangent(tau), last);
        branch.points.push_back(last);
      }
      branch.stop = above ? "p_max reached" : "p_min reached";
      break;
    }
    branch.points.push_back(pt);
    z = z_new;
    tau = tau_new;
    corr.set_jacobians(Fx_new, Fp_new);
    // an easy corrector lengthens the step, a laborious one shortens it
    if (iterations <= 2)
      ds = std::min(1.5 * ds, set.ds_max);
    else if (iterations >= 5)
      ds = std::max(0.5 * ds, set.ds_min);
  }
  if (branch.stop.empty()) branch.stop = "max_points";
  return branch;
}

}  // namespace fivsim
