// src/app/continuation.cpp — branches of equilibria and periodic orbits of the switching model
// followed in one parameter (app/continuation.hpp).
#include "fivsim/app/continuation.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <tuple>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>

#include "fivsim/analysis/continuation.hpp"
#include "fivsim/batch/basins.hpp"
#include "fivsim/batch/orbit_shooter.hpp"
#include "fivsim/batch/results_h5.hpp"
#include "fivsim/batch/sweep.hpp"
#include "fivsim/batch/sweep_plan.hpp"
#include "fivsim/cases/case_runner.hpp"
#include "fivsim/core/cuda_device.hpp"
#include "fivsim/core/output_domain.hpp"
#include "fivsim/integrate/switching_orbit.hpp"
#include "fivsim/integrate/switching_tangent.hpp"
#include "fivsim/io/continuation_block.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// the shots a continuation ran and the batches they ran in
struct ShotCounts {
  long shots = 0, batches = 0;
};

// branches followed together at most, each on a host thread of its own, where the block says all
constexpr long kMostAtOnce = 256;

// the step of F_p's central differences at p
double parameter_step(double p) { return 1e-6 * (1.0 + std::abs(p)); }

// an evaluation of a problem announced before it is asked for (prefetch): at (z, p) with the second
// parameter `second`, F_p too where `with_fp`
struct PendingEvaluation {
  VectorXd z;
  double p = 0.0, second = 0.0;
  bool with_fp = false;
};

// the equilibria of the switching model: F(y, p) = f(y) of the modes it takes at y, with the
// parameter written into the model by the sweep plan; F_p by central differences at fixed modes
template <class D>
class EquilibriumProblem : public ContinuationProblem {
 public:
  EquilibriumProblem(const batch::SweepPlan& plan, double stick_tol, SwitchingSettings set)
      : plan_(plan), stick_tol_(stick_tol), set_(set) {
    plan_.uniform_setup(stick_tol_, *uniform_);
    ny_ = 2 * uniform_->model.n_dof;
  }
  int size() const override { return ny_; }

  bool evaluate(const VectorXd& x, double p, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    F.resize(ny_);
    ContactState modes[D::max_contacts];
    if (!field(x, p, F.data(), nullptr, modes)) return false;
    if (Fx) {
      Fx->resize(ny_, ny_);
      for (int i = 0; i < ny_; ++i)
        for (int j = 0; j < ny_; ++j) (*Fx)(i, j) = tan_->jac[i][j];
    }
    if (Fp) {
      // the modes of the point itself on both sides: F_p of one vector field
      const double h = parameter_step(p);
      VectorXd up(ny_), down(ny_);
      if (!field(x, p + h, up.data(), modes, nullptr) || !field(x, p - h, down.data(), modes, nullptr)) return false;
      *Fp = (up - down) / (2.0 * h);
    }
    return true;
  }

  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd& Fx) override {
    return Eigen::EigenSolver<MatrixXd>(Fx, false).eigenvalues();
  }

  // a plan of two parameters (a Hopf point's curve): the second one's value from now on
  void set_second(double value) { second_ = value; }
  // the matrix singular at a bifurcation of `kind` followed in a second parameter (CurveProblem):
  // at a Hopf point 2F_x ⊙ I, whose eigenvalues are the sums of F_x's pairs
  MatrixXd critical_matrix(BifurcationKind, const MatrixXd& J) const { return bialternate_sum(J); }
  // an equilibrium's period, for a curve's points
  double period_at(const VectorXd&, double) { return 0.0; }
  // an equilibrium's field is evaluated when asked: nothing to shoot ahead
  void prefetch(const std::vector<PendingEvaluation>&) {}
  // an equilibrium has no events
  long last_events() const { return 0; }

  // the modes at (x, p): stick, slip or free per contact
  void modes_at(const VectorXd& x, double p, std::vector<ContactState>& out) {
    VectorXd F(ny_);
    ContactState modes[D::max_contacts];
    out.clear();
    if (!field(x, p, F.data(), nullptr, modes)) return;
    out.assign(modes, modes + uniform_->model.n_contacts);
  }

 private:
  bool field(const VectorXd& x, double p, double* f, const ContactState* fixed, ContactState* taken) {
    const double row[2] = {p, second_};  // the second where the plan has one
    plan_.case_setup(*uniform_, 0, row, 1, stick_tol_, *setup_);
    typename D::scalar y[2 * D::max_dof], fy[2 * D::max_dof];
    for (int i = 0; i < ny_; ++i) y[i] = x(i);
    if (!switching_field(setup_->model, set_, *ws_, *tan_, 0.0, y, fy, fixed)) return false;
    for (int i = 0; i < ny_; ++i) f[i] = fy[i];
    if (taken)
      for (int i = 0; i < setup_->model.n_contacts; ++i) taken[i] = ws_->mode[i];
    return true;
  }

  const batch::SweepPlan& plan_;
  double stick_tol_;
  SwitchingSettings set_;
  int ny_ = 0;
  double second_ = 0.0;
  std::unique_ptr<CaseSetup<D>> uniform_ = std::make_unique<CaseSetup<D>>();
  std::unique_ptr<CaseSetup<D>> setup_ = std::make_unique<CaseSetup<D>>();
  std::unique_ptr<SwitchingWorkspace<D>> ws_ = std::make_unique<SwitchingWorkspace<D>>();
  std::unique_ptr<SwitchingTangent<D>> tan_ = std::make_unique<SwitchingTangent<D>>();
};

// the periodic orbits of the switching model, N section crossings a period (single shooting on
// the sweeps' section, integrate/switching_orbit.hpp): unknowns the section point x and the
// multipliers ν of the section's conditions C, F = [P^N(x) − x + Aᵀν; C(x)] with A = ∇C, whose
// Jacobian [[DP − I, Aᵀ], [A, 0]] is the bordered system of the orbit's Newton; ν is zero on the
// branch. The break-away section of a contact has two conditions (γ_c = 0, the stick margin = 0),
// and the modes just after the break-away stay those of the first orbit: a return in other modes
// is another branch, and the step is refused. A velocity section {u_d = c} has one. On either the
// orbit's events may change along the branch (a stick phase that appears at a grazing point: the
// signature, the events a period, changes). F_p by central differences; the multipliers are DP's
// on the section.
//
// With `multiple` shooting (integrate/switching_orbit.hpp) the unknowns are the segments' start
// states x_0 … x_{m−1} (x_0 the section point) and durations T_0 … T_{m−1}, one segment per mode
// between events, F = [φ_i(x_i, T_i) − x_{i+1}; h_i(φ_i(x_i, T_i))] with Jacobian blocks Φ_i, −I,
// f_i and ∇h_iᵀ(Φ_i, f_i). The segments' modes and boundaries are those of a run of the orbit
// and stay fixed along a branch; the signature is the events a period of a run from x_0 (negative:
// as many in another order), and where it changes the segments are laid again from such a run
// (adapt). The multipliers: DP = P_{m−1}Φ_{m−1}S_{m−2}Φ_{m−2} ⋯ S_0Φ_0, S_i the boundaries'
// saltation matrices and P the last boundary's projection onto the section
template <class D>
class OrbitProblem : public ContinuationProblem {
  using T = typename D::scalar;
  using Modes = std::array<ContactState, D::max_contacts>;

 public:
  OrbitProblem(OrbitShooter<D>& shooter, const batch::SweepPlan& plan, double stick_tol, SwitchingSettings set,
               const SweepAnalysis& an, int crossings, bool multiple = false, const ContinuationSettings& newton = {})
      : shooter_(shooter),
        plan_(plan),
        stick_tol_(stick_tol),
        set_(set),
        contact_(an.contact),
        crossings_(crossings),
        multiple_(multiple),
        newton_(newton) {
    plan_.uniform_setup(stick_tol_, *uniform_);
    ny_ = 2 * uniform_->model.n_dof;
    if (an.section == SectionKind::velocity) {
      section_ = switching_section(an, 0.0);
      nc_ = 1;
    }
  }
  int size() const override { return multiple_ ? static_cast<int>(segment_modes_.size()) * (ny_ + 1) : ny_ + nc_; }
  int point_size() const override { return multiple_ ? ny_ : size(); }
  bool multipliers() const override { return true; }
  // the events of the last orbit shot where that was this point's (judging a point shoots it for
  // its multipliers first), else a shot
  long signature(const VectorXd& z, double p) override {
    if (multiple_) {
      Layout run;
      if (!layout_from_run(z.head(ny_), p, run)) return -1;
      const long events = static_cast<long>(run.slots.size()) - (nc_ == 1 ? 1 : 0);
      return run.modes == segment_modes_ && run.slots == segment_slots_ ? events : -events;
    }
    if (p == shot_p_ && z == shot_z_) return work_->events;
    VectorXd F(ny_ + nc_);
    return residual(z, p, F.data()) ? work_->events : 0;
  }
  // the section's conditions: two on the break-away section, one on a velocity section
  int conditions() const { return nc_; }
  // single shooting: the events a period of the orbit last evaluated (0: multiple shooting, whose
  // segments hold their events fixed)
  long last_events() const { return multiple_ ? 0 : work_->events; }

  // multiple shooting: the segments laid again from a run of x's section point at p, and x on them
  // corrected by Newton
  bool adapt(VectorXd& x, double p) override {
    if (!multiple_) return true;
    Layout run;
    if (!layout_from_run(x.head(ny_), p, run)) return false;
    ahead_.clear();  // shot on the segments before
    segment_modes_ = run.modes;
    segment_slots_ = run.slots;
    segments_p_ = nan("");
    x = run.z;
    return solve_at_fixed_parameter(*this, x, p, newton_);
  }

  // multiple shooting where the branch stalls: the orbit without its k-th shortest interior segment
  // (of at most a twentieth of the period), the segments either side joined where they run in the
  // same modes — at a nonsmooth fold a stick phase's duration reaches zero, and the orbit that
  // meets the branch there has none (a slip reversal where the modes either side differ)
  bool other_branch_guess(VectorXd& x, double, int k) override {
    const int m = static_cast<int>(segment_modes_.size());
    if (!multiple_ || x.size() != m * (ny_ + 1)) return false;
    const VectorXd durations = x.tail(m);
    std::vector<int> short_ones;
    for (int i = 1; i + 1 < m; ++i)
      if (durations(i) >= 0.0 && durations(i) <= 0.05 * durations.sum()) short_ones.push_back(i);
    std::sort(short_ones.begin(), short_ones.end(), [&](int a, int b) { return durations(a) < durations(b); });
    if (k < 0 || k >= static_cast<int>(short_ones.size())) return false;
    const int drop = short_ones[static_cast<std::size_t>(k)];
    const bool join =
        segment_modes_[static_cast<std::size_t>(drop - 1)] == segment_modes_[static_cast<std::size_t>(drop + 1)];
    std::vector<Modes> modes;
    std::vector<int> slots;
    std::vector<VectorXd> starts;
    std::vector<double> times;
    for (int i = 0; i < m; ++i) {
      const std::size_t si = static_cast<std::size_t>(i);
      if (i == drop || (join && i == drop + 1)) {
        // the vanished segment's time to its predecessor, which a joined one's boundary ends
        times.back() += durations(i);
        if (i != drop) slots.back() = segment_slots_[si];
        continue;
      }
      modes.push_back(segment_modes_[si]);
      slots.push_back(segment_slots_[si]);
      starts.push_back(x.segment(i * ny_, ny_));
      times.push_back(durations(i));
    }
    const int left = static_cast<int>(modes.size());
    ahead_.clear();  // shot on the segments before
    segment_modes_ = std::move(modes);
    segment_slots_ = std::move(slots);
    segments_p_ = nan("");
    x.resize(left * (ny_ + 1));
    for (int i = 0; i < left; ++i) {
      x.segment(i * ny_, ny_) = starts[static_cast<std::size_t>(i)];
      x(left * ny_ + i) = times[static_cast<std::size_t>(i)];
    }
    return true;
  }

  // the first orbit at p: a run from the scenario's start for `settle` seconds, its next break-away,
  // the period between two, then Newton (and the segments of its run, with multiple shooting);
  // false where none converges
  bool first_orbit(double p, double settle, VectorXd& z) {
    if (!single_orbit(p, settle, z)) return false;
    if (!multiple_) return true;
    VectorXd x = z.head(ny_);
    if (!adapt(x, p)) return false;
    z = x;
    return true;
  }

  // single shooting's first orbit (the run the segments are laid from)
  bool single_orbit(double p, double settle, VectorXd& z) {
    setup_at(p);
    const Model<D>& m = setup_->model;
    auto sink = [](const SwitchingEvent<T>&) {};
    SwitchingWorkspace<D>& ws = work_->ws;
    ws.started = false;
    const State<D>& s0 = setup_->start;
    if (switching_start(m, set_, SwitchingSection{}, ws, 0.0, s0.q.v, s0.u.v, false, sink) != Status::ok) return false;
    if (settle > 0.0 && switching_advance(m, set_, SwitchingSection{}, ws, settle, sink) != Status::ok) return false;
    State<D> at;
    switching_output(m, ws, settle, at);
    T x[2 * D::max_dof];
    const int nq = ny_ / 2;
    for (int i = 0; i < nq; ++i) {
      x[i] = at.q[i];
      x[nq + i] = at.u[i];
    }
    if (nc_ == 1) {
      // two crossings: the first to start from, the time to the next for the period's scale
      if (!switching_return_map(m, set_, section_, *work_, settle, x, 1, 1e4)) return false;
      for (int i = 0; i < ny_; ++i) x[i] = work_->x_end[i];
      if (!switching_return_map(m, set_, section_, *work_, 0.0, x, 1, 1e4)) return false;
      max_time_ = 8.0 * crossings_ * work_->t_end;
      const OrbitSettings os{crossings_, 40, 1e-11, max_time_, 0.0};
      const OrbitResult<D> o = switching_periodic_orbit(m, set_, section_, os, *work_, 0.0, x);
      if (!o.converged) return false;
      z = VectorXd::Zero(ny_ + nc_);
      for (int i = 0; i < ny_; ++i) z(i) = o.x[i];
      return true;
    }
    // two break-aways: the first to start from (found from the state), the time to the next (a
    // run from the first in the modes just after it) for the period's scale
    if (!switching_land_on_breakaway(m, set_, *work_, settle, x, contact_, 1e4)) return false;
    for (int i = 0; i < ny_; ++i) x[i] = work_->x_end[i];
    for (int i = 0; i < m.n_contacts; ++i) modes_[i] = work_->modes_end[i];
    if (!switching_breakaway_map(m, set_, *work_, 0.0, x, modes_, contact_, 1, 1e4)) return false;
    max_time_ = 8.0 * crossings_ * work_->t_end;
    const OrbitSettings os{crossings_, 40, 1e-11, max_time_, 0.0};
    const OrbitResult<D> o = switching_breakaway_orbit(m, set_, os, *work_, 0.0, x, modes_, contact_);
    if (!o.converged) return false;
    z = VectorXd::Zero(ny_ + nc_);
    for (int i = 0; i < ny_; ++i) z(i) = o.x[i];
    return true;
  }

  bool evaluate(const VectorXd& z, double p, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    if (multiple_) return evaluate_segments(z, p, F, Fx, Fp);
    F.resize(ny_ + nc_);
    // one batch: both sides of the difference in p, then the point, whose map work_ keeps last
    const double h = parameter_step(p);
    VectorXd up(ny_ + nc_), down(ny_ + nc_);
    bool has_up = false, has_down = false;
    int up_events = 0, down_events = 0;
    if (Fp) {
      shoot(z, {p + h, p - h, p});
      has_up = residual_of(0, z, p + h, up.data());
      up_events = work_->events;
      has_down = residual_of(1, z, p - h, down.data());
      down_events = work_->events;
    } else {
      shoot(z, {p});
    }
    if (!residual_of(Fp ? 2 : 0, z, p, F.data())) return false;
    if (Fx) {
      Fx->setZero(ny_ + nc_, ny_ + nc_);
      for (int i = 0; i < ny_; ++i) {
        for (int j = 0; j < ny_; ++j) (*Fx)(i, j) = work_->dp[i][j] - (i == j ? 1.0 : 0.0);
        for (int k = 0; k < nc_; ++k) (*Fx)(i, ny_ + k) = gradient(k, i);
      }
      for (int k = 0; k < nc_; ++k)
        for (int j = 0; j < ny_; ++j) (*Fx)(ny_ + k, j) = gradient(k, j);
    }
    if (Fp) {
      // central differences; one-sided where a side changes the orbit's events (near a grazing
      // point the map is smooth in p only on each side)
      const int events = work_->events;
      has_up = has_up && up_events == events;
      has_down = has_down && down_events == events;
      if (has_up && has_down)
        *Fp = (up - down) / (2.0 * h);
      else if (has_up || has_down)
        *Fp = has_up ? VectorXd((up - F) / h) : VectorXd((F - down) / h);
      else
        return false;
    }
    return true;
  }

  Eigen::VectorXcd eigenvalues(const VectorXd& z, double p, const MatrixXd&) override {
    typename D::scalar re[2 * D::max_dof], im[2 * D::max_dof];
    period_ = 0.0;
    if (multiple_) {
      MatrixXd dp;
      if (!return_map_jacobian(z, p, dp)) return Eigen::VectorXcd();
      for (int i = 0; i < ny_; ++i)
        for (int j = 0; j < ny_; ++j) work_->dp[i][j] = dp(i, j);
      period_ = z.tail(static_cast<Eigen::Index>(segment_modes_.size())).sum();
      if (nc_ == 2) {
        typename D::scalar x[2 * D::max_dof];
        for (int i = 0; i < ny_; ++i) x[i] = z(i);
        setup_at(p);
        if (!breakaway_constraints(setup_->model, set_, *work_, 0.0, x, segment_modes_[0].data(), contact_))
          return Eigen::VectorXcd();
      }
    } else {
      // work_ holds the point's map where the corrector's last shot was of this point
      VectorXd F(ny_ + nc_);
      if (!(p == shot_p_ && z.size() == shot_z_.size() && z == shot_z_) && !residual(z, p, F.data()))
        return Eigen::VectorXcd();
      period_ = work_->t_end;
    }
    const int n = nc_ == 1 ? orbit_multipliers(setup_->model, section_, *work_, re, im)
                           : breakaway_multipliers(setup_->model, *work_, re, im);
    Eigen::VectorXcd mu(n > 0 ? n : 0);
    for (int i = 0; i < n; ++i) mu(i) = std::complex<double>(re[i], im[i]);
    return mu;
  }
  double period(const VectorXd&, double) override { return period_; }

  // the orbit through x at p solved again with the integrator's tolerances a hundredth (not below
  // 1e-14), and its multipliers
  bool refined_eigenvalues(const VectorXd& x, double p, Eigen::VectorXcd& eig) override {
    const SwitchingSettings as_set = set_;
    set_.rel_tol = std::max(1e-14, 0.01 * set_.rel_tol);
    set_.abs_tol = std::max(1e-16, 0.01 * set_.abs_tol);
    shot_p_ = segments_p_ = nan("");  // the caches hold the coarser orbit's
    ahead_.clear();
    VectorXd z = x;
    const bool solved = set_.rel_tol < as_set.rel_tol && solve_at_fixed_parameter(*this, z, p, newton_);
    if (solved) eig = eigenvalues(z, p, MatrixXd());
    set_ = as_set;
    shot_p_ = segments_p_ = nan("");
    return solved && eig.size() > 0;
  }

  // the return map's Jacobian DP (full state) at the orbit through z at p
  bool return_map_jacobian(const VectorXd& z, double p, MatrixXd& dp) {
    if (multiple_) {
      if (!(p == segments_p_ && z == segments_z_)) {
        VectorXd F;
        if (!evaluate_segments(z, p, F, nullptr, nullptr)) return false;
      }
      // Φ of each segment, then the saltation of its boundary (the last: the section's projection)
      const int m = static_cast<int>(segment_modes_.size());
      dp = MatrixXd::Identity(ny_, ny_);
      for (int i = 0; i < m; ++i) {
        dp = phi_[static_cast<std::size_t>(i)] * dp;
        const SegmentBoundary<D>& b = boundaries_[static_cast<std::size_t>(i)];
        VectorXd jump(ny_), grad(ny_);
        double speed = 0.0;
        for (int c = 0; c < ny_; ++c) {
          grad(c) = b.grad[c];
          speed += b.grad[c] * b.f_before[c];
          jump(c) = i + 1 < m ? b.f_after[c] - b.f_before[c] : -b.f_before[c];
        }
        if (!(std::abs(speed) > 0.0)) return false;
        dp += jump * (grad.transpose() * dp) / speed;
      }
      return true;
    }
    VectorXd F(ny_ + nc_);
    if (!residual(z, p, F.data())) return false;
    dp.resize(ny_, ny_);
    for (int i = 0; i < ny_; ++i)
      for (int j = 0; j < ny_; ++j) dp(i, j) = work_->dp[i][j];
    return true;
  }
  // the matrix that is singular where the orbit's multiplier crosses −1: DP + I, or with multiple
  // shooting the Jacobian of the segments with the period's closing condition antiperiodic
  // (φ_{m−1} + x_0), whose chain of projected segment maps is DP itself
  MatrixXd doubling_matrix(const MatrixXd& J) const {
    if (!multiple_) return J.topLeftCorner(ny_, ny_) + 2.0 * MatrixXd::Identity(ny_, ny_);
    MatrixXd M = J;
    const int last = static_cast<int>(segment_modes_.size()) - 1;
    M.block(last * ny_, 0, ny_, ny_) += 2.0 * MatrixXd::Identity(ny_, ny_);
    return M;
  }
  // the orbit of `crossings` that doubles `o`'s: the same modes after the break-away, twice the time
  void doubling_of(const OrbitProblem& o) {
    same_orbit_as(o);
    max_time_ = 2.0 * o.max_time_;
  }
  // the orbits `o` shoots (its modes after the break-away, its longest shot), on this one's plan
  void same_orbit_as(const OrbitProblem& o) {
    for (int i = 0; i < D::max_contacts; ++i) modes_[i] = o.modes_[i];
    max_time_ = o.max_time_;
  }
  // each point's section crossings after 1 … N − 1 returns (the point itself is the first), each a
  // shot of one return from the one before, in the modes just after it: the k-th returns of up to
  // kPointsABatch points one batch. A point whose shot fails gets N − 1 rows of NaN
  void later_points(const std::vector<ContinuationPoint>& points, std::vector<std::vector<VectorXd>>& out) {
    constexpr std::size_t kPointsABatch = 256;
    out.assign(points.size(), {});
    shot_p_ = segments_p_ = nan("");  // shots_ are about to be others
    for (std::size_t a = 0; a < points.size(); a += kPointsABatch) {
      const std::size_t n = std::min(kPointsABatch, points.size() - a);
      shots_.resize(n);
      while (setups_.size() < n) setups_.push_back(std::make_unique<CaseSetup<D>>());
      std::vector<bool> alive(n, true);
      for (std::size_t i = 0; i < n; ++i) {
        model_at(points[a + i].p, second_, *setups_[i]);
        OrbitShot<D>& s = shots_[i];
        s.kind = nc_ == 1 ? ShotKind::return_map : ShotKind::breakaway_map;
        s.crossings = 1;
        s.contact = contact_;
        s.time = max_time_;
        for (int c = 0; c < ny_; ++c) s.x[c] = points[a + i].x(c);
        for (int c = 0; c < D::max_contacts; ++c) s.modes[c] = modes_[c];
      }
      for (int k = 1; k < crossings_; ++k) {
        jobs_.clear();
        for (std::size_t i = 0; i < n; ++i)
          if (alive[i]) jobs_.push_back({&setups_[i]->model, &set_, &section_, &shots_[i]});
        shooter_.shoot(jobs_);
        for (std::size_t i = 0; i < n; ++i) {
          OrbitShot<D>& s = shots_[i];
          if (!alive[i] || !(alive[i] = s.ok)) continue;
          VectorXd y(ny_);
          for (int c = 0; c < ny_; ++c) s.x[c] = y(c) = s.x_end[c];
          for (int c = 0; c < D::max_contacts; ++c) s.modes[c] = s.modes_end[c];
          out[a + i].push_back(y);
        }
      }
      for (std::size_t i = 0; i < n; ++i)
        if (!alive[i]) out[a + i].assign(static_cast<std::size_t>(crossings_ - 1), VectorXd::Constant(ny_, nan("")));
    }
  }
  int state_size() const { return ny_; }
  // a plan of two parameters (a two-parameter curve): the second one's value from now on
  void set_second(double value) {
    if (value != second_) shot_p_ = segments_p_ = nan("");  // the last shot was of another model
    second_ = value;
  }
  // the matrix singular at a bifurcation of `kind` followed in a second parameter (CurveProblem):
  // the bordered Jacobian [[DP − I, Aᵀ], [A, 0]] at a fold, with DP + I at a period doubling
  MatrixXd critical_matrix(BifurcationKind kind, const MatrixXd& J) const {
    return kind == BifurcationKind::fold ? J : doubling_matrix(J);
  }
  // the orbit's period at (x, p), for a curve's points
  double period_at(const VectorXd& x, double p) {
    eigenvalues(x, p, MatrixXd());
    return period(x, p);
  }

  // the evaluations about to be asked for (CurveProblem: its base rows and their differences) shot
  // as one batch now; evaluate() at one of them takes its shots from here. Until the next call
  void prefetch(const std::vector<PendingEvaluation>& at) {
    ahead_.clear();
    for (const PendingEvaluation& e : at) {
      const double h = parameter_step(e.p);
      if (e.with_fp) {
        ahead_.push_back({e.z, e.p + h, e.second});
        ahead_.push_back({e.z, e.p - h, e.second});
      }
      ahead_.push_back({e.z, e.p, e.second});
    }
    const std::size_t per = static_cast<std::size_t>(shots_per());
    ahead_shots_.resize(ahead_.size() * per);
    while (ahead_setups_.size() < ahead_.size()) ahead_setups_.push_back(std::make_unique<CaseSetup<D>>());
    jobs_.clear();
    for (std::size_t k = 0; k < ahead_.size(); ++k) {
      model_at(ahead_[k].p, ahead_[k].second, *ahead_setups_[k]);
      for (std::size_t i = 0; i < per; ++i) {
        lay_shot(ahead_[k].z, static_cast<int>(i), ahead_shots_[k * per + i]);
        jobs_.push_back({&ahead_setups_[k]->model, &set_, &section_, &ahead_shots_[k * per + i]});
      }
    }
    shooter_.shoot(jobs_);
  }

 private:
  // a segmented orbit: each segment's modes and the event function of the boundary that ends it,
  // and the unknowns (x_i, then T_i) of the run they were found in
  struct Layout {
    std::vector<Modes> modes;
    std::vector<int> slots;
    VectorXd z;
  };

  // a run's mode events in time order, each with the event function that crossed and the state
  // and modes just after it (switching_advance's hooks); none once `closed`
  struct EventLog {
    struct Entry {
      double t = 0.0;
      int slot = -1;
      Modes after{};
      VectorXd y;
    };
    std::vector<Entry> entries;
    bool closed = false, ok = true;
    int slot = -1;
    void piece(const Model<D>&, SwitchingWorkspace<D>&, double) {}
    void before_event(const Model<D>&, SwitchingWorkspace<D>&, double, int crossed) { slot = crossed; }
    void after_event(const Model<D>& m, SwitchingWorkspace<D>& ws, double te) {
      if (closed) return;
      ok = ok && slot >= 0;
      Entry e;
      e.t = te;
      e.slot = slot;
      for (int i = 0; i < m.n_contacts; ++i) e.after[static_cast<std::size_t>(i)] = ws.mode[i];
      e.y.resize(2 * m.n_dof);
      for (int i = 0; i < 2 * m.n_dof; ++i) e.y(i) = ws.y[i];
      entries.push_back(std::move(e));
    }
  };

  // the segments of a run from the section point x at p over the orbit's N crossings (a velocity
  // section's last crossing is a boundary of its own); false where the run fails, ends in other
  // modes than it began, or has a segment of no duration
  bool layout_from_run(const VectorXd& x, double p, Layout& out) {
    setup_at(p);
    segments_p_ = nan("");
    const Model<D>& m = setup_->model;
    const int nq = ny_ / 2;
    SwitchingWorkspace<D>& ws = work_->ws;
    ws.started = false;
    EventLog log;
    int seen = 0;
    double t_end = 0.0;
    auto sink = [&](const SwitchingEvent<T>& e) {
      const bool crossing =
          nc_ == 1 ? e.section
                   : !e.section && e.contact == contact_ && e.from == ContactState::stick && e.to != ContactState::free;
      if (log.closed || !crossing || ++seen < crossings_) return;
      log.closed = true;
      t_end = e.t;
    };
    // on a velocity section exactly (a point a rounding above it would cross it at once)
    VectorXd start = x;
    if (nc_ == 1) start(section_coordinate(section_, nq)) = section_.value;
    T y[2 * D::max_dof];
    for (int i = 0; i < ny_; ++i) y[i] = start(i);
    const SwitchingSection section = nc_ == 1 ? section_ : SwitchingSection{};
    const Status started = nc_ == 1 ? switching_start(m, set_, section, ws, 0.0, y, y + nq, true, sink)
                                    : switching_start(m, set_, section, ws, 0.0, y, y + nq, false, sink, modes_);
    if (started != Status::ok) return false;
    Modes first{};
    for (int i = 0; i < m.n_contacts; ++i) first[static_cast<std::size_t>(i)] = ws.mode[i];
    if (!orbit_detail::advance_until(
            m, set_, section, ws, 0.0, max_time_, [&] { return log.closed; }, sink, log) ||
        !log.ok || !log.closed)
      return false;
    // a velocity section's crossing inside a mode ends the last segment; the events after it are not the orbit's
    std::vector<typename EventLog::Entry>& ev = log.entries;
    while (nc_ == 1 && !ev.empty() && ev.back().t >= t_end) ev.pop_back();
    if (nc_ == 1) {
      typename EventLog::Entry closing;
      closing.t = t_end;
      closing.slot = kSectionBoundary;
      closing.after = ev.empty() ? first : ev.back().after;
      ev.push_back(closing);
    }
    if (ev.empty() || ev.back().after != first) return false;
    const int segments = static_cast<int>(ev.size());
    out.modes.assign(1, first);
    out.slots.clear();
    out.z.resize(segments * (ny_ + 1));
    out.z.head(ny_) = start;
    double t = 0.0;
    for (int i = 0; i < segments; ++i) {
      const typename EventLog::Entry& e = ev[static_cast<std::size_t>(i)];
      if (!(e.t > t)) return false;
      out.z(segments * ny_ + i) = e.t - t;
      out.slots.push_back(e.slot);
      if (i + 1 < segments) {
        out.modes.push_back(e.after);
        out.z.segment((i + 1) * ny_, ny_) = e.y;
      }
      t = e.t;
    }
    return true;
  }

  // the segments' residual (and Jacobian) at (z, p), keeping each segment's Φ and boundary
  bool evaluate_segments(const VectorXd& z, double p, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) {
    const int n = size();
    if (segment_modes_.empty() || z.size() != n) return false;
    F.resize(n);
    // one batch: every segment at both sides of the difference in p and at the point
    const double h = parameter_step(p);
    if (Fp) {
      shoot(z, {p + h, p - h, p});
      VectorXd up(n), down(n);
      if (!segment_rows(0, z, up, nullptr) || !segment_rows(1, z, down, nullptr)) return false;
      *Fp = (up - down) / (2.0 * h);
    } else {
      shoot(z, {p});
    }
    // the point's own segments last: their Φ_i and boundaries give its multipliers
    if (!segment_rows(Fp ? 2 : 0, z, F, Fx)) return false;
    segments_z_ = z;
    segments_p_ = p;
    return true;
  }

  // the rows of the segments from the at-th parameter's shots of the last batch
  bool segment_rows(std::size_t at, const VectorXd& z, VectorXd& F, MatrixXd* J) {
    const int m = static_cast<int>(segment_modes_.size()), n = size();
    if (J) J->setZero(n, n);
    phi_.resize(static_cast<std::size_t>(m));
    boundaries_.resize(static_cast<std::size_t>(m));
    double scale = 1.0;
    for (int i = 0; i < ny_; ++i) scale = std::max(scale, std::abs(z(i)));
    for (int i = 0; i < m; ++i) {
      const std::size_t si = static_cast<std::size_t>(i);
      const int next = (i + 1) % m;
      const OrbitShot<D>& shot = shots_[at * static_cast<std::size_t>(m) + si];
      if (!shot.ok) return false;
      SegmentBoundary<D>& b = boundaries_[si];
      b = shot.boundary;
      MatrixXd& phi = phi_[si];
      phi.resize(ny_, ny_);
      for (int r = 0; r < ny_; ++r) {
        for (int c = 0; c < ny_; ++c) phi(r, c) = shot.dp[r][c];
        F(i * ny_ + r) = shot.x_end[r] - z(next * ny_ + r);
      }
      F(m * ny_ + i) = b.h;
      if (segment_slots_[si] == kSectionBoundary) {
        // an orbit that has shrunk onto an equilibrium (a Hopf point) meets the section at rest, and
        // past it the segments would close on its mirror image, which crosses the section the other way
        const double rate = static_cast<double>(b.f_before[section_coordinate(section_, ny_ / 2)]);
        if (!(std::abs(rate) > 1e-4 * scale) || rate * section_.direction < 0.0) return false;
      }
      if (!J) continue;
      J->block(i * ny_, i * ny_, ny_, ny_) += phi;
      J->block(i * ny_, next * ny_, ny_, ny_) -= MatrixXd::Identity(ny_, ny_);
      double rate = 0.0;
      for (int r = 0; r < ny_; ++r) {
        (*J)(i * ny_ + r, m * ny_ + i) = b.f_before[r];
        rate += b.grad[r] * b.f_before[r];
      }
      for (int c = 0; c < ny_; ++c) {
        double g = 0.0;
        for (int r = 0; r < ny_; ++r) g += b.grad[r] * phi(r, c);
        (*J)(m * ny_ + i, i * ny_ + c) = g;
      }
      (*J)(m * ny_ + i, m * ny_ + i) = rate;
    }
    return true;
  }

  // the model at p (and the second parameter, where the plan has one) for work on the host, which
  // leaves work_ no longer the last shot's
  void setup_at(double p) {
    shot_p_ = nan("");
    model_at(p, second_, *setup_);
  }
  // the model at (p, second) into `into`
  void model_at(double p, double second, CaseSetup<D>& into) const {
    const double row[2] = {p, second};
    plan_.case_setup(*uniform_, 0, row, 1, stick_tol_, into);
  }

  // the gradient of the section's condition k at the last point asked, component j
  double gradient(int k, int j) const {
    if (nc_ == 2) return work_->constraint_grad[k][j];
    return j == section_coordinate(section_, ny_ / 2) ? 1.0 : 0.0;
  }

  // F at (z, p), leaving DP and the conditions' gradients at x in work_
  bool residual(const VectorXd& z, double p, double* F) {
    shoot(z, {p});
    return residual_of(0, z, p, F);
  }

  // the shots of z at each parameter of `ps` as one batch, into shots_: the k-th parameter's from
  // k × shots_per() on, its model in setups_[k] (single shooting: the map; multiple: each segment)
  int shots_per() const { return multiple_ ? static_cast<int>(segment_modes_.size()) : 1; }
  void shoot(const VectorXd& z, std::initializer_list<double> ps) {
    shot_p_ = segments_p_ = nan("");  // shots_ are about to be others
    const std::size_t per = static_cast<std::size_t>(shots_per());
    shots_.resize(ps.size() * per);
    while (setups_.size() < ps.size()) setups_.push_back(std::make_unique<CaseSetup<D>>());
    jobs_.clear();
    std::size_t k = 0;
    for (const double p : ps) {
      model_at(p, second_, *setups_[k]);
      // shot already where the evaluations were announced (prefetch)
      std::size_t a = 0;
      while (a < ahead_.size() &&
             !(ahead_[a].p == p && ahead_[a].second == second_ && ahead_[a].z.size() == z.size() && ahead_[a].z == z))
        ++a;
      for (std::size_t i = 0; i < per; ++i) {
        OrbitShot<D>& s = shots_[k * per + i];
        if (a < ahead_.size()) {
          s = ahead_shots_[a * per + i];
        } else {
          lay_shot(z, static_cast<int>(i), s);
          jobs_.push_back({&setups_[k]->model, &set_, &section_, &s});
        }
      }
      ++k;
    }
    if (!jobs_.empty()) shooter_.shoot(jobs_);
  }

  // shot i of z: its map (single shooting), or its i-th segment
  void lay_shot(const VectorXd& z, int i, OrbitShot<D>& s) const {
    s.crossings = crossings_;
    s.contact = contact_;
    s.time = max_time_;
    if (!multiple_) {
      s.kind = nc_ == 1 ? ShotKind::return_map : ShotKind::breakaway_map;
      for (int c = 0; c < ny_; ++c) s.x[c] = z(c);
      for (int c = 0; c < D::max_contacts; ++c) s.modes[c] = modes_[c];
      return;
    }
    const int m = static_cast<int>(segment_modes_.size());
    const std::size_t si = static_cast<std::size_t>(i), next = static_cast<std::size_t>((i + 1) % m);
    s.kind = ShotKind::segment;
    for (int c = 0; c < ny_; ++c) s.x[c] = z(i * ny_ + c);
    for (int c = 0; c < D::max_contacts; ++c) {
      s.modes[c] = segment_modes_[si][static_cast<std::size_t>(c)];
      s.after[c] = segment_modes_[next][static_cast<std::size_t>(c)];
    }
    s.slot = segment_slots_[si];
    s.time = z(m * ny_ + i);
  }

  // a single-shooting shot's outputs into work_, as the map itself leaves them
  bool adopt(const OrbitShot<D>& s) {
    if (!s.ok) return false;
    for (int i = 0; i < ny_; ++i) {
      work_->x_end[i] = s.x_end[i];
      for (int j = 0; j < ny_; ++j) work_->dp[i][j] = s.dp[i][j];
    }
    work_->t_end = s.t_end;
    for (int i = 0; i < D::max_contacts; ++i) work_->modes_end[i] = s.modes_end[i];
    work_->events = s.events;
    work_->crossing_speed = s.crossing_speed;
    return true;
  }

  // F at (z, p) from the at-th parameter's shot of the last batch (p its parameter), leaving DP
  // and the conditions' gradients at x in work_
  bool residual_of(std::size_t at, const VectorXd& z, double p, double* F) {
    shot_p_ = nan("");
    const Model<D>& m = setups_[at]->model;
    typename D::scalar x[2 * D::max_dof];
    for (int i = 0; i < ny_; ++i) x[i] = z(i);
    if (!adopt(shots_[at])) return false;
    if (nc_ == 1) {
      const int k = section_coordinate(section_, ny_ / 2);
      // an orbit that has shrunk onto an equilibrium (a Hopf point: the section meets the flow at
      // rest) is no orbit
      double size = 1.0;
      for (int i = 0; i < ny_; ++i) size = std::max(size, std::abs(static_cast<double>(x[i])));
      if (!(std::abs(static_cast<double>(work_->crossing_speed)) > 1e-4 * size)) return false;
      for (int i = 0; i < ny_; ++i) F[i] = work_->x_end[i] - x[i] + (i == k ? z(ny_) : 0.0);
      F[ny_] = x[k] - section_.value;
      shot_z_ = z;
      shot_p_ = p;
      return true;
    }
    for (int i = 0; i < m.n_contacts; ++i)
      if (work_->modes_end[i] != modes_[i]) return false;  // another sequence of modes: another branch
    if (!breakaway_constraints(m, set_, *work_, 0.0, x, modes_, contact_)) return false;
    for (int i = 0; i < ny_; ++i) {
      double f = work_->x_end[i] - x[i];
      for (int c = 0; c < 2; ++c) f += work_->constraint_grad[c][i] * z(ny_ + c);
      F[i] = f;
    }
    for (int c = 0; c < 2; ++c) F[ny_ + c] = work_->constraint[c];
    shot_z_ = z;
    shot_p_ = p;
    return true;
  }

  OrbitShooter<D>& shooter_;  // runs the shots of the corrector
  const batch::SweepPlan& plan_;
  double stick_tol_;
  SwitchingSettings set_;
  int contact_ = 0, crossings_ = 1, ny_ = 0, nc_ = 2;
  SwitchingSection section_;
  VectorXd shot_z_;  // single shooting: the point whose map and conditions work_ holds
  double shot_p_ = nan("");
  std::vector<OrbitShot<D>> shots_;  // the last batch's
  std::vector<ShotJob<D>> jobs_;
  std::vector<std::unique_ptr<CaseSetup<D>>> setups_;  // the last batch's models, one per parameter
  struct Ahead {
    VectorXd z;
    double p = 0.0, second = 0.0;
  };
  std::vector<Ahead> ahead_;  // the announced evaluations' points (prefetch), their shots and models
  std::vector<OrbitShot<D>> ahead_shots_;
  std::vector<std::unique_ptr<CaseSetup<D>>> ahead_setups_;
  double max_time_ = 1e3, period_ = 0.0;
  double second_ = nan("");
  ContactState modes_[D::max_contacts] = {};
  bool multiple_ = false;
  ContinuationSettings newton_;  // Newton at a fixed parameter: on newly laid segments, a refined orbit
  std::vector<Modes> segment_modes_;
  std::vector<int> segment_slots_;
  std::vector<MatrixXd> phi_;  // the last segments evaluated (at segments_z_, segments_p_): each Φ_i
  std::vector<SegmentBoundary<D>> boundaries_;
  VectorXd segments_z_;
  double segments_p_ = nan("");
  std::unique_ptr<CaseSetup<D>> uniform_ = std::make_unique<CaseSetup<D>>();
  std::unique_ptr<CaseSetup<D>> setup_ = std::make_unique<CaseSetup<D>>();
  std::unique_ptr<OrbitWork<D>> work_ = std::make_unique<OrbitWork<D>>();
};

// a bifurcation of the solutions of `Base` followed in a second parameter p2 — a fold or period
// doubling of orbits (OrbitProblem), a Hopf point of equilibria (EquilibriumProblem): unknowns
// w = (z, p1), z the base problem's (an orbit's section point and multipliers of its conditions,
// an equilibrium's state), F = [the base residual at (p1, p2); g], g the last unknown of the
// bordered system [[M, b], [cᵀ, 0]] (v, g) = (0, 1) — zero exactly where M is singular: M the base
// problem's critical_matrix of its Jacobian; b and c M's singular vectors at the curve's first
// point (a minimally augmented system: Govaerts 2000 §4; Kuznetsov 2004 §10.2). g's row and F_p2
// by forward differences
template <class Base>
class CurveProblem : public ContinuationProblem {
 public:
  CurveProblem(Base& base, BifurcationKind kind) : base_(base), kind_(kind) {}
  int size() const override { return base_.size() + 1; }

  // b and c from M at w: its smallest singular value's left and right vectors
  bool border_at(const VectorXd& w, double p2) {
    VectorXd Fo;
    MatrixXd J;
    base_.set_second(p2);
    if (!base_.evaluate(w.head(base_.size()), w(base_.size()), Fo, &J, nullptr)) return false;
    const MatrixXd M = matrix(J);
    const Eigen::JacobiSVD<MatrixXd> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
    b_ = svd.matrixU().col(M.rows() - 1);
    c_ = svd.matrixV().col(M.cols() - 1);
    return true;
  }

  bool evaluate(const VectorXd& w, double p2, VectorXd& F, MatrixXd* Fx, VectorXd* Fp) override {
    const int n = base_.size();
    // the points of g's differences, and every base evaluation below announced: one batch of shots
    std::vector<PendingEvaluation> ahead{{w.head(n), w(n), p2, Fx != nullptr}};
    if (Fx)
      for (int j = 0; j <= n; ++j) {
        VectorXd wj = w;
        wj(j) += difference_step(w(j));
        ahead.push_back({wj.head(n), wj(n), p2, false});
      }
    double hp = difference_step(p2);
    if (Fp) ahead.push_back({w.head(n), w(n), p2 + hp, false});
    base_.prefetch(ahead);
    VectorXd Fo, Fp1;
    MatrixXd J;
    double g = 0.0;
    if (!base_rows(w, p2, Fo, J, Fx ? &Fp1 : nullptr, g)) return false;
    const long events = base_.last_events();
    F.resize(n + 1);
    F.head(n) = Fo;
    F(n) = g;
    if (Fx) {
      Fx->setZero(n + 1, n + 1);
      Fx->topLeftCorner(n, n) = J;
      Fx->block(0, n, n, 1) = Fp1;
      for (int j = 0; j <= n; ++j) {
        double h = difference_step(w(j));
        VectorXd Fj;
        double gj = 0.0;
        if (!one_side(w, j, h, p2, events, Fj, gj)) return false;
        (*Fx)(n, j) = (gj - g) / h;
      }
    }
    if (Fp) {
      VectorXd Fh;
      double gh = 0.0;
      if (!one_side(w, n + 1, hp, p2, events, Fh, gh)) return false;
      Fp->resize(n + 1);
      Fp->head(n) = (Fh - Fo) / hp;
      (*Fp)(n) = (gh - g) / hp;
    }
    return true;
  }

  // the base problem's at the curve's point (an orbit's events a period): where it changes, the
  // orbits whose bifurcation the curve follows graze
  long signature(const VectorXd& w, double p2) override {
    base_.set_second(p2);
    const int n = base_.size();
    return base_.signature(w.head(n), w(n));
  }
  // no stability along a curve: its points are bifurcations of the base problem's solutions
  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd&) override { return {}; }
  double period(const VectorXd& w, double p2) override {
    base_.set_second(p2);
    const int n = base_.size();
    return base_.period_at(w.head(n), w(n));
  }

 private:
  MatrixXd matrix(const MatrixXd& J) const { return base_.critical_matrix(kind_, J); }
  // the base residual and Jacobian at (z, p1, p2), F_p1 where asked, and g
  bool base_rows(const VectorXd& w, double p2, VectorXd& Fo, MatrixXd& J, VectorXd* Fp1, double& g) {
    const int n = base_.size();
    base_.set_second(p2);
    if (!base_.evaluate(w.head(n), w(n), Fo, &J, Fp1)) return false;
    const MatrixXd M = matrix(J);
    const int m = static_cast<int>(M.rows());
    MatrixXd B = MatrixXd::Zero(m + 1, m + 1);
    B.topLeftCorner(m, m) = M;
    B.block(0, m, m, 1) = b_;
    B.block(m, 0, 1, m) = c_.transpose();
    VectorXd rhs = VectorXd::Zero(m + 1);
    rhs(m) = 1.0;
    const VectorXd v = B.partialPivLu().solve(rhs);
    g = v(m);
    return std::isfinite(g);
  }

  // the base rows and g a difference h along unknown j of w (j = n + 1: along p2) forward; where
  // the orbit there has other events than at w and the one backward has not (a grazing point
  // within h: the map is smooth on each side only) backward, h returned negative
  bool one_side(const VectorXd& w, int j, double& h, double p2, long events, VectorXd& Fj, double& gj) {
    const int n = base_.size();
    const auto at = [&](double step, VectorXd& Fs, double& gs) {
      VectorXd ws = w;
      double p2s = p2;
      (j <= n ? ws(j) : p2s) += step;
      MatrixXd Js;
      return base_rows(ws, p2s, Fs, Js, nullptr, gs);
    };
    if (!at(h, Fj, gj)) return false;
    if (events == 0 || base_.last_events() == events) return true;
    VectorXd Fb;
    double gb = 0.0;
    if (at(-h, Fb, gb) && base_.last_events() == events) {
      Fj = Fb;
      gj = gb;
      h = -h;
    }
    return true;
  }

  // an orbit's g holds the error of DP (its variational equations at the integrator's tolerance,
  // ~1e-8 of its size): differences of 1e-5 keep that error below a percent of g's derivatives
  static constexpr double kDifference = 1e-5;
  static double difference_step(double v) { return kDifference * (1.0 + std::abs(v)); }
  Base& base_;
  BifurcationKind kind_;
  VectorXd b_, c_;
};

const char* mode_name(ContactState s) {
  switch (s) {
    case ContactState::free:
      return "free";
    case ContactState::stick:
      return "stick";
    case ContactState::slip_neg:
      return "slip-";
    default:
      return "slip+";
  }
}

// a branch followed: an orbit's period in break-aways (0: equilibria), and the branch and
// bifurcation it was switched onto from (−1: the first)
// a fold's, period doubling's or Hopf point's curve in the second parameter, one way from the
// branch's point
struct Curve {
  BifurcationKind kind = BifurcationKind::fold;
  long bifurcation = 0;       // its index in the branch's bifurcations
  int direction = 1;          // of the second parameter
  ContinuationBranch points;  // each point's x: (z, p1); p: p2
};

// the curve of bifurcation `f` (at base unknowns z and its parameter) in the second parameter from
// its value `second`, both ways, into `curves`; nothing where Newton finds no point of it there
template <class Base>
void add_curves(CurveProblem<Base>& curve, const VectorXd& z, const Bifurcation& bif, long f, double second,
                const ContinuationBlock& b, std::vector<Curve>& curves) {
  VectorXd w(z.size() + 1);
  w.head(z.size()) = z;
  w(z.size()) = bif.p;
  if (!curve.border_at(w, second) || !solve_at_fixed_parameter(curve, w, second, b.curve_settings)) return;
  for (const int way : {-1, 1}) {
    ContinuationSettings cs = b.curve_settings;
    cs.direction = way;
    curves.push_back({bif.kind, f, way, continue_branch(curve, w, second, cs)});
  }
}

struct Followed {
  int period_n = 0;
  long from_branch = -1, from_bifurcation = -1;
  ContinuationBranch branch;
  std::vector<std::vector<VectorXd>> later;  // an orbit's: each point's section crossings after 1 … N − 1 returns
  long start = -1;                           // the sweep's start it grew from (−1: the scenario's run)
  double wall_s = 0.0;                       // the branch's continuation, its doubled branches' left out
  std::vector<Curve> curves;                 // of its folds, doublings and Hopf points in the second parameter
};

// the name of a state's component i in the tables: q0 … then u0 …
std::string state_column(int i, int nq) { return i < nq ? "q" + std::to_string(i) : "u" + std::to_string(i - nq); }

Followed followed_branch(int period_n, ContinuationBranch branch, long from_branch = -1, long from_bifurcation = -1) {
  Followed f;
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
                        const Bifurcation& pd, const ContinuationBlock& b, ContinuationBranch& out) {
  const int ny = one.state_size();
  const std::size_t at = static_cast<std::size_t>(pd.after_point);
  // past the doubling along the branch first: where a supercritical doubling's orbit lives
  const double along = at + 1 < single.points.size() && single.points[at + 1].p < single.points[at].p ? -1.0 : 1.0;
  const double width = b.hi - b.lo;
  for (const double side : {along, -along}) {
    for (const double shift : {1e-4, 1e-3, 3e-3, 1e-2}) {
      const double ps = pd.p + side * shift * width;
      if (ps <= b.lo || ps >= b.hi) continue;
      VectorXd z1 = VectorXd::Zero(one.size());
      z1.head(ny) = pd.x.head(ny);
      MatrixXd dp;
      if (!one.adapt(z1, ps) || !solve_at_fixed_parameter(one, z1, ps, b.settings) ||
          !one.return_map_jacobian(z1, ps, dp))
        continue;
      const Eigen::EigenSolver<MatrixXd> eig(dp);
      int k = 0;
      for (int i = 1; i < ny; ++i)
        if (std::abs(eig.eigenvalues()(i) + 1.0) < std::abs(eig.eigenvalues()(k) + 1.0)) k = i;
      VectorXd v = eig.eigenvectors().col(k).real();
      if (!(v.norm() > 0.0)) continue;
      v.normalize();
      const double scale = 1.0 + z1.head(ny).cwiseAbs().maxCoeff();
      for (const double eps : {1e-3, 1e-2, 3e-2, 1e-1}) {
        for (const double sign : {1.0, -1.0}) {
          VectorXd z2 = VectorXd::Zero(std::max(two.size(), two.point_size()));  // before its segments are laid
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

// the branches grown from the first orbit at p0 (the plan's scenario run for `settle` seconds):
// its own, followed in `direction`, and at each period doubling the doubled orbit's, `doublings`
// levels deep, with every section crossing of each point's orbit; with `plan2` (the continued
// parameter and the curves' second one) each fold's and doubling's curve from the second's value
// `second`. Empty where no periodic-N orbit is found there
template <class D>
std::vector<Followed> follow_orbit(OrbitShooter<D>& shooter, const batch::SweepPlan& plan,
                                   const batch::SweepPlan* plan2, double second, const SweepAnalysis& an,
                                   const SwitchingSettings& set, const ContinuationBlock& b, int period_n, double p0,
                                   int direction, double settle) {
  std::vector<std::unique_ptr<OrbitProblem<D>>> problems;
  problems.push_back(std::make_unique<OrbitProblem<D>>(shooter, plan, StepOptions{}.stick_tol, set, an, period_n,
                                                       b.multiple, b.settings));
  VectorXd z0;
  if (!problems[0]->first_orbit(p0, settle, z0)) return {};
  ContinuationSettings first = b.settings;
  first.direction = direction;
  std::vector<Followed> followed;
  const auto started = std::chrono::steady_clock::now();
  followed.push_back(followed_branch(period_n, continue_branch(*problems[0], z0, p0, first)));
  followed[0].wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // each period doubling found, `doublings` levels deep: the doubled orbit's branch
  for (std::size_t k = 0; k < followed.size(); ++k) {
    int level = 0;
    for (long up = followed[k].from_branch; up >= 0; up = followed[static_cast<std::size_t>(up)].from_branch) ++level;
    if (level >= b.doublings) continue;
    for (std::size_t f = 0; f < followed[k].branch.bifurcations.size(); ++f) {
      const Bifurcation& pd = followed[k].branch.bifurcations[f];
      if (pd.kind != BifurcationKind::period_doubling || followed[k].period_n * 2 > 32) continue;
      problems.push_back(std::make_unique<OrbitProblem<D>>(shooter, plan, StepOptions{}.stick_tol, set, an,
                                                           2 * followed[k].period_n, b.multiple, b.settings));
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
  if (plan2)
    for (std::size_t k = 0; k < followed.size(); ++k)
      for (std::size_t f = 0; f < followed[k].branch.bifurcations.size(); ++f) {
        const Bifurcation& bif = followed[k].branch.bifurcations[f];
        if (bif.kind != BifurcationKind::fold && bif.kind != BifurcationKind::period_doubling) continue;
        OrbitProblem<D> orbit(shooter, *plan2, StepOptions{}.stick_tol, set, an, followed[k].period_n, b.multiple,
                              b.settings);
        orbit.same_orbit_as(*problems[k]);
        orbit.set_second(second);
        // the point's unknowns as this problem lays them (its segments, with multiple shooting)
        VectorXd z = bif.x;
        if (!orbit.adapt(z, bif.p)) continue;
        CurveProblem<OrbitProblem<D>> curve(orbit, bif.kind);
        add_curves(curve, z, bif, static_cast<long>(f), second, b, followed[k].curves);
      }
  return followed;
}

// each Hopf point of an equilibrium branch followed in the second parameter (plan2: the continued
// parameter and the second), both ways from the scenario's value of it
template <class D>
void follow_hopf_curves(const batch::SweepPlan& plan2, const SwitchingSettings& set, const ContinuationBlock& b,
                        Followed& equilibria) {
  for (std::size_t f = 0; f < equilibria.branch.bifurcations.size(); ++f) {
    const Bifurcation& bif = equilibria.branch.bifurcations[f];
    if (bif.kind != BifurcationKind::hopf) continue;
    EquilibriumProblem<D> base(plan2, StepOptions{}.stick_tol, set);
    base.set_second(b.second_base);
    CurveProblem<EquilibriumProblem<D>> curve(base, bif.kind);
    add_curves(curve, bif.x, bif, static_cast<long>(f), b.second_base, b, equilibria.curves);
  }
}

// the sweep plan's view of the continued parameters: each one zipped over its range (path, a, b),
// so that the plan writes a row of their values into the model
SweepSpec zip_spec(const std::vector<std::tuple<std::string, double, double>>& ranges) {
  SweepSpec spec;
  spec.mode = SweepMode::zip;
  for (const auto& [path, lo, hi] : ranges) {
    SweepParameter par;
    par.path = path;
    par.values = {lo, hi};
    spec.parameters.push_back(par);
  }
  return spec;
}

// the plan of a fold's or doubling's curve: the continued parameter, then the second one
SweepSpec curve_spec(const ContinuationBlock& b) {
  return zip_spec({{b.parameter, b.lo, b.hi}, {b.second, b.curve_settings.p_min, b.curve_settings.p_max}});
}

// a parameter that moves nothing of the model cannot be continued
void require_moves_model(const batch::SweepPlan& plan, std::size_t slot, const std::string& pointer,
                         const std::string& path) {
  if (plan.slots()[slot].targets.empty() && !plan.slots()[slot].rebuilds_model())
    throw InputError(pointer, "'" + path + "' changes nothing of the model");
}

// a branch's start in a sweep's results: the middle case of a family of cases on stable periodic
// orbits (neighbours in the continued parameter, the other swept values equal, the same N)
struct SweepStart {
  long case_id = 0;
  double p = 0.0;
  int period_n = 1;
  long cases = 0;  // the family's
  json document;   // the scenario with the case's other swept values
};

std::vector<SweepStart> sweep_starts(const json& document, const ContinuationBlock& b) {
  batch::NamedColumns cols;
  refuse_input_in_active_output(b.from);
  try {
    cols = batch::read_sweep_cases(b.from);
  } catch (const std::exception& e) {
    throw InputError("/continuation/from", e.what());
  }
  for (const std::string& need : {b.parameter, std::string("orbit_n"), std::string("orbit_multiplier")})
    if (!cols.count(need))
      throw InputError("/continuation/from",
                       "the cases of '" + b.from + "' have no column '" + need + "'" +
                           (need == b.parameter ? ": the sweep must vary the continued parameter"
                                                : ": the sweep needs its orbit observer (analysis.orbit)"));
  std::vector<std::string> others;  // the other swept values: fixed along a branch
  for (const auto& [name, v] : cols)
    if (!name.empty() && name[0] == '/' && name != b.parameter) others.push_back(name);
  const std::vector<double>& p = cols.at(b.parameter);
  const std::vector<double>& n = cols.at("orbit_n");
  const std::vector<double>& mult = cols.at("orbit_multiplier");
  const std::vector<double>* ids = cols.count("case") ? &cols.at("case") : nullptr;
  std::vector<std::size_t> rows(p.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  // the other values first, then the parameter: a family is a run of neighbours
  const auto key = [&](std::size_t i) {
    std::vector<double> k;
    for (const std::string& o : others) k.push_back(cols.at(o)[i]);
    k.push_back(p[i]);
    return k;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t i, std::size_t j) { return key(i) < key(j); });
  const auto on_orbit = [&](std::size_t i) {
    return n[i] >= 1 && n[i] <= 32 && mult[i] < 1.0 && p[i] >= b.lo && p[i] <= b.hi;
  };
  const auto same_family = [&](std::size_t i, std::size_t j) {
    for (const std::string& o : others)
      if (cols.at(o)[i] != cols.at(o)[j]) return false;
    return n[i] == n[j];
  };
  std::vector<SweepStart> starts;
  for (std::size_t a = 0; a < rows.size();) {
    if (!on_orbit(rows[a])) {
      ++a;
      continue;
    }
    std::size_t e = a + 1;
    while (e < rows.size() && on_orbit(rows[e]) && same_family(rows[a], rows[e])) ++e;
    const std::size_t mid = rows[a + (e - a) / 2];
    SweepStart st;
    st.case_id = ids ? static_cast<long>((*ids)[mid]) : static_cast<long>(mid);
    st.p = p[mid];
    st.period_n = static_cast<int>(n[mid]);
    st.cases = static_cast<long>(e - a);
    st.document = document;
    for (const std::string& o : others) st.document[json::json_pointer(o)] = cols.at(o)[mid];
    starts.push_back(std::move(st));
    a = e;
  }
  return starts;
}

// a branch each way from every start, `b.at_once` of them (0: all) followed together each on a host
// thread of its own, the shots of their corrector iterations one batch on `shooter`; in the
// starts' order. A start whose run finds no orbit gives none
template <class D>
std::vector<Followed> follow_sweep_orbits(const ContinuationBlock& b, const SweepSpec& spec,
                                          const std::vector<SweepStart>& starts, OrbitShooter<D>& shooter,
                                          ShotCounts& counts, const ContinuationProgress& progress) {
  const long tasks = 2 * static_cast<long>(starts.size());
  long done = 0, points = 0;
  std::vector<std::vector<Followed>> grown(static_cast<std::size_t>(tasks));
  std::vector<std::string> errors(static_cast<std::size_t>(tasks));
  LockstepShooter<D> lockstep(shooter);
  std::atomic<long> next{0};
  std::mutex progress_mutex;
  const auto follow = [&](long t) {
    const SweepStart& st = starts[static_cast<std::size_t>(t / 2)];
    const int direction = t % 2 == 0 ? -1 : 1;
    try {
      const Scenario sc = parse_scenario(st.document);
      const batch::SweepPlan plan(sc, spec);
      // the curves start at the start's own value of the second parameter (a swept one too)
      std::unique_ptr<batch::SweepPlan> plan2;
      double second = 0.0;
      if (!b.second.empty()) {
        second = st.document[json::json_pointer(b.second)].get<double>();
        if (second >= b.curve_settings.p_min && second <= b.curve_settings.p_max)
          plan2 = std::make_unique<batch::SweepPlan>(sc, curve_spec(b));
      }
      const double settle = b.settle > 0.0 ? b.settle : sc.analysis.t_transient;
      grown[static_cast<std::size_t>(t)] =
          follow_orbit<D>(lockstep, plan, plan2.get(), second, batch::sweep_analysis(sc),
                          sc.integrator.switching_settings(), b, st.period_n, st.p, direction, settle);
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(t)] = e.what();
    }
    const std::lock_guard<std::mutex> lock(progress_mutex);
    ++done;
    for (const Followed& f : grown[static_cast<std::size_t>(t)]) points += static_cast<long>(f.branch.points.size());
    try {
      if (progress) progress(done, tasks, points);
    } catch (const std::exception& e) {
      errors[static_cast<std::size_t>(t)] = e.what();
    }
  };
  const long at_once = std::min<long>(b.at_once > 0 ? b.at_once : kMostAtOnce, tasks);
  const auto branch_thread = [&] {
    for (long t = next++; t < tasks; t = next++) follow(t);
    lockstep.leave();
  };
  for (long i = 0; i < at_once; ++i) lockstep.join();  // the first batch waits for each
  // this thread follows branches too; where the system gives fewer threads, fewer go together
  std::vector<std::thread> others;
  for (long i = 1; i < at_once; ++i) {
    try {
      others.emplace_back(branch_thread);
    } catch (const std::system_error&) {
      for (long j = i; j < at_once; ++j) lockstep.leave();
      break;
    }
  }
  branch_thread();
  for (std::thread& th : others) th.join();
  counts.batches += lockstep.batches();
  counts.shots += lockstep.shots();
  if (!lockstep.error().empty()) throw std::runtime_error(lockstep.error());
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error("a start of /continuation/from: " + e);
  std::vector<Followed> followed;
  for (long t = 0; t < tasks; ++t) {
    const long offset = static_cast<long>(followed.size());
    for (Followed& f : grown[static_cast<std::size_t>(t)]) {
      if (f.from_branch >= 0) f.from_branch += offset;
      f.start = t / 2;
      followed.push_back(std::move(f));
    }
  }
  return followed;
}

template <class D>
ContinuationRun continue_scenario(const json& document, const Scenario& sc, const ContinuationBlock& b, int threads,
                                  const ContinuationProgress& progress, ShotDevice device) {
  const SweepSpec spec = zip_spec({{b.parameter, b.lo, b.hi}});
  const batch::SweepPlan plan(sc, spec);
  require_moves_model(plan, 0, "/continuation/parameter", b.parameter);
  std::unique_ptr<batch::SweepPlan> plan2;  // the curves': both parameters
  if (!b.second.empty()) {
    plan2 = std::make_unique<batch::SweepPlan>(sc, curve_spec(b));
    require_moves_model(*plan2, 1, "/continuation/curves/parameter", b.second);
  }
  const SwitchingSettings set = sc.integrator.switching_settings();
  std::unique_ptr<OrbitShooter<D>> shooter_on;
  if (b.orbit && device == ShotDevice::cuda) {
    // no device is a wrong choice of the command line, said before any work, not a failure in it
    const CudaDeviceInfo gpu = cuda_device_info();
    if (!gpu.available)
      throw InputError("--device",
                       "cuda, but there is " + gpu.description + "; --device cpu runs the shots on the CPU cores");
    shooter_on = std::make_unique<CudaOrbitShooter<D>>();
  } else if (b.orbit)
    shooter_on = std::make_unique<CpuOrbitShooter<D>>(threads);
  ShotCounts counts;
  const auto started = std::chrono::steady_clock::now();
  const double p0 = b.direction > 0 ? b.lo : b.hi;
  const int nq = sc.model.dof(), ny = 2 * nq;
  std::vector<Followed> followed;
  std::vector<SweepStart> starts;
  std::vector<ContactState> modes0;
  int conditions = 0;  // an orbit's section conditions: its multipliers are the state's size less these
  if (b.orbit) {
    // the first orbit from a run at the range's end the branch starts from
    const SweepAnalysis an = batch::sweep_analysis(sc);
    if (!(an.section == SectionKind::stick_to_slip && an.contact < sc.model.n_contacts()) &&
        an.section != SectionKind::velocity)
      throw InputError("/analysis/poincare",
                       "an orbit is continued on the break-away section of a contact (section \"stick_to_slip\") "
                       "or on a velocity section (section \"velocity\")");
    conditions = an.section == SectionKind::velocity ? 1 : 2;
    if (!b.from.empty()) {
      starts = sweep_starts(document, b);
      if (starts.empty())
        throw InputError("/continuation/from", "no case of '" + b.from + "' ends on a stable periodic orbit with " +
                                                   b.parameter + " in the range");
      followed = follow_sweep_orbits<D>(b, spec, starts, *shooter_on, counts, progress);
    } else {
      const double settle = b.settle > 0.0 ? b.settle : sc.analysis.t_transient;
      LockstepShooter<D> alone(*shooter_on);
      alone.join();
      followed =
          follow_orbit<D>(alone, plan, plan2.get(), b.second_base, an, set, b, b.period_n, p0, b.direction, settle);
      alone.leave();
      counts.batches += alone.batches();
      counts.shots += alone.shots();
      if (!alone.error().empty()) throw std::runtime_error(alone.error());
      if (followed.empty())
        throw InputError("/continuation/range", "no periodic-" + std::to_string(b.period_n) + " orbit found at " +
                                                    b.parameter + " = " + format_double(p0) + " after " +
                                                    format_double(settle) + " s of the scenario's run");
    }
  } else {
    EquilibriumProblem<D> problem(plan, StepOptions{}.stick_tol, set);
    // the first point: Newton at the range's end the branch starts from, from the scenario's q at rest
    VectorXd x0 = VectorXd::Zero(ny);
    for (int i = 0; i < nq; ++i) x0(i) = sc.q0(i);
    if (!solve_at_fixed_parameter(problem, x0, p0, b.settings))
      throw InputError("/continuation/range", "no equilibrium found at " + b.parameter + " = " + format_double(p0) +
                                                  " (Newton from /initial/q at rest does not converge)");
    problem.modes_at(x0, p0, modes0);
    followed.push_back(followed_branch(0, continue_branch(problem, x0, p0, b.settings)));
    if (plan2) follow_hopf_curves<D>(*plan2, set, b, followed[0]);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const int n = ny;

  ContinuationRun run;
  run.parameter = b.parameter;
  // branches.csv: the point, its parameter and state, stability, the eigenvalues; branch after branch
  std::vector<std::pair<long, const ContinuationPoint*>> rows;
  std::vector<double> index;
  for (std::size_t k = 0; k < followed.size(); ++k)
    for (std::size_t i = 0; i < followed[k].branch.points.size(); ++i) {
      rows.emplace_back(static_cast<long>(k), &followed[k].branch.points[i]);
      index.push_back(static_cast<double>(i));
    }
  const std::size_t np = rows.size();
  std::vector<double> col(np);
  auto column = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < np; ++k) col[k] = value(*rows[k].second);
    run.branches.add(name, col);
  };
  for (std::size_t k = 0; k < np; ++k) col[k] = static_cast<double>(rows[k].first);
  run.branches.add("branch", col);
  run.branches.add("point", index);
  run.branches.add_text("kind", std::vector<std::string>(np, b.orbit ? "orbit" : "equilibrium"));
  column(b.parameter, [](const ContinuationPoint& p) { return p.p; });
  column("stable", [](const ContinuationPoint& p) { return p.stable ? 1.0 : 0.0; });
  if (b.orbit) {
    for (std::size_t k = 0; k < np; ++k)
      col[k] = static_cast<double>(followed[static_cast<std::size_t>(rows[k].first)].period_n);
    run.branches.add("period_n", col);
    column("period", [](const ContinuationPoint& p) { return p.period; });
    column("max_modulus", [](const ContinuationPoint& p) { return p.max_real; });
  } else {
    column("max_real", [](const ContinuationPoint& p) { return p.max_real; });
  }
  for (int i = 0; i < ny; ++i) column(state_column(i, nq), [i](const ContinuationPoint& p) { return p.x(i); });
  // the eigenvalues (an orbit: its multipliers, two fewer than the state's size on the section)
  for (int i = 0; i < n - conditions; ++i) {
    const auto part = [i](const ContinuationPoint& p, bool re) {
      return i < p.eig.size() ? (re ? p.eig(i).real() : p.eig(i).imag()) : nan("");
    };
    column("re" + std::to_string(i), [&part](const ContinuationPoint& p) { return part(p, true); });
    column("im" + std::to_string(i), [&part](const ContinuationPoint& p) { return part(p, false); });
  }
  column("arclength", [](const ContinuationPoint& p) { return p.s; });
  column("newton", [](const ContinuationPoint& p) { return static_cast<double>(p.newton); });

  // bifurcations.csv: kind, where, the state there
  std::vector<std::pair<long, const Bifurcation*>> found;
  for (std::size_t k = 0; k < followed.size(); ++k)
    for (const Bifurcation& f : followed[k].branch.bifurcations) found.emplace_back(static_cast<long>(k), &f);
  const std::size_t nb = found.size();
  std::vector<std::string> kinds(nb);
  std::vector<double> bc(nb);
  auto bcolumn = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < nb; ++k) bc[k] = value(*found[k].second);
    run.bifurcations.add(name, bc);
  };
  for (std::size_t k = 0; k < nb; ++k) kinds[k] = bifurcation_name(found[k].second->kind);
  run.bifurcations.add_text("kind", kinds);
  for (std::size_t k = 0; k < nb; ++k) bc[k] = static_cast<double>(found[k].first);
  run.bifurcations.add("branch", bc);
  bcolumn("after_point", [](const Bifurcation& f) { return static_cast<double>(f.after_point); });
  bcolumn(b.parameter, [](const Bifurcation& f) { return f.p; });
  bcolumn("test", [](const Bifurcation& f) { return f.test; });
  bcolumn("p_error", [](const Bifurcation& f) { return f.p_error; });
  bcolumn("frequency", [](const Bifurcation& f) { return f.frequency; });
  for (int i = 0; i < ny; ++i) bcolumn(state_column(i, nq), [i](const Bifurcation& f) { return f.x(i); });

  // curves.csv: each fold's, doubling's and Hopf point's curve in the second parameter, a row per point
  std::vector<std::tuple<long, const Curve*>> curves;
  for (std::size_t k = 0; k < followed.size(); ++k)
    for (const Curve& c : followed[k].curves) curves.emplace_back(static_cast<long>(k), &c);
  if (!b.second.empty()) {
    std::vector<std::vector<double>> cols(static_cast<std::size_t>(7 + ny));
    std::vector<std::string> kinds_of_rows;
    for (std::size_t c = 0; c < curves.size(); ++c) {
      const auto& [k, cv] = curves[c];
      for (std::size_t i = 0; i < cv->points.points.size(); ++i) {
        const ContinuationPoint& pt = cv->points.points[i];
        const double head[7] = {static_cast<double>(c),
                                static_cast<double>(i),
                                static_cast<double>(k),
                                static_cast<double>(cv->bifurcation),
                                pt.x(pt.x.size() - 1),
                                pt.p,
                                pt.period};
        for (int j = 0; j < 7; ++j) cols[static_cast<std::size_t>(j)].push_back(head[j]);
        for (int j = 0; j < ny; ++j) cols[static_cast<std::size_t>(7 + j)].push_back(pt.x(j));
        kinds_of_rows.push_back(bifurcation_name(cv->kind));
      }
    }
    const std::string heads[7] = {"curve", "point", "branch", "bifurcation", b.parameter, b.second, "period"};
    for (int j = 0; j < 7 + ny; ++j) {
      if (j == 2) run.curves.add_text("kind", kinds_of_rows);
      run.curves.add(j < 7 ? heads[j] : state_column(j - 7, nq), cols[static_cast<std::size_t>(j)]);
    }
  }

  // orbit_points.csv: every section crossing of each orbit of the branches (crossing 0 is the branch's point)
  if (b.orbit) {
    std::vector<std::vector<double>> cols(static_cast<std::size_t>(4 + ny));
    for (std::size_t k = 0; k < followed.size(); ++k)
      for (std::size_t i = 0; i < followed[k].branch.points.size(); ++i)
        for (int c = 0; c < followed[k].period_n; ++c) {
          const ContinuationPoint& pt = followed[k].branch.points[i];
          const VectorXd& y = c == 0 ? pt.x : followed[k].later[i][static_cast<std::size_t>(c - 1)];
          const double head[4] = {static_cast<double>(k), static_cast<double>(i), static_cast<double>(c), pt.p};
          for (int j = 0; j < 4; ++j) cols[static_cast<std::size_t>(j)].push_back(head[j]);
          for (int j = 0; j < ny; ++j) cols[static_cast<std::size_t>(4 + j)].push_back(y(j));
        }
    const std::string heads[4] = {"branch", "point", "crossing", b.parameter};
    for (int j = 0; j < 4 + ny; ++j) {
      run.orbit_points.add(j < 4 ? heads[j] : state_column(j - 4, nq), cols[static_cast<std::size_t>(j)]);
    }
  }

  json& r = run.report;
  r["name"] = sc.name;
  r["parameter"] = b.parameter;
  r["range"] = {b.lo, b.hi};
  r["direction"] = b.direction > 0 ? "up" : "down";
  r["start"] = b.from.empty() ? (b.orbit ? "orbit" : "equilibrium") : "sweep";
  if (b.orbit && b.from.empty()) r["period_n"] = b.period_n;
  if (!b.from.empty()) {
    // each family's start and the branches grown from it, down then up
    json js = json::array();
    for (std::size_t i = 0; i < starts.size(); ++i) {
      json grown = json::array();
      for (std::size_t k = 0; k < followed.size(); ++k)
        if (followed[k].start == static_cast<long>(i)) grown.push_back(k);
      js.push_back({{"case", starts[i].case_id},
                    {"parameter", starts[i].p},
                    {"period_n", starts[i].period_n},
                    {"family_cases", starts[i].cases},
                    {"branches", grown}});
    }
    r["from"] = b.from;
    r["starts"] = js;
    r["at_once"] = b.at_once;
  }
  if (b.orbit) {
    // the corrector's shots and the batches they ran in, on the device (CPU: `threads` threads)
    r["device"] = device == ShotDevice::cuda ? "cuda" : "cpu";
    r["threads"] = threads;
    r["shots"] = counts.shots;
    r["shot_batches"] = counts.batches;
  }
  json modes = json::array();
  for (ContactState m : modes0) modes.push_back(mode_name(m));
  if (!b.orbit) r["modes"] = modes;
  r["points"] = np;
  r["stop"] = followed.empty() ? std::string() : followed[0].branch.stop;
  r["settings"] = {
      {"ds", b.settings.ds},   {"ds_min", b.settings.ds_min},         {"ds_max", b.settings.ds_max},
      {"tol", b.settings.tol}, {"max_points", b.settings.max_points}, {"locate_tol", b.settings.locate_tol}};
  json bifs = json::array();
  for (const auto& [k, fp] : found) {
    const Bifurcation& f = *fp;
    const ContinuationBranch& branch = followed[static_cast<std::size_t>(k)].branch;
    json j = {{"kind", bifurcation_name(f.kind)},
              {"branch", k},
              {"parameter", f.p},
              {"after_point", f.after_point},
              {"test", f.test}};
    if (f.kind == BifurcationKind::torus) j["angle"] = f.frequency;
    if (std::isfinite(f.p_error)) j["parameter_error"] = f.p_error;
    if (f.kind == BifurcationKind::grazing) {
      j["events"] = {f.signature_before, f.signature_after};
      j["turns"] = f.turns;
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      const ContinuationPoint& after = branch.points[static_cast<std::size_t>(f.after_point) + 1];
      if (before.stable != after.stable) j["becomes"] = after.stable ? "stable" : "unstable";
    }
    if (f.kind == BifurcationKind::period_doubling || f.kind == BifurcationKind::torus) {
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      j["becomes"] = before.stable ? "unstable" : "stable";
    }
    if (f.kind == BifurcationKind::hopf) {
      j["frequency"] = f.frequency;
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      j["becomes"] = before.hopf_test < 0.0 ? "unstable" : "stable";
    }
    bifs.push_back(j);
  }
  r["bifurcations"] = bifs;
  json branches = json::array();
  for (std::size_t k = 0; k < followed.size(); ++k) {
    const Followed& fb = followed[k];
    json j = {{"branch", k}, {"points", fb.branch.points.size()}, {"stop", fb.branch.stop}};
    if (b.orbit) j["period_n"] = fb.period_n;
    if (fb.from_branch >= 0) j["from"] = {{"branch", fb.from_branch}, {"bifurcation", fb.from_bifurcation}};
    if (fb.start >= 0) j["start"] = fb.start;
    if (fb.from_branch < 0 && b.orbit) j["wall_s"] = fb.wall_s;
    branches.push_back(j);
  }
  r["branches"] = branches;
  if (!b.second.empty()) {
    json jc = json::array();
    for (std::size_t c = 0; c < curves.size(); ++c) {
      const auto& [k, cv] = curves[c];
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (const ContinuationPoint& pt : cv->points.points) {
        lo = std::min(lo, pt.p);
        hi = std::max(hi, pt.p);
      }
      jc.push_back({{"curve", c},
                    {"kind", bifurcation_name(cv->kind)},
                    {"branch", k},
                    {"bifurcation", cv->bifurcation},
                    {"direction", cv->direction > 0 ? "up" : "down"},
                    {"points", cv->points.points.size()},
                    {"stop", cv->points.stop},
                    {"reaches", {lo, hi}}});
    }
    r["curves"] = {
        {"parameter", b.second}, {"range", {b.curve_settings.p_min, b.curve_settings.p_max}}, {"curves", jc}};
  }
  r["wall_s"] = wall;
  r["scenario"] = document;
  return run;
}

}  // namespace

void write_continuation_h5(const ContinuationRun& run, const std::filesystem::path& file) {
  std::vector<std::pair<std::string, const NamedColumns*>> tables{{"branches", &run.branches},
                                                                  {"bifurcations", &run.bifurcations}};
  if (!run.orbit_points.names.empty()) tables.emplace_back("orbit_points", &run.orbit_points);
  if (!run.curves.names.empty()) tables.emplace_back("curves", &run.curves);
  batch::write_tables_h5(file, tables, batch::kContinuationH5Format, run.report);
}

std::vector<std::filesystem::path> continuation_inputs(const json& document) {
  const ContinuationBlock block = parse_continuation_block(document);
  if (block.from.empty()) return {};
  return {block.from};
}

ContinuationRun run_continuation(const json& document, int threads, const ContinuationProgress& progress,
                                 ShotDevice device) {
  const ContinuationBlock block = parse_continuation_block(document);
  const Scenario sc = parse_scenario(document);
  if (sc.model.omega != 0.0)
    throw InputError("/model", "a forced model (omega > 0) has no equilibria, and its orbits are not continued yet");
  ContinuationRun run;
  const bool held = batch::with_instantiation(
      batch::SweepInstantiations<double>{}, sc.model.dof(), sc.model.n_contacts(), [&](auto tag) {
        using D = typename decltype(tag)::type;
        run = continue_scenario<D>(document, sc, block, threads, progress, device);
      });
  if (!held)
    throw InputError("/model", "continuation holds models of up to 24 DoF and 8 contacts; this one has " +
                                   std::to_string(sc.model.dof()) + " DoF and " +
                                   std::to_string(sc.model.n_contacts()) + " contacts");
  return run;
}

}  // namespace fivsim
