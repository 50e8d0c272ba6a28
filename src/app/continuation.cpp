// src/app/continuation.cpp — a branch of equilibria of the switching model followed in one
// parameter (app/continuation.hpp).
#include "fivsim/app/continuation.hpp"

#include <chrono>
#include <cmath>
#include <memory>

#include <Eigen/Eigenvalues>

#include "fivsim/analysis/continuation.hpp"
#include "fivsim/batch/sweep_plan.hpp"
#include "fivsim/integrate/switching_tangent.hpp"
#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct ContinuationBlock {
  std::string parameter;
  double lo = 0.0, hi = 0.0;
  int direction = 1;
  ContinuationSettings settings;
};

ContinuationBlock parse_block(const json& doc) {
  if (!doc.is_object() || !doc.contains("continuation"))
    throw InputError("/continuation", "is required: {\"parameter\": \"/model/...\", \"range\": [a, b]}");
  JsonObject c(doc["continuation"], "/continuation");
  ContinuationBlock b;
  b.parameter = c.string("parameter");
  if (b.parameter.rfind("/model/", 0) != 0 && b.parameter.rfind("/friction/", 0) != 0)
    throw InputError(
        c.pointer_of("parameter"),
        "'" + b.parameter + "' cannot be continued: equilibria move with the numbers of /model and /friction");
  const std::vector<double> range = c.numbers("range", 2);
  if (!(range[0] < range[1])) throw InputError(c.pointer_of("range"), "must be [a, b] with a < b");
  b.lo = range[0];
  b.hi = range[1];
  b.direction = c.choice_or("direction", "up", {"up", "down"}) == "up" ? 1 : -1;
  c.choice_or("start", "equilibrium", {"equilibrium"});
  ContinuationSettings& s = b.settings;
  s.p_min = b.lo;
  s.p_max = b.hi;
  s.direction = b.direction;
  // arclength steps in (x, p): by default a hundredth of the range to start, a twentieth at most
  const double width = b.hi - b.lo;
  s.ds = 0.01 * width;
  s.ds_max = 0.05 * width;
  s.ds_min = 1e-7 * width;
  if (c.has("step")) {
    JsonObject st = c.object("step");
    s.ds = st.number_or("initial", s.ds, NumberRule::positive);
    s.ds_min = st.number_or("min", s.ds_min, NumberRule::positive);
    s.ds_max = st.number_or("max", s.ds_max, NumberRule::positive);
    if (!(s.ds_min <= s.ds && s.ds <= s.ds_max)) throw InputError(st.pointer(), "needs min <= initial <= max");
    st.finish();
  }
  s.tol = c.number_or("tol", s.tol, NumberRule::positive);
  s.max_points = c.integer_or("max_points", s.max_points, 2);
  s.locate_tol = c.number_or("locate_tol", s.locate_tol, NumberRule::positive);
  c.finish();
  return b;
}

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
      const double h = 1e-6 * (1.0 + std::abs(p));
      VectorXd up(ny_), down(ny_);
      if (!field(x, p + h, up.data(), modes, nullptr) || !field(x, p - h, down.data(), modes, nullptr)) return false;
      *Fp = (up - down) / (2.0 * h);
    }
    return true;
  }

  Eigen::VectorXcd eigenvalues(const VectorXd&, double, const MatrixXd& Fx) override {
    return Eigen::EigenSolver<MatrixXd>(Fx, false).eigenvalues();
  }

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
    plan_.case_setup(*uniform_, 0, &p, 1, stick_tol_, *setup_);
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
  std::unique_ptr<CaseSetup<D>> uniform_ = std::make_unique<CaseSetup<D>>();
  std::unique_ptr<CaseSetup<D>> setup_ = std::make_unique<CaseSetup<D>>();
  std::unique_ptr<SwitchingWorkspace<D>> ws_ = std::make_unique<SwitchingWorkspace<D>>();
  std::unique_ptr<SwitchingTangent<D>> tan_ = std::make_unique<SwitchingTangent<D>>();
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

template <class D>
ContinuationRun continue_equilibria(const json& document, const Scenario& sc, const ContinuationBlock& b) {
  SweepSpec spec;
  spec.mode = SweepMode::zip;
  SweepParameter par;
  par.path = b.parameter;
  par.values = {b.lo, b.hi};
  spec.parameters.push_back(par);
  const batch::SweepPlan plan(sc, spec);
  if (plan.slots()[0].targets.empty() && !plan.slots()[0].rebuilds_model())
    throw InputError("/continuation/parameter", "'" + b.parameter + "' changes nothing of the model");
  const SwitchingSettings set = sc.integrator.switching_settings();
  EquilibriumProblem<D> problem(plan, StepOptions{}.stick_tol, set);
  const auto started = std::chrono::steady_clock::now();

  // the first point: Newton at the range's end the branch starts from, from the scenario's q at rest
  const int n = problem.size(), nq = n / 2;
  const double p0 = b.direction > 0 ? b.lo : b.hi;
  VectorXd x0 = VectorXd::Zero(n);
  for (int i = 0; i < nq; ++i) x0(i) = sc.q0(i);
  if (!solve_at_fixed_parameter(problem, x0, p0, b.settings))
    throw InputError("/continuation/range", "no equilibrium found at " + b.parameter + " = " + format_double(p0) +
                                                " (Newton from /initial/q at rest does not converge)");
  std::vector<ContactState> modes0;
  problem.modes_at(x0, p0, modes0);
  const ContinuationBranch branch = continue_branch(problem, x0, p0, b.settings);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  ContinuationRun run;
  run.parameter = b.parameter;
  // branches.csv: the point, its parameter and state, stability, the eigenvalues
  const std::size_t np = branch.points.size();
  std::vector<double> col(np);
  auto column = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < np; ++k) col[k] = value(branch.points[k]);
    run.branches.add(name, col);
  };
  column("branch", [](const ContinuationPoint&) { return 0.0; });
  std::vector<double> index(np);
  for (std::size_t k = 0; k < np; ++k) index[k] = static_cast<double>(k);
  run.branches.add("point", index);
  run.branches.add_text("kind", std::vector<std::string>(np, "equilibrium"));
  column(b.parameter, [](const ContinuationPoint& p) { return p.p; });
  column("stable", [](const ContinuationPoint& p) { return p.stable ? 1.0 : 0.0; });
  column("max_real", [](const ContinuationPoint& p) { return p.max_real; });
  for (int i = 0; i < nq; ++i) column("q" + std::to_string(i), [i](const ContinuationPoint& p) { return p.x(i); });
  for (int i = 0; i < nq; ++i)
    column("u" + std::to_string(i), [i, nq](const ContinuationPoint& p) { return p.x(nq + i); });
  for (int i = 0; i < n; ++i) {
    column("re" + std::to_string(i), [i](const ContinuationPoint& p) { return p.eig(i).real(); });
    column("im" + std::to_string(i), [i](const ContinuationPoint& p) { return p.eig(i).imag(); });
  }
  column("arclength", [](const ContinuationPoint& p) { return p.s; });
  column("newton", [](const ContinuationPoint& p) { return static_cast<double>(p.newton); });

  // bifurcations.csv: kind, where, the state there
  const std::size_t nb = branch.bifurcations.size();
  std::vector<std::string> kinds(nb);
  std::vector<double> bc(nb);
  auto bcolumn = [&](const std::string& name, auto value) {
    for (std::size_t k = 0; k < nb; ++k) bc[k] = value(branch.bifurcations[k]);
    run.bifurcations.add(name, bc);
  };
  for (std::size_t k = 0; k < nb; ++k) kinds[k] = bifurcation_name(branch.bifurcations[k].kind);
  run.bifurcations.add_text("kind", kinds);
  bcolumn("branch", [](const Bifurcation&) { return 0.0; });
  bcolumn("after_point", [](const Bifurcation& f) { return static_cast<double>(f.after_point); });
  bcolumn(b.parameter, [](const Bifurcation& f) { return f.p; });
  bcolumn("test", [](const Bifurcation& f) { return f.test; });
  bcolumn("frequency", [](const Bifurcation& f) { return f.frequency; });
  for (int i = 0; i < nq; ++i) bcolumn("q" + std::to_string(i), [i](const Bifurcation& f) { return f.x(i); });
  for (int i = 0; i < nq; ++i) bcolumn("u" + std::to_string(i), [i, nq](const Bifurcation& f) { return f.x(nq + i); });

  json& r = run.report;
  r["name"] = sc.name;
  r["parameter"] = b.parameter;
  r["range"] = {b.lo, b.hi};
  r["direction"] = b.direction > 0 ? "up" : "down";
  r["start"] = "equilibrium";
  json modes = json::array();
  for (ContactState m : modes0) modes.push_back(mode_name(m));
  r["modes"] = modes;
  r["points"] = np;
  r["stop"] = branch.stop;
  r["settings"] = {
      {"ds", b.settings.ds},   {"ds_min", b.settings.ds_min},         {"ds_max", b.settings.ds_max},
      {"tol", b.settings.tol}, {"max_points", b.settings.max_points}, {"locate_tol", b.settings.locate_tol}};
  json bifs = json::array();
  for (const Bifurcation& f : branch.bifurcations) {
    json j = {{"kind", bifurcation_name(f.kind)}, {"parameter", f.p}, {"after_point", f.after_point}, {"test", f.test}};
    if (f.kind == BifurcationKind::hopf) {
      j["frequency"] = f.frequency;
      const ContinuationPoint& before = branch.points[static_cast<std::size_t>(f.after_point)];
      j["becomes"] = before.hopf_test < 0.0 ? "unstable" : "stable";
    }
    bifs.push_back(j);
  }
  r["bifurcations"] = bifs;
  r["wall_s"] = wall;
  r["scenario"] = document;
  return run;
}

}  // namespace

ContinuationRun run_continuation(const json& document) {
  const ContinuationBlock block = parse_block(document);
  const Scenario sc = parse_scenario(document);
  if (sc.model.omega != 0.0) throw InputError("/model", "a forced model (omega > 0) has no equilibria to continue");
  ContinuationRun run;
  const bool held = batch::with_instantiation(batch::SweepInstantiations<double>{}, sc.model.dof(),
                                              sc.model.n_contacts(), [&](auto tag) {
                                                using D = typename decltype(tag)::type;
                                                run = continue_equilibria<D>(document, sc, block);
                                              });
  if (!held)
    throw InputError("/model", "continuation holds models of up to 24 DoF and 8 contacts; this one has " +
                                   std::to_string(sc.model.dof()) + " DoF and " +
                                   std::to_string(sc.model.n_contacts()) + " contacts");
  return run;
}

}  // namespace fivsim
