// fivsim/analysis/continuation.hpp — pseudo-arclength continuation of the zeros of F(x, p) = 0 in
// one parameter p, with test functions that locate folds and Hopf points on the branch. Host code
// over a problem that says what F is (analysis/equilibrium_problem.hpp, orbit_problem.hpp,
// curve_problem.hpp).
//
// Keller's pseudo-arclength method (Keller 1977; Allgower & Georg, Introduction to Numerical
// Continuation Methods, 2003, §2–§5; Kuznetsov, Elements of Applied Bifurcation Theory, 2004,
// §10.2): from a point z = (x, p) with unit tangent τ (null vector of [F_x F_p]), the predictor
// z + Δs τ is corrected by Newton on [F(z'); τᵀ(z' − z) − Δs] = 0, whose Jacobian [[F_x F_p]; τᵀ] stays
// regular through folds. The step grows after an easy corrector and halves after a failed one.
// Test functions (Kuznetsov §10.2.2), evaluated at every point: a fold where τ's p-component
// changes sign, a Hopf point where the largest real part of a complex pair of eigenvalues of F_x
// does. Between two points where one changes sign it is located by the Illinois method on the
// arclength, each trial point corrected onto the branch, to `locate_tol` in p. Where the problem's
// signature (a nonsmooth orbit's events a period) differs between two points, the change is
// located by bisection on the arclength (a grazing point), and the branch restarts there with the
// tangent of the new side: a nonsmooth orbit's branch may have a corner at a grazing point, or
// turn back there (a nonsmooth fold).
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace fivsim {

struct ContinuationSettings {
  double p_min = 0.0, p_max = 1.0;  // the branch stops where p leaves [p_min, p_max] (its last point on the bound)
  int direction = 1;                // +1: the branch starts towards increasing p, −1 decreasing
  double ds = 0.01, ds_min = 1e-7, ds_max = 0.1;  // arclength steps in (x, p)
  double tol = 1e-10;                             // corrector: max|F| and the last Newton step below this
  int max_newton = 10;
  long max_points = 2000;
  double locate_tol = 1e-10;  // a bifurcation's parameter, to this
};

// how the branches grown from a first point and their bifurcations' curves are followed
// (analysis/branch_tree.hpp)
struct BranchOptions {
  ContinuationSettings settings;        // the branches' (p_min, p_max: the continued parameter's range)
  ContinuationSettings curve_settings;  // the curves' in the second parameter (p_min, p_max: its range)
  int doublings = 1;                    // levels of period doublings whose doubled orbit is followed too
  bool multiple = false;                // orbits by multiple shooting, a segment per mode between events
};

// what is continued: F: Rⁿ × R → Rⁿ with its Jacobians, and the eigenvalues that judge a point
class ContinuationProblem {
 public:
  virtual ~ContinuationProblem() = default;
  virtual int size() const = 0;
  // F(x, p), and F_x and F_p where asked (non-null); false where F is not defined there (a mode
  // of the model that does not hold, a non-finite value): the step is refused
  virtual bool evaluate(const Eigen::VectorXd& x, double p, Eigen::VectorXd& F, Eigen::MatrixXd* Fx,
                        Eigen::VectorXd* Fp) = 0;
  // the eigenvalues that decide stability at a point of the branch: F_x's for an equilibrium, the
  // Floquet multipliers for a periodic orbit (multipliers() true)
  virtual Eigen::VectorXcd eigenvalues(const Eigen::VectorXd& x, double p, const Eigen::MatrixXd& Fx) = 0;
  // the eigenvalues are a map's multipliers: stable inside the unit circle, and the test functions
  // are those of a fixed point of a map (period doubling at −1, torus where a complex pair leaves
  // the circle) rather than a Hopf point
  virtual bool multipliers() const { return false; }
  // a periodic orbit's period at the point (0: an equilibrium)
  virtual double period(const Eigen::VectorXd&, double) { return 0.0; }
  // what of the point's solution changes only in steps — a periodic orbit's events a period (a
  // stick phase that appears adds two): where it differs between two points of the branch, the
  // trajectory grazes a switching surface between them, and the point is located (0: nothing)
  virtual long signature(const Eigen::VectorXd&, double) { return 0; }
  // at a point whose signature differs from the branch's so far: x rewritten in the unknowns that
  // describe the solution there (a multiple-shooting orbit's segments follow its events, so that a
  // stick phase that appears adds two) and corrected at p; size() may change. False where none
  // converges. Nothing to rewrite by default
  virtual bool adapt(Eigen::VectorXd&, double) { return true; }
  // how many leading unknowns say where the solution is (the rest follow from them: a segmented
  // orbit's section point)
  virtual int point_size() const { return size(); }
  // where the branch stalls at (x, p): the k-th guess (k = 0, 1, …) of a point of another solution
  // through it, rewritten in that solution's unknowns (size() may change) — a multiple-shooting
  // orbit whose short segment vanishes at a nonsmooth fold, without that segment. False where the
  // problem has no k-th guess (none by default)
  virtual bool other_branch_guess(Eigen::VectorXd&, double, int) { return false; }
  // the eigenvalues at (x, p) of the solution found again at a finer accuracy of what evaluates F
  // (an orbit's integrator at a hundredth of its tolerances), for a located bifurcation's error;
  // false where F has no such error (an equilibrium's field is exact) or no solution is found
  virtual bool refined_eigenvalues(const Eigen::VectorXd&, double, Eigen::VectorXcd&) { return false; }
};

// the step of F_p's central differences at p
inline double parameter_step(double p) { return 1e-6 * (1.0 + std::abs(p)); }

// an evaluation of a problem announced before it is asked for, so that a problem whose evaluations
// are shots runs them as one batch (a bifurcation's curve: analysis/curve_problem.hpp): at (z, p)
// with the second parameter `second`, F_p too where `with_fp`
struct PendingEvaluation {
  Eigen::VectorXd z;
  double p = 0.0, second = 0.0;
  bool with_fp = false;
};

struct ContinuationPoint {
  Eigen::VectorXd x;
  double p = 0.0;
  double s = 0.0;           // arclength from the first point
  Eigen::VectorXcd eig;     // largest real part first (multipliers: largest modulus first)
  bool stable = false;      // every eigenvalue's real part below zero (multipliers: every modulus below one)
  double max_real = 0.0;    // the largest real part (multipliers: the largest modulus)
  double period = 0.0;      // a periodic orbit's period
  double hopf_test = 0.0;   // the largest real part of a complex pair, less 1e-10 of the spectrum's size (−∞: none)
  double fold_test = 0.0;   // dp/ds of the unit tangent
  double pd_test = 0.0;     // multipliers: the most negative real one plus one (HUGE_VAL: none real)
  double torus_test = 0.0;  // multipliers: the largest modulus of a complex pair less one (−∞: none)
  long signature = 0;       // the problem's signature (an orbit's events a period)
  int newton = 0;           // corrector iterations that found it
};

// grazing: the problem's signature changes (a discontinuity-induced point of a nonsmooth orbit)
enum class BifurcationKind { fold, hopf, period_doubling, torus, grazing };
const char* bifurcation_name(BifurcationKind k);

// the bialternate product 2A ⊙ I of an n × n matrix, (n(n−1)/2)-square: A X + X Aᵀ on the
// antisymmetric matrices X, in the basis e_i e_jᵀ − e_j e_iᵀ (i > j, rows then columns). Its
// eigenvalues are λ_i + λ_j (i < j), so that it is singular where A has a pair λ, −λ: at a Hopf
// point, where the pair is ±iω (Kuznetsov 2004 §10.2.2; Govaerts 2000 §4.4)
Eigen::MatrixXd bialternate_sum(const Eigen::MatrixXd& A);

struct Bifurcation {
  BifurcationKind kind = BifurcationKind::fold;
  double p = 0.0;
  Eigen::VectorXd x;
  long after_point = 0;  // it lies between this point of the branch and the next
  double test = 0.0;     // the test function's value where it was located
  // period doubling, torus: located on a test that carries the integrator's error, p is moved to
  // the zero of the test on the orbit solved again at a finer accuracy there (refined_eigenvalues;
  // a secant step with the test's slope in p), and p_error is that step: the coarser location's
  // error (NaN: not estimated)
  double p_error = std::numeric_limits<double>::quiet_NaN();
  double frequency = 0.0;  // Hopf: the imaginary part of the crossing pair (rad/s); torus: the pair's angle
  long signature_before = 0, signature_after = 0;  // grazing: the signature on either side
  bool turns = false;  // grazing: the branch turns back in p there (a nonsmooth fold: two orbits meet)
};

struct ContinuationBranch {
  std::vector<ContinuationPoint> points;
  std::vector<Bifurcation> bifurcations;
  std::string stop;  // why it ended: "p_max reached", "p_min reached", "max_points", "step below ds_min"
  // a branch that stalled (step below ds_min) next to a grazing point the corrector could not
  // cross: the signature beyond it (0: none found) and the parameter where it was seen
  long graze_ahead = 0;
  double graze_at = 0.0;
};

// Newton on F(x, p) = 0 at fixed p from x (the branch's first point); false where it does not
// converge to settings.tol in settings.max_newton steps
bool solve_at_fixed_parameter(ContinuationProblem& problem, Eigen::VectorXd& x, double p,
                              const ContinuationSettings& settings, int* iterations = nullptr);

// the branch through (x0, p0), a zero of F, followed in settings.direction until it leaves
// [p_min, p_max], max_points or a step below ds_min
ContinuationBranch continue_branch(ContinuationProblem& problem, const Eigen::VectorXd& x0, double p0,
                                   const ContinuationSettings& settings);

}  // namespace fivsim
