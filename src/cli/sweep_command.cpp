// src/cli/sweep_command.cpp — `fivsim sweep`: every case of a scenario's sweep block, in chunks, on
// the CPU or CUDA backend, reduced per case to cases.csv, points.csv and summary.json (DESIGN.md
// §5), plus optional decimated trajectories of named cases. Under mpirun the chunks are shared out
// among the ranks and rank 0 writes (sweep_ranks.hpp).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>

#include "cli_common.hpp"
#include "commands.hpp"
#include "sweep_journal.hpp"
#include "sweep_ranks.hpp"
#include "fivsim/batch/sweep.hpp"
#include "fivsim/integrate/method.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {
namespace {

using batch::CudaDeviceInfo;

template <class D>
std::string case_class(const CaseResult<D>& r) {
  switch (r.klass) {
    case CaseClass::periodic: return "periodic-" + std::to_string(r.period_n);
    case CaseClass::chaotic: return "quasi-periodic-or-chaotic";
    case CaseClass::no_stick_slip: return "no-stick-slip";
    case CaseClass::diverged: return "diverged";
  }
  return "?";
}

std::string point_kind(double code) {
  if (code < 0) return "poincare";
  const int c = static_cast<int>(code);
  return std::string(event_kind_name(static_cast<EventKind>(c / 64))) + "@" + std::to_string(c % 64);
}

// one chunk of prepared cases and, after the backend ran, their results
template <class D>
struct Chunk {
  long first = 0;
  long n = 0;
  batch::PreparedCases<D> cases;
  std::vector<CaseResult<D>> results;
  std::vector<double> points;
  std::vector<PinnTotals> pinn;  // PINN methods: each case's trainings
  double setup_s = 0.0;
};

struct SweepContext {
  const SweepArgs& args;
  const Scenario& base;
  const SweepSpec& spec;
  const batch::SweepPlan& plan;
  bool cuda = false;
  bool single = false;
  CudaDeviceInfo device;
  int device_ranks = 1;  // the ranks of this node on this process's device, this one included
  Ranks* ranks = nullptr;  // this process among those of the run
  // the cases this process runs: all, or one shard [first_case, end_case)
  long first_case = 0, end_case = 0;
  int shard_index = -1, shard_count = 0;
  // cases carry a Runge–Kutta step map: rk4lcp, irk and the IRK-PINN frameworks
  bool runge_kutta() const { return batch::method_has_step_map(base.integrator.spec()); }
  bool pinn() const { return base.integrator.spec().kind == MethodKind::pinn; }
};

// the cases of [first, first + n) from the plan: their rows, and their own setups where the plan
// makes them on the host; the lowest failing case's error is rethrown
template <class D>
Chunk<D> prepare_chunk(const SweepContext& ctx, const batch::SweepShared<D>& shared, long first, long n) {
  const auto t0 = Clock::now();
  Chunk<D> ch;
  ch.first = first;
  ch.n = n;
  batch::prepare_cases(ctx.plan, shared, first, n, ch.cases);
  const long per_case = case_points_size(ctx.base.model.dof(), ctx.base.analysis.points);
  ch.results.resize(static_cast<std::size_t>(n));
  if (ctx.pinn()) ch.pinn.resize(static_cast<std::size_t>(n));
  ch.points.assign(static_cast<std::size_t>(n * per_case), 0.0);
  ch.setup_s = seconds_since(t0);
  return ch;
}

template <class D>
void write_case_rows(const Chunk<D>& ch, int nq, int nc, bool lyapunov, CsvRows& cases) {
  const std::size_t n = static_cast<std::size_t>(ch.n > 0 ? ch.n : 1);
  const std::size_t np = ch.cases.rows.size() / n;
  const int ns = 2 * nq + 2 * nc;
  for (long i = 0; i < ch.n; ++i) {
    const CaseResult<D>& r = ch.results[static_cast<std::size_t>(i)];
    cases.field(static_cast<double>(ch.first + i));
    for (std::size_t k = 0; k < np; ++k) cases.field(ch.cases.rows[k * n + static_cast<std::size_t>(i)]);
    cases.field(case_class(r).c_str());
    cases.field(static_cast<double>(r.period_n));
    cases.field(r.period_s);
    cases.field(static_cast<double>(r.transitions));
    cases.field(static_cast<double>(r.section_hits));
    // series slots: q, u at 0..2nq−1, lamN at 2nq.., lamT at 2nq+nc.. (case_runner.hpp)
    for (int s = 0; s < ns; ++s) cases.field(r.series[s].rms());
    for (int s = 0; s < ns; ++s) cases.field(r.series[s].min);
    for (int s = 0; s < ns; ++s) cases.field(r.series[s].max);
    const double total = static_cast<double>(std::max<long>(1, r.in_state[0] + r.in_state[1] + r.in_state[2] + r.in_state[3]));
    for (int k = 0; k < 4; ++k) cases.field(static_cast<double>(r.in_state[k]) / total);
    if (lyapunov) cases.field(r.lyapunov);
    cases.field(r.max_lcp_residual);
    cases.field(static_cast<double>(r.steps));
    cases.field(status_name(r.status));
    // a failed case: the time and the number of the step that failed (NaN/Inf, an LCP failure)
    cases.field(r.status == Status::ok ? 0.0 : r.failed_at);
    cases.field(r.status == Status::ok ? 0.0 : static_cast<double>(r.steps + 1));
    if (!ch.pinn.empty()) {
      const PinnTotals& p = ch.pinn[static_cast<std::size_t>(i)];
      cases.field(static_cast<double>(p.iterations));
      cases.field(static_cast<double>(p.lcp_iterations));
      cases.field(p.max_loss);
      cases.field(static_cast<double>(p.unconverged));
    }
    cases.end_row();
  }
}

template <class D>
void write_point_rows(const Chunk<D>& ch, int nq, const SweepAnalysis& an, CsvRows& points) {
  const long per_case = case_points_size(nq, an.capacity);
  const int stride = point_stride(nq);
  for (long i = 0; i < ch.n; ++i) {
    const CaseResult<D>& r = ch.results[static_cast<std::size_t>(i)];
    const double* base = ch.points.data() + i * per_case;
    for (int kind = 0; kind < kPointKinds; ++kind) {
      const long seen = r.points_seen[kind];
      const int kept = static_cast<int>(std::min<long>(seen, an.capacity));
      for (int j = 0; j < kept; ++j) {
        const double* row = ring_point(base, kind, seen, an.capacity, stride, j);
        points.field(static_cast<double>(ch.first + i));
        points.field(point_kind(row[1]).c_str());
        for (int c = 0; c < stride; ++c)
          if (c != 1) points.field(row[c]);
        points.end_row();
      }
    }
  }
}

// the decimated time series of one case, run on the host with the same Moreau stepper
void write_trajectory(const SweepContext& ctx, long index, const std::filesystem::path& file) {
  std::vector<double> values;
  const Scenario sc = batch::case_scenario(ctx.base.document, ctx.spec, index, values);
  auto model = std::make_unique<Model<HostDims>>();
  make_model(sc.model, *model);
  const int nq = model->n_dof, nc = model->n_contacts;
  CsvWriter csv(file);
  csv.field("t");
  for (const auto& n : series_names(nq, nc)) csv.field(n.c_str());
  for (int i = 0; i < nc; ++i) csv.field(("state" + std::to_string(i)).c_str());
  csv.end_row();
  long index_step = 0;
  std::vector<double> v;
  run_method(sc.integrator.spec(), sc.model, *model, sc.q0, sc.u0, sc.integrator.dt, sc.integrator.steps,
             sc.integrator.step, [&](const SeriesPoint& p) {
               if (index_step++ % sc.output.every != 0) return;
               series_values(p, v);
               csv.field(p.t);
               for (double x : v) csv.field(x);
               for (int i = 0; i < nc; ++i) csv.field(contact_state_name(p.contact[i]));
               csv.end_row();
             });
  csv.close();
}

// what every rank needs to run chunks: the per-case analysis, the step options and, for the PINN
// methods, the stepper settings and stage table all cases share
struct ChunkSettings {
  SweepAnalysis an;
  StepOptions opt;
  int nq = 0, nc = 0;
  PinnStepSettings pinn_set;
  std::vector<double> stages;
  StageTable<double> tab;  // over `stages`
  double pinn_block_bytes = 0.0;

  explicit ChunkSettings(const SweepContext& ctx)
      : an(batch::sweep_analysis(ctx.base)),
        opt(batch::sweep_step_options(ctx.base, ctx.single)),
        nq(ctx.base.model.dof()),
        nc(ctx.base.model.n_contacts()) {
    if (!ctx.pinn()) return;
    const MethodSpec spec = ctx.base.integrator.spec();
    pinn_set = make_pinn_step_settings(spec, nq);
    if (spec.framework != PinnFramework::central) {
      stages = gauss_stage_values<double>(spec.stages);
      tab = stage_table_of(stages.data(), spec.stages);
    }
    pinn_block_bytes = static_cast<double>(pinn_block_layout<PinnSweepDims>(pinn_set, nq, tab.R).bytes) *
                       (an.lyapunov_every > 0 ? 2 : 1);
  }
  ChunkSettings(const ChunkSettings&) = delete;
  ChunkSettings& operator=(const ChunkSettings&) = delete;
};

// device memory: the most cases one backend call may hold (lowered by each allocation failure)
// and how often it was halved
struct BackendParts {
  long limit = LONG_MAX;
  long halvings = 0;
  // a test hook (FIVSIM_SWEEP_DEVICE_CASES): a part of more cases fails as if out of memory
  long test_limit = 0;
};

// runs cases [0, n) through run_part(at, count) in parts of at most parts.limit cases; a part that
// fails for lack of device memory is halved and retried, down to one case, so that a chunk too
// large for the device costs retries but never the sweep
template <class RunPart>
batch::CudaOutcome run_in_parts(long n, BackendParts& parts, RunPart&& run_part) {
  for (long at = 0; at < n;) {
    const long count = std::min(parts.limit, n - at);
    const batch::CudaOutcome out = parts.test_limit > 0 && count > parts.test_limit
                                       ? batch::CudaOutcome{"out of memory (FIVSIM_SWEEP_DEVICE_CASES)", true}
                                       : run_part(at, count);
    if (out.out_of_memory && count > 1) {
      parts.limit = count / 2;
      ++parts.halvings;
      continue;
    }
    if (!out.ok()) return out;
    at += count;
  }
  return {};
}

// runs one prepared chunk on this rank's backend and renders its rows and counts
template <class D>
ChunkOutput run_chunk(const SweepContext& ctx, const ChunkSettings& plan, Chunk<D>& ch, BackendParts& parts) {
  const auto tc = Clock::now();
  double kernels_s = 0.0;
  const long halvings_before = parts.halvings;
  const long per_case = case_points_size(plan.nq, plan.an.capacity);
  const batch::CaseBatch<D> all = ch.cases.batch();
  const batch::CudaOutcome outcome = run_in_parts(ch.n, parts, [&](long at, long count) {
    const batch::CaseBatch<D> part = all.part(at, count);
    CaseResult<D>* results = ch.results.data() + at;
    double* points = ch.points.data() + at * per_case;
    double kernel_s = 0.0;
    batch::CudaOutcome out;
    if (ctx.pinn()) {
      // sweep_command runs every PINN sweep on this instantiation
      if constexpr (std::is_same_v<D, PinnSweepDims>) {
        const batch::PinnChunk pc{part, plan.pinn_set, plan.tab, plan.nq};
        if (ctx.cuda)
          out = batch::run_chunk_cuda_pinn(pc, plan.an, plan.opt, results, points, ch.pinn.data() + at, kernel_s);
        else
          batch::run_chunk_cpu_pinn(pc, plan.an, plan.opt, results, points, ch.pinn.data() + at, ctx.args.threads);
      }
    } else if (ctx.cuda) {
      out = batch::run_chunk_cuda(part, plan.an, plan.opt, results, points, kernel_s);
    } else {
      batch::run_chunk_cpu(part, plan.an, plan.opt, results, points, ctx.args.threads);
    }
    kernels_s += kernel_s;
    return out;
  });
  if (!outcome.ok()) throw std::runtime_error("CUDA backend: " + outcome.error);
  // the CUDA backend counts its kernels' device time, the CPU backend its wall time
  const double compute_s = ctx.cuda ? kernels_s : seconds_since(tc);

  ChunkOutput out{ch.first, ch.n, ctx.ranks->rank(), {}, {}, {}};
  CsvRows rows;
  write_case_rows(ch, plan.nq, plan.nc, plan.an.lyapunov_every > 0, rows);
  out.cases = rows.take();
  if (ctx.base.output.points) {
    write_point_rows(ch, plan.nq, plan.an, rows);
    out.points = rows.take();
  }
  // this chunk's counts, kept in the manifest for a resume
  PinnTotals chunk_pinn;
  for (const PinnTotals& p : ch.pinn) chunk_pinn.add(p);
  std::map<std::string, long> chunk_classes, chunk_statuses;
  double chunk_steps = 0.0;
  for (const auto& r : ch.results) {
    chunk_steps += static_cast<double>(r.steps);
    ++chunk_classes[r.klass == CaseClass::periodic ? "periodic-" + std::to_string(r.period_n) : case_class(r)];
    ++chunk_statuses[status_name(r.status)];
  }
  out.counts = {{"case_steps", chunk_steps}, {"compute_s", compute_s}, {"setup_s", ch.setup_s},
                {"classes", chunk_classes},  {"status", chunk_statuses}};
  if (ctx.pinn()) out.counts["pinn"] = pinn_totals_json(chunk_pinn);
  if (parts.halvings > halvings_before) out.counts["memory_halvings"] = parts.halvings - halvings_before;
  return out;
}

// a rank's loop: ranges from the exchange, outputs back to it. The CUDA backend prepares the next
// chunk on the host while the device runs this one; the CPU backend asks for a range only when it
// is free, so that the last chunks go to whichever rank is free first
template <class D>
void run_chunks(const SweepContext& ctx, const ChunkSettings& plan, ChunkExchange& exchange) {
  BackendParts parts;
  if (const char* hook = std::getenv("FIVSIM_SWEEP_DEVICE_CASES")) parts.test_limit = std::atol(hook);
  const batch::SweepShared<D> shared(ctx.plan, plan.opt.stick_tol);
  const auto prepare = [&](ChunkRange r) { return prepare_chunk<D>(ctx, shared, r.first, r.n); };
  // a test hook (FIVSIM_SWEEP_PREPARE_AHEAD): the CPU backend takes the CUDA backend's path
  const bool prepare_ahead = ctx.cuda || std::getenv("FIVSIM_SWEEP_PREPARE_AHEAD");
  // a test hook (FIVSIM_SWEEP_SLOW_RANK=r:ms): rank r spends ms more on each chunk, as a slower
  // device or a busier node would
  long slow_ms = 0;
  if (const char* hook = std::getenv("FIVSIM_SWEEP_SLOW_RANK"))
    if (const char* colon = std::strchr(hook, ':'); colon && std::atoi(hook) == ctx.ranks->rank())
      slow_ms = std::atol(colon + 1);
  std::future<Chunk<D>> ahead;
  for (;;) {
    Chunk<D> ch;
    if (ahead.valid()) {
      ch = ahead.get();
    } else if (const std::optional<ChunkRange> r = exchange.next()) {
      ch = prepare(*r);
    } else {
      break;
    }
    if (prepare_ahead)
      if (const std::optional<ChunkRange> r = exchange.next()) ahead = std::async(std::launch::async, prepare, *r);
    ChunkOutput out = run_chunk(ctx, plan, ch, parts);
    if (slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow_ms));
    exchange.done(std::move(out));
  }
}

// a chunk's counts as run_chunk writes them and run_sweep's add_chunk reads them: numbers where
// they are added up, so that a hand-edited manifest is refused before any of it is used
bool chunk_counts_readable(const json& c) {
  const auto number = [&c](const char* key) { return c.contains(key) && c[key].is_number(); };
  const auto whole = [](const json& v) { return v.is_number_integer(); };
  if (!c.is_object() || !number("case_steps") || !number("compute_s") || !number("setup_s")) return false;
  for (const char* key : {"classes", "status"}) {
    if (!c.contains(key) || !c[key].is_object()) return false;
    for (const json& count : c[key])
      if (!whole(count)) return false;
  }
  if (c.contains("memory_halvings") && !whole(c["memory_halvings"])) return false;
  if (!c.contains("pinn")) return true;
  const json& p = c["pinn"];
  if (!p.is_object() || !p.contains("max_dynamic_loss") || !p["max_dynamic_loss"].is_number()) return false;
  for (const char* key : {"dynamic_iterations", "lcp_iterations", "unconverged_steps"})
    if (!p.contains(key) || !whole(p[key])) return false;
  return true;
}

// what a rank says about itself in summary.json
json rank_about(const SweepContext& ctx) {
  json about = {{"rank", ctx.ranks->rank()},
                {"host", ctx.ranks->host()},
                {"backend", ctx.cuda ? "cuda" : "cpu"},
                {"device", ctx.cuda ? ctx.device.description + " #" + std::to_string(ctx.device.ordinal) : "cpu"},
                {"threads", ctx.cuda ? 0 : (ctx.args.threads > 0 ? ctx.args.threads : omp_get_max_threads())}};
  if (ctx.cuda) about["device_ranks"] = ctx.device_ranks;
  return about;
}

// every rank but 0: runs the ranges rank 0 hands out; a failure goes to rank 0, which reports it
template <class D>
int run_worker(const SweepContext& ctx) {
  const auto exchange = make_worker_exchange(*ctx.ranks, rank_about(ctx));
  try {
    const ChunkSettings plan(ctx);
    run_chunks<D>(ctx, plan, *exchange);
  } catch (const InputError& e) {
    exchange->fail(kExitBadInput, e.what());
  } catch (const std::exception& e) {
    exchange->fail(kExitError, e.what());
  }
  return kExitOk;
}

// the single process, or rank 0: the run's files, its manifest and its own share of the chunks
template <class D>
int run_sweep(const SweepContext& ctx) {
  if (ctx.ranks->rank() != 0) return run_worker<D>(ctx);
  const Scenario& base = ctx.base;
  const ChunkSettings plan(ctx);
  const SweepAnalysis& an = plan.an;
  const int nq = plan.nq, nc = plan.nc;
  const long n_total = ctx.spec.n_cases();
  for (long c : base.output.trajectories)
    if (c >= n_total)
      throw InputError("/output/trajectories", "case " + std::to_string(c) + " does not exist (the sweep has " +
                                                  std::to_string(n_total) + " cases)");
  const long first_case = ctx.first_case, n_cases = ctx.end_case - ctx.first_case;

  // chunk: what fits in half the free device memory (shared among the node's ranks on one
  // device); on the CPU 256 cases per thread (4 for the PINN methods), small enough for the
  // progress line to move and large enough that a chunk's overhead vanishes. Rank 0's choice holds
  // for every rank.
  // a case's own setup and step map only where the plan makes them on the host
  const bool own_setup = ctx.plan.per_case_setups(), own_map = ctx.runge_kutta() && ctx.plan.per_case_map();
  const double per_case_bytes =
      static_cast<double>((own_setup ? sizeof(CaseSetup<D>) : 0) + sizeof(CaseResult<D>) +
                          (own_map ? sizeof(RkStepMap<D>) : 0)) +
      8.0 * static_cast<double>(ctx.spec.parameters.size() + case_points_size(nq, an.capacity)) + plan.pinn_block_bytes;
  const int threads = ctx.args.threads > 0 ? ctx.args.threads : omp_get_max_threads();
  long chunk = ctx.args.chunk;
  if (chunk <= 0) {
    chunk = ctx.cuda ? batch::device_chunk_cases(ctx.device.free_bytes, per_case_bytes, ctx.device_ranks)
                     : (ctx.pinn() ? 4L : 256L) * threads;
    chunk = std::clamp<long>(chunk, 1, 1L << 21);
  }
  chunk = std::max(1L, std::min(chunk, n_cases));

  const std::string shard_name =
      ctx.shard_count > 0 ? ".shard" + std::to_string(ctx.shard_index) + "of" + std::to_string(ctx.shard_count) : "";
  const std::filesystem::path out_dir = ctx.args.out.empty() ? std::filesystem::path("runs") / (base.name + shard_name)
                                                             : std::filesystem::path(ctx.args.out);
  // one sweep at a time in a folder, before anything in it is looked at or touched
  const SweepLock lock(out_dir, ctx.ranks->host());
  if (!lock.unguarded().empty()) std::fprintf(stderr, "fivsim sweep: warning: %s\n", lock.unguarded().c_str());
  // resumable: after each chunk the manifest records what is on the disk (sweep_journal.hpp); an
  // unfinished sweep is looked at before the staging folder is opened, so a refusal keeps it
  const long end_case = first_case + n_cases;
  SweepJournal journal(StagedDirectory::resumable_staging(out_dir),
                       {{"scenario", base.document},
                        {"precision", ctx.single ? "float" : "double"},
                        {"first_case", first_case},
                        {"end_case", end_case}});
  if (journal.has_manifest()) {
    if (!ctx.args.resume)
      throw InputError("--resume", StagedDirectory::resumable_staging(out_dir).string() +
                                       " holds an unfinished sweep: --resume continues it; remove that folder to "
                                       "start again");
    std::string why = journal.load(first_case, end_case);
    if (why.empty())
      for (const JournalChunk& jc : journal.chunks())
        if (!chunk_counts_readable(jc.counts)) {
          why = "its manifest.json cannot be read (the counts of the chunk at case " + std::to_string(jc.first) + ")";
          break;
        }
    if (!why.empty())
      throw InputError("--resume", "cannot continue " + StagedDirectory::resumable_staging(out_dir).string() + ": " + why +
                                       "; remove that folder to start again, or write to another --out");
  }
  const bool resumed = !journal.chunks().empty();
  // nothing to continue: whatever an earlier attempt left starts from scratch
  if (!resumed) std::filesystem::remove_all(StagedDirectory::resumable_staging(out_dir));
  StagedDirectory dir(out_dir, StagedDirectory::Resumable{});
  if (resumed) dir.keep_on_failure();

  std::unique_ptr<CsvWriter> cases_file, points;
  if (resumed) {
    // the files as the last intact chunk left them
    cases_file = std::make_unique<CsvWriter>(dir.file("cases.csv"), journal.cases_end());
    if (base.output.points) points = std::make_unique<CsvWriter>(dir.file("points.csv"), journal.points_end());
  } else {
    cases_file = std::make_unique<CsvWriter>(dir.file("cases.csv"));
    CsvWriter& cases = *cases_file;
    cases.field("case");
    for (const auto& p : ctx.spec.parameters) cases.field(p.path.c_str());
    for (const char* h : {"class", "period_n", "period", "n_transitions", "n_section"}) cases.field(h);
    const std::vector<std::string> names = series_names(nq, nc);
    for (const char* stat : {"rms_", "min_", "max_"})
      for (const auto& n : names) cases.field((stat + n).c_str());
    for (const char* h : {"frac_free", "frac_stick", "frac_slip_neg", "frac_slip_pos"}) cases.field(h);
    if (an.lyapunov_every > 0) cases.field("lyapunov");
    for (const char* h : {"max_lcp_residual", "steps", "status", "failed_at", "failed_step"}) cases.field(h);
    if (ctx.pinn())
      for (const char* h : {"pinn_iterations", "pinn_lcp_iterations", "pinn_max_loss", "pinn_unconverged"}) cases.field(h);
    cases.end_row();
    if (base.output.points) {
      points = std::make_unique<CsvWriter>(dir.file("points.csv"));
      for (const char* h : {"case", "kind", "t"}) points->field(h);
      for (const char* prefix : {"q", "u"})
        for (int i = 0; i < nq; ++i) points->field((prefix + std::to_string(i)).c_str());
      points->end_row();
    }
    journal.set_headers(cases.sync(), points ? points->sync() : 0);
  }
  CsvWriter& cases = *cases_file;

  ProgressLine progress(!ctx.args.quiet, static_cast<double>(n_cases), "cases", "", "case-steps/s");
  const auto t0 = Clock::now();
  double setup_s = 0.0, compute_s = 0.0, case_steps = 0.0;
  long memory_halvings = 0;
  std::map<std::string, long> classes, statuses;
  PinnTotals pinn_totals;
  long done = 0;
  // one chunk's counts (as the manifest keeps them) into the sweep's: the chunks a resume keeps
  // and each chunk run here go through this one place
  const auto add_chunk = [&](const json& c, long n) {
    case_steps += c["case_steps"].get<double>();
    compute_s += c["compute_s"].get<double>();
    setup_s += c["setup_s"].get<double>();
    memory_halvings += c.value("memory_halvings", 0L);
    for (const auto& [name, count] : c["classes"].items()) classes[name] += count.template get<long>();
    for (const auto& [name, count] : c["status"].items()) statuses[name] += count.template get<long>();
    if (c.contains("pinn"))
      pinn_totals.add(PinnTotals{c["pinn"]["dynamic_iterations"].get<long>(), c["pinn"]["lcp_iterations"].get<long>(),
                                 c["pinn"]["max_dynamic_loss"].get<double>(), c["pinn"]["unconverged_steps"].get<long>()});
    done += n;
  };
  for (const JournalChunk& jc : journal.chunks()) add_chunk(jc.counts, jc.n);
  const long resumed_cases = done;
  const std::size_t resumed_chunks = journal.chunks().size();
  // what each rank ran in this invocation (summary.json "ranks")
  struct RankTally {
    long chunks = 0, cases = 0;
    double case_steps = 0.0, compute_s = 0.0;
  };
  std::vector<RankTally> tally(static_cast<std::size_t>(ctx.ranks->size()));
  // a test hook: end the process the way kill -9 would once this many chunks are recorded
  const char* exit_after = std::getenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS");
  // each chunk in case order, whichever rank ran it: rows to the files, synced, then recorded
  const auto write = [&](ChunkOutput&& o) {
    cases.append(o.cases);
    if (points) points->append(o.points);
    journal.record({o.first, o.n, cases.sync(), points ? points->sync() : 0, 0, 0, o.counts});
    dir.keep_on_failure();
    if (exit_after && static_cast<long>(journal.chunks().size()) == std::atol(exit_after)) std::_Exit(137);
    add_chunk(o.counts, o.n);
    RankTally& t = tally[static_cast<std::size_t>(o.rank)];
    ++t.chunks;
    t.cases += o.n;
    t.case_steps += o.counts["case_steps"].get<double>();
    t.compute_s += o.counts["compute_s"].get<double>();
    progress.update(static_cast<double>(done - resumed_cases), case_steps);
  };
  const auto exchange = make_writer_exchange(*ctx.ranks, first_case + done, end_case, chunk, rank_about(ctx), write);
  run_chunks<D>(ctx, plan, *exchange);
  exchange->finish();
  progress.done();
  cases.close();
  if (points) points->close();
  if (!base.output.trajectories.empty()) {
    std::filesystem::create_directories(dir.file("trajectories"));
    for (long c : base.output.trajectories)
      if (c >= first_case && c < end_case)
        write_trajectory(ctx, c, dir.file("trajectories") / ("case_" + std::to_string(c) + ".csv"));
  }
  const double wall = seconds_since(t0);

  // throughput by rank: each rank's stepping rate over its own compute time; the run's is their sum
  json ranks = json::array();
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
    ranks.push_back(e);
  }
  // a run that only finished what a resume kept has no rate of its own
  const double stepping_rate = rate_sum > 0 ? rate_sum : (compute_s > 0 ? case_steps / compute_s : 0.0);

  json summary;
  summary["name"] = base.name;
  summary["cases"] = n_cases;
  summary["backend"] = ctx.cuda ? "cuda" : "cpu";
  summary["device"] = ctx.cuda ? ctx.device.description : "cpu";
  summary["threads"] = ctx.cuda ? 0 : threads;
  summary["precision"] = ctx.single ? "float" : "double";
  summary["instantiation"] = {{"max_dof", D::max_dof}, {"max_contacts", D::max_contacts}, {"exact", D::exact}};
  summary["chunks"] = journal.chunks().size();
  summary["chunk_size"] = chunk;
  summary["case_bytes"] = per_case_bytes;
  summary["method"] = base.integrator.spec().label();
  summary["case_steps"] = case_steps;
  summary["wall_s"] = wall;
  summary["setup_s"] = setup_s;
  summary["compute_s"] = compute_s;
  summary["case_steps_per_s"] = stepping_rate;
  summary["end_to_end_case_steps_per_s"] = wall > 0 ? case_steps / wall : 0.0;
  summary["ranks"] = ranks;
  if (memory_halvings > 0) summary["memory_halvings"] = memory_halvings;
  summary["classes"] = classes;
  summary["status"] = statuses;
  summary["poincare"] = {{"section", base.analysis.poincare.section},
                         {"contact", an.contact},
                         {"dof", an.dof},
                         {"value", an.value},
                         {"direction", base.analysis.poincare.direction},
                         {"period", an.period}};
  summary["t_transient"] = base.analysis.t_transient;
  summary["points_per_kind"] = an.capacity;
  if (ctx.pinn()) {
    summary["pinn"] = pinn_totals_json(pinn_totals);
    summary["pinn"]["tol"] = base.integrator.pinn.optimizer.tol;
    summary["pinn"]["case_memory_bytes"] = plan.pinn_block_bytes;
  }
  if (an.lyapunov_every > 0) summary["lyapunov"] = {{"every", an.lyapunov_every}, {"d0", an.lyapunov_d0}};
  if (ctx.shard_count > 0)
    summary["shard"] = {{"index", ctx.shard_index}, {"count", ctx.shard_count}, {"first_case", first_case},
                        {"end_case", end_case}, {"sweep_cases", n_total}};
  if (resumed) summary["resumed"] = {{"chunks", resumed_chunks}, {"cases", resumed_cases}};
  summary["scenario"] = base.document;
  write_json_file(dir.file("summary.json"), summary);
  journal.remove_manifest();
  dir.commit();

  std::printf("sweep %s: %ld cases × %ld steps on %s (%s)%s in %.3g s: %.3g case-steps/s stepping, %.3g end to "
              "end -> %s\n",
              base.name.c_str(), n_cases, base.integrator.steps, ctx.cuda ? ctx.device.description.c_str() : "cpu",
              ctx.single ? "float" : "double",
              ctx.ranks->size() > 1 ? (", " + std::to_string(ctx.ranks->size()) + " ranks").c_str() : "", wall,
              stepping_rate, wall > 0 ? case_steps / wall : 0.0, dir.final_path().c_str());
  for (const auto& [name, count] : classes) std::printf("  %-28s %ld\n", name.c_str(), count);
  return kExitOk;
}

template <class T>
int run_sweep_sized(const SweepContext& ctx, int size) {
  switch (size) {
    case 1: return run_sweep<batch::SweepDims1<T>>(ctx);
    case 2: return run_sweep<batch::SweepDimsExact2<T>>(ctx);
    case 5: return run_sweep<batch::SweepDimsExact5<T>>(ctx);
    case 102: return run_sweep<batch::SweepDims2<T>>(ctx);
    case 108: return run_sweep<batch::SweepDims8<T>>(ctx);
    default: return run_sweep<batch::SweepDimsGeneric<T>>(ctx);
  }
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  std::unique_ptr<Ranks> ranks;
  try {
    ranks = std::make_unique<Ranks>();
  } catch (const std::exception& e) {
    // every process of the launch fails alike: the first says why
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK") ? std::getenv("OMPI_COMM_WORLD_RANK") : std::getenv("PMI_RANK");
    if (!rank || std::atoi(rank) == 0) std::fprintf(stderr, "fivsim sweep: %s\n", e.what());
    return kExitBadInput;
  }
  // a failure: rank 0 says it and exits with its code; any other rank hands it to rank 0 quietly
  const auto fail = [&](int code, const std::string& message) {
    if (ranks->rank() == 0) {
      std::fprintf(stderr, "fivsim sweep: %s\n", message.c_str());
      return code;
    }
    make_worker_exchange(*ranks, json::object())->fail(code, message);
    return kExitOk;
  };
  json doc;
  Scenario base;
  SweepSpec spec;
  std::unique_ptr<batch::SweepPlan> plan;
  try {
    doc = load_json_file(args.scenario);
    for (const auto& s : args.set) apply_override(doc, s);
    base = parse_scenario(doc);
    spec = parse_sweep(doc);
    if (base.integrator.spec().kind == MethodKind::event_driven || base.integrator.spec().kind == MethodKind::smooth)
      throw InputError("/integrator/method", "sweeps run the time steppers (moreau, rk4lcp, irk and the PINN "
                                             "methods); got \"" + base.integrator.method + "\"");
    if (base.integrator.lcp_pinn)
      throw InputError("/integrator/lcp_solver", "sweeps solve the contact LCPs of moreau, rk4lcp and irk with "
                                                 "lemke, pgs or enum; in a sweep the LCP-PINN runs inside pinn_dual, "
                                                 "pinn_adv_dual and pinn_central");
    if (batch::sweep_dims_size(base.model.dof(), base.model.n_contacts()) == 0)
      throw InputError("/model", "sweeps hold at most 24 DoF and 8 contacts");
    if (base.integrator.spec().kind == MethodKind::pinn &&
        (base.model.dof() > PinnSweepDims::max_dof || base.model.n_contacts() > PinnSweepDims::max_contacts))
      throw InputError("/model", "PINN sweeps hold at most 8 DoF and 8 contacts");
    plan = std::make_unique<batch::SweepPlan>(base, spec);
  } catch (const InputError& e) {
    return fail(kExitBadInput, e.what());
  }
  SweepContext ctx{args, base, spec, *plan, false, false, {}, 1, ranks.get()};
  ctx.single = args.precision == "float";
  ctx.end_case = spec.n_cases();
  if (!args.shard.empty()) {
    // "i/N": the i-th of N contiguous ranges of case indices; `fivsim merge` joins them
    long i = -1, n = 0;
    char tail = 0;
    if (std::sscanf(args.shard.c_str(), "%ld/%ld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n ||
        n > spec.n_cases())
      return fail(kExitBadInput, "--shard: must be i/N with 0 <= i < N <= the sweep's " +
                                     std::to_string(spec.n_cases()) + " cases, got '" + args.shard + "'");
    if (ranks->size() > 1)
      return fail(kExitBadInput, "--shard: under mpirun the ranks share the cases out themselves; --shard is for "
                                 "runs without MPI (a scheduler's array job)");
    ctx.shard_index = static_cast<int>(i);
    ctx.shard_count = static_cast<int>(n);
    ctx.first_case = i * spec.n_cases() / n;
    ctx.end_case = (i + 1) * spec.n_cases() / n;
  }
  // the PINN trainings run in double precision: their tolerances (1e-24 on a squared residual)
  // are below float's reach
  if (ctx.pinn() && ctx.single)
    return fail(kExitBadInput, "--precision float: the PINN methods run in double precision only");
  if (args.device != "cpu") {
    // each rank on a node takes its own device
    ctx.device = batch::cuda_device_info(ranks->local_rank());
    ctx.cuda = ctx.device.available;
    // every rank takes part, with or without a device: the ranks on one GPU share its memory
    // (found by UUID, so also where each rank sees only its own GPU, CUDA_VISIBLE_DEVICES)
    ctx.device_ranks = ranks->node_ranks_with(ctx.cuda ? ctx.device.uuid : "");
    if (args.device == "cuda" && !ctx.cuda) return fail(kExitError, "--device cuda: " + ctx.device.description);
  }
  // PINN sweeps: one instantiation (pinn_case.hpp)
  const int size = ctx.pinn() ? 108 : batch::sweep_dims_size(base.model.dof(), base.model.n_contacts());
  try {
    return ctx.single ? run_sweep_sized<float>(ctx, size) : run_sweep_sized<double>(ctx, size);
  } catch (const InputError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const RankFailure& e) {
    return fail(e.exit_code, e.what());
  } catch (const std::exception& e) {
    return fail(kExitError, e.what());
  }
}

}  // namespace fivsim::cli
