// kernels/sweep_batch.cuh — the CUDA backend of `fivsim sweep`, one thread per case:
//   - belt models (cases/belt_runner.hpp): the belt runner with one lane, the case's state, own
//     values and running statistics in registers, the shared model read from the kernel's
//     parameters (constant memory); its observers compiled in as the lean, statistics or
//     bifurcation set;
//   - every other model, and adaptive sweeps: the general case runner (cases/case_runner.hpp:
//     Moreau steps of seed 000 Eq. 8 with the LCPs of Eqs. 12, 14, 28, or the Runge–Kutta LCP
//     steppers, the Lyapunov twin), each thread with its case's setup copied from the shared one
//     (its row written in) or its own; an adaptive sweep's threads stay resident and take cases
//     from a queue until the chunk is done (cases/sweep_case.hpp).
// Each is the prebuilt generic kernel or, by default, one generated for the scenario and compiled
// at run time (sweep/kernel_source.hpp, sweep/specialised_kernels.hpp), launched alike.
// Neither writes a trajectory: each leaves its CaseResult and its point rings in device memory.
// CudaPipeline keeps the device buffers from chunk to chunk and runs them on two streams with
// pinned staging, so that one chunk steps while the last one's results come back. Included by one
// translation unit per precision (sweep_batch_double.cu, sweep_batch_float.cu), which compile in
// parallel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "case_table.cuh"
#include "cuda_util.cuh"
#include "kept_buffer.cuh"
#include "fivsim/cases/belt_runner.hpp"
#include "fivsim/cases/case_orbit.hpp"
#include "fivsim/cases/sweep_case.hpp"
#include "fivsim/sweep/kernel_source.hpp"
#include "fivsim/sweep/specialised_kernels.hpp"
#include "fivsim/sweep/sweep_backend.hpp"

namespace fivsim::sweep {
namespace {

// the general kernels, one case a thread or (given a queue) persistent threads
// (cases/sweep_case.hpp), each case's setup copied from the shared one (its row written in) or its
// own
template <class D, int Kind>
__global__ void sweep_kernel(CaseBatch<D> cases, SweepAnalysis an, StepOptions opt, CaseResult<D>* __restrict__ results,
                             double* __restrict__ points, long per_case, unsigned long long* queue,
                             OrbitWork<D>* orbit_work, SwitchingTangent<D>* tangent_work) {
  sweep_thread_cases<D, Kind>(
      cases, an, opt, results, points, per_case, queue, orbit_work, tangent_work,
      [&](long c, CaseSetup<D>& scratch) -> const CaseSetup<D>& { return cases.setup(c, scratch); },
      [&](long c) { return cases.map(c); });
}

// the prebuilt general kernel of a stepper kind (null: none in this precision)
template <class D>
const void* generic_case_kernel(int kind) {
  if (kind == kSwitching) {
    if constexpr (std::is_same_v<typename D::scalar, double>)
      return reinterpret_cast<const void*>(sweep_kernel<D, kSwitching>);
    else
      return nullptr;
  }
  return kind == kGeneralStepper ? reinterpret_cast<const void*>(sweep_kernel<D, kGeneralStepper>)
                                 : reinterpret_cast<const void*>(sweep_kernel<D, kPlainMoreau>);
}

// the orbit observer's pass over a chunk that has run (cases/sweep_case.hpp orbit_thread_cases)
template <class D>
__global__ void orbit_kernel(CaseBatch<D> cases, SweepAnalysis an, CaseResult<D>* __restrict__ results,
                             const double* __restrict__ points, long per_case, unsigned long long* queue,
                             OrbitWork<D>* orbit_work) {
  orbit_thread_cases<D>(cases, an, results, points, per_case, queue, orbit_work,
                        [&](long c, CaseSetup<D>& scratch) -> const CaseSetup<D>& { return cases.setup(c, scratch); });
}

// the grid of a queue-fed launch: as many blocks as stay resident together, at most one case a
// thread
template <class Kernel>
unsigned resident_grid(Kernel kernel, int block, long n) {
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0);
  const long resident = static_cast<long>(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
  return static_cast<unsigned>(std::min(resident, (n + block - 1) / block));
}

// the belt kernel: one lane per thread; the model and the time grid travel as parameters
template <class D, unsigned Obs>
__global__ void belt_kernel(BeltModel<D> b, CaseBatch<D> cases, SweepAnalysis an, StepOptions opt,
                            CaseResult<D>* __restrict__ results, double* __restrict__ points, long per_case) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cases.n) return;
  BeltLanes<D, 1> x;
  // the result straight in device memory: the runner touches it at events and at the end only,
  // and a copy on the thread's stack would cost its frame
  // the quotients from reciprocals, as the CPU's copies take them: the same bits, no divider
  run_belt_lanes<D, 1, Obs, true>(b, cases, c, 1, an, opt, x, results + c, points + c * per_case, per_case);
}

// the prebuilt belt kernel of an observer set
template <class D>
const void* generic_belt_kernel(unsigned observers) {
  if constexpr (D::exact && D::max_dof == D::max_contacts) {
    switch (observers) {
      case kObserveLean:
        return reinterpret_cast<const void*>(belt_kernel<D, kObserveLean>);
      case kObserveStatistics:
        return reinterpret_cast<const void*>(belt_kernel<D, kObserveStatistics>);
      default:
        return reinterpret_cast<const void*>(belt_kernel<D, kObserveBifurcation>);
    }
  }
  return nullptr;
}

// the grid of a queue-fed launch whose threads each hold `bytes` of global scratch (an OrbitWork,
// a tangent): resident blocks, at most one case a thread, and no more threads than a quarter of
// the device's free memory holds (an OrbitWork of the 24-DoF instantiation is 175 kB)
template <class Kernel>
unsigned scratch_grid(Kernel kernel, int block, long n, std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  const long fit = static_cast<long>(free_bytes / 4 / bytes) / block;
  return static_cast<unsigned>(std::max(1L, std::min(static_cast<long>(resident_grid(kernel, block, n)), fit)));
}

// a specialised kernel that needs no more local memory a thread than the prebuilt one it stands for
// (the memory budget reserves the prebuilt kernels' for every resident thread); else null, and
// the report says why (of the sweep's main kernel, `main`)
const void* within_local_budget(SpecialisedKernels& specialised, const void* special, const void* generic,
                                bool main = true) {
  cudaFuncAttributes s{}, g{};
  if (!special || cudaFuncGetAttributes(&s, special) != cudaSuccess ||
      cudaFuncGetAttributes(&g, generic) != cudaSuccess) {
    cudaGetLastError();
    return special;
  }
  if (s.localSizeBytes <= g.localSizeBytes) return special;
  if (main)
    specialised.fall_back("the specialised kernel needs " + std::to_string(s.localSizeBytes) +
                          " bytes of local memory a thread, the prebuilt one " + std::to_string(g.localSizeBytes));
  return nullptr;
}

// threads a block of the sweep kernels: small enough that a queue-fed launch's last blocks do
// not leave most of a device idle, a multiple of the warp
constexpr int kSweepBlock = 128;
static_assert(kSpecialisedBlock == kSweepBlock, "the specialised belt kernel takes the generic one's grid");

// the instantiation as a user reads it: "24x8 double", "2x2 exact float"
template <class D>
std::string dims_label() {
  return std::to_string(D::max_dof) + "x" + std::to_string(D::max_contacts) + (D::exact ? " exact " : " ") +
         (std::is_same_v<typename D::scalar, double> ? "double" : "float");
}

// a kernel launch that failed, as the caller reads it: where it ran out of memory, the local
// memory the driver reserves for every resident thread is the likely cause, which halving the
// cases cannot cure, so the message names the kernel's bytes per thread and its instantiation
DeviceOutcome launch_failure(cudaError_t err, const void* kernel, const std::string& label) {
  DeviceOutcome out = device_outcome(err);
  cudaFuncAttributes attr{};
  if ((err == cudaErrorMemoryAllocation || err == cudaErrorLaunchOutOfResources) && kernel &&
      cudaFuncGetAttributes(&attr, kernel) == cudaSuccess)
    out.error += " launching the " + label + " kernel, which holds " + std::to_string(attr.localSizeBytes) +
                 " bytes of local memory per thread (reserved for every thread the device keeps resident; a "
                 "smaller --chunk leaves more device memory for it)";
  cudaGetLastError();
  return out;
}

}  // namespace

template <class D>
class CudaPipeline final : public SweepPipeline<D> {
 public:
  CudaPipeline(InjectedFailures* inject, const KernelOptions& kernels);
  ~CudaPipeline() override;
  CudaPipeline(const CudaPipeline&) = delete;
  CudaPipeline& operator=(const CudaPipeline&) = delete;
  DeviceOutcome launch(int slot, const CaseBatch<D>& cases, const SweepAnalysis& an, const StepOptions& opt,
                       const DeviceTable& table) override;
  DeviceOutcome finish(int slot, CaseResult<D>* results, double* points, double& kernel_s) override;
  KernelReport kernels() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

template <class D>
struct CudaPipeline<D>::Impl {
  struct Slot {
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    DeviceBuffer<CaseSetup<D>> setups;
    DeviceBuffer<RkStepMap<D>> maps;
    DeviceBuffer<double> rows, points;
    DeviceBuffer<CaseResult<D>> results;
    DeviceBuffer<unsigned long long> queue;          // the next case of a queue-fed launch
    DeviceBuffer<double> reference;                  // output_error's series
    DeviceBuffer<OrbitWork<D>> orbit_work;           // the orbit observer's scratch, a thread each
    DeviceBuffer<SwitchingTangent<D>> tangent_work;  // switching cases' Lyapunov tangent, a thread each
    PinnedBuffer<CaseResult<D>> results_out;
    PinnedBuffer<double> points_out;
    // the case table and counts where the device makes them (DeviceTable)
    DeviceBuffer<double> table;
    DeviceBuffer<CaseCounts> counts;
    PinnedBuffer<double> table_out;
    PinnedBuffer<CaseCounts> counts_out;
    DeviceTable to;  // where finish puts them (values null: the results come back)
    int columns = 0;
    long n = 0;
    std::size_t n_points = 0;
    bool queued = false;
    void release() {
      setups.release();
      maps.release();
      rows.release();
      points.release();
      results.release();
      queue.release();
      reference.release();
      orbit_work.release();
      tangent_work.release();
      results_out.release();
      points_out.release();
      table.release();
      counts.release();
      table_out.release();
      counts_out.release();
    }
  };
  Slot slot[2];
  InjectedFailures* inject = nullptr;
  bool points_to_host = true;  // KernelOptions::points_to_host
  // the chunks' kernels: specialised ones where asked (null: the generic ones)
  std::unique_ptr<SpecialisedKernels> specialised;
  bool ran = false;
  // whether a test makes this launch on `which` fail at `point` (InjectedFailures)
  bool injected(FailurePoint point, int which, long n) { return inject && inject->fails(point, which, n); }
  Impl() {
    for (Slot& s : slot) {
      cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
      cudaEventCreate(&s.start);
      cudaEventCreate(&s.stop);
    }
  }
  ~Impl() {
    for (Slot& s : slot) {
      if (s.stream) cudaStreamSynchronize(s.stream);
      cudaEventDestroy(s.start);
      cudaEventDestroy(s.stop);
      cudaStreamDestroy(s.stream);
    }
  }
};

template <class D>
CudaPipeline<D>::CudaPipeline(InjectedFailures* inject, const KernelOptions& kernels)
    : impl_(std::make_unique<Impl>()) {
  impl_->inject = inject;
  impl_->points_to_host = kernels.points_to_host;
  if (kernels.specialise) impl_->specialised = std::make_unique<SpecialisedKernels>(kernels);
}

template <class D>
KernelReport CudaPipeline<D>::kernels() const {
  if (!impl_->ran) return {};
  if (impl_->specialised) return impl_->specialised->report();
  return {"generic", "asked for (--kernels generic)", 0.0, 0.0};
}
template <class D>
CudaPipeline<D>::~CudaPipeline() = default;

template <class D>
DeviceOutcome CudaPipeline<D>::launch(int which, const CaseBatch<D>& h, const SweepAnalysis& host_an,
                                      const StepOptions& opt, const DeviceTable& table) {
  typename Impl::Slot& s = impl_->slot[which];
  // the runtime keeps a failed call's error (an allocation that failed before a retry on fewer
  // cases) as its last error, which the launch check below would take for this call's
  cudaGetLastError();
  s.n = h.n;
  s.queued = false;
  s.to = table;
  s.columns = table.values ? case_column_count(table.layout) : 0;
  if (h.n <= 0) return {};
  const std::size_t n = static_cast<std::size_t>(h.n);
  const long per_case = case_points_size(h.setups[0].model.n_dof, host_an);
  s.n_points = static_cast<std::size_t>(per_case) * n;
  const std::size_t n_setups = h.setup_stride ? n : 1, n_maps = h.maps ? (h.map_stride ? n : 1) : 0;
  // the swept values: read by the cases where they set targets, and written into a table made here
  const std::size_t n_rows =
      h.targets.n > 0 || (table.values && table.layout.n_params > 0) ? n * static_cast<std::size_t>(h.n_params) : 0;
  cudaError_t err = s.setups.ensure(n_setups);
  if (err == cudaSuccess) err = s.maps.ensure(n_maps);
  if (err == cudaSuccess) err = s.rows.ensure(n_rows);
  if (err == cudaSuccess) err = s.results.ensure(n);
  if (err == cudaSuccess) err = s.queue.ensure(1);
  const std::size_t n_reference = host_an.reference ? static_cast<std::size_t>(host_an.reference_n) : 0;
  if (err == cudaSuccess) err = s.reference.ensure(n_reference);
  if (err == cudaSuccess) err = s.points.ensure(s.n_points);
  // the general kernel this batch runs: the scenario's own where it can be had, else the prebuilt
  // one (the grids below are sized by its occupancy)
  const bool belt = runs_as_belt(h, host_an, opt);
  const void* case_kernel = nullptr;
  std::string source;  // the general kernels' specialised module ("": none)
  if (!belt) {
    const int kind = case_stepper_kind(h, host_an);
    case_kernel = generic_case_kernel<D>(kind);
    if (case_kernel && impl_->specialised) {
      source = case_kernel_source(h, host_an, opt);
      if (const void* special = within_local_budget(
              *impl_->specialised, impl_->specialised->get(source, kSpecialisedCaseKernelName), case_kernel))
        case_kernel = special;
      else
        source.clear();
    }
    impl_->ran = true;
  }
  // the orbit observer (double precision): the pass after the cases, and an adaptive switching
  // case's shots as it runs, on persistent threads with their scratch; switching cases' Lyapunov
  // tangents beside theirs
  unsigned orbit_pass_grid = 0, switching_grid = 0;
  bool run_orbit = false, run_tangent = false;
  const void* orbit_pass = nullptr;
  if constexpr (std::is_same_v<typename D::scalar, double>) {
    if (host_an.observers & kObserveOrbit) {
      // the specialised module's pass where the cases ran specialised
      orbit_pass = reinterpret_cast<const void*>(orbit_kernel<D>);
      if (!source.empty())
        if (const void* special = within_local_budget(
                *impl_->specialised, impl_->specialised->get(source, kSpecialisedOrbitKernelName), orbit_pass, false))
          orbit_pass = special;
      orbit_pass_grid = scratch_grid(orbit_pass, kSweepBlock, h.n, sizeof(OrbitWork<D>));
    }
    run_orbit = h.switching && host_an.adaptive && (host_an.observers & kObserveOrbit);
    run_tangent = h.switching && host_an.lyapunov_every > 0;
    if (run_orbit || run_tangent)
      switching_grid =
          scratch_grid(case_kernel, kSweepBlock, h.n,
                       (run_orbit ? sizeof(OrbitWork<D>) : 0) + (run_tangent ? sizeof(SwitchingTangent<D>) : 0));
    const std::size_t orbit_threads =
        static_cast<std::size_t>(std::max(orbit_pass_grid, run_orbit ? switching_grid : 0u));
    if (err == cudaSuccess) err = s.orbit_work.ensure(orbit_threads * kSweepBlock);
    if (err == cudaSuccess) err = s.tangent_work.ensure(run_tangent ? std::size_t{switching_grid} * kSweepBlock : 0);
  }
  DeviceOutcome failed = device_outcome(err);
  if (failed.ok() && impl_->injected(FailurePoint::slot_buffers, which, h.n))
    failed = InjectedFailures::outcome(FailurePoint::slot_buffers, which);
  if (failed.ok() && s.columns > 0) {
    err = s.table.ensure(n * static_cast<std::size_t>(s.columns));
    if (err == cudaSuccess) err = s.counts.ensure(1);
    failed = device_outcome(err);
  }
  if (failed.ok()) {
    if (s.columns > 0) {
      err = s.table_out.ensure(n * static_cast<std::size_t>(s.columns));
      if (err == cudaSuccess) err = s.counts_out.ensure(1);
    } else {
      err = s.results_out.ensure(n);
    }
    if (err == cudaSuccess && impl_->points_to_host) err = s.points_out.ensure(s.n_points);
    failed = device_outcome(err);
  }
  if (failed.ok() && impl_->injected(FailurePoint::pinned_buffers, which, h.n))
    failed = InjectedFailures::outcome(FailurePoint::pinned_buffers, which);
  if (failed.ok() && impl_->injected(FailurePoint::kernel_launch, which, h.n))
    failed = InjectedFailures::outcome(FailurePoint::kernel_launch, which);
  if (!failed.ok()) {
    // give the memory back: the caller retries on fewer cases
    cudaGetLastError();
    s.release();
    return failed;
  }
  // in: the setups (one, shared, or each case's), the step maps, each parameter's values
  err = cudaMemcpyAsync(s.setups.data, h.setups, sizeof(CaseSetup<D>) * n_setups, cudaMemcpyHostToDevice, s.stream);
  if (err == cudaSuccess && n_maps > 0)
    err = cudaMemcpyAsync(s.maps.data, h.maps, sizeof(RkStepMap<D>) * n_maps, cudaMemcpyHostToDevice, s.stream);
  // output_error's reference series, read by every case: the kernels get the device copy
  if (err == cudaSuccess && n_reference > 0)
    err = cudaMemcpyAsync(s.reference.data, host_an.reference, sizeof(double) * n_reference, cudaMemcpyHostToDevice,
                          s.stream);
  SweepAnalysis an = host_an;
  if (n_reference > 0) an.reference = s.reference.data;
  for (int k = 0; k < h.n_params && n_rows > 0 && err == cudaSuccess; ++k)
    err = cudaMemcpyAsync(s.rows.data + k * n, h.rows + k * h.row_stride, sizeof(double) * n, cudaMemcpyHostToDevice,
                          s.stream);
  if (err != cudaSuccess) return device_outcome(err);
  CaseBatch<D> dev = h;
  dev.setups = s.setups.data;
  dev.maps = n_maps > 0 ? s.maps.data : nullptr;
  dev.rows = n_rows > 0 ? s.rows.data : nullptr;
  dev.row_stride = h.n;
  const int block = kSweepBlock;
  const unsigned grid = static_cast<unsigned>((h.n + block - 1) / block);
  // a batch no kernel of this instantiation runs is refused, never reported as run
  if (h.switching && !std::is_same_v<typename D::scalar, double>)
    return {"the switching integrator runs in double precision only", false};
  if (belt && !(D::exact && D::max_dof == D::max_contacts))
    return {"the belt runner needs an instantiation of as many contacts as DoF", false};
  // the kernel this batch runs, for what a failed launch says
  const void* kernel = nullptr;
  cudaEventRecord(s.start, s.stream);
  if (belt) {
    if constexpr (D::exact && D::max_dof == D::max_contacts) {
      BeltModel<D> b;
      make_belt_model(h.setups[0], b);
      impl_->ran = true;
      // the scenario's own kernel where it can be had (compiled once, then from memory)
      const void* generic = generic_belt_kernel<D>(belt_observer_set(an.observers));
      const void* special =
          impl_->specialised
              ? within_local_budget(*impl_->specialised,
                                    impl_->specialised->get(belt_kernel_source(b, an, opt), kSpecialisedBeltKernelName),
                                    generic)
              : nullptr;
      const double* reference = an.reference;
      CaseResult<D>* results = s.results.data;
      double* points = s.points.data;
      long points_per_case = per_case;
      StepOptions step_options = opt;
      void* special_args[] = {&dev, &reference, &results, &points, &points_per_case};
      void* generic_args[] = {&b, &dev, &an, &step_options, &results, &points, &points_per_case};
      kernel = special ? special : generic;
      cudaLaunchKernel(kernel, dim3(grid), dim3(block), special ? special_args : generic_args, 0, s.stream);
    }
  } else {
    // adaptive cases differ in length, switching cases in their events: persistent threads take
    // them from a queue
    unsigned long long* queue = an.adaptive || h.switching ? s.queue.data : nullptr;
    if (queue) err = cudaMemsetAsync(queue, 0, sizeof(unsigned long long), s.stream);
    if (err != cudaSuccess) return device_outcome(err);
    kernel = case_kernel;
    const unsigned g = switching_grid > 0 ? switching_grid : queue ? resident_grid(case_kernel, block, h.n) : grid;
    StepOptions step_options = opt;
    CaseResult<D>* results = s.results.data;
    double* points = s.points.data;
    long points_per_case = per_case;
    OrbitWork<D>* orbit = run_orbit ? s.orbit_work.data : nullptr;
    SwitchingTangent<D>* tangent = run_tangent ? s.tangent_work.data : nullptr;
    void* args[] = {&dev, &an, &step_options, &results, &points, &points_per_case, &queue, &orbit, &tangent};
    cudaLaunchKernel(case_kernel, dim3(g), dim3(block), args, 0, s.stream);
  }
  err = cudaGetLastError();
  if constexpr (std::is_same_v<typename D::scalar, double>) {
    if (orbit_pass_grid > 0 && err == cudaSuccess) {
      kernel = orbit_pass;
      err = cudaMemsetAsync(s.queue.data, 0, sizeof(unsigned long long), s.stream);
      if (err != cudaSuccess) return device_outcome(err);
      CaseResult<D>* results = s.results.data;
      const double* points = s.points.data;
      long points_per_case = per_case;
      unsigned long long* queue = s.queue.data;
      OrbitWork<D>* work = s.orbit_work.data;
      void* args[] = {&dev, &an, &results, &points, &points_per_case, &queue, &work};
      cudaLaunchKernel(orbit_pass, dim3(orbit_pass_grid), dim3(block), args, 0, s.stream);
      err = cudaGetLastError();
    }
  }
  cudaEventRecord(s.stop, s.stream);
  if (err != cudaSuccess) return launch_failure(err, kernel, dims_label<D>());
  // out: into pinned memory, so that the copies run while the host goes on; where the table is
  // made here, it and the counts alone
  if (s.columns > 0) {
    err = cudaMemsetAsync(s.counts.data, 0, sizeof(CaseCounts), s.stream);
    if (err == cudaSuccess) {
      case_table_kernel<D>
          <<<grid, block, 0, s.stream>>>(table.layout, table.first, h.n, s.results.data, dev.rows, s.table.data);
      case_counts_kernel<D><<<grid, block, 0, s.stream>>>(s.results.data, h.n, s.counts.data);
      err = cudaGetLastError();
    }
    if (err == cudaSuccess)
      err = cudaMemcpyAsync(s.table_out.data, s.table.data, sizeof(double) * n * s.columns, cudaMemcpyDeviceToHost,
                            s.stream);
    if (err == cudaSuccess)
      err = cudaMemcpyAsync(s.counts_out.data, s.counts.data, sizeof(CaseCounts), cudaMemcpyDeviceToHost, s.stream);
  } else if (err == cudaSuccess) {
    err = cudaMemcpyAsync(s.results_out.data, s.results.data, sizeof(CaseResult<D>) * n, cudaMemcpyDeviceToHost,
                          s.stream);
  }
  if (err == cudaSuccess && s.n_points > 0 && impl_->points_to_host)
    err = cudaMemcpyAsync(s.points_out.data, s.points.data, sizeof(double) * s.n_points, cudaMemcpyDeviceToHost,
                          s.stream);
  s.queued = err == cudaSuccess;
  return device_outcome(err);
}

template <class D>
DeviceOutcome CudaPipeline<D>::finish(int which, CaseResult<D>* results, double* points, double& kernel_s) {
  typename Impl::Slot& s = impl_->slot[which];
  kernel_s = 0.0;
  if (!s.queued) return {};
  s.queued = false;
  cudaError_t err = cudaStreamSynchronize(s.stream);
  float ms = 0.0f;
  if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, s.start, s.stop);
  if (err != cudaSuccess) return device_outcome(err);
  kernel_s = ms * 1e-3;
  if (s.columns > 0) {
    for (int c = 0; c < s.columns; ++c)
      std::copy(s.table_out.data + static_cast<long>(c) * s.n, s.table_out.data + static_cast<long>(c + 1) * s.n,
                s.to.values + static_cast<long>(c) * s.to.stride);
    add_counts(*s.counts_out.data, *s.to.counts);
  } else {
    std::copy(s.results_out.data, s.results_out.data + s.n, results);
  }
  if (impl_->points_to_host) std::copy(s.points_out.data, s.points_out.data + s.n_points, points);
  return {};
}

template <class D>
FIVSIM_CUDA_PIPELINE(D) {
  return std::make_unique<CudaPipeline<D>>(inject, kernels);
}

template <class D>
FIVSIM_SWEEP_KERNEL_LOCAL_BYTES(D) {
  std::size_t most = 0;
  const auto take = [&](const void* kernel) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.localSizeBytes > most) most = attr.localSizeBytes;
  };
  if constexpr (D::exact && D::max_dof == D::max_contacts) {
    take(reinterpret_cast<const void*>(belt_kernel<D, kObserveLean>));
    take(reinterpret_cast<const void*>(belt_kernel<D, kObserveStatistics>));
    take(reinterpret_cast<const void*>(belt_kernel<D, kObserveBifurcation>));
  }
  take(reinterpret_cast<const void*>(sweep_kernel<D, kPlainMoreau>));
  take(reinterpret_cast<const void*>(sweep_kernel<D, kGeneralStepper>));
  if constexpr (std::is_same_v<typename D::scalar, double>) {
    take(reinterpret_cast<const void*>(sweep_kernel<D, kSwitching>));
    take(reinterpret_cast<const void*>(orbit_kernel<D>));
  }
  cudaGetLastError();
  return most;
}

template <class D>
FIVSIM_RUN_CHUNK_CUDA(D) {
  kernel_s = 0.0;
  CudaPipeline<D> pipeline(nullptr, KernelOptions{false, {}});
  const DeviceOutcome launched = pipeline.launch(0, cases, an, opt, DeviceTable{});
  if (!launched.ok()) return launched;
  return pipeline.finish(0, results, points, kernel_s);
}

}  // namespace fivsim::sweep
