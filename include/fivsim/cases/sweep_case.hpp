// fivsim/cases/sweep_case.hpp — one case of the general sweep kernels (every model and method but
// the belt runner's, cases/belt_runner.hpp): its stepper chosen at compile time (plain Moreau,
// Moreau or Runge–Kutta with the Lyapunov twin, the switching integrator), the loop of a kernel's
// thread over its cases, one or taken from a queue, and the orbit observer's pass after them. The
// prebuilt kernels (kernels/sweep_batch.cuh) and the kernels generated for a scenario
// (sweep/kernel_source.hpp) run it alike: they differ only in where a case's setup and the shared
// options come from.
#pragma once

#include "fivsim/cases/case_batch.hpp"
#include "fivsim/cases/case_orbit.hpp"

namespace fivsim {

// the general kernels' steppers: plain Moreau; Moreau or Runge–Kutta with or without the Lyapunov
// twin; the switching integrator (double precision only), which with the orbit observer in an
// adaptive sweep also shoots each case's orbit as it runs (each thread's OrbitWork in global
// scratch; none given, it runs without)
enum CaseStepperKind : int { kPlainMoreau = 0, kGeneralStepper = 1, kSwitching = 2 };

// the stepper a batch's cases run with
template <class D>
FIVSIM_HD inline int case_stepper_kind(const CaseBatch<D>& cases, const SweepAnalysis& an) {
  if (cases.switching) return kSwitching;
  return cases.maps || an.lyapunov_every > 0 ? kGeneralStepper : kPlainMoreau;
}

// the plain Moreau kernel's stepper (run_case_with's stepper concept): Moreau's step over a
// workspace without the Runge–Kutta scratch, and no twin; a thread's stack holds only what this
// stepper uses
template <class D>
struct PlainMoreauStepper {
  const Model<D>* m;
  typename D::scalar dt;
  const StepOptions* opt;
  MoreauWorkspace<D>* ws;
  FIVSIM_HD StepReport step(int, State<D>& s) { return moreau_step(*m, s, dt, *opt, *ws); }
  FIVSIM_HD void reset(int) { ws->has_basis = false; }
};

// one case with the stepper of `Kind`: its setup and step map (null: Moreau) given, its result
// written to `result` at the end
template <class D, int Kind>
FIVSIM_HD inline void run_sweep_case(const CaseSetup<D>& setup, const RkStepMap<D>* map, const SwitchingSettings& set,
                                     const SweepAnalysis& an, const StepOptions& opt, CaseResult<D>& result,
                                     double* points, OrbitWork<D>* orbit, SwitchingTangent<D>* tangent) {
  State<D> s;
  CaseResult<D> r;
  if constexpr (Kind == kSwitching) {
    SwitchingWorkspace<D> ws;
    run_switching_case(setup, set, an, opt, ws, s, r, points, tangent, orbit);
  } else if constexpr (Kind == kGeneralStepper) {
    CaseWorkspace<D> ws;
    LyapunovTwin<D> twin;
    run_case(setup, map, an, opt, ws, s, r, points, &twin);
  } else {
    MoreauWorkspace<D> ws;
    PlainMoreauStepper<D> stepper{&setup.model, typename D::scalar(setup.dt), &opt, &ws};
    run_case_with(setup, an, opt, stepper, s, r, points);
  }
  result = r;
}

#if defined(__CUDACC__)
// a kernel thread's cases: its own (one case a thread), or, given a queue (adaptive and switching
// sweeps, whose cases differ in length), the next case whenever its last is done, so that a chunk
// costs the sum of its cases rather than its longest times its size. `setup_of(c, scratch)` gives
// case c's setup, `map_of(c)` its step map
template <class D, int Kind, class SetupOf, class MapOf>
__device__ inline void sweep_thread_cases(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt,
                                          CaseResult<D>* __restrict__ results, double* __restrict__ points,
                                          long per_case, unsigned long long* queue, OrbitWork<D>* orbit_work,
                                          SwitchingTangent<D>* tangent_work, SetupOf setup_of, MapOf map_of) {
  const long thread = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  OrbitWork<D>* orbit = orbit_work ? orbit_work + thread : nullptr;
  SwitchingTangent<D>* tangent = tangent_work ? tangent_work + thread : nullptr;
  const auto one = [&](long c) {
    // a scratch copy of the setup only where the case's row changes it (the frame is local memory
    // the driver reserves for every resident thread: one setup, not two)
    CaseSetup<D> scratch;
    run_sweep_case<D, Kind>(setup_of(c, scratch), map_of(c), cases.switching_settings, an, opt, results[c],
                            points + c * per_case, orbit, tangent);
  };
  if (!queue) {
    if (thread < cases.n) one(thread);
    return;
  }
  for (long c = static_cast<long>(atomicAdd(queue, 1ull)); c < cases.n; c = static_cast<long>(atomicAdd(queue, 1ull)))
    one(c);
}

// a thread's part of the orbit observer's pass over a chunk that has run (decide_by_orbit, as the
// CPU's shoot_orbits_cpu): persistent threads, each with its OrbitWork in global scratch, take the
// cases from a queue (a case near a bifurcation shoots for every N, its neighbours for one)
template <class D, class SetupOf>
__device__ inline void orbit_thread_cases(const CaseBatch<D>& cases, const SweepAnalysis& an,
                                          CaseResult<D>* __restrict__ results, const double* __restrict__ points,
                                          long per_case, unsigned long long* queue, OrbitWork<D>* orbit_work,
                                          SetupOf setup_of) {
  OrbitWork<D>& work = orbit_work[static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x];
  const OrbitObserverSettings os;
  for (long c = static_cast<long>(atomicAdd(queue, 1ull)); c < cases.n; c = static_cast<long>(atomicAdd(queue, 1ull))) {
    CaseSetup<D> scratch;
    decide_by_orbit(setup_of(c, scratch), cases.switching_settings, os, an, points + c * per_case, work, results[c]);
  }
}
#endif

}  // namespace fivsim
