// fivsim/sweep/sweep_backend.hpp — what the sweep engine's backends run a chunk of prepared cases
// with: CPU (OpenMP over the case runner, src/sweep/cpu_backend.cpp) and CUDA (kernels/sweep_batch.cuh,
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

#include "fivsim/cases/case_batch.hpp"
#include "fivsim/cases/case_columns.hpp"
#include "fivsim/core/cuda_device.hpp"
#include "fivsim/sweep/kernel_options.hpp"

namespace fivsim::sweep {

// whether a batch runs on the belt runner (belt_runner.hpp) rather than the general case runner:
// a belt model's cases sharing one setup, with Moreau's step and no Lyapunov twin
template <class D>
bool runs_as_belt(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt);

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

// the orbit observer's pass (cases/case_orbit.hpp) over a chunk whose cases have run, on the
// host's `threads` (0: all): each case's exact orbit shot from its last section sample, its class
// where a stable one is found (double precision; float sweeps keep their samples' classes). The
// CPU's and the PINN methods' chunks take it; a CUDA chunk runs orbit_kernel on the device
// instead
template <class D>
void shoot_orbits_cpu(const CaseBatch<D>& cases, const SweepAnalysis& an, CaseResult<D>* results, const double* points,
                      int threads);

// a backend call reports a DeviceOutcome (core/cuda_device.hpp): on a lack of device memory the
// caller runs the cases in smaller parts

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
  static DeviceOutcome outcome(FailurePoint point, int slot) {
    static const char* const where[] = {"device buffers", "pinned host buffers", "kernel launch"};
    return {std::string("out of memory (injected at slot ") + std::to_string(slot) + "'s " +
                where[static_cast<int>(point)] + ")",
            true};
  }
};

// a batch's case table and counts made where it ran (cases/case_columns.hpp), so that only they
// come back: the rows of its n cases from case `first` by `layout`, column c of case i into
// values[c · stride + i], its counts added to *counts. values null: the results come back instead
struct DeviceTable {
  CaseTableLayout layout;
  long first = 0;
  double* values = nullptr;
  long stride = 0;
  CaseCounts* counts = nullptr;
  // the table of cases [at, at + …) of the batch
  DeviceTable part(long at) const {
    DeviceTable t = *this;
    t.first += at;
    if (t.values) t.values += at;
    return t;
  }
};

// a backend as a pipeline of two slots: launch queues a batch on slot 0 or 1 (its setups and rows
// in, the kernel, its results and rings out) and returns at once; out_of_memory (nothing queued,
// the slot's memory given back) when the device cannot hold it. The batch's host arrays must stay
// until finish, which waits for the slot's batch: its results and rings into the caller's arrays,
// the kernel's time
template <class D>
class SweepPipeline {
 public:
  virtual ~SweepPipeline() = default;
  // the kernel its chunks ran so far
  virtual KernelReport kernels() const { return {}; }
  // table.values: the batch's case table and counts instead of its results (finish's results
  // argument then unused)
  virtual DeviceOutcome launch(int slot, const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt,
                               const DeviceTable& table = {}) = 0;
  virtual DeviceOutcome finish(int slot, CaseResult<D>* results, double* points, double& kernel_s) = 0;
};

// the CUDA entry points of the sweep engine (kernels/sweep_batch.cuh); D is a tag where nothing
// else names the instantiation.
// The CUDA pipeline: device buffers kept from chunk to chunk (grown as a chunk needs), one stream
// per slot, results copied back into pinned memory, so that one slot's chunk steps while the
// other's results come back and are written. `inject` (may be null, kept by the caller): failures
// a test injects at a launch's points
#define FIVSIM_CUDA_PIPELINE(D) \
  std::unique_ptr<SweepPipeline<D>> cuda_pipeline(D, InjectedFailures* inject, const KernelOptions& kernels)
template <class D>
FIVSIM_CUDA_PIPELINE(D);
// runs the batch on the CUDA device, one thread per case. kernel_s gets the kernel's own time
// (device events)
#define FIVSIM_RUN_CHUNK_CUDA(D)                                                                           \
  DeviceOutcome run_chunk_cuda(const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt, \
                               CaseResult<D>* results, double* points, double& kernel_s)
template <class D>
FIVSIM_RUN_CHUNK_CUDA(D);
// the most local memory per thread of instantiation D's kernels (cudaFuncGetAttributes), which
// the driver reserves for every thread the device keeps resident; 0 without CUDA or a device
#define FIVSIM_SWEEP_KERNEL_LOCAL_BYTES(D) std::size_t sweep_kernel_local_bytes(D)
template <class D>
FIVSIM_SWEEP_KERNEL_LOCAL_BYTES(D);

#define FIVSIM_SWEEP_CUDA_ENTRIES(PREFIX, D) \
  PREFIX FIVSIM_CUDA_PIPELINE(D);            \
  PREFIX FIVSIM_RUN_CHUNK_CUDA(D);           \
  PREFIX FIVSIM_SWEEP_KERNEL_LOCAL_BYTES(D);
// the CUDA backend's instantiation for D: in kernels/sweep_batch_{double,float}.cu, or in
// src/sweep/cuda_unavailable.cpp for a build without CUDA
#define FIVSIM_SWEEP_CUDA_INSTANCE(D) FIVSIM_SWEEP_CUDA_ENTRIES(template, D)

#define FIVSIM_SWEEP_EXTERN(D)                                                                                         \
  extern template void run_chunk_cpu<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&, CaseResult<D>*, \
                                        double*, int, ChunkTicker*);                                                   \
  extern template bool runs_as_belt<D>(const CaseBatch<D>&, const SweepAnalysis&, const StepOptions&);                 \
  extern template void shoot_orbits_cpu<D>(const CaseBatch<D>&, const SweepAnalysis&, CaseResult<D>*, const double*,   \
                                           int);                                                                       \
  FIVSIM_SWEEP_CUDA_ENTRIES(extern template, D)
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_SWEEP_EXTERN)
#undef FIVSIM_SWEEP_EXTERN

}  // namespace fivsim::sweep
