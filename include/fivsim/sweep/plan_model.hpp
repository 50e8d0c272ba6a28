// fivsim/sweep/plan_model.hpp — a sweep plan of the continued parameters as continuation's model
// (analysis/continuation_shots.hpp): the model at (p, second) is a case whose row holds them, so
// that a parameter reaches the model the way it reaches a sweep's case.
#pragma once

#include <memory>

#include "fivsim/analysis/continuation_shots.hpp"
#include "fivsim/sweep/sweep_plan.hpp"
#include "fivsim/cases/case_runner.hpp"

namespace fivsim::sweep {

template <class D>
class PlanModel final : public ContinuedModel<D> {
 public:
  // `plan` (which outlives this) zips the continued parameter, then the second where there is one
  PlanModel(const SweepPlan& plan, double stick_tol) : plan_(plan), stick_tol_(stick_tol) {
    plan_.uniform_setup(stick_tol_, *uniform_);
  }
  int dof() const override { return uniform_->model.n_dof; }
  int contacts() const override { return uniform_->model.n_contacts; }
  void at(double p, double second, ModelAt<D>& out) const override {
    const double row[2] = {p, second};  // the second read only where the plan has one
    plan_.case_model(*uniform_, 0, row, 1, stick_tol_, out.model, out.start);
  }

 private:
  const SweepPlan& plan_;
  double stick_tol_;
  std::unique_ptr<CaseSetup<D>> uniform_ = std::make_unique<CaseSetup<D>>();
};

}  // namespace fivsim::sweep
