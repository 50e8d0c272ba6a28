// fivsim/identify/greybox.hpp — grey-box fitting of friction-model parameters (seed 002 §3.3):
// least squares and recursive least squares where the model is linear in its parameters
// (seed 002 Eqs. 10–13), and Nelder–Mead simplex search and a genetic algorithm where it is not
// (§3.3.2), each candidate scored by simulating the model (output error), and Levenberg–Marquardt
// on the output error's residuals with finite-difference Jacobians. The optimisers are plain host
// code over objective callbacks; a batch objective scores a whole population at once (the caller
// runs the simulations in parallel, or as one sweep): the genetic generations, Nelder–Mead
// simplices stepped together with every move of an iteration evaluated at once, and each
// Levenberg–Marquardt iteration's trial steps with their Jacobians.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

namespace fivsim {

// ordinary least squares θ = argmin ‖Φθ − y‖ (Eq. 12–13 in batch form)
Eigen::VectorXd least_squares_fit(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y);

// recursive least squares over the rows of Φ with forgetting factor λ ∈ (0, 1]:
// K = P φ / (λ + φᵀ P φ), θ += K (y − φᵀθ), P = (P − K φᵀ P)/λ, from θ = 0, P = p0·I
Eigen::VectorXd recursive_least_squares(const Eigen::MatrixXd& phi, const Eigen::VectorXd& y, double lambda = 1.0,
                                        double p0 = 1e12);

using Objective = std::function<double(const Eigen::VectorXd&)>;
// scores every column of a candidate matrix (parameters × candidates)
using BatchObjective = std::function<Eigen::VectorXd(const Eigen::MatrixXd&)>;
// the residual vectors of every column of a candidate matrix (residuals × candidates); a column
// with a non-finite entry marks a candidate that failed
using BatchResiduals = std::function<Eigen::MatrixXd(const Eigen::MatrixXd&)>;

struct SearchResult {
  Eigen::VectorXd x;
  double f = 0.0;
  int iterations = 0;  // of every simplex together (nelder_mead_simplices)
  long evaluations = 0;
  long batches = 0;  // calls of a batch objective (one sweep each)
};

// Nelder–Mead (reflection 1, expansion 2, contraction ½, shrink ½) inside the box [lo, hi]
// (candidates are clamped to it), from x0 with an initial simplex of `scale` (per coordinate);
// stops when its diameter is below xtol relative to the box and the spread of the simplex values
// below ftol·(1 + |f_best|) — or its best value has not fallen for 10(n + 1) iterations (a noisy
// objective's floor) — or after max_iter iterations
SearchResult nelder_mead(const Objective& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& scale,
                         const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int max_iter = 2000, double ftol = 1e-14,
                         double xtol = 1e-10);

// the same Nelder–Mead from each column of `starts` (parameters × simplices), the simplices
// stepped together: each call of the batch objective evaluates, for every simplex still running,
// all four moves of its iteration (reflection, expansion, both contractions) or the vertices of its
// shrink, and the serial rule then picks among them — so one simplex takes exactly the serial
// search's steps. Returns the best vertex of all simplices
SearchResult nelder_mead_simplices(const BatchObjective& f, const Eigen::MatrixXd& starts, const Eigen::VectorXd& scale,
                                   const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, int max_iter = 2000,
                                   double ftol = 1e-14, double xtol = 1e-10);

// x and its n neighbours x + h_i e_i as the n + 1 columns of a batch, h_i = fd_step·(hi_i − lo_i)
// (backward, −h_i, where x_i + h_i passes the upper bound); `h` receives the steps
Eigen::MatrixXd difference_batch(const Eigen::VectorXd& x, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                                 double fd_step, Eigen::VectorXd& h);
// the forward-difference Jacobian from such a batch's residuals (columns at, at + 1 … at + n)
Eigen::MatrixXd difference_jacobian(const Eigen::MatrixXd& residuals, long at, const Eigen::VectorXd& h);

// Levenberg–Marquardt on f = ‖r(x)‖²/m inside [lo, hi] from x0: the Jacobian by forward differences
// of h_i = fd_step·(hi_i − lo_i) (backward at the upper bound), steps δ = −(JᵀJ + μ diag JᵀJ)⁻¹ Jᵀr
// clamped to the box. Each iteration is one batch: three trial steps (μ/10, μ, 10μ), each with its
// own differences, so the accepted trial brings its Jacobian along; none better: μ × 100. Stops
// when an accepted step lowers f by less than ftol·f or moves x by less than xtol of the box, at
// f = 0, when μ passes 1e16, or after max_iter iterations
SearchResult levenberg_marquardt(const BatchResiduals& r, const Eigen::VectorXd& x0, const Eigen::VectorXd& lo,
                                 const Eigen::VectorXd& hi, int max_iter = 200, double fd_step = 1e-6,
                                 double ftol = 1e-12, double xtol = 1e-10);

// a real-coded genetic algorithm in [lo, hi]: tournament selection (size 3), blend crossover
// (BLX-0.5), Gaussian mutation (σ = 10% of the box, probability 1/n per gene), two elites;
// deterministic for a seed; every generation is one call of the batch objective
SearchResult genetic_search(const BatchObjective& f, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                            int population, int generations, std::uint64_t seed);

}  // namespace fivsim
