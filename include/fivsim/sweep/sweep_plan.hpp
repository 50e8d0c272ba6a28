// fivsim/sweep/sweep_plan.hpp — a sweep as one model plus N rows of what varies (as vmap's
// in_axes): the sweep block's JSON pointers resolved once, against the base scenario, into typed
// slots that say what each swept number touches.
//
//   - a number that reaches the model as it is (a contact's normal force or surface speed, a
//     friction constant, a contact stiffness or gap) or the start state (q0, u0): a SlotTarget,
//     written per case into the one model by the step code itself (parameter_slots.hpp);
//   - a number the matrices are made from (masses, stiffnesses, damping, forcing, a
//     linear_multibody's entries): the case's model, with M⁻¹, the Delassus blocks and any
//     Runge–Kutta step map, is made on the host from a copy of the model's parameters
//     (ModelParameters) with the case's values, never from the JSON;
//   - /integrator/dt, /integrator/t_end, /analysis/t_transient: the case's time grid.
// What a pointer touches is found by making the model at two of its values and comparing (so every
// preset and linear_multibody resolve alike), and the rule its values obey by asking the parser
// for −1 and 0. Every case's values are checked before anything runs: the first bad case is
// reported as the parser reports it, naming the case.
#pragma once

#include <string>
#include <vector>

#include "fivsim/cases/case_runner.hpp"
#include "fivsim/cases/parameter_slots.hpp"
#include "fivsim/sweep/sweep_backend.hpp"
#include "fivsim/sweep/sweep_spec.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim::sweep {

// the numbers of a case's time grid a sweep may vary
enum class GridSlot : int { none = 0, dt, t_end, t_transient };

// one swept parameter, resolved
struct SweepSlot {
  std::string path;
  NumberRule rule = NumberRule::any;  // what its values must satisfy, as the parser checks them
  std::vector<SlotTarget> targets;    // model and start-state fields it sets as it is
  std::vector<int> model_numbers;     // it reaches the matrices: its places among ModelParameters' numbers
  GridSlot grid = GridSlot::none;
  bool rebuilds_model() const { return !model_numbers.empty(); }
};

class SweepPlan {
 public:
  // resolves every swept pointer and checks every case's values; throws the InputError of the
  // first bad case (or of a pointer that cannot be swept)
  SweepPlan(const Scenario& base, const SweepSpec& spec);

  const Scenario& base() const { return base_; }
  const SweepSpec& spec() const { return spec_; }
  const std::vector<SweepSlot>& slots() const { return slots_; }
  // the targets of the slots that do not rebuild the model
  const SlotTargets& targets() const { return targets_; }
  // some slot reaches the matrices: each case's model is made on the host
  bool rebuilds_model() const { return rebuilds_; }
  // dt, t_end or t_transient differ between cases
  bool varies_grid() const { return varies_grid_; }
  // the Runge–Kutta step map (which depends on the matrices and dt) differs between cases
  bool per_case_map() const { return rebuilds_ || varies_dt_; }
  // each case's setup is made on the host (its model or time grid differ beyond what a backend
  // writes per case)
  bool per_case_setups() const { return rebuilds_ || varies_grid_; }

  // the values of cases [first, first + n): parameter k of case i at rows[k * n + i]
  void case_rows(long first, long n, std::vector<double>& rows) const;

  // the setup every case starts from: the base scenario's model, start state and time grid
  template <class D>
  void uniform_setup(double stick_tol, CaseSetup<D>& out) const;
  // the setup of case `index` from the uniform one and its row (parameter k at row[k * stride]);
  // a model the case's values make invalid (a mass matrix that is not positive definite) throws an
  // InputError naming the case
  template <class D>
  void case_setup(const CaseSetup<D>& uniform, long index, const double* row, long stride, double stick_tol,
                  CaseSetup<D>& out) const;
  // case_setup's model and start state alone (a continued model at a point of its parameters)
  template <class D>
  void case_model(const CaseSetup<D>& uniform, long index, const double* row, long stride, double stick_tol,
                  Model<D>& model, State<D>& start) const;

  // "case 7 (/model/Fn = 3, /initial/q/0 = 0.5)", for messages
  std::string describe_case(long index) const;

 private:
  void resolve(std::size_t k, const json& doc);
  void check_values() const;
  // throws the parser's message for case `index` if it refuses the case
  void reject_case(long index) const;
  // the first case whose parameter k is v, or −1
  long first_case_with(std::size_t k, double v) const;
  bool value_ok(std::size_t k, double v) const;

  Scenario base_;
  SweepSpec spec_;
  std::vector<SweepSlot> slots_;
  SlotTargets targets_;
  std::vector<int> number_columns_;  // for each of ModelParameters' numbers: the column that sets it, or −1
  bool rebuilds_ = false, varies_grid_ = false, varies_dt_ = false;
};

// the scenario of case `index` from the JSON: the base document with the case's values, parsed;
// an InputError names the case and its values. What a case's own file would be (its trajectory,
// the parser's exact message for a bad case), never the per-case path of a sweep
Scenario case_scenario(const json& base, const SweepSpec& spec, long index, std::vector<double>& values);

#define FIVSIM_SWEEP_PLAN_EXTERN(D)                                                                                    \
  extern template void SweepPlan::uniform_setup<D>(double, CaseSetup<D>&) const;                                       \
  extern template void SweepPlan::case_setup<D>(const CaseSetup<D>&, long, const double*, long, double, CaseSetup<D>&) \
      const;                                                                                                           \
  extern template void SweepPlan::case_model<D>(const CaseSetup<D>&, long, const double*, long, double, Model<D>&,     \
                                                State<D>&) const;
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_PLAN_EXTERN)
#undef FIVSIM_SWEEP_PLAN_EXTERN

}  // namespace fivsim::sweep
