// fivsim/analysis/orbit_problem.hpp — the periodic orbits of the switching model as a continuation
// problem (analysis/continuation.hpp), single or multiple shooting on a section
// (integrate/switching_orbit.hpp); every Newton's shots one batch on the shooter
// (analysis/continuation_shots.hpp). Segments as COCO's hybrid orbits (Dankowicz & Schilder 2013
// ch. 14), multipliers through saltation matrices (Leine & Nijmeijer 2004 §3.5).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <vector>

#include <Eigen/Eigenvalues>

#include "fivsim/analysis/continuation.hpp"
#include "fivsim/analysis/continuation_shots.hpp"

namespace fivsim {

// the section an orbit is shot on: a velocity section (kind velocity, one condition), or the
// break-away of `contact` (kind none, two: γ_c = 0 and the stick margin = 0)
struct OrbitSection {
  SwitchingSection section;
  int contact = 0;
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
  using VectorXd = Eigen::VectorXd;
  using MatrixXd = Eigen::MatrixXd;

 public:
  OrbitProblem(OrbitShooter<D>& shooter, const ContinuedModel<D>& model, SwitchingSettings set, const OrbitSection& on,
               int crossings, bool multiple = false, const ContinuationSettings& newton = {})
      : shooter_(shooter),
        model_(model),
        set_(set),
        contact_(on.contact),
        crossings_(crossings),
        ny_(2 * model.dof()),
        nc_(on.section.kind == SwitchingSectionKind::velocity ? 1 : 2),
        section_(on.section),
        multiple_(multiple),
        newton_(newton) {}
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
  // the orbits `o` shoots (its modes after the break-away, its longest shot), on this one's model
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
      while (setups_.size() < n) setups_.push_back(std::make_unique<ModelAt<D>>());
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
    while (ahead_setups_.size() < ahead_.size()) ahead_setups_.push_back(std::make_unique<ModelAt<D>>());
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
  void model_at(double p, double second, ModelAt<D>& into) const { model_.at(p, second, into); }

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
    while (setups_.size() < ps.size()) setups_.push_back(std::make_unique<ModelAt<D>>());
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
  const ContinuedModel<D>& model_;
  SwitchingSettings set_;
  int contact_ = 0, crossings_ = 1, ny_ = 0, nc_ = 2;
  SwitchingSection section_;
  VectorXd shot_z_;  // single shooting: the point whose map and conditions work_ holds
  double shot_p_ = nan("");
  std::vector<OrbitShot<D>> shots_;  // the last batch's
  std::vector<ShotJob<D>> jobs_;
  std::vector<std::unique_ptr<ModelAt<D>>> setups_;  // the last batch's models, one per parameter
  struct Ahead {
    VectorXd z;
    double p = 0.0, second = 0.0;
  };
  std::vector<Ahead> ahead_;  // the announced evaluations' points (prefetch), their shots and models
  std::vector<OrbitShot<D>> ahead_shots_;
  std::vector<std::unique_ptr<ModelAt<D>>> ahead_setups_;
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
  std::unique_ptr<ModelAt<D>> setup_ = std::make_unique<ModelAt<D>>();
  std::unique_ptr<OrbitWork<D>> work_ = std::make_unique<OrbitWork<D>>();
};

}  // namespace fivsim
