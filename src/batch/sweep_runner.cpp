// src/batch/sweep_runner.cpp — a whole sweep: plan, chunks, backends, files, journal and summary
// (batch/sweep_runner.hpp).
#include "fivsim/batch/sweep_runner.hpp"

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <initializer_list>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "fivsim/batch/basins.hpp"
#include "fivsim/batch/chunk_backend.hpp"
#include "fivsim/batch/memory_budget.hpp"
#include "fivsim/batch/result_table.hpp"
#include "fivsim/batch/results_h5.hpp"
#include "fivsim/batch/host_memory.hpp"
#include "fivsim/batch/sweep.hpp"
#include "fivsim/batch/sweep_journal.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/integrate/simulation.hpp"
#include "fivsim/io/output.hpp"
#include "fivsim/io/timeseries_csv.hpp"

namespace fivsim::batch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// what every rank knows of the sweep before its first chunk
struct RunContext {
  const SweepOptions& options;
  const Scenario& base;
  const SweepSpec& spec;
  const SweepPlan& plan;
  bool cuda = false;
  bool single = false;
  CudaDeviceInfo device;
  int device_ranks = 1;  // the ranks of this node on this process's device, this one included
  Ranks& ranks;
  // the cases this process runs: all, or one shard [first_case, end_case)
  long first_case = 0, end_case = 0;
  // the writer's progress within a running CPU chunk (cases of it finished); empty elsewhere
  std::function<void(long done)>* chunk_progress = nullptr;
  // why `--device auto` runs on the CPU beside a GPU it cannot use ("" otherwise)
  std::string device_fallback;
  bool runge_kutta() const { return method_has_step_map(base.integrator.spec()); }
  bool pinn() const { return base.integrator.spec().kind == MethodKind::pinn; }
};

// what every chunk shares: the per-case analysis, the step options, the table layout and, for the
// PINN methods, the stepper settings and stage table
struct ChunkSettings {
  SweepAnalysis an;
  StepOptions opt;
  int nq = 0, nc = 0;
  CaseTableLayout layout;
  PinnStepSettings pinn_set;
  std::vector<double> stages;
  StageTable<double> tab;  // over `stages`
  double pinn_block_bytes = 0.0;

  explicit ChunkSettings(const RunContext& ctx)
      : an(sweep_analysis(ctx.base)),
        opt(sweep_step_options(ctx.base, ctx.single)),
        nq(ctx.base.model.dof()),
        nc(ctx.base.model.n_contacts()) {
    // cases keep point rings only for the observers that fill them
    if (!observes_points(an.observers)) an.capacity = 0;
    an.keep_residuals = ctx.options.keep_residuals && an.reference_n > 0;
    layout.n_dof = nq;
    layout.n_contacts = nc;
    layout.n_params = static_cast<int>(ctx.spec.parameters.size());
    layout.observers = an.observers;
    layout.lyapunov = an.lyapunov_every > 0;
    layout.pinn = ctx.pinn();
    if (!ctx.pinn()) return;
    const MethodSpec spec = ctx.base.integrator.spec();
    pinn_set = make_pinn_step_settings(spec, nq);
    if (spec.framework != PinnFramework::central) {
      stages = gauss_stage_values<double>(spec.stages);
      tab = stage_table_of(stages.data(), spec.stages);
    }
    // the steppers' blocks (the twin's too) and the case's lockstep state (pinn_case.hpp)
    pinn_block_bytes = static_cast<double>(pinn_block_layout<PinnSweepDims>(pinn_set, nq, tab.R).bytes) *
                           (an.lyapunov_every > 0 ? 2 : 1) +
                       static_cast<double>(sizeof(PinnCase<PinnSweepDims>));
  }
  ChunkSettings(const ChunkSettings&) = delete;
  ChunkSettings& operator=(const ChunkSettings&) = delete;
};

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
  double setup_s = 0.0;
};

// the cases [first, first + n) in `ch`, whose buffers an earlier chunk may have left: they are
// reused as they are (a case's results and rings are written before they are read), so that a
// sweep touches its chunk memory once
template <class D>
Chunk<D> prepare_chunk(const RunContext& ctx, const ChunkSettings& set, const SweepShared<D>& shared, long first,
                       long n, Chunk<D> ch) {
  const auto t0 = Clock::now();
  ch.first = first;
  ch.n = n;
  prepare_cases(ctx.plan, shared, first, n, ch.cases);
  resize_for_writing(ch.results, static_cast<std::size_t>(n));
  if (ctx.pinn()) ch.pinn.resize(static_cast<std::size_t>(n));
  ch.points.resize(static_cast<std::size_t>(n * case_points_size(set.nq, set.an)));
  ch.setup_s = seconds_since(t0);
  return ch;
}

// device memory: the most cases one backend call may hold (lowered by each allocation failure)
// and how often it was halved
struct BackendParts {
  long limit = LONG_MAX;
  long halvings = 0;
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

// a chunk's columns and counts, once its backend has run it (compute_s: the backend's time)
template <class D>
ChunkOutput chunk_output(const RunContext& ctx, const ChunkSettings& set, Chunk<D>& ch, double compute_s, long halvings,
                         BlockPool& pool) {
  ChunkOutput out;
  out.first = ch.first;
  out.n = ch.n;
  out.rank = ctx.ranks.rank();
  out.cases.values = pool.take();
  out.points.values = pool.take();
  case_columns(set.layout, ch.first, ch.n, ch.results.data(), ch.cases.rows.data(),
               ctx.pinn() ? ch.pinn.data() : nullptr, out.cases);
  if (ctx.base.output.points && observes_points(set.an.observers))
    point_columns(set.nq, set.an, ch.first, ch.n, ch.results.data(), ch.points.data(), out.points);
  if (set.an.keep_residuals) residual_series(set.nq, set.an, ch.n, ch.results.data(), ch.points.data(), out.residuals);
  ChunkCounts& c = out.counts;
  c.compute_s = compute_s;
  c.setup_s = ch.setup_s;
  for (const auto& r : ch.results) {
    c.case_steps += static_cast<double>(r.steps);
    if (r.klass != CaseClass::unclassified) ++c.classes[case_class_name(static_cast<int>(r.klass), r.period_n)];
    ++c.status[status_name(r.status)];
  }
  c.has_pinn = ctx.pinn();
  for (const PinnTotals& p : ch.pinn) c.pinn.add(p);
  c.memory_halvings = halvings;
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
    const DeviceOutcome out = backend.run(slot, all.part(at, count), seconds);
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
  if (ctx.pinn()) {
    pinn.emplace(PinnChunk{{}, set.pinn_set, set.tab, set.nq});
    b.pinn = &*pinn;
  }
  return make_chunk_backend<D>(b);
}

// a rank's chunks, one loop for every backend. A chunk is launched into a slot whole unless it is
// larger than the parts the device held so far or its launch runs out of memory: then it runs
// alone, part after part. On an asynchronous backend (CUDA) chunk k steps while the host finishes
// chunk k − 1 (its results back, its columns, the exchange) and prepares chunk k + 1, in the other
// slot; on a synchronous one (the CPU) each chunk is finished before the next range is asked for,
// in the same slot, so that the last chunks go to whichever rank is free first
template <class D>
void run_chunks(const RunContext& ctx, const ChunkSettings& set, ChunkExchange& exchange, BlockPool& pool) {
  const SweepHooks& hooks = ctx.options.hooks;
  InjectedFailures inject = parse_injected_failures(hooks.fail, hooks.device_cases);
  std::optional<PinnChunk> pinn;
  const std::unique_ptr<ChunkBackend<D>> backend = rank_backend<D>(ctx, set, inject, pinn);
  const bool ahead = backend->asynchronous();
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
    const DeviceOutcome out = backend->finish(k, seconds);
    if (!out.ok()) throw std::runtime_error(std::string(backend->name()) + ": " + out.error);
    complete(k, seconds, 0);
  };
  std::optional<ChunkRange> r = exchange.next();
  if (!r) return;
  int cur = 0;
  slot[cur] = prepare_chunk<D>(ctx, set, shared, r->first, r->n, std::move(slot[cur]));
  for (;;) {
    Chunk<D>& ch = slot[cur];
    bool alone = ch.n > parts.limit;
    if (!alone) {
      const DeviceOutcome launched = backend->launch(cur, slot_work(set, ch));
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
    slot[next] = prepare_chunk<D>(ctx, set, shared, r->first, r->n, std::move(slot[next]));
    cur = next;
  }
  finish(cur);
}

// what a rank says about itself in summary.json
json rank_about(const RunContext& ctx) {
  json about = {{"rank", ctx.ranks.rank()},
                {"host", ctx.ranks.host()},
                {"backend", ctx.cuda ? "cuda" : "cpu"},
                {"device", ctx.cuda ? ctx.device.description + " #" + std::to_string(ctx.device.ordinal) : "cpu"},
                {"threads", ctx.cuda ? 0 : (ctx.options.threads > 0 ? ctx.options.threads : omp_get_max_threads())}};
  if (ctx.cuda) about["device_ranks"] = ctx.device_ranks;
  return about;
}

// the decimated time series of one case, run on the host with the scenario's stepper
SweepTrajectory case_trajectory(const RunContext& ctx, long index) {
  std::vector<double> values;
  const Scenario sc = case_scenario(ctx.base.document, ctx.spec, index, values);
  auto model = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *model);
  const int nq = model->n_dof, nc = model->n_contacts;
  SweepTrajectory tr;
  tr.index = index;
  tr.names = series_names(nq, nc);
  tr.values.resize(tr.names.size());
  tr.states.resize(static_cast<std::size_t>(nc));
  long index_step = 0;
  std::vector<double> v;
  run_method(sc.integrator.spec(), sc.model, *model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps,
             sc.integrator.step, [&](const SeriesPoint& p) {
               if (index_step++ % sc.output.every != 0) return;
               series_values(p, v);
               tr.t.push_back(p.t);
               for (std::size_t k = 0; k < v.size(); ++k) tr.values[k].push_back(v[k]);
               for (int i = 0; i < nc; ++i)
                 tr.states[static_cast<std::size_t>(i)].push_back(static_cast<int>(p.contact[i]));
             });
  return tr;
}

// a trajectory as the CSV of `fivsim run`'s time series
void write_trajectory(const SweepTrajectory& tr, int n_dof, const fs::path& file) {
  TimeseriesCsv csv(file, n_dof, static_cast<int>(tr.states.size()));
  std::vector<double> values(tr.values.size());
  std::vector<ContactState> states(tr.states.size());
  for (std::size_t r = 0; r < tr.t.size(); ++r) {
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = tr.values[k][r];
    for (std::size_t i = 0; i < states.size(); ++i) states[i] = static_cast<ContactState>(tr.states[i][r]);
    csv.row(tr.t[r], values, states.data());
  }
  csv.close();
}

// what a sweep writes into its resumable staging folder: a resume refuses anything else there
const std::vector<std::string> kSweepStagingNames = {
    "manifest.json", "manifest.json.tmp", "cases.csv",  "points.csv",     "cases.bin",   "points.bin",
    "results.h5",    "summary.json",      "basins.csv", "attractors.csv", "trajectories"};

// a file of the staging folder written chunk by chunk: each append synced, its length and the
// checksum of its bytes returned for the journal
class AppendFile {
 public:
  // continues `path` after its first `keep` bytes (the rest cut off), or starts it empty
  AppendFile(const fs::path& path, long keep) : path_(path) {
    fd_ = keep > 0 ? open_to_continue(path, keep) : create_new_file(path);
    end_ = keep;
  }
  ~AppendFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // appends the pieces (written whole, then synced); the checksum runs over them in order
  FileMark append(std::initializer_list<std::pair<const char*, std::size_t>> pieces) {
    ByteChecksum sum;
    for (const auto& [data, size] : pieces) {
      write_all(fd_, std::string_view(data, size), path_);
      sum.update(data, size);
      end_ += static_cast<long>(size);
    }
    if (::fsync(fd_) != 0) throw std::runtime_error(cannot_write(path_, errno));
    return FileMark{end_, sum.value()};
  }
  FileMark append(const char* data, std::size_t size) { return append({{data, size}}); }
  long end() const { return end_; }

 private:
  fs::path path_;
  int fd_ = -1;
  long end_ = 0;
};

// a block's rows after those a table kept in memory already holds, column by column
void append_columns(const ColumnBlock& block, std::vector<std::vector<double>>& columns) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const double* from = block.column(static_cast<int>(c));
    columns[c].insert(columns[c].end(), from, from + block.rows);
  }
}

// a sweep kept in memory over initial conditions: its basins into the summary and each case's
// attractor as the column "attractor" (basins.hpp; the files of a sweep hold them in basins.csv
// and attractors.csv)
void add_basins(SweepTables& tables, const std::vector<std::string>& paths, int n_dof, json& summary) {
  summary.erase("basins");
  summary.erase("basins_skipped");
  if (!sweeps_initial_conditions(paths)) return;
  NamedColumns columns;
  for (int c = 0; c < tables.cases_schema.size(); ++c)
    columns[tables.cases_schema.names[static_cast<std::size_t>(c)]] = tables.cases[static_cast<std::size_t>(c)];
  const Basins b = find_basins(paths, columns, n_dof);
  if (!set_basins_summary(b, summary)) return;
  tables.cases_schema.add("attractor", ColumnKind::whole);
  tables.cases.emplace_back(b.attractor.begin(), b.attractor.end());
}

// the output files of a sweep in its staging folder, by format: cases.csv and (when asked)
// points.csv, and for results.h5 a spill file per table that it is written from at the end
class SweepFiles {
 public:
  SweepFiles(const fs::path& dir, const TableSchema& cases, const TableSchema& points, bool with_points, bool csv,
             bool h5, int n_contacts, SweepJournal& journal, bool resumed)
      : dir_(dir),
        cases_schema_(cases),
        points_schema_(points),
        with_points_(with_points),
        csv_(csv),
        h5_(h5),
        n_contacts_(n_contacts) {
    const auto open = [&](const std::string& name, const std::string& header) {
      files_[name] = std::make_unique<AppendFile>(dir / name, resumed ? journal.end_of(name) : 0);
      if (!resumed && !header.empty()) files_[name]->append(header.data(), header.size());
    };
    if (csv_) {
      open("cases.csv", csv_header(cases));
      if (with_points_) open("points.csv", csv_header(points));
    }
    if (h5_) {
      open("cases.bin", "");
      if (with_points_) open("points.bin", "");
    }
    if (!resumed) {
      std::map<std::string, long> ends;
      for (const auto& [name, file] : files_) ends[name] = file->end();
      journal.set_headers(ends);
    }
    // results.h5 packed as the spills grow (a resumed sweep's from what the journal kept)
    if (h5_) {
      h5_tables_ = {{"cases", cases_schema_, dir_ / "cases.bin", n_contacts_}};
      if (with_points_) h5_tables_.push_back({"points", points_schema_, dir_ / "points.bin", n_contacts_});
      h5_writer_.emplace(dir_ / "results.h5", h5_tables_);
      announce_spills();
    }
  }

  // a chunk's rows, written and synced: the marks the journal records
  std::map<std::string, FileMark> append(const ChunkOutput& o) {
    std::map<std::string, FileMark> marks;
    const auto put = [&](const std::string& name, const std::string& bytes) {
      marks[name] = files_.at(name)->append(bytes.data(), bytes.size());
    };
    if (csv_) {
      std::string text;
      csv_rows(cases_schema_, o.cases, text);
      put("cases.csv", text);
      if (with_points_) {
        text.clear();
        csv_rows(points_schema_, o.points, text);
        put("points.csv", text);
      }
    }
    if (h5_) {
      const auto spill = [&](const std::string& name, const ColumnBlock& b, int columns) {
        const SpillHead head = spill_head(b, columns);
        marks[name] = files_.at(name)->append(
            {{reinterpret_cast<const char*>(head.words), sizeof head.words},
             {reinterpret_cast<const char*>(b.values.data()), b.values.size() * sizeof(double)}});
      };
      spill("cases.bin", o.cases, cases_schema_.size());
      if (with_points_) spill("points.bin", o.points, points_schema_.size());
      announce_spills();
    }
    return marks;
  }

  // results.h5 finished from the spills, which then go
  void finish() {
    files_.clear();
    if (!h5_) return;
    h5_writer_->finish();
    h5_writer_.reset();
    for (const H5Table& t : h5_tables_) remove_output_file(t.spill);
  }
  // the summary, in results.h5 too; then the checksums of the finished files join it in
  // summary.json ("checksums", what `fivsim merge` verifies a shard by)
  void write_summary(json& summary) const {
    if (h5_) set_results_h5_summary(dir_ / "results.h5", summary);
    json checks = json::object();
    for (const std::string& name : names()) checks[name] = file_check(dir_ / name);
    summary["checksums"] = std::move(checks);
    write_json_file(dir_ / "summary.json", summary);
  }

  // the files a reader finds, for summary.json
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    if (csv_) n.push_back("cases.csv");
    if (csv_ && with_points_) n.push_back("points.csv");
    if (h5_) n.push_back("results.h5");
    return n;
  }

 private:
  fs::path dir_;
  const TableSchema &cases_schema_, &points_schema_;
  bool with_points_, csv_, h5_;
  int n_contacts_;
  std::map<std::string, std::unique_ptr<AppendFile>> files_;
  std::vector<H5Table> h5_tables_;
  std::optional<ResultsH5Writer> h5_writer_;

  // the spills' whole blocks so far, to results.h5's writer
  void announce_spills() {
    std::vector<long> ends;
    for (const H5Table& t : h5_tables_) ends.push_back(files_.at(t.spill.filename().string())->end());
    h5_writer_->complete_to(ends);
  }
};

// every rank but 0: runs the ranges rank 0 hands out; a failure goes to rank 0, which reports it
template <class D>
void run_worker(const RunContext& ctx) {
  const auto exchange = make_worker_exchange(ctx.ranks, rank_about(ctx));
  try {
    const ChunkSettings set(ctx);
    BlockPool pool;
    run_chunks<D>(ctx, set, *exchange, pool);
  } catch (const InputError& e) {
    exchange->fail(kSweepBadInput, e.what());
  } catch (const std::exception& e) {
    exchange->fail(kSweepError, e.what());
  }
}

// the single process, or rank 0: the run's files, its manifest and its own share of the chunks
template <class D>
SweepOutcome run_writer(const RunContext& ctx) {
  const SweepOptions& options = ctx.options;
  const Scenario& base = ctx.base;
  const ChunkSettings set(ctx);
  const SweepAnalysis& an = set.an;
  const long n_total = ctx.spec.n_cases();
  for (long c : base.output.trajectories)
    if (c >= n_total)
      throw InputError("/output/trajectories", "case " + std::to_string(c) + " does not exist (the sweep has " +
                                                   std::to_string(n_total) + " cases)");
  const long first_case = ctx.first_case, n_cases = ctx.end_case - ctx.first_case;

  // chunk: on a device what its memory holds (memory_budget.hpp: both slots, the kernels' local
  // memory, the runtime's reserve, the host copies; shared among the node's ranks on one device);
  // on the CPU (4 cases per thread for the PINN methods) small enough for the progress line to
  // move and large enough that a chunk's overhead vanishes. Rank 0's choice holds for every rank
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  // a case's own setup and step map count only where the plan makes them on the host
  const bool own_setup = ctx.plan.per_case_setups(), own_map = ctx.runge_kutta() && ctx.plan.per_case_map();
  const int n_params = static_cast<int>(ctx.spec.parameters.size());
  const ChunkFootprint footprint = case_footprint<D>(
      own_setup, own_map, n_params, case_points_size(set.nq, an), n_params + case_schema(set.layout, {}).size(),
      set.pinn_block_bytes, ctx.cuda ? sweep_kernel_local_bytes<D>() : 0);
  long chunk = options.chunk;
  if (chunk <= 0 && ctx.cuda) {
    MemoryFigures figures;
    figures.device_free_bytes = ctx.device.free_bytes;
    figures.multiprocessors = ctx.device.multiprocessors;
    figures.threads_per_multiprocessor = ctx.device.threads_per_multiprocessor;
    figures.host_available_bytes = host_available_bytes();
    figures.device_ranks = ctx.device_ranks;
    const ChunkBudget budget = chunk_budget(figures, footprint);
    if (budget.cases == 0)
      throw std::runtime_error("CUDA backend: " + budget.why + " (--device cpu runs it on the CPU)");
    chunk = std::min(budget.cases, 1L << 21);
  } else if (chunk <= 0) {
    // on the CPU some 2^26 case-steps a chunk (a chunk of short cases costs its fsyncs and its
    // manifest, not its stepping), at least 256 cases per thread and at most 2^16 cases
    const long steps = std::max(1L, base.integrator.steps);
    chunk =
        ctx.pinn() ? 4L * threads : std::clamp((1L << 26) / steps, 256L * threads, std::max(256L * threads, 1L << 16));
  }
  chunk = std::max(1L, std::min(chunk, n_cases));

  const std::string shard_name = options.shard_count > 0 ? ".shard" + std::to_string(options.shard_index) + "of" +
                                                               std::to_string(options.shard_count)
                                                         : "";
  const fs::path out_dir = options.out.empty() ? fs::path("runs") / (base.name + shard_name) : fs::path(options.out);
  SweepOutcome outcome;
  outcome.writer = true;
  const long end_case = first_case + n_cases;
  std::vector<std::string> paths;
  for (const auto& p : ctx.spec.parameters) paths.push_back(p.path);
  const TableSchema cases_schema = case_schema(set.layout, paths), points_schema = point_schema(set.nq);
  const bool with_points = base.output.points && observes_points(an.observers);
  // a sweep kept in memory: no folder, lock, journal or files; its tables fill as chunks come
  SweepTables* const tables = options.tables;
  std::optional<SweepJournal> journal;
  std::optional<StagedDirectory> dir;
  std::optional<SweepFiles> files;
  if (tables) {
    tables->cases_schema = cases_schema;
    tables->points_schema = points_schema;
    tables->cases.assign(static_cast<std::size_t>(cases_schema.size()), {});
    tables->points.assign(with_points ? static_cast<std::size_t>(points_schema.size()) : 0, {});
    tables->trajectories.clear();
    tables->residuals.clear();
  } else {
    // a folder fivsim may replace, one command at a time in it: refused or locked before anything
    // in it is looked at or touched
    dir.emplace(out_dir, StagedDirectory::Resumable{kSweepStagingNames}, options.inputs, ctx.ranks.host());
    outcome.warning = dir->unguarded();
  }
  if (!ctx.device_fallback.empty())
    outcome.warning += (outcome.warning.empty() ? "" : "; ") + ("running on the CPU: " + ctx.device_fallback);
  // resumable: after each chunk the manifest records what is on the disk (sweep_journal.hpp); an
  // unfinished sweep's staging folder stays as it is until it is continued or restarted, so a
  // refusal keeps it
  // the format: what the files of a sweep this size should be, unless asked
  const SweepFormat format = options.format != SweepFormat::automatic ? options.format
                             : n_cases < kSweepCsvLimit               ? SweepFormat::both
                                                                      : SweepFormat::h5;
  const bool csv = format == SweepFormat::csv || format == SweepFormat::both;
  const bool h5 = format == SweepFormat::h5 || format == SweepFormat::both;
  if (!tables)
    journal.emplace(dir->path(), json{{"scenario", base.document},
                                      {"precision", ctx.single ? "float" : "double"},
                                      {"first_case", first_case},
                                      {"end_case", end_case},
                                      {"csv", csv},
                                      {"h5", h5}});
  if (journal && journal->has_manifest()) {
    if (!options.resume)
      throw InputError("--resume", dir->path().string() +
                                       " holds an unfinished sweep: --resume continues it; remove that folder to "
                                       "start again");
    const std::string why = journal->load(
        first_case, end_case, {{"cases.csv", csv_header(cases_schema)}, {"points.csv", csv_header(points_schema)}});
    if (!why.empty())
      throw InputError("--resume", "cannot continue " + dir->path().string() + ": " + why +
                                       "; remove that folder to start again, or write to another --out");
  }
  const bool resumed = journal && !journal->chunks().empty();
  if (journal) {
    // nothing to continue: whatever an earlier attempt left starts from scratch
    if (resumed)
      dir->keep_on_failure();
    else
      dir->restart();
    files.emplace(dir->path(), cases_schema, points_schema, with_points, csv, h5, set.nc, *journal, resumed);
  }

  const auto t0 = Clock::now();
  SweepTotals totals;
  // the chunks a resume keeps and each chunk run here are added up in the same place
  const auto add_chunk = [&](const ChunkCounts& c, long n) {
    totals.counts.add(c);
    totals.cases += n;
    ++totals.chunks;
  };
  if (journal)
    for (const JournalChunk& jc : journal->chunks()) add_chunk(jc.counts, jc.n);
  const long resumed_cases = totals.cases;
  const std::size_t resumed_chunks = journal ? journal->chunks().size() : 0;
  // what each rank ran in this invocation (summary.json "ranks")
  struct RankTally {
    long chunks = 0, cases = 0;
    double case_steps = 0.0, compute_s = 0.0;
  };
  std::vector<RankTally> tally(static_cast<std::size_t>(ctx.ranks.size()));
  // each chunk in case order, whichever rank ran it: rows to the files, synced, then recorded; its
  // blocks' memory goes back to the pool
  BlockPool pool;
  const auto write = [&](ChunkOutput&& o) {
    if (tables) {
      append_columns(o.cases, tables->cases);
      if (with_points) append_columns(o.points, tables->points);
      const long m = an.reference_n;
      for (long i = 0; an.keep_residuals && i < o.n; ++i)
        tables->residuals.emplace_back(o.residuals.begin() + i * m, o.residuals.begin() + (i + 1) * m);
    } else {
      journal->record({o.first, o.n, files->append(o), o.counts});
    }
    pool.give(std::move(o.cases.values));
    pool.give(std::move(o.points.values));
    if (dir) dir->keep_on_failure();
    if (journal && options.hooks.exit_after_chunks > 0 &&
        static_cast<long>(journal->chunks().size()) == options.hooks.exit_after_chunks)
      std::_Exit(137);
    add_chunk(o.counts, o.n);
    RankTally& t = tally[static_cast<std::size_t>(o.rank)];
    ++t.chunks;
    t.cases += o.n;
    t.case_steps += o.counts.case_steps;
    t.compute_s += o.counts.compute_s;
    if (options.progress)
      options.progress(static_cast<double>(totals.cases - resumed_cases), static_cast<double>(n_cases),
                       totals.counts.case_steps);
  };
  const auto exchange =
      make_writer_exchange(ctx.ranks, first_case + resumed_cases, end_case, chunk, rank_about(ctx), write);
  // within a chunk on this process's CPU threads: the cases finished so far, their case-steps
  // estimated as whole runs (an adaptive case may stop sooner) until the chunk's own count comes
  std::function<void(long)> in_chunk;
  if (options.progress)
    in_chunk = [&](long done) {
      options.progress(
          static_cast<double>(totals.cases - resumed_cases + done), static_cast<double>(n_cases),
          totals.counts.case_steps + static_cast<double>(done) * static_cast<double>(base.integrator.steps));
    };
  RunContext writer_ctx = ctx;
  writer_ctx.chunk_progress = &in_chunk;
  run_chunks<D>(writer_ctx, set, *exchange, pool);
  exchange->finish();
  if (dir && !base.output.trajectories.empty()) make_output_folder(dir->file("trajectories"));
  for (long c : base.output.trajectories) {
    if (c < first_case || c >= end_case) continue;
    SweepTrajectory tr = case_trajectory(ctx, c);
    if (tables)
      tables->trajectories.push_back(std::move(tr));
    else
      write_trajectory(tr, set.nq, dir->file("trajectories") / ("case_" + std::to_string(c) + ".csv"));
  }
  if (files) files->finish();
  totals.wall_s = seconds_since(t0);

  // throughput by rank: each rank's stepping rate over its own compute time; the run's is their sum
  double rate_sum = 0.0;
  const std::vector<json> about = exchange->about_ranks();
  for (std::size_t r = 0; r < tally.size(); ++r) {
    json e = about[r].is_object() ? about[r] : json{{"rank", r}};
    const double rate = tally[r].compute_s > 0 ? tally[r].case_steps / tally[r].compute_s : 0.0;
    e["chunks"] = tally[r].chunks;
    e["cases"] = tally[r].cases;
    e["case_steps"] = tally[r].case_steps;
    e["compute_s"] = tally[r].compute_s;
    e["case_steps_per_s"] = rate;
    rate_sum += rate;
    totals.ranks.push_back(e);
  }
  // a run that only finished what a resume kept has no rate of its own
  totals.case_steps_per_s =
      rate_sum > 0 ? rate_sum
                   : (totals.counts.compute_s > 0 ? totals.counts.case_steps / totals.counts.compute_s : 0.0);

  json& summary = outcome.summary;
  summary["name"] = base.name;
  summary["backend"] = ctx.cuda ? "cuda" : "cpu";
  summary["device"] = ctx.cuda ? ctx.device.description : "cpu";
  if (!ctx.device_fallback.empty()) summary["device_fallback"] = ctx.device_fallback;
  summary["threads"] = ctx.cuda ? 0 : threads;
  summary["precision"] = ctx.single ? "float" : "double";
  summary["instantiation"] = {{"max_dof", D::max_dof}, {"max_contacts", D::max_contacts}, {"exact", D::exact}};
  summary["chunk_size"] = chunk;
  summary["case_bytes"] = footprint.device_bytes;
  summary["method"] = base.integrator.spec().label();
  summary["steps"] = base.integrator.steps;
  summary["n_dof"] = set.nq;
  summary["n_contacts"] = set.nc;
  summary["scenario"] = base.document;
  write_totals(totals, summary);
  std::vector<std::string> observers;
  for (int b = 0; b < kObserverCount; ++b)
    if (an.observers & (1u << b)) observers.push_back(kObserverNames[b]);
  summary["observers"] = observers;
  summary["poincare"] = {
      {"section", base.analysis.poincare.section},     {"contact", an.contact}, {"dof", an.dof}, {"value", an.value},
      {"direction", base.analysis.poincare.direction}, {"period", an.period}};
  summary["t_transient"] = base.analysis.t_transient;
  summary["points_per_kind"] = an.capacity;
  if (ctx.pinn()) {
    summary["pinn"]["tol"] = base.integrator.pinn.optimizer.tol;
    summary["pinn"]["case_memory_bytes"] = set.pinn_block_bytes;
  }
  if (an.lyapunov_every > 0)
    summary["lyapunov"] = {{"every", an.lyapunov_every}, {"d0", an.lyapunov_d0}, {"zero", an.lyapunov_zero}};
  if (observes_class(an.observers))
    summary["classification"] = {{"periodic_tol", an.periodic_tol},
                                 {"max_period", an.max_period},
                                 {"confirmations", an.confirmations},
                                 {"adaptive", an.adaptive}};
  if (options.shard_count > 0)
    summary["shard"] = {{"index", options.shard_index},
                        {"count", options.shard_count},
                        {"first_case", first_case},
                        {"end_case", end_case},
                        {"sweep_cases", n_total}};
  if (resumed) summary["resumed"] = {{"chunks", resumed_chunks}, {"cases", resumed_cases}};
  summary["files"] = files ? files->names() : std::vector<std::string>{};
  // a sweep over initial conditions: its attractors and basins, from every case (a shard's come
  // when `fivsim merge` joins them)
  if (options.shard_count == 0 && observes_class(an.observers)) {
    if (tables)
      add_basins(*tables, paths, set.nq, summary);
    else
      for (const std::string& file : write_basins(dir->path(), paths, set.nq, summary))
        summary["files"].push_back(file);
  }
  if (!files) return outcome;
  files->write_summary(summary);
  journal->remove_manifest();
  dir->commit();
  outcome.out = dir->final_path();
  return outcome;
}

template <class D>
SweepOutcome run_sized(const RunContext& ctx) {
  if (ctx.ranks.rank() != 0) {
    run_worker<D>(ctx);
    return {};
  }
  return run_writer<D>(ctx);
}

// the first instantiation that holds the model (PINN sweeps: theirs)
template <class T>
SweepOutcome run_instantiated(const RunContext& ctx) {
  SweepOutcome out;
  if (ctx.pinn()) {
    if constexpr (std::is_same_v<T, double>) return run_sized<PinnSweepDims>(ctx);
  }
  with_instantiation(SweepInstantiations<T>{}, ctx.base.model.dof(), ctx.base.model.n_contacts(),
                     [&](auto tag) { out = run_sized<typename decltype(tag)::type>(ctx); });
  return out;
}

// the checks of a sweep before its plan: what the sweep engine runs
void check_sweepable(const Scenario& base) {
  const MethodSpec method = base.integrator.spec();
  if (method.kind == MethodKind::smooth)
    throw InputError("/integrator/method",
                     "sweeps run the time steppers (moreau, rk4lcp, irk and the PINN methods) and "
                     "the event-driven switching model (switching); got \"smooth\"");
  if (base.integrator.lcp_pinn)
    throw InputError("/integrator/lcp_solver",
                     "sweeps solve the contact LCPs of moreau, rk4lcp and irk with lemke, pgs "
                     "or enum; in a sweep the LCP-PINN runs inside pinn_dual, pinn_adv_dual and "
                     "pinn_central");
  if (!with_instantiation(SweepInstantiations<double>{}, base.model.dof(), base.model.n_contacts(), [](auto) {}))
    throw InputError("/model", "sweeps hold at most 24 DoF and 8 contacts");
  if (method.kind == MethodKind::pinn &&
      (base.model.dof() > PinnSweepDims::max_dof || base.model.n_contacts() > PinnSweepDims::max_contacts))
    throw InputError("/model", "PINN sweeps hold at most 8 DoF and 8 contacts");
  if (method.kind == MethodKind::pinn && (base.analysis.observers & kObserveOutputError))
    throw InputError("/analysis/reference",
                     "the PINN methods' sweeps do not observe output_error; use moreau, rk4lcp, "
                     "irk or switching");
}

// the GPU a test names ("NAME:X.Y"), judged against this build's architectures
CudaDeviceInfo stub_gpu(const std::string& hook) {
  const std::size_t colon = hook.rfind(':');
  CudaDeviceInfo found;
  found.available = true;
  found.description = hook.substr(0, colon);
  if (colon == std::string::npos || std::sscanf(hook.c_str() + colon + 1, "%d.%d", &found.major, &found.minor) != 2)
    throw std::invalid_argument("FIVSIM_SWEEP_STUB_GPU: NAME:X.Y, got '" + hook + "'");
  const CudaDeviceInfo judged = judged_device(found, cuda_build_architectures());
  if (judged.available) throw std::invalid_argument("FIVSIM_SWEEP_STUB_GPU: stands in for a GPU this build cannot run");
  return judged;
}

SweepOutcome run_checked(const json& given, const SweepOptions& options, Ranks& ranks) {
  // a scenario without `initial` starts at rest, written out so that the sweep may vary it
  const json document = with_initial_written(given);
  if (options.threads < 0 || options.threads > kMaxSweepThreads)
    throw InputError("--threads", "must be an integer in [1, " + std::to_string(kMaxSweepThreads) +
                                      "] (or none: every core), got " + std::to_string(options.threads));
  if (options.chunk < 0 || options.chunk > kMaxSweepChunk)
    throw InputError("--chunk", "must be an integer in [1, " + std::to_string(kMaxSweepChunk) +
                                    "] (or none: sized for the device), got " + std::to_string(options.chunk));
  const Scenario base = parse_scenario(document);
  const SweepSpec spec = parse_sweep(document);
  check_sweepable(base);
  const SweepPlan plan(base, spec);
  RunContext ctx{options, base, spec, plan, false, options.single_precision, {}, 1, ranks, 0, 0, nullptr, {}};
  ctx.end_case = spec.n_cases();
  if (options.shard_count > 0) {
    const int i = options.shard_index, n = options.shard_count;
    if (i < 0 || i >= n || n > spec.n_cases())
      throw InputError("--shard", "must be i/N with 0 <= i < N <= the sweep's " + std::to_string(spec.n_cases()) +
                                      " cases, got '" + std::to_string(i) + "/" + std::to_string(n) + "'");
    if (ranks.size() > 1)
      throw InputError("--shard",
                       "under mpirun the ranks share the cases out themselves; --shard is for runs without "
                       "MPI (a scheduler's array job)");
    ctx.first_case = static_cast<long>(i) * spec.n_cases() / n;
    ctx.end_case = static_cast<long>(i + 1) * spec.n_cases() / n;
  }
  if (options.tables && (options.resume || options.shard_count > 0 || ranks.size() > 1))
    throw InputError(options.resume ? "--resume" : "--shard", "a sweep kept in memory runs whole, in one process");
  if (options.keep_residuals && !options.tables)
    throw std::invalid_argument("run_sweep: keep_residuals keeps the series in SweepOptions::tables, which is null");
  if (options.keep_residuals && !base.analysis.reference)
    throw InputError("/analysis/reference", "is needed for the residual series a least-squares search asks for");
  // the PINN trainings run in double precision: their tolerances (1e-24 on a squared residual)
  // are below float's reach
  if (ctx.pinn() && ctx.single)
    throw InputError("--precision", "the PINN methods run in double precision only, not float");
  // events located to 1e-12 s need double's digits
  if (base.integrator.spec().kind == MethodKind::event_driven && ctx.single)
    throw InputError("--precision", "the switching method runs in double precision only, not float");
  if (options.device != SweepDevice::cpu) {
    // each rank on a node takes its own device
    ctx.device =
        options.hooks.stub_gpu.empty() ? cuda_device_info(ranks.local_rank()) : stub_gpu(options.hooks.stub_gpu);
    ctx.cuda = ctx.device.available;
    if (ctx.device.unusable_gpu) ctx.device_fallback = ctx.device.description;
    if (ctx.cuda && options.device == SweepDevice::automatic) {
      const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
      const long cases = (ctx.end_case - ctx.first_case) / std::max<long>(1, static_cast<long>(ranks.size()));
      const long fewest = fewest_cases_for_device(ctx.device.multiprocessors, threads, ctx.pinn());
      if (cases < fewest) {
        ctx.cuda = false;
        ctx.device_fallback = std::to_string(cases) + " cases are fewer than the " + std::to_string(fewest) +
                              " that make " + ctx.device.description + " faster than " + std::to_string(threads) +
                              " CPU threads (--device cuda insists)";
      }
    }
    // every rank takes part, with or without a device: the ranks on one GPU share its memory
    // (found by UUID, so also where each rank sees only its own GPU, CUDA_VISIBLE_DEVICES)
    ctx.device_ranks = ranks.node_ranks_with(ctx.cuda ? ctx.device.uuid : "");
    if (options.device == SweepDevice::cuda && !ctx.cuda)
      throw InputError("--device", "cuda, but there is " + ctx.device.description +
                                       "; --device cpu (or auto) runs the sweep on the CPU cores");
  }
  return ctx.single ? run_instantiated<float>(ctx) : run_instantiated<double>(ctx);
}

}  // namespace

SweepOutcome run_sweep(const json& document, const SweepOptions& options, Ranks& ranks) {
  if (ranks.rank() == 0) return run_checked(document, options, ranks);
  // every other rank hands its failure to rank 0 (which fails alike, or hears of it) and ends
  const auto fail = [&](int code, const std::string& message) {
    make_worker_exchange(ranks, json::object())->fail(code, message);
  };
  try {
    return run_checked(document, options, ranks);
  } catch (const InputError& e) {
    fail(kSweepBadInput, e.what());
  } catch (const std::exception& e) {
    fail(kSweepError, e.what());
  }
  return {};
}

}  // namespace fivsim::batch
