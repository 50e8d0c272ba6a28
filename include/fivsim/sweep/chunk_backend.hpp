// fivsim/sweep/chunk_backend.hpp — the backend a sweep's chunks run on, chosen once per run: a
// pipeline of two slots (launch a batch of cases into slot 0 or 1, finish the slot) with CPU, CUDA
// and PINN implementations (src/sweep/chunk_backend.cpp). One chunk loop (sweep/sweep_chunk_loop.hpp) drives
// every backend: the next chunk prepared while one runs, a chunk the device cannot hold halved and
// retried, the slots' buffers reused, so that each CPU test run proves the loop a GPU runs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "fivsim/sweep/sweep_backend.hpp"
#include "fivsim/sweep/sweep_pinn_backend.hpp"

namespace fivsim::sweep {

// the work of one launch: its cases and the arrays their results go to
template <class D>
struct SlotWork {
  CaseBatch<D> cases;
  CaseResult<D>* results = nullptr;
  double* points = nullptr;  // per_case values a case
  long per_case = 0;
  PinnTotals* pinn = nullptr;  // the PINN methods: each case's trainings
  DeviceTable table;           // the CUDA backend: the case table made on the device (values null: none)

  // cases [at, at + count) as work of their own
  SlotWork part(long at, long count) const {
    SlotWork w = *this;
    w.cases = cases.part(at, count);
    w.results = results + at;
    w.points = points + at * per_case;
    w.pinn = pinn ? pinn + at : nullptr;
    w.table = table.part(at);
    return w;
  }
};

// what a run's backend is made of, chosen once
struct BackendSettings {
  bool cuda = false;
  SweepAnalysis an;
  StepOptions opt;
  int threads = 0;  // CPU threads (0: all)
  // the CPU's progress within a launch (cases of it finished); may be null or empty
  const std::function<void(long done)>* progress = nullptr;
  // the CPU backend takes the device's order (the next chunk prepared before this one is
  // finished): a test's way to run the asynchronous loop without a device
  bool prepare_ahead = false;
  InjectedFailures* inject = nullptr;  // may be null; kept by the caller
  // the PINN methods: what every chunk shares (its cases are each launch's); null otherwise
  const PinnChunk* pinn = nullptr;
  KernelOptions kernels;  // the CUDA backend's belt kernels
};

// a backend of two slots. launch may return before the cases ran (asynchronous: a device steps
// them while the host goes on); finish waits for the slot's work and reports the backend's time.
// Out of memory is an outcome, not an exception: the loop halves and retries
template <class D>
class ChunkBackend {
 public:
  virtual ~ChunkBackend() = default;
  virtual const char* name() const = 0;
  // whether the loop should prepare the next chunk and finish the last while a launch runs
  virtual bool asynchronous() const = 0;
  // queues the work on slot 0 or 1; its arrays must stay until finish
  virtual DeviceOutcome launch(int slot, const SlotWork<D>& work) = 0;
  // waits for the slot's work (nothing queued: at once); seconds gets the backend's own time
  virtual DeviceOutcome finish(int slot, double& seconds) = 0;
  // the kernel the chunks ran (the CUDA backend's)
  virtual KernelReport kernels() const { return {}; }
  // launch and finish at once
  DeviceOutcome run(int slot, const SlotWork<D>& work, double& seconds) {
    seconds = 0.0;
    const DeviceOutcome launched = launch(slot, work);
    return launched.ok() ? finish(slot, seconds) : launched;
  }
};

// failures to inject from "slot0:N", "slot1:N", "pinned:N", "launch:N" separated by commas (the
// N-th time that point is reached fails: the device buffers of slot 0 or 1, the pinned buffers or
// the kernel launch of either slot), as FIVSIM_SWEEP_FAIL gives them, and any launch of more than
// max_cases cases (0: none); throws std::invalid_argument naming what it cannot read
InjectedFailures parse_injected_failures(const std::string& spec, long max_cases = 0);

// the backend of a run: PINN (settings.pinn, CPU or CUDA; PinnSweepDims only), CUDA or CPU
template <class D>
std::unique_ptr<ChunkBackend<D>> make_chunk_backend(const BackendSettings& settings);

#define FIVSIM_CHUNK_BACKEND_EXTERN(D) \
  extern template std::unique_ptr<ChunkBackend<D>> make_chunk_backend<D>(const BackendSettings&);
FIVSIM_SWEEP_FOR_EACH_DIMS(FIVSIM_CHUNK_BACKEND_EXTERN)
#undef FIVSIM_CHUNK_BACKEND_EXTERN

}  // namespace fivsim::sweep
