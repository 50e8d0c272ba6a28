// src/sweep/chunk_backend.cpp — the backends of sweep/chunk_backend.hpp: the CPU's (an OpenMP
// loop over the case runner, run within launch), CUDA's (cuda_pipeline: two streams, launch returns
// at once) and the PINN methods' (the lockstep chunk on the CPU or the device, within launch).
// Each reaches the points where a device runs out of memory in the same order, so that failures a
// test injects take the same path on every backend.
#include "fivsim/sweep/chunk_backend.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/core/stopwatch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace fivsim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

// a launch without allocations of its own meets the device's failure points in order: the first
// injected one fails it
DeviceOutcome injected_failure(InjectedFailures* inject, int slot, long n) {
  if (!inject) return {};
  for (FailurePoint p : {FailurePoint::slot_buffers, FailurePoint::pinned_buffers, FailurePoint::kernel_launch})
    if (inject->fails(p, slot, n)) return InjectedFailures::outcome(p, slot);
  return {};
}

// a backend whose cases run within launch (after the failure points a device would meet); finish
// reports their time
template <class D>
class SynchronousBackend : public ChunkBackend<D> {
 public:
  explicit SynchronousBackend(const BackendSettings& s) : s_(s) {}
  DeviceOutcome launch(int slot, const SlotWork<D>& w) final {
    seconds_[slot] = 0.0;
    if (DeviceOutcome failed = injected_failure(s_.inject, slot, w.cases.n); !failed.ok()) return failed;
    const auto t0 = Clock::now();
    double own_s = -1.0;
    const DeviceOutcome out = run_now(w, own_s);
    seconds_[slot] = own_s >= 0.0 ? own_s : seconds_since(t0);
    return out;
  }
  DeviceOutcome finish(int slot, double& seconds) final {
    seconds = seconds_[slot];
    seconds_[slot] = 0.0;
    return {};
  }

 protected:
  // runs the work; own_s gets the backend's own time where it measures one (a device's)
  virtual DeviceOutcome run_now(const SlotWork<D>& w, double& own_s) = 0;
  BackendSettings s_;

 private:
  double seconds_[2] = {0.0, 0.0};
};

// the CPU: an OpenMP loop over the cases, its progress within the launch reported
template <class D>
class CpuBackend final : public SynchronousBackend<D> {
 public:
  using SynchronousBackend<D>::SynchronousBackend;
  const char* name() const override { return "CPU backend"; }
  bool asynchronous() const override { return this->s_.prepare_ahead; }

 private:
  DeviceOutcome run_now(const SlotWork<D>& w, double&) override {
    const BackendSettings& s = this->s_;
    std::optional<ChunkTicker> ticker;
    if (s.progress && *s.progress) ticker.emplace(*s.progress);
    run_chunk_cpu(w.cases, s.an, s.opt, w.results, w.points, s.threads, ticker ? &*ticker : nullptr);
    // the case table and counts where the loop asks for them as a device's (DeviceTable)
    if (w.table.values) {
      case_rows_into(w.table.layout, w.table.first, w.cases.n, w.results, w.cases.rows, w.cases.row_stride, nullptr,
                     w.table.values, w.table.stride);
      count_cases(w.results, w.cases.n, *w.table.counts);
    }
    return {};
  }
};

// CUDA: the pipeline's launch queues the work on the slot's stream; finish waits and copies back
template <class D>
class CudaBackend final : public ChunkBackend<D> {
 public:
  explicit CudaBackend(const BackendSettings& s) : s_(s), pipeline_(cuda_pipeline(D{}, s.inject, s.kernels)) {}
  const char* name() const override { return "CUDA backend"; }
  bool asynchronous() const override { return true; }
  DeviceOutcome launch(int slot, const SlotWork<D>& w) override {
    out_[slot] = w;
    return pipeline_->launch(slot, w.cases, s_.an, s_.opt, w.table);
  }
  DeviceOutcome finish(int slot, double& seconds) override {
    return pipeline_->finish(slot, out_[slot].results, out_[slot].points, seconds);
  }
  KernelReport kernels() const override { return pipeline_->kernels(); }

 private:
  BackendSettings s_;
  std::unique_ptr<SweepPipeline<D>> pipeline_;
  SlotWork<D> out_[2];
};

// the PINN methods: a chunk's cases train in lockstep within launch, on the CPU or the device
class PinnBackend final : public SynchronousBackend<PinnSweepDims> {
 public:
  using SynchronousBackend<PinnSweepDims>::SynchronousBackend;
  const char* name() const override { return s_.cuda ? "CUDA backend" : "CPU backend"; }
  bool asynchronous() const override { return false; }
  KernelReport kernels() const override { return specialised_ ? specialised_->report : KernelReport{}; }

 private:
  // the training rounds' kernels, specialised to the sweep's network once, before its first chunk
  std::optional<PinnSpecialised> specialised_;

  DeviceOutcome run_now(const SlotWork<PinnSweepDims>& w, double& own_s) override {
    PinnChunk chunk = *s_.pinn;
    chunk.cases = w.cases;
    if (s_.cuda) {
      if (!specialised_) specialised_ = specialise_pinn_rounds(chunk.set, s_.kernels);
      chunk.kernels = specialised_->kernels;
      const DeviceOutcome out = run_chunk_cuda_pinn(chunk, s_.an, s_.opt, w.results, w.points, w.pinn, own_s);
      if (!out.ok()) return out;
    } else {
      run_chunk_cpu_pinn(chunk, s_.an, s_.opt, w.results, w.points, w.pinn, s_.threads);
    }
    // the orbit observer on the host (the exact model's shots, whichever stepped the cases): its
    // time counts with the chunk's
    if (s_.an.observers & kObserveOrbit) {
      const auto t0 = Clock::now();
      shoot_orbits_cpu(w.cases, s_.an, w.results, w.points, s_.threads);
      if (own_s >= 0.0) own_s += seconds_since(t0);
    }
    return {};
  }
};

}  // namespace

InjectedFailures parse_injected_failures(const std::string& spec, long max_cases) {
  InjectedFailures f;
  f.max_cases = max_cases;
  std::size_t at = 0;
  while (at < spec.size()) {
    const std::size_t end = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, end - at);
    at = end + 1;
    const std::size_t colon = item.find(':');
    const std::string point = item.substr(0, colon);
    InjectedFailures::At a;
    if (point == "slot0" || point == "slot1") {
      a.point = FailurePoint::slot_buffers;
      a.slot = point == "slot0" ? 0 : 1;
    } else if (point == "pinned") {
      a.point = FailurePoint::pinned_buffers;
    } else if (point == "launch") {
      a.point = FailurePoint::kernel_launch;
    } else {
      throw std::invalid_argument("failure point '" + item + "': expected slot0, slot1, pinned or launch");
    }
    char* tail = nullptr;
    a.call = colon == std::string::npos ? 0 : std::strtol(item.c_str() + colon + 1, &tail, 10);
    if (a.call < 1 || !tail || *tail != '\0')
      throw std::invalid_argument("failure point '" + item + "': expected POINT:N with N >= 1");
    f.at.push_back(a);
  }
  return f;
}

template <class D>
std::unique_ptr<ChunkBackend<D>> make_chunk_backend(const BackendSettings& settings) {
  if (settings.pinn) {
    if constexpr (std::is_same_v<D, PinnSweepDims>)
      return std::make_unique<PinnBackend>(settings);
    else
      throw std::logic_error("a PINN sweep runs on the PINN instantiation only");
  }
  if (settings.cuda) return std::make_unique<CudaBackend<D>>(settings);
  return std::make_unique<CpuBackend<D>>(settings);
}

#define FIVSIM_CHUNK_BACKEND_INSTANCE(D) \
  template std::unique_ptr<ChunkBackend<D>> make_chunk_backend<D>(const BackendSettings&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_CHUNK_BACKEND_INSTANCE)
#undef FIVSIM_CHUNK_BACKEND_INSTANCE

}  // namespace fivsim::sweep
