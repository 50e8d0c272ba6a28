// fivsim/sweep/sweep_chunk_loop.hpp — the chunk loop every rank of a sweep runs, one for every
// backend: chunks of prepared cases (their point rings and column blocks reused from chunk to
// chunk), run on a backend's slot in parts that halve where device memory runs out, turned into
// columns (on the device, where it ran them and the host reads no results) and handed to the
// exchange (sweep/sweep_ranks.hpp). Only the runner includes it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "fivsim/core/stopwatch.hpp"
#include "fivsim/sweep/chunk_backend.hpp"
#include "fivsim/sweep/host_memory.hpp"
#include "fivsim/sweep/result_table.hpp"
#include "fivsim/sweep/sweep_context.hpp"
#include "fivsim/sweep/sweep_ranks.hpp"

namespace fivsim::sweep {

// the point rings of a chunk's cases: memory the runners write before they read it, so it is not
// zeroed (a ring no event reaches is never touched, and its pages never mapped)
class RingBuffer {
 public:
  void resize(std::size_t n) {
    if (n > capacity_) {
      data_.reset(new double[n]);
      capacity_ = n;
      advise_huge_pages(data_.get(), n * sizeof(double));
    }
  }
  double* data() { return data_.get(); }

 private:
  std::unique_ptr<double[]> data_;
  std::size_t capacity_ = 0;
};

// one chunk of prepared cases and, after the backend ran, their results
template <class D>
struct Chunk {
  long first = 0;
  long n = 0;
  PreparedCases<D> cases;
  std::vector<CaseResult<D>> results;
  RingBuffer points;
  std::vector<PinnTotals> pinn;  // PINN methods: each case's trainings
  // the case table and counts where the device makes them (results then never come back)
  bool table_on_device = false;
  ColumnBlock table;
  CaseCounts counts{};
  double setup_s = 0.0;
  double launch_s = 0.0, wait_s = 0.0;  // the host's time in the backend's launch and finish
};

// the memory of column blocks handed back once written, for the next chunks' blocks: a chunk's
// columns are tens of megabytes that would otherwise be mapped, zeroed and faulted in anew
class BlockPool {
 public:
  std::vector<double> take() {
    std::lock_guard<std::mutex> lock(m_);
    if (free_.empty()) return {};
    std::vector<double> v = std::move(free_.back());
    free_.pop_back();
    return v;
  }
  void give(std::vector<double>&& v) {
    std::lock_guard<std::mutex> lock(m_);
    if (free_.size() < 4) free_.push_back(std::move(v));
  }

 private:
  std::mutex m_;
  std::vector<std::vector<double>> free_;
};

// the cases [first, first + n) in `ch`, whose buffers an earlier chunk may have left: they are
// reused as they are (a case's results and rings are written before they are read), so that a
// sweep touches its chunk memory once
// (`table`: the device makes the case table, into a block from `pool`)
template <class D>
Chunk<D> prepare_chunk(const RunContext& ctx, const ChunkSettings& set, const SweepShared<D>& shared, long first,
                       long n, Chunk<D> ch, bool table, BlockPool& pool) {
  const auto t0 = std::chrono::steady_clock::now();
  ch.first = first;
  ch.n = n;
  prepare_cases(ctx.plan, shared, first, n, ch.cases);
  resize_for_writing(ch.results, static_cast<std::size_t>(n));
  ch.table_on_device = table;
  if (table) {
    ch.table.values = pool.take();
    ch.table.resize(n, case_column_count(set.layout));
    ch.counts = CaseCounts{};
  }
  if (ctx.pinn()) ch.pinn.resize(static_cast<std::size_t>(n));
  ch.points.resize(static_cast<std::size_t>(n * case_points_size(set.nq, set.an)));
  ch.launch_s = ch.wait_s = 0.0;
  ch.setup_s = seconds_since(t0);
  return ch;
}

// device memory: the most cases one backend call may hold (lowered by each allocation failure)
// and how often it was halved
struct BackendParts {
  long limit = LONG_MAX;
  long halvings = 0;
};

// whether the host reads a chunk's point rings: its files hold points, or a grey-box search reads
// its residual series (the orbit observer's pass reads them where the cases ran)
inline bool wants_points(const RunContext& ctx, const ChunkSettings& set) {
  return (ctx.base.output.points && observes_points(set.an.observers)) || set.an.keep_residuals;
}

// a chunk's counts of classes, statuses and steps (cases/case_columns.hpp) by their names
inline void add_case_counts(const CaseCounts& counts, ChunkCounts& c) {
  c.case_steps += static_cast<double>(counts.steps);
  for (int k = 0; k < kCountedClasses; ++k)
    for (int n = 0; n <= kPeriodicClassCodes; ++n)
      if (counts.by_class[k][n] > 0) c.classes[case_class_name(k, n)] += static_cast<long>(counts.by_class[k][n]);
  for (int st = 0; st < kCountedStatuses; ++st)
    if (counts.by_status[st] > 0)
      c.status[status_name(static_cast<Status>(st))] += static_cast<long>(counts.by_status[st]);
  if (counts.other_class > 0) c.classes["other"] += static_cast<long>(counts.other_class);
  if (counts.other_status > 0) c.status["other"] += static_cast<long>(counts.other_status);
}

// a chunk's columns and counts, once its backend has run it (compute_s: the backend's time)
template <class D>
ChunkOutput chunk_output(const RunContext& ctx, const ChunkSettings& set, Chunk<D>& ch, double compute_s, long halvings,
                         BlockPool& pool) {
  const auto t0 = std::chrono::steady_clock::now();
  ChunkOutput out;
  out.first = ch.first;
  out.n = ch.n;
  out.rank = ctx.ranks.rank();
  if (ch.table_on_device) {
    out.cases = std::move(ch.table);
  } else {
    out.cases.values = pool.take();
    case_columns(set.layout, ch.first, ch.n, ch.results.data(), ch.cases.rows.data(),
                 ctx.pinn() ? ch.pinn.data() : nullptr, out.cases);
  }
  out.points.values = pool.take();
  if (ctx.base.output.points && observes_points(set.an.observers))
    point_columns(set.nq, set.an, ch.first, ch.n, ch.results.data(), ch.points.data(), out.points);
  if (set.an.keep_residuals) residual_series(set.nq, set.an, ch.n, ch.results.data(), ch.points.data(), out.residuals);
  ChunkCounts& c = out.counts;
  c.compute_s = compute_s;
  c.setup_s = ch.setup_s;
  // classes by (class, N) and statuses by code first, their names once a chunk rather than a
  // string a case
  CaseCounts counts{};
  if (ch.table_on_device)
    counts = ch.counts;
  else
    count_cases(ch.results.data(), ch.n, counts);
  add_case_counts(counts, c);
  c.has_pinn = ctx.pinn();
  for (const PinnTotals& p : ch.pinn) c.pinn.add(p);
  c.memory_halvings = halvings;
  c.launch_s = ch.launch_s;
  c.wait_s = ch.wait_s;
  c.columns_s = seconds_since(t0);
  return out;
}

// a chunk's cases and result arrays as a backend's work
template <class D>
SlotWork<D> slot_work(const ChunkSettings& set, Chunk<D>& ch) {
  SlotWork<D> w;
  w.cases = ch.cases.batch();
  w.results = ch.results.data();
  w.points = ch.points.data();
  w.per_case = case_points_size(set.nq, set.an);
  w.pinn = ch.pinn.empty() ? nullptr : ch.pinn.data();
  if (ch.table_on_device) w.table = {set.layout, ch.first, ch.table.values.data(), ch.n, &ch.counts};
  return w;
}

// runs a prepared chunk to the end on one slot, in parts of at most parts.limit cases; a part
// that fails for lack of device memory is halved and retried, down to one case, so that a chunk
// too large for the device costs retries but never the sweep. The backend's time
template <class D>
double run_in_parts(const ChunkSettings& set, Chunk<D>& ch, BackendParts& parts, ChunkBackend<D>& backend, int slot) {
  const SlotWork<D> all = slot_work(set, ch);
  double total = 0.0;
  for (long at = 0; at < ch.n;) {
    const long count = std::min(parts.limit, ch.n - at);
    double seconds = 0.0;
    auto t0 = std::chrono::steady_clock::now();
    DeviceOutcome out = backend.launch(slot, all.part(at, count));
    ch.launch_s += seconds_since(t0);
    if (out.ok()) {
      t0 = std::chrono::steady_clock::now();
      out = backend.finish(slot, seconds);
      ch.wait_s += seconds_since(t0);
    }
    if (out.out_of_memory && count > 1) {
      parts.limit = count / 2;
      ++parts.halvings;
      continue;
    }
    if (!out.ok()) throw std::runtime_error(std::string(backend.name()) + ": " + out.error);
    total += seconds;
    at += count;
  }
  return total;
}

// the backend of a rank's run, with the failures a test injects into it
template <class D>
std::unique_ptr<ChunkBackend<D>> rank_backend(const RunContext& ctx, const ChunkSettings& set, InjectedFailures& inject,
                                              std::optional<PinnChunk>& pinn) {
  BackendSettings b;
  b.cuda = ctx.cuda;
  b.an = set.an;
  b.opt = set.opt;
  b.threads = ctx.options.threads;
  b.progress = ctx.chunk_progress;
  b.prepare_ahead = ctx.options.hooks.prepare_ahead;
  b.inject = inject.any() ? &inject : nullptr;
  b.kernels = ctx.options.kernels;
  b.kernels.points_to_host = wants_points(ctx, set);
  if (ctx.pinn()) {
    pinn.emplace();
    pinn->set = set.pinn_set;
    pinn->tab = set.tab;
    pinn->n_dof = set.nq;
    b.pinn = &*pinn;
  }
  return make_chunk_backend<D>(b);
}

// a rank's chunks, one loop for every backend. A chunk is launched into a slot whole unless it is
// larger than the parts the device held so far or its launch runs out of memory: then it runs
// alone, part after part. On an asynchronous backend (CUDA) chunk k steps while the host finishes
// chunk k − 1 (its results back, its columns, the exchange) and prepares chunk k + 1, in the other
// slot; on a synchronous one (the CPU) each chunk is finished before the next range is asked for,
// in the same slot, so that the last chunks go to whichever rank is free first. Returns the
// kernel the chunks ran
template <class D>
KernelReport run_chunks(const RunContext& ctx, const ChunkSettings& set, ChunkExchange& exchange, BlockPool& pool) {
  const SweepHooks& hooks = ctx.options.hooks;
  InjectedFailures inject = parse_injected_failures(hooks.fail, hooks.device_cases);
  std::optional<PinnChunk> pinn;
  const std::unique_ptr<ChunkBackend<D>> backend = rank_backend<D>(ctx, set, inject, pinn);
  const bool ahead = backend->asynchronous();
  // on the device the case table and counts are made where the cases ran, unless the host reads
  // their results (points, residual series) or they are PINN trainings; the CPU backend standing in
  // for a device (the prepare-ahead hook) makes them in its launch as the device does
  const bool table = (ctx.cuda || hooks.prepare_ahead) && !ctx.pinn() && !wants_points(ctx, set);
  BackendParts parts;
  const SweepShared<D> shared(ctx.plan, set.opt.stick_tol);
  const long slow_ms = hooks.slow_rank == ctx.ranks.rank() ? hooks.slow_ms : 0;
  Chunk<D> slot[2];
  bool queued[2] = {false, false};
  const auto complete = [&](int k, double seconds, long halvings) {
    ChunkOutput out = chunk_output(ctx, set, slot[k], seconds, halvings, pool);
    if (slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
    exchange.done(std::move(out));
  };
  const auto finish = [&](int k) {
    if (!queued[k]) return;
    queued[k] = false;
    double seconds = 0.0;
    const auto t0 = std::chrono::steady_clock::now();
    const DeviceOutcome out = backend->finish(k, seconds);
    slot[k].wait_s += seconds_since(t0);
    if (!out.ok()) throw std::runtime_error(std::string(backend->name()) + ": " + out.error);
    complete(k, seconds, 0);
  };
  std::optional<ChunkRange> r = exchange.next();
  if (!r) return backend->kernels();
  int cur = 0;
  slot[cur] = prepare_chunk<D>(ctx, set, shared, r->first, r->n, std::move(slot[cur]), table, pool);
  for (;;) {
    Chunk<D>& ch = slot[cur];
    bool alone = ch.n > parts.limit;
    if (!alone) {
      const auto t0 = std::chrono::steady_clock::now();
      const DeviceOutcome launched = backend->launch(cur, slot_work(set, ch));
      ch.launch_s += seconds_since(t0);
      if (launched.ok())
        queued[cur] = true;
      else if (launched.out_of_memory)
        alone = true;
      else
        throw std::runtime_error(std::string(backend->name()) + ": " + launched.error);
    }
    if (alone) {
      finish(1 - cur);
      const long halvings = parts.halvings;
      const double seconds = run_in_parts(set, ch, parts, *backend, cur);
      complete(cur, seconds, parts.halvings - halvings);
    }
    if (!ahead) finish(cur);
    // while this chunk steps: the last one's results, and the next chunk
    finish(1 - cur);
    r = exchange.next();
    if (!r) break;
    const int next = ahead ? 1 - cur : cur;
    slot[next] = prepare_chunk<D>(ctx, set, shared, r->first, r->n, std::move(slot[next]), table, pool);
    cur = next;
  }
  finish(cur);
  return backend->kernels();
}

}  // namespace fivsim::sweep
