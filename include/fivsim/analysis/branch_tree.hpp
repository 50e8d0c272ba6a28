// fivsim/analysis/branch_tree.hpp — the branches grown from a first point: an orbit's own branch,
// at each period doubling the doubled orbit's (switched onto along the multiplier −1's eigenvector),
// and each bifurcation's curve in a second parameter (analysis/curve_problem.hpp).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include <Eigen/Eigenvalues>

#include "fivsim/analysis/continuation.hpp"
#include "fivsim/analysis/curve_problem.hpp"
#include "fivsim/analysis/equilibrium_problem.hpp"
#include "fivsim/analysis/orbit_problem.hpp"
#include "fivsim/core/stopwatch.hpp"

namespace fivsim {

// a fold's, period doubling's or Hopf point's curve in the second parameter, one way from the
// branch's point
struct BifurcationCurve {
  BifurcationKind kind = BifurcationKind::fold;
  long bifurcation = 0;       // its index in the branch's bifurcations
  int direction = 1;          // of the second parameter
  ContinuationBranch points;  // each point's x: (z, p1); p: p2
};

// the curve of bifurcation `f` (at base unknowns z and its parameter) in the second parameter from
// its value `second`, both ways, into `curves`; nothing where Newton finds no point of it there
template <class Base>
void add_curves(CurveProblem<Base>& curve, const Eigen::VectorXd& z, const Bifurcation& bif, long f, double second,
                const BranchOptions& b, std::vector<BifurcationCurve>& curves) {
  Eigen::VectorXd w(z.size() + 1);
  w.head(z.size()) = z;
  w(z.size()) = bif.p;
  if (!curve.border_at(w, second) || !solve_at_fixed_parameter(curve, w, second, b.curve_settings)) return;
  for (const int way : {-1, 1}) {
    ContinuationSettings cs = b.curve_settings;
    cs.direction = way;
    curves.push_back({bif.kind, f, way, continue_branch(curve, w, second, cs)});
  }
}

// a branch followed: an orbit's period in break-aways (0: equilibria), and the branch and
// bifurcation it was switched onto from (−1: the first)
struct FollowedBranch {
  int period_n = 0;
  long from_branch = -1, from_bifurcation = -1;
  ContinuationBranch branch;
  // an orbit's: each point's section crossings after 1 … N − 1 returns
  std::vector<std::vector<Eigen::VectorXd>> later;
  long start = -1;                       // the sweep's start it grew from (−1: the scenario's run)
  double wall_s = 0.0;                   // the branch's continuation, its doubled branches' left out
  std::vector<BifurcationCurve> curves;  // of its folds, doublings and Hopf points in the second parameter
};

inline FollowedBranch followed_branch(int period_n, ContinuationBranch branch, long from_branch = -1,
                                      long from_bifurcation = -1) {
  FollowedBranch f;
  f.period_n = period_n;
  f.from_branch = from_branch;
  f.from_bifurcation = from_bifurcation;
  f.branch = std::move(branch);
  return f;
}

// onto the doubled orbit at a period doubling `pd` of branch `single` (problem `one`): on each side
// of the doubling, a little past it, the period-N orbit there is perturbed along the eigenvector of
// its multiplier near −1 and Newton sought for the period-2N orbit (`two`); the first that
// converges away from the period-N orbit is continued away from the doubling. False where none
template <class D>
bool switch_at_doubling(OrbitProblem<D>& one, OrbitProblem<D>& two, const ContinuationBranch& single,
                        const Bifurcation& pd, const BranchOptions& b, ContinuationBranch& out) {
  const int ny = one.state_size();
  const std::size_t at = static_cast<std::size_t>(pd.after_point);
  // past the doubling along the branch first: where a supercritical doubling's orbit lives
  const double along = at + 1 < single.points.size() && single.points[at + 1].p < single.points[at].p ? -1.0 : 1.0;
  const double width = b.settings.p_max - b.settings.p_min;
  for (const double side : {along, -along}) {
    for (const double shift : {1e-4, 1e-3, 3e-3, 1e-2}) {
      const double ps = pd.p + side * shift * width;
      if (ps <= b.settings.p_min || ps >= b.settings.p_max) continue;
      Eigen::VectorXd z1 = Eigen::VectorXd::Zero(one.size());
      z1.head(ny) = pd.x.head(ny);
      Eigen::MatrixXd dp;
      if (!one.adapt(z1, ps) || !solve_at_fixed_parameter(one, z1, ps, b.settings) ||
          !one.return_map_jacobian(z1, ps, dp))
        continue;
      const Eigen::EigenSolver<Eigen::MatrixXd> eig(dp);
      int k = 0;
      for (int i = 1; i < ny; ++i)
        if (std::abs(eig.eigenvalues()(i) + 1.0) < std::abs(eig.eigenvalues()(k) + 1.0)) k = i;
      Eigen::VectorXd v = eig.eigenvectors().col(k).real();
      if (!(v.norm() > 0.0)) continue;
      v.normalize();
      const double scale = 1.0 + z1.head(ny).cwiseAbs().maxCoeff();
      for (const double eps : {1e-3, 1e-2, 3e-2, 1e-1}) {
        for (const double sign : {1.0, -1.0}) {
          Eigen::VectorXd z2 =
              Eigen::VectorXd::Zero(std::max(two.size(), two.point_size()));  // before its segments are laid
          z2.head(ny) = z1.head(ny) + sign * eps * scale * v;
          if (!two.adapt(z2, ps) || !solve_at_fixed_parameter(two, z2, ps, b.settings)) continue;
          // the period-N orbit itself is a period-2N one too: only another orbit counts
          if ((z2.head(ny) - z1.head(ny)).cwiseAbs().maxCoeff() <= 1e-6 * scale) continue;
          ContinuationSettings s = b.settings;
          s.direction = side > 0 ? 1 : -1;
          out = continue_branch(two, z2, ps, s);
          return true;
        }
      }
    }
  }
  return false;
}

// the branches grown from the first orbit at p0 (the model's start run for `settle` seconds):
// its own, followed in `direction`, and at each period doubling the doubled orbit's, `doublings`
// levels deep, with every section crossing of each point's orbit; with `model2` (of the continued
// parameter and the curves' second one) each fold's and doubling's curve from the second's value
// `second`. Empty where no periodic-N orbit is found there
template <class D>
std::vector<FollowedBranch> follow_orbit(OrbitShooter<D>& shooter, const ContinuedModel<D>& model,
                                         const ContinuedModel<D>* model2, double second, const OrbitSection& on,
                                         const SwitchingSettings& set, const BranchOptions& b, int period_n, double p0,
                                         int direction, double settle) {
  std::vector<std::unique_ptr<OrbitProblem<D>>> problems;
  problems.push_back(std::make_unique<OrbitProblem<D>>(shooter, model, set, on, period_n, b.multiple, b.settings));
  Eigen::VectorXd z0;
  if (!problems[0]->first_orbit(p0, settle, z0)) return {};
  ContinuationSettings first = b.settings;
  first.direction = direction;
  std::vector<FollowedBranch> followed;
  const auto started = std::chrono::steady_clock::now();
  followed.push_back(followed_branch(period_n, continue_branch(*problems[0], z0, p0, first)));
  followed[0].wall_s = seconds_since(started);
  // each period doubling found, `doublings` levels deep: the doubled orbit's branch
  for (std::size_t k = 0; k < followed.size(); ++k) {
    int level = 0;
    for (long up = followed[k].from_branch; up >= 0; up = followed[static_cast<std::size_t>(up)].from_branch) ++level;
    if (level >= b.doublings) continue;
    for (std::size_t f = 0; f < followed[k].branch.bifurcations.size(); ++f) {
      const Bifurcation& pd = followed[k].branch.bifurcations[f];
      if (pd.kind != BifurcationKind::period_doubling || followed[k].period_n * 2 > 32) continue;
      problems.push_back(
          std::make_unique<OrbitProblem<D>>(shooter, model, set, on, 2 * followed[k].period_n, b.multiple, b.settings));
      problems.back()->doubling_of(*problems[k]);
      ContinuationBranch doubled;
      if (switch_at_doubling(*problems[k], *problems.back(), followed[k].branch, pd, b, doubled))
        followed.push_back(
            followed_branch(2 * followed[k].period_n, std::move(doubled), static_cast<long>(k), static_cast<long>(f)));
      else
        problems.pop_back();
    }
  }
  // every section crossing of each orbit, for the diagram (orbit_points.csv)
  for (std::size_t k = 0; k < followed.size(); ++k)
    problems[k]->later_points(followed[k].branch.points, followed[k].later);
  // each fold and doubling followed in the second parameter, both ways from the scenario's value
  if (model2)
    for (std::size_t k = 0; k < followed.size(); ++k)
      for (std::size_t f = 0; f < followed[k].branch.bifurcations.size(); ++f) {
        const Bifurcation& bif = followed[k].branch.bifurcations[f];
        if (bif.kind != BifurcationKind::fold && bif.kind != BifurcationKind::period_doubling) continue;
        OrbitProblem<D> orbit(shooter, *model2, set, on, followed[k].period_n, b.multiple, b.settings);
        orbit.same_orbit_as(*problems[k]);
        orbit.set_second(second);
        // the point's unknowns as this problem lays them (its segments, with multiple shooting)
        Eigen::VectorXd z = bif.x;
        if (!orbit.adapt(z, bif.p)) continue;
        CurveProblem<OrbitProblem<D>> curve(orbit, bif.kind);
        add_curves(curve, z, bif, static_cast<long>(f), second, b, followed[k].curves);
      }
  return followed;
}

// each Hopf point of an equilibrium branch followed in the second parameter (model2: of the
// continued parameter and the second), both ways from its value `second`
template <class D>
void follow_hopf_curves(const ContinuedModel<D>& model2, double second, const SwitchingSettings& set,
                        const BranchOptions& b, FollowedBranch& equilibria) {
  for (std::size_t f = 0; f < equilibria.branch.bifurcations.size(); ++f) {
    const Bifurcation& bif = equilibria.branch.bifurcations[f];
    if (bif.kind != BifurcationKind::hopf) continue;
    EquilibriumProblem<D> base(model2, set);
    base.set_second(second);
    CurveProblem<EquilibriumProblem<D>> curve(base, bif.kind);
    add_curves(curve, bif.x, bif, static_cast<long>(f), second, b, equilibria.curves);
  }
}

}  // namespace fivsim
