// kernels/sweep_pinn.cu — the CUDA backend of a PINN sweep: the chunk's cases trained in lockstep
// (cases/pinn_case.hpp; the kernels of each time step, begin, the training rounds of evaluations
// and tells, and end: docs/DESIGN.md "Lockstep PINN training"), all of a chunk's steps one CUDA
// graph whose while nodes read the device's counts, or launched one by one from the host. The per-case code is the CPU
// backend's; the evaluations and tells sum in a different order, so the two agree to rounding
// (tests/gpu/sweep_gpu_test.cpp states the tolerance).
#include <cuda_runtime.h>

#include <optional>

#include <string>
#include <utility>

#include "cuda_util.cuh"
#include "device_batch.cuh"
#include "fivsim/cases/pinn_rows.hpp"
#include "fivsim/sweep/kernel_source.hpp"
#include "fivsim/sweep/specialised_kernels.hpp"
#include "fivsim/sweep/sweep_pinn_backend.hpp"

namespace fivsim::sweep {
namespace {

using cuda::device_alloc;
using D = PinnSweepDims;
using T = D::scalar;

// what every case of the chunk points at, in device memory for the kernels' lifetime
struct PinnShared {
  PinnStepSettings set;
  SweepAnalysis an;
  StepOptions opt;
};

constexpr int kCaseBlock = 64;
// training rounds launched between two reads of the row counts (a round that finds no rows left
// costs its launches only)
constexpr int kRoundsPerSync = 4;

__global__ void start_kernel(CaseBatch<D> cases, const PinnShared* __restrict__ sh, StageTable<T> tab,
                             PinnBlockLayout L, int copies, unsigned char* __restrict__ arena,
                             PinnCase<D>* __restrict__ run, CaseResult<D>* __restrict__ results,
                             double* __restrict__ points, long per_case, long* __restrict__ active,
                             int* __restrict__ count) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cases.n) return;
  // a swept setup is made in the case's own (a copy on the stack would cost the kernel its frame)
  pinn_case_start(run[c], cases.setup(c, run[c].setup), cases.map(c), sh->set, tab, L, arena + c * copies * L.bytes,
                  sh->an, sh->opt, results[c], points + c * per_case);
  if (run[c].active) active[atomicAdd(count, 1)] = c;
}

// a training row into the list of its stage for the next round (count[0]: LCP-PINN rows, count[1]:
// dynamic-network rows); a row that is done is dropped
__device__ void list_row(const PinnStepRun<T>& r, int row, int* contact, int* dynamics, int* count) {
  if (r.stage == PinnStage::contact)
    contact[atomicAdd(&count[0], 1)] = row;
  else if (r.stage == PinnStage::dynamics)
    dynamics[atomicAdd(&count[1], 1)] = row;
}

__global__ void begin_kernel(PinnCase<D>* __restrict__ run, const long* __restrict__ active, const int* __restrict__ na,
                             int* __restrict__ contact, int* __restrict__ dynamics, int* __restrict__ count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= *na) return;
  const long c = active[i];
  PinnCase<D>& x = run[c];
  pinn_case_step_begin(x);
  for (int w = 0; w < x.copies; ++w)
    if (pinn_case_training(x, w)) list_row(x.step[w], static_cast<int>(2 * c + w), contact, dynamics, count);
}

// rows training their dynamic network (cases/pinn_rows.hpp), each row's network as its settings say
__global__ void evaluate_kernel(PinnCase<D>* __restrict__ run, const int* __restrict__ rows, const int* __restrict__ nr,
                                int group, T* __restrict__ loss) {
  pinn_evaluate_rows(run, rows, nr, group, loss, PinnRowsFromSteppers{});
}

// rows training their LCP-PINN: one group of lanes per row, the network from the input 1 and the
// loss of Eq. 19; a problem whose outputs outnumber the group's lanes is evaluated by its first lane
__global__ void lcp_evaluate_kernel(PinnCase<D>* __restrict__ run, const int* __restrict__ rows,
                                    const int* __restrict__ nr, int group, T* __restrict__ loss) {
  const int lane = static_cast<int>(threadIdx.x) & (group - 1);
  const int slot = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / group);
  if (slot >= *nr) return;
  const int row = rows[slot];
  LcpPinnWorkspace<T, D::max_lcp>& ws = *run[row / 2].st[row % 2].lcp;
  const MlpLayout& L = ws.layout;
  if (L.max_width() > group) {
    if (lane == 0) loss[slot] = lcp_pinn_evaluate(ws);
    return;
  }
  const int np = L.param_count();
  const T v =
      pinn_group_objective(L, optimizer_eval_x(np, ws.work), optimizer_eval_grad(np, ws.work), lane == 0 ? T(1) : T(0),
                           ws.cache + L.activation_offset(L.layers), ws.d_out, lane, group,
                           [&](const T* out, T* d_out) { return lcp_pinn_loss(ws.A, ws.b, out, d_out); });
  if (lane == 0) loss[slot] = v;
}

// dynamic networks wider than a warp: one thread per training row through the CPU's own objective
__global__ void evaluate_thread_kernel(PinnCase<D>* __restrict__ run, const int* __restrict__ rows,
                                       const int* __restrict__ nr, T* __restrict__ loss) {
  const int slot = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (slot >= *nr) return;
  const int row = rows[slot];
  loss[slot] = pinn_case_evaluate(run[row / 2], row % 2);
}

// rows training their dynamic network: their optimizer's tells (cases/pinn_rows.hpp)
__global__ void tell_kernel(PinnCase<D>* __restrict__ run, const int* __restrict__ rows, const int* __restrict__ nr,
                            const T* __restrict__ loss, int* __restrict__ next, int* __restrict__ count) {
  pinn_tell_rows(run, rows, nr, loss, next, count, PinnRowsFromSteppers{});
}

// rows training their LCP-PINN: one thread per row (the network is small; the restarts, lifts and
// polish between optimizer runs are serial); a row whose LCP-PINN is done goes on with its dynamic
// network, listed in that stage
__global__ void lcp_tell_kernel(PinnCase<D>* __restrict__ run, const int* __restrict__ rows, const int* __restrict__ nr,
                                const T* __restrict__ loss, int* __restrict__ contact, int* __restrict__ dynamics,
                                int* __restrict__ count) {
  const int slot = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (slot >= *nr) return;
  const int row = rows[slot];
  PinnCase<D>& x = run[row / 2];
  if (pinn_case_tell(x, row % 2, loss[slot])) list_row(x.step[row % 2], row, contact, dynamics, count);
}

__global__ void end_kernel(PinnCase<D>* __restrict__ run, const long* __restrict__ active, const int* __restrict__ na,
                           long* __restrict__ next, int* __restrict__ next_count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= *na) return;
  if (pinn_case_step_end(run[active[i]])) next[atomicAdd(next_count, 1)] = active[i];
}

// the cases going on become the active list (count[1] of them, from next), count[0] their number;
// in a graph, the time-step loop goes on while any is left and its rounds loop is entered afresh
__global__ void advance_kernel(long* __restrict__ active, const long* __restrict__ next, int* __restrict__ count,
                               bool in_graph, cudaGraphConditionalHandle steps, cudaGraphConditionalHandle rounds) {
  const int na = count[1];
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < na;
       i += static_cast<long>(gridDim.x) * blockDim.x)
    active[i] = next[i];
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  count[0] = na;
  if (in_graph) {
    cudaGraphSetConditional(steps, na > 0 ? 1u : 0u);
    cudaGraphSetConditional(rounds, 1u);
  }
}

// the rounds loop of a graph goes on while a row of either stage is left to train
__global__ void rounds_continue_kernel(const int* __restrict__ rows_left, cudaGraphConditionalHandle rounds) {
  cudaGraphSetConditional(rounds, rows_left[0] + rows_left[1] > 0 ? 1u : 0u);
}

__global__ void totals_kernel(const PinnCase<D>* __restrict__ run, long n, PinnTotals* __restrict__ totals) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < n) totals[c] = run[c].totals;
}

unsigned blocks_for(long threads, int block) { return static_cast<unsigned>((threads + block - 1) / block); }

// the deep call chains (the LCP-PINN's training → loss → network, run by one thread) need more stack
// than the default. The runtime reserves that stack for every thread the device can hold, so raising
// it can fail for want of memory: that is reported (and the part halved, freeing this call's
// buffers) rather than launched on a stack too small, which would end in an illegal address that
// poisons the context. The limit is given back when the chunk is done, so that the reservation
// does not stay with the process's later kernels
class RaisedStackLimit {
 public:
  template <class... K>
  explicit RaisedStackLimit(K... kernels) {
    std::size_t need = 0;
    for (const void* k : {reinterpret_cast<const void*>(kernels)...}) {
      cudaFuncAttributes attr{};
      if (k && err_ == cudaSuccess) err_ = cudaFuncGetAttributes(&attr, k);
      need = attr.localSizeBytes > need ? attr.localSizeBytes : need;
    }
    if (err_ == cudaSuccess) err_ = cudaDeviceGetLimit(&previous_, cudaLimitStackSize);
    if (err_ == cudaSuccess && need + 4096 > previous_) {
      err_ = cudaDeviceSetLimit(cudaLimitStackSize, need + 4096);
      raised_ = err_ == cudaSuccess;
    }
  }
  ~RaisedStackLimit() {
    if (raised_) cudaDeviceSetLimit(cudaLimitStackSize, previous_);
  }
  RaisedStackLimit(const RaisedStackLimit&) = delete;
  RaisedStackLimit& operator=(const RaisedStackLimit&) = delete;
  cudaError_t error() const { return err_; }

 private:
  cudaError_t err_ = cudaSuccess;
  std::size_t previous_ = 0;
  bool raised_ = false;
};

// device counters read back (the host decides whether the lockstep goes on)
cudaError_t read_count(const int* d_count, int& value) {
  return cudaMemcpy(&value, d_count, sizeof(int), cudaMemcpyDeviceToHost);
}
cudaError_t read_counts(const int* d_count, int (&values)[2]) {
  return cudaMemcpy(values, d_count, 2 * sizeof(int), cudaMemcpyDeviceToHost);
}

// the lockstep's device lists and what sizes its kernels
struct Lockstep {
  PinnCase<D>* run = nullptr;
  long n = 0;
  long* active = nullptr;
  long* next_active = nullptr;
  int* rows[2] = {};       // this round's rows: contact, dynamics
  int* next_rows[2] = {};  // the next round's
  T* loss[2] = {};
  // [0] active cases, [1] the next step's, [2, 3] and [4, 5] two rounds' row counts (contact,
  // dynamics), this round's and the next's in turn
  int* count = nullptr;
  int group = 0, lcp_group = 0;  // lanes per row of either stage
  // the dynamic rows' evaluation and tell: the prebuilt kernels or the chunk's specialised ones
  const void* evaluate = reinterpret_cast<const void*>(evaluate_kernel);
  const void* tell = reinterpret_cast<const void*>(tell_kernel);
};

// one training round on `stream`: every listed row's evaluation, then its tell, the rows that go on
// listed for the next round (next_rows, n_next); the grids cover lcp_bound and dyn_bound rows, the
// kernels reading how many there are from n_now
void launch_round(const Lockstep& s, cudaStream_t stream, int* const rows[2], const int* n_now, int* const next_rows[2],
                  int* n_next, long lcp_bound, long dyn_bound) {
  if (lcp_bound > 0)
    lcp_evaluate_kernel<<<blocks_for(lcp_bound * s.lcp_group, 128), 128, 0, stream>>>(s.run, rows[0], n_now,
                                                                                      s.lcp_group, s.loss[0]);
  PinnCase<D>* run = s.run;
  const int* dyn_rows = rows[1];
  const int* dyn_now = n_now + 1;
  T* dyn_loss = s.loss[1];
  if (s.group <= 32) {
    const int block = s.group == 32 ? 64 : 128;
    int group = s.group;
    void* args[] = {&run, &dyn_rows, &dyn_now, &group, &dyn_loss};
    cudaLaunchKernel(s.evaluate, dim3(blocks_for(dyn_bound * s.group, block)), dim3(block), args, 0, stream);
  } else {
    evaluate_thread_kernel<<<blocks_for(dyn_bound, kCaseBlock), kCaseBlock, 0, stream>>>(s.run, rows[1], n_now + 1,
                                                                                         s.loss[1]);
  }
  cudaMemsetAsync(n_next, 0, 2 * sizeof(int), stream);
  if (lcp_bound > 0)
    lcp_tell_kernel<<<blocks_for(lcp_bound, kCaseBlock), kCaseBlock, 0, stream>>>(s.run, rows[0], n_now, s.loss[0],
                                                                                  next_rows[0], next_rows[1], n_next);
  const T* told_loss = dyn_loss;
  int* next_dyn = next_rows[1];
  void* args[] = {&run, &dyn_rows, &dyn_now, &told_loss, &next_dyn, &n_next};
  cudaLaunchKernel(s.tell, dim3(blocks_for(dyn_bound * 32, 64)), dim3(64), args, 0, stream);
}

// PinnRounds::launches: kernel by kernel from the host, which reads the row counts back every
// kRoundsPerSync rounds and the active count every step
cudaError_t run_launches(Lockstep s) {
  int na = 0;
  cudaError_t err = read_count(s.count, na);
  int* round_count[2] = {s.count + 2, s.count + 4};
  // one time step of every active case per pass; the host moves them on together
  while (err == cudaSuccess && na > 0) {
    cudaMemset(round_count[0], 0, 2 * sizeof(int));
    begin_kernel<<<blocks_for(na, kCaseBlock), kCaseBlock>>>(s.run, s.active, s.count, s.rows[0], s.rows[1],
                                                             round_count[0]);
    int nr[2] = {0, 0};  // rows training their LCP-PINN, their dynamic network (as last read)
    err = cudaGetLastError();
    if (err == cudaSuccess) err = read_counts(round_count[0], nr);
    // the kernels read this round's row counts on the device and write the next round's. The lists
    // only shrink, except that LCP-PINN rows move to the dynamic list, so the counts last read
    // bound the grids: nr[0] the LCP-PINN rows', nr[0] + nr[1] the dynamic rows'
    int cur = 0;
    while (err == cudaSuccess && nr[0] + nr[1] > 0) {
      const long lcp_bound = nr[0], dyn_bound = static_cast<long>(nr[0]) + nr[1];
      for (int k = 0; k < kRoundsPerSync; ++k, cur ^= 1) {
        launch_round(s, nullptr, s.rows, round_count[cur], s.next_rows, round_count[cur ^ 1], lcp_bound, dyn_bound);
        std::swap(s.rows, s.next_rows);
      }
      err = cudaGetLastError();
      if (err == cudaSuccess) err = read_counts(round_count[cur], nr);
    }
    if (err != cudaSuccess) break;
    cudaMemset(s.count + 1, 0, sizeof(int));
    end_kernel<<<blocks_for(na, kCaseBlock), kCaseBlock>>>(s.run, s.active, s.count, s.next_active, s.count + 1);
    advance_kernel<<<blocks_for(s.n, 256), 256>>>(s.active, s.next_active, s.count, false, 0, 0);
    err = cudaGetLastError();
    if (err == cudaSuccess) err = read_count(s.count, na);
  }
  return err;
}

// a while node appended to what `stream` has captured so far, its body captured on `body_stream`
// by body(handle); the handle starts at 1 at every launch of the graph, and the kernels of the body
// (or after it) set it
template <class Body>
cudaError_t capture_while(cudaStream_t stream, cudaStream_t body_stream, cudaGraphConditionalHandle& handle,
                          Body&& body) {
  cudaStreamCaptureStatus status{};
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t n_deps = 0;
  cudaError_t err = cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &deps, &edges, &n_deps);
  if (err == cudaSuccess) err = cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault);
  cudaGraphNodeParams node{};
  node.type = cudaGraphNodeTypeConditional;
  node.conditional.handle = handle;
  node.conditional.type = cudaGraphCondTypeWhile;
  node.conditional.size = 1;
  cudaGraphNode_t added = nullptr;
  if (err == cudaSuccess) err = cudaGraphAddNode(&added, graph, deps, edges, n_deps, &node);
  if (err == cudaSuccess)
    err = cudaStreamUpdateCaptureDependencies(stream, &added, nullptr, 1, cudaStreamSetCaptureDependencies);
  cudaGraph_t body_graph = err == cudaSuccess ? node.conditional.phGraph_out[0] : nullptr;
  if (err == cudaSuccess)
    err = cudaStreamBeginCaptureToGraph(body_stream, body_graph, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed);
  if (err != cudaSuccess) return err;
  body(handle);
  err = cudaGetLastError();
  const cudaError_t ended = cudaStreamEndCapture(body_stream, &body_graph);
  return err != cudaSuccess ? err : ended;
}

// streams that capture, destroyed with the graph's owner
struct CaptureStreams {
  cudaStream_t s[3] = {};
  cudaError_t err = cudaSuccess;
  CaptureStreams() {
    for (cudaStream_t& x : s)
      if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  }
  ~CaptureStreams() {
    for (cudaStream_t x : s)
      if (x) cudaStreamDestroy(x);
  }
  CaptureStreams(const CaptureStreams&) = delete;
  CaptureStreams& operator=(const CaptureStreams&) = delete;
};

// PinnRounds::graph: every time step of the chunk as one graph launch with no host round trip —
//   while cases are active { begin; while rows train { round; round }; end; advance }
// with grids for every row a chunk can have (2n of each stage; rows past the counts leave at once).
// Built before the chunk's timing starts, launched after its start kernel.
class LockstepGraph {
 public:
  explicit LockstepGraph(const Lockstep& s) {
    CaptureStreams cs;
    err_ = cs.err;
    if (err_ != cudaSuccess) return;
    cudaStream_t top = cs.s[0], step = cs.s[1], round = cs.s[2];
    const long bound = 2 * s.n;
    int* const rc[2] = {s.count + 2, s.count + 4};
    err_ = cudaStreamBeginCapture(top, cudaStreamCaptureModeRelaxed);
    if (err_ != cudaSuccess) return;
    cudaGraphConditionalHandle steps = 0, rounds = 0;
    cudaError_t inner = cudaSuccess;  // the rounds loop's capture, inside the steps loop's
    err_ = capture_while(top, step, steps, [&](cudaGraphConditionalHandle steps_h) {
      cudaMemsetAsync(rc[0], 0, 2 * sizeof(int), step);
      begin_kernel<<<blocks_for(s.n, kCaseBlock), kCaseBlock, 0, step>>>(s.run, s.active, s.count, s.rows[0], s.rows[1],
                                                                         rc[0]);
      inner = capture_while(step, round, rounds, [&](cudaGraphConditionalHandle rounds_h) {
        // two rounds, so that the lists are back where begin writes them
        launch_round(s, round, s.rows, rc[0], s.next_rows, rc[1], bound, bound);
        launch_round(s, round, s.next_rows, rc[1], s.rows, rc[0], bound, bound);
        rounds_continue_kernel<<<1, 1, 0, round>>>(rc[0], rounds_h);
      });
      if (inner != cudaSuccess) return;
      cudaMemsetAsync(s.count + 1, 0, sizeof(int), step);
      end_kernel<<<blocks_for(s.n, kCaseBlock), kCaseBlock, 0, step>>>(s.run, s.active, s.count, s.next_active,
                                                                       s.count + 1);
      advance_kernel<<<blocks_for(s.n, 256), 256, 0, step>>>(s.active, s.next_active, s.count, true, steps_h, rounds);
    });
    if (err_ == cudaSuccess) err_ = inner;
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(top, &graph);
    if (err_ == cudaSuccess) err_ = ended;
    if (err_ == cudaSuccess) err_ = cudaGraphInstantiate(&exec_, graph, 0);
    if (graph) cudaGraphDestroy(graph);
  }
  ~LockstepGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  LockstepGraph(const LockstepGraph&) = delete;
  LockstepGraph& operator=(const LockstepGraph&) = delete;
  cudaError_t error() const { return err_; }
  // on the legacy stream: after the start kernel, before the totals
  cudaError_t launch() const { return err_ != cudaSuccess ? err_ : cudaGraphLaunch(exec_, nullptr); }

 private:
  cudaError_t err_ = cudaSuccess;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

FIVSIM_SPECIALISE_PINN_ROUNDS {
  PinnSpecialised out;
  if (!options.specialise) {
    out.report = {"generic", "asked for (--kernels generic)", 0.0, 0.0};
    return out;
  }
  if (set.framework == PinnFramework::central || set.dynamics.max_width() > 32) {
    out.report = {"generic", "no dynamic network a group of lanes trains (its rounds run the prebuilt kernels)", 0.0,
                  0.0};
    return out;
  }
  auto library = std::make_shared<SpecialisedKernels>(options);
  const std::string source = pinn_kernel_source(set);
  const void* evaluate = library->get(source, kSpecialisedPinnEvaluateName);
  const void* tell = evaluate ? library->get(source, kSpecialisedPinnTellName) : nullptr;
  out.report = library->report();
  if (evaluate && tell) {
    out.kernels = {evaluate, tell};
    out.library = std::move(library);
  }
  return out;
}

FIVSIM_RUN_CHUNK_CUDA_PINN {
  kernel_s = 0.0;
  // the runtime keeps a failed call's error (an allocation that failed before a retry on fewer
  // cases) as its last error, which the launch check below would take for this call's
  cudaGetLastError();
  const long n = ch.cases.n;
  if (n <= 0) return {};
  const PinnBlockLayout L = pinn_chunk_layout(ch);
  const int copies = an.lyapunov_every > 0 ? 2 : 1;
  const long per_case = case_points_size(ch.n_dof, an);
  const std::size_t n_points = static_cast<std::size_t>(per_case) * static_cast<std::size_t>(n);
  const int R = ch.tab.R;
  const std::size_t n_stage = static_cast<std::size_t>(R * R + 2 * R);
  const std::size_t un = static_cast<std::size_t>(n);
  DeviceBatch<D> dev;
  cudaError_t err = dev.upload(ch.cases);
  auto d_stage = device_alloc<T>(n_stage, err);
  auto d_shared = device_alloc<PinnShared>(1, err);
  auto d_results = device_alloc<CaseResult<D>>(un, err);
  auto d_points = device_alloc<double>(n_points, err);
  auto d_totals = device_alloc<PinnTotals>(un, err);
  auto d_run = device_alloc<PinnCase<D>>(un, err);
  auto d_arena = device_alloc<unsigned char>(static_cast<std::size_t>(n * copies * L.bytes), err);
  auto d_active = device_alloc<long>(2 * un, err);
  // the rows of either stage, this round's and the next's: [contact | dynamics | next contact | next dynamics]
  auto d_rows = device_alloc<int>(8 * un, err);
  auto d_loss = device_alloc<T>(4 * un, err);
  auto d_count = device_alloc<int>(6, err);  // Lockstep::count
  const PinnShared shared{ch.set, an, opt};
  if (err == cudaSuccess && n_stage > 0)
    err = cudaMemcpy(d_stage.get(), ch.tab.a, sizeof(T) * n_stage, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(d_shared.get(), &shared, sizeof(PinnShared), cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemset(d_arena.get(), 0, static_cast<std::size_t>(n * copies * L.bytes));
  if (err == cudaSuccess) err = cudaMemset(d_count.get(), 0, 6 * sizeof(int));
  std::optional<RaisedStackLimit> stack;
  if (err == cudaSuccess) {
    stack.emplace(start_kernel, begin_kernel, evaluate_kernel, lcp_evaluate_kernel, evaluate_thread_kernel, tell_kernel,
                  lcp_tell_kernel, end_kernel, advance_kernel, ch.kernels.evaluate, ch.kernels.tell);
    err = stack->error();
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    return device_outcome(err);
  }
  const StageTable<T> tab = R > 0 ? stage_table_of(static_cast<const T*>(d_stage.get()), R) : StageTable<T>{};
  // lanes per row: the dynamic network's widest layer; for the LCP-PINN its hidden layers and up to
  // 8 outputs (larger LCPs are evaluated by one lane, lcp_evaluate_kernel)
  const int group = cuda::group_lanes(ch.set.dynamics);
  const int lcp_group = cuda::group_lanes(lcp_pinn_layout(ch.set.lcp, kLcpPinnMaxWidth / 2));
  Lockstep s;
  s.run = d_run.get();
  s.n = n;
  s.active = d_active.get();
  s.next_active = s.active + n;
  s.rows[0] = d_rows.get();
  s.rows[1] = d_rows.get() + 2 * n;
  s.next_rows[0] = d_rows.get() + 4 * n;
  s.next_rows[1] = d_rows.get() + 6 * n;
  s.loss[0] = d_loss.get();
  s.loss[1] = d_loss.get() + 2 * n;
  s.count = d_count.get();
  s.group = group;
  s.lcp_group = lcp_group;
  if (ch.kernels.evaluate && ch.kernels.tell) {
    s.evaluate = ch.kernels.evaluate;
    s.tell = ch.kernels.tell;
  }
  std::optional<LockstepGraph> graph;
  if (ch.rounds == PinnRounds::graph) {
    graph.emplace(s);
    if (graph->error() != cudaSuccess) {
      err = graph->error();
      cudaGetLastError();
      return device_outcome(err);
    }
  }
  cuda::EventPair ev;
  cudaEventRecord(ev.start);
  start_kernel<<<blocks_for(n, kCaseBlock), kCaseBlock>>>(dev.batch, d_shared.get(), tab, L, copies, d_arena.get(),
                                                          d_run.get(), d_results.get(), d_points.get(), per_case,
                                                          s.active, s.count);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = graph ? graph->launch() : run_launches(s);
  if (err == cudaSuccess) {
    totals_kernel<<<blocks_for(n, kCaseBlock), kCaseBlock>>>(d_run.get(), n, d_totals.get());
    err = cudaGetLastError();
  }
  cudaEventRecord(ev.stop);
  if (err == cudaSuccess) err = ev.elapsed(kernel_s);
  if (err == cudaSuccess)
    err = cudaMemcpy(results, d_results.get(), sizeof(CaseResult<D>) * un, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess && n_points > 0)
    err = cudaMemcpy(points, d_points.get(), sizeof(double) * n_points, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemcpy(totals, d_totals.get(), sizeof(PinnTotals) * un, cudaMemcpyDeviceToHost);
  return device_outcome(err);
}

}  // namespace fivsim::sweep
