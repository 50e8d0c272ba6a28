// src/sweep/sweep_runner.cpp — a whole sweep (sweep/sweep_runner.hpp): the checks and the plan,
// the writer (rank 0: folder, journal, files, summary) and the workers around the chunk loop
// (sweep/sweep_chunk_loop.hpp); the files themselves are sweep/sweep_files.hpp's.
#include "fivsim/sweep/sweep_runner.hpp"
#include "fivsim/core/stopwatch.hpp"

#include <omp.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "fivsim/sweep/basins.hpp"
#include "fivsim/sweep/host_memory.hpp"
#include "fivsim/sweep/memory_budget.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "fivsim/sweep/sweep_chunk_loop.hpp"
#include "fivsim/sweep/sweep_context.hpp"
#include "fivsim/sweep/sweep_files.hpp"
#include "fivsim/sweep/sweep_journal.hpp"
#include "fivsim/core/output_file.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

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

  // chunk: rank 0's choice holds for every rank (memory_budget.hpp); a case's own setup and step map
  // count only where the plan makes them on the host
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  const bool own_setup = ctx.plan.per_case_setups(), own_map = ctx.runge_kutta() && ctx.plan.per_case_map();
  const int n_params = static_cast<int>(ctx.spec.parameters.size());
  const ChunkFootprint footprint = case_footprint<D>(
      own_setup, own_map, n_params, case_points_size(set.nq, an), n_params + case_schema(set.layout, {}).size(),
      set.pinn_block_bytes, ctx.cuda ? sweep_kernel_local_bytes(D{}) : 0);
  MemoryFigures figures;
  if (ctx.cuda) {
    figures.device_free_bytes = ctx.device.free_bytes;
    figures.multiprocessors = ctx.device.multiprocessors;
    figures.threads_per_multiprocessor = ctx.device.threads_per_multiprocessor;
    figures.host_available_bytes = host_available_bytes();
    figures.device_ranks = ctx.device_ranks;
  }
  const long chunk = sweep_chunk_cases(options.chunk, n_cases, footprint, ctx.cuda ? &figures : nullptr,
                                       base.integrator.steps, threads, ctx.pinn());

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
    files.emplace(dir->path(), cases_schema, points_schema, with_points, csv, h5, options.deflate_real, set.nc,
                  *journal, resumed);
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
      const auto writing = Clock::now();
      journal->record({o.first, o.n, files->append(o), o.counts});
      totals.write_s += seconds_since(writing);
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
  const KernelReport kernels = run_chunks<D>(writer_ctx, set, *exchange, pool);
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
  describe_sweep(ctx, set, summary);
  summary["instantiation"] = {{"max_dof", D::max_dof}, {"max_contacts", D::max_contacts}, {"exact", D::exact}};
  summary["chunk_size"] = chunk;
  summary["case_bytes"] = footprint.device_bytes;
  if (!kernels.kernel.empty())
    summary["kernel"] = {{"kernel", kernels.kernel},
                         {"how", kernels.how},
                         {"compile_s", kernels.compile_s},
                         {"load_s", kernels.load_s},
                         {"registers", kernels.registers},
                         {"local_bytes", kernels.local_bytes},
                         {"spill_stores", kernels.spill_stores},
                         {"spill_loads", kernels.spill_loads}};
  write_totals(totals, summary);
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
  if (options.device != SweepDevice::cpu) choose_device(ctx);
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

}  // namespace fivsim::sweep
