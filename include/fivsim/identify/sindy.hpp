// fivsim/identify/sindy.hpp — sparse identification of nonlinear dynamics (SINDy, seed 003 §2.1,
// Eqs. 7–10) for a single-DoF state x = [x1, x2] with an optional input u and its rate du.
//
// The library Θ(X) is a list of terms; a term is a product of factors, each a variable (x1, x2,
// u, du, and w: the contact's relative velocity, x2 less a belt's speed) to a whole power,
// sgn/abs/sin/cos of a variable, or a decay exp(−a·|v|) of one at a rate a > 0: "x1", "x1^2*x2",
// "sgn(x2)", "sgn(w)*exp(-2*abs(w))", "1".
// Ẋ ≈ Θ(X)·Ξ is solved by
//   STLSQ: ridge least squares (Eq. 10, weight alpha), then coefficients below `threshold` are
//          zeroed and the rest refitted, until the support stops changing;
//   LASSO: coordinate descent on (1/2N)‖ẋ − Θξ‖² + alpha·‖ξ‖₁ (seed 004 ref. 5);
//   SR3:   the relaxed problem ½‖Ẋ − ΘΞ‖² + λ·L0(W) + ‖Ξ − W‖²/(2ν) (Zheng et al., seed 003
//          ref. 22) alternating a least-squares Ξ-step with a hard-threshold W-step, with
//          equality constraints that fix coefficients (ẋ1 = x2 fixes the whole ẋ1 row).
// Both work in column-normalised coordinates and threshold the physical coefficients; both end
// with a least-squares refit on the support they found (the constrained coefficients kept).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace fivsim {

// the variables a term may use, in the columns of the state matrix X (N × 5)
enum class SindyVar : int { x1 = 0, x2, u, du, w };
inline constexpr int kSindyVars = 5;
inline constexpr const char* kSindyVarNames[kSindyVars] = {"x1", "x2", "u", "du", "w"};

// the contact's relative velocity w = x2 − belt (a belt-driven oscillator's slip; 0: w = x2)
inline double relative_velocity(double x2, double belt) { return x2 - belt; }

enum class FactorFn : int { power, sgn, abs, sin, cos, decay };

struct TermFactor {
  SindyVar var = SindyVar::x1;
  FactorFn fn = FactorFn::power;
  int power = 1;
  double rate = 0.0;  // decay: exp(−rate·|var|)
};

struct LibraryTerm {
  std::string name;                 // as written, e.g. "sgn(x2)"
  std::vector<TermFactor> factors;  // empty: the constant 1
};

// the term with every decay factor's rate set to `rate` (its name written again)
LibraryTerm with_decay_rate(const LibraryTerm& term, double rate);

// the terms whose columns of Θ are (nearly) linear combinations of the terms before them — each
// with the earlier terms it combines — on Θ's rows: the column's least-squares residual on the
// earlier ones below `tol` of its norm. Empty where the library is well posed
std::vector<std::string> collinear_terms(const std::vector<LibraryTerm>& terms, const Eigen::MatrixXd& theta,
                                         double tol = 1e-8);

// parses one term; throws std::invalid_argument with the reason
LibraryTerm parse_library_term(const std::string& text);

// all monomials of x1, x2 (and u, du when with_input) of total degree 1..degree, then the constant
// when asked, in a fixed order
std::vector<LibraryTerm> polynomial_terms(int degree, bool with_input, bool constant);

// Θ: one column per term evaluated on the rows of X (N × 5: x1, x2, u, du, w)
Eigen::MatrixXd evaluate_library(const std::vector<LibraryTerm>& terms, const Eigen::MatrixXd& X);
double evaluate_term(const LibraryTerm& term, const double* x);

// coefficient (term, target) fixed to a value
struct FixedCoefficient {
  int term = 0, target = 0;
  double value = 0.0;
};

struct SindyOptions {
  std::string optimizer = "stlsq";  // stlsq | sr3 | lasso
  double threshold = 0.03;
  double alpha = 0.0;    // STLSQ ridge weight (Eq. 10); LASSO L1 weight (normalised columns)
  double nu = 1.0;       // SR3 relaxation (in normalised coordinates)
  int max_iter = 10000;  // SR3 / LASSO sweeps (STLSQ stops after at most 50 support changes)
  double tol = 1e-10;    // SR3 / LASSO: stop when the relative change of Ξ is below this
  std::vector<FixedCoefficient> fixed;
};

struct SindyFit {
  Eigen::MatrixXd xi;  // terms × targets
  int iterations = 0;
};

// Ẋ (N × targets) ≈ Θ·Ξ; throws std::invalid_argument for mismatched sizes or an unknown optimizer
SindyFit sindy_fit(const Eigen::MatrixXd& theta, const Eigen::MatrixXd& dX, const SindyOptions& options);

// "dx2 = -358.7 x1 - 0.0658 x2 + ..." per target (coefficients with `digits` significant digits)
std::string sindy_equation(const Eigen::VectorXd& xi, const std::vector<LibraryTerm>& terms, const std::string& target,
                           int digits = 6);

}  // namespace fivsim
