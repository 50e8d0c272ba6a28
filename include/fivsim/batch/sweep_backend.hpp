// fivsim/batch/sweep_backend.hpp — what the batch engine's backends run a chunk of prepared cases
// with: CPU (OpenMP over the case runner, src/batch/sweep.cpp) and CUDA (kernels/sweep_batch.cuh,
// one thread per case), the outcome of a backend call and the allocation failures a test injects.
// Plain structs only (no Eigen, no JSON), so that nvcc never compiles host-only libraries; the
// backend objects the chunk loop drives are in chunk_backend.hpp.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fivsim/batch/case_runner.hpp"
#include "fivsim/batch/cuda_device.hpp"
#include "fivsim/batch/parameter_slots.hpp"

namespace fivsim::batch {

// the instantiations of the batch path: models of exactly 1, 2 or 5 DoF and contacts, and
// models up to 2, 8, or 24 DoF with 8 contacts (24 LCP unknowns). Exact sizes (as many contacts
// as DoF: sliders on a belt) unroll every loop and run the belt runner where they can; the others
// hold any model up to their capacity
template <class T>
using SweepDims1 = Dims<T, 1, 1, true>;
template <class T>
using SweepDimsExact2 = Dims<T, 2, 2, true>;
template <class T>
using SweepDimsExact5 = Dims<T, 5, 5, true>;
template <class T>
using SweepDims2 = Dims<T, 2, 2>;
template <class T>
using SweepDims8 = Dims<T, 8, 8>;
template <class T>
using SweepDimsGeneric = Dims<T, 24, 8>;

// the cases of one backend call: the sweep's one setup (stride 0) with each case's row written in
// by the backend, or each case's own setup (stride 1) where the plan makes them on the host; the
// same for the Runge–Kutta step maps (null for Moreau)
template <class D>
struct CaseBatch {
  long n = 0;
  const CaseSetup<D>* setups = nullptr;
  long setup_stride = 0;
  const RkStepMap<D>* maps = nullptr;
  long map_stride = 0;
  SlotTargets targets;           // written per case into the setup (none where setups are per case)
  const double* rows = nullptr;  // swept parameter k of case c at rows[k * row_stride + c]
  long row_stride = 0;
  int n_params = 0;
  double stick_tol = 0.0;
  bool switching = false;         // the switching integrator (integrator.method switching), not a time stepper
  SwitchingSettings switching_settings;

  FIVSIM_HD const RkStepMap<D>* map(long c) const { return maps ? maps + c * map_stride : nullptr; }
  // case c's setup: the one in the batch, or `scratch` made from it and the case's row
  FIVSIM_HD const CaseSetup<D>& setup(long c, CaseSetup<D>& scratch) const {
    const CaseSetup<D>& s = setups[c * setup_stride];
    if (targets.n == 0) return s;
    scratch = s;
    apply_row(targets, rows + c, row_stride, typename D::scalar(stick_tol), scratch.model, scratch.start);
    return scratch;
  }
  // cases [at, at + count) as a batch of their own
  CaseBatch part(long at, long count) const {
    CaseBatch b = *this;
    b.n = count;
    b.setups = setups + at * setup_stride;
    b.maps = maps ? maps + at * map_stride : nullptr;
    b.rows = rows ? rows + at : nullptr;
    return b;
  }
};

// whether a batch runs on the belt runner (belt_runner.hpp) rather than the general case runner:
// a belt model's cases sharing one setup, with Moreau's step and no Lyapunov twin
template <class D>
bool runs_as_belt(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt);

// the instantiations as a type list, in the order a model is offered to them: it runs on the
// first that holds it (FIVSIM_SWEEP_FOR_EACH_DIMS below instantiates the same list)
template <class... Ds>
struct DimsList {};
template <class T>
using SweepInstantiations = DimsList<SweepDims1<T>, SweepDimsExact2<T>, SweepDimsExact5<T>, SweepDims2<T>,
                                     SweepDims8<T>, SweepDimsGeneric<T>>;

template <class D>
constexpr bool holds_model(int n_dof, int n_contacts) {
  return D::exact ? n_dof == D::max_dof && n_contacts == D::max_contacts
                  : n_dof <= D::max_dof && n_contacts <= D::max_contacts;
}

template <class D>
struct DimsTag {
  using type = D;
};

// calls f(DimsTag<D>{}) with the first instantiation of the list that holds the model; false
// when none does
template <class F, class D, class... Rest>
bool with_instantiation(DimsList<D, Rest...>, int n_dof, int n_contacts, F&& f) {
  if (holds_model<D>(n_dof, n_contacts)) {
    f(DimsTag<D>{});
    return true;
  }
  if constexpr (sizeof...(Rest) > 0) return with_instantiation(DimsList<Rest...>{}, n_dof, n_contacts, f);
  else return false;
}

// the cases of a running CPU chunk counted as they finish, so that a progress line moves within a
// chunk: `report(done)` is called by the calling thread (OpenMP's master) at most every `every_s`
// seconds. What report throws (a Python KeyboardInterrupt) stops the cases not yet started and
// is thrown again once the chunk's threads have joined
class ChunkTicker {
 public:
  explicit ChunkTicker(std::function<void(long done)> report, double every_s = 0.25)
      : report_(std::move(report)), every_s_(every_s), last_(std::chrono::steady_clock::now()) {}
  // `count` more cases finished (any thread)
  void finished(long count);
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  // what report threw, if it did (after the parallel region)
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::function<void(long)> report_;
  double every_s_;
  std::chrono::steady_clock::time_point last_;
  std::atomic<long> done_{0};
  std::atomic<bool> stopped_{false};
  std::exception_ptr error_;
};

// runs the batch on `threads` CPU threads (0: all); points holds n × kPointKinds × capacity rows;
// `ticker` (may be null) hears of each finished case
template <class D>
void run_chunk_cpu(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt, CaseResult<D>* results,
                   double* points, int threads, ChunkTicker* ticker = nullptr);

// what a backend call reports: success, or its error and whether that was a lack of device
// memory (the caller then runs the cases in smaller parts)
struct BackendOutcome {
  std::string error;  // "" on success
  bool out_of_memory = false;
  bool ok() const { return error.empty(); }
};

// the points of a launch where a device runs out of memory, in the order a launch reaches them:
// the slot's device buffers, its pinned host buffers, the kernel launch (local memory)
enum class FailurePoint : int { slot_buffers = 0, pinned_buffers = 1, kernel_launch = 2 };

// allocation failures a test injects into a backend (CPU and CUDA alike, at the same points), so
// that the chunk loop's halving, retries and slot reuse run on every machine: any launch of more
// than max_cases cases fails at its slot buffers, and each `At` fails the call-th time its point
// is reached (on its slot, or on either with slot -1), once
struct InjectedFailures {
  struct At {
    FailurePoint point = FailurePoint::slot_buffers;
    int slot = -1;
    long call = 1;
    long seen = 0;
  };
  long max_cases = 0;
  std::vector<At> at;

  bool any() const { return max_cases > 0 || !at.empty(); }
  // whether a launch of n cases on `slot` fails on reaching `point` (each matching entry counts it)
  bool fails(FailurePoint point, int slot, long n) {
    bool fail = point == FailurePoint::slot_buffers && max_cases > 0 && n > max_cases;
    for (At& a : at)
      if (a.point == point && (a.slot < 0 || a.slot == slot) && ++a.seen == a.call) fail = true;
    return fail;
  }
  // the outcome of a failure injected at `point` on `slot`
  static BackendOutcome outcome(FailurePoint point, int slot) {
    static const char* const where[] = {"device buffers", "pinned host buffers", "kernel launch"};
    return {std::string("out of memory (injected at slot ") + std::to_string(slot) + "'s " +
                where[static_cast<int>(point)] + ")",
            true};
  }
};
#ifdef __CUDACC__
inline BackendOutcome cuda_outcome(cudaError_t err) {
  if (err == cudaSuccess) return {};
  return {cudaGetErrorString(err), err == cudaErrorMemoryAllocation};
}
#endif

// the CUDA backend as a pipeline of two slots: device buffers kept from chunk to chunk (grown as a
// chunk needs), one stream per slot, results copied back into pinned memory, so that one slot's
// chunk steps while the other's results come back and are written (kernels/sweep_batch.cuh)
template <class D>
class CudaPipeline {
 public:
  // `inject` (may be null, kept by the caller): failures a test injects at a launch's points
  explicit CudaPipeline(InjectedFailures* inject = nullptr);
  ~CudaPipeline();
  CudaPipeline(const CudaPipeline&) = delete;
  CudaPipeline& operator=(const CudaPipeline&) = delete;
  // queues the batch on slot 0 or 1: its setups and rows in, the kernel, its results and rings
  // out; out_of_memory (nothing queued, the slot's memory given back) when the device cannot hold
  // it. The batch's host arrays must stay until finish
  BackendOutcome launch(int slot, const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt);
  // waits for the slot's batch; its results and rings into the caller's arrays, the kernel's time
  BackendOutcome finish(int slot, CaseResult<D>* results, double* points, double& kernel_s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// runs the batch on the CUDA device, one thread per case. kernel_s gets the kernel's own time
// (device events)
template <class D>
BackendOutcome run_chunk_cuda(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt,
                           CaseResult<D>* results, double* points, double& kernel_s);

// the most local memory per thread of instantiation D's kernels (cudaFuncGetAttributes), which
// the driver reserves for every thread the device keeps resident; 0 without CUDA or a device
template <class D>
std::size_t sweep_kernel_local_bytes();

#define FIVSIM_SWEEP_DIMS_DOUBLE(X)                                                               \
  X(SweepDims1<double>) X(SweepDimsExact2<double>) X(SweepDimsExact5<double>) X(SweepDims2<double>) \
  X(SweepDims8<double>) X(SweepDimsGeneric<double>)
#define FIVSIM_SWEEP_DIMS_FLOAT(X)                                                                                   \
  X(SweepDims1<float>) X(SweepDimsExact2<float>) X(SweepDimsExact5<float>) X(SweepDims2<float>) X(SweepDims8<float>) \
  X(SweepDimsGeneric<float>)
#define FIVSIM_SWEEP_FOR_EACH_DIMS(X) FIVSIM_SWEEP_DIMS_DOUBLE(X) FIVSIM_SWEEP_DIMS_FLOAT(X)

// the CUDA backend's instantiation for D: in kernels/sweep_batch_{double,float}.cu, or in
// src/batch/cuda_unavailable.cpp for a build without CUDA
#define FIVSIM_SWEEP_CUDA_INSTANCE(D)                                                                    \
  template class CudaPipeline<D>;                                                                      \
  template std::size_t sweep_kernel_local_bytes<D>();                                                  \
  template BackendOutcome run_chunk_cuda<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&, \
                                         CaseResult<D>*, double*, double&);

#define FIVSIM_SWEEP_EXTERN(D)                                                                                    \
  extern template void run_chunk_cpu<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&, CaseResult<D>*, \
                                        double*, int, ChunkTicker*);                                              \
  extern template bool runs_as_belt<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&);          \
  extern template class CudaPipeline<D>;                                                                       \
  extern template std::size_t sweep_kernel_local_bytes<D>();                                                   \
  extern template BackendOutcome run_chunk_cuda<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&,  \
                                                CaseResult<D>*, double*, double&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_EXTERN)
#undef FIVSIM_SWEEP_EXTERN

}  // namespace fivsim::batch
