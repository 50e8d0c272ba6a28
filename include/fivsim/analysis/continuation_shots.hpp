// fivsim/analysis/continuation_shots.hpp — what continuation asks of the sweep engine below it:
// the model at values of the continued parameters (sweep/plan_model.hpp writes them as a sweep
// writes a case's row), and a batch of orbit shots run (sweep/orbit_shooter.hpp, on CPU threads or
// the device). The problems of analysis/orbit_problem.hpp see only these two interfaces.
// No Eigen here: the device's shot kernel includes this through its backend.
#pragma once

#include <vector>

#include "fivsim/integrate/orbit_shot.hpp"

namespace fivsim {

// the model and start state at one point of the continued parameters
template <class D>
struct ModelAt {
  Model<D> model;
  State<D> start;
};

// the scenario's model as a function of the continued parameter p (and a second one, `second`,
// where a bifurcation's curve follows two); const calls may run on any thread
template <class D>
class ContinuedModel {
 public:
  virtual ~ContinuedModel() = default;
  virtual int dof() const = 0;
  virtual int contacts() const = 0;
  virtual void at(double p, double second, ModelAt<D>& out) const = 0;
};

// a shot and the model it runs on (which outlive the batch)
template <class D>
struct ShotJob {
  const Model<D>* model = nullptr;
  const SwitchingSettings* settings = nullptr;
  const SwitchingSection* section = nullptr;
  OrbitShot<D>* shot = nullptr;
};

// what runs a batch of shots; a batch's shots are independent. One caller at a time
template <class D>
class OrbitShooter {
 public:
  virtual ~OrbitShooter() = default;
  virtual void shoot(const std::vector<ShotJob<D>>& jobs) = 0;
};

}  // namespace fivsim
