// src/cli/sweep_command.cpp — `fivsim sweep`: the command line over a sweep request (app/sweep.hpp,
// which parses the options): the test hooks a test sets in the environment, the progress line, and
// what is printed at the end. Under mpirun every rank runs this; rank 0 prints.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "fivsim/app/sweep.hpp"

namespace fivsim::cli {
namespace {

// the runner's test hooks from the environment (tests set them on the command they run):
// FIVSIM_SWEEP_DEVICE_CASES=n, FIVSIM_SWEEP_EXIT_AFTER_CHUNKS=k, FIVSIM_SWEEP_SLOW_RANK=r:ms,
// FIVSIM_SWEEP_PREPARE_AHEAD=1, FIVSIM_SWEEP_FAIL=points (sweep/chunk_backend.hpp), FIVSIM_SWEEP_STUB_GPU
SweepHooks hooks_from_environment() {
  SweepHooks h;
  if (const char* v = std::getenv("FIVSIM_SWEEP_DEVICE_CASES")) h.device_cases = std::atol(v);
  if (const char* v = std::getenv("FIVSIM_SWEEP_EXIT_AFTER_CHUNKS")) h.exit_after_chunks = std::atol(v);
  if (const char* v = std::getenv("FIVSIM_SWEEP_SLOW_RANK"))
    if (const char* colon = std::strchr(v, ':')) {
      h.slow_rank = std::atoi(v);
      h.slow_ms = std::atol(colon + 1);
    }
  h.prepare_ahead = std::getenv("FIVSIM_SWEEP_PREPARE_AHEAD") != nullptr;
  if (const char* v = std::getenv("FIVSIM_SWEEP_STUB_GPU")) h.stub_gpu = v;
  if (const char* v = std::getenv("FIVSIM_SWEEP_FAIL")) h.fail = v;
  return h;
}

// the writer's line: cases, device, rates, folder; with `verbose` the host's time stage by stage;
// then the classes (or statuses)
void print_outcome(const SweepOutcome& out, bool verbose) {
  if (!out.warning.empty()) std::fprintf(stderr, "fivsim sweep: warning: %s\n", out.warning.c_str());
  const json& s = out.summary;
  const long n_ranks = static_cast<long>(s["ranks"].size());
  std::printf(
      "sweep %s: %ld cases × %ld steps on %s (%s)%s in %.3g s: %.3g case-steps/s stepping, %.3g end to "
      "end -> %s\n",
      s["name"].get<std::string>().c_str(), s["cases"].get<long>(), s["steps"].get<long>(),
      s["device"].get<std::string>().c_str(), s["precision"].get<std::string>().c_str(),
      n_ranks > 1 ? (", " + std::to_string(n_ranks) + " ranks").c_str() : "", s["wall_s"].get<double>(),
      s["case_steps_per_s"].get<double>(), s["end_to_end_case_steps_per_s"].get<double>(), out.out.c_str());
  if (verbose && s.contains("stages")) {
    const json& st = s["stages"];
    std::printf("  stages: prepare %.3g s, launch %.3g s, wait %.3g s (kernel %.3g s), columns %.3g s, write %.3g s\n",
                st["prepare_s"].get<double>(), st["launch_s"].get<double>(), st["wait_s"].get<double>(),
                st["kernel_s"].get<double>(), st["columns_s"].get<double>(), st["write_s"].get<double>());
  }
  // the device's kernel: specialised (compiled or cached, its resources) or generic, and why
  if (s.contains("kernel")) {
    const json& k = s["kernel"];
    if (k["kernel"] == "specialised") {
      std::printf("  kernel: specialised, %s (compile %.3g s, load %.3g s); %d registers, %ld bytes local a thread",
                  k["how"].get<std::string>().c_str(), k["compile_s"].get<double>(), k["load_s"].get<double>(),
                  k.value("registers", -1), k.value("local_bytes", -1L));
      if (k.value("spill_stores", -1L) >= 0)
        std::printf(", %ld bytes spilled, %ld read back", k["spill_stores"].get<long>(), k["spill_loads"].get<long>());
      std::printf("\n");
    } else
      std::printf("  kernel: generic (%s)\n", k["how"].get<std::string>().c_str());
  }
  // what stopping each case when its class was known saved
  if (s.contains("classification") && s["classification"].value("adaptive", false)) {
    const double fixed = static_cast<double>(s["cases"].get<long>()) * static_cast<double>(s["steps"].get<long>());
    std::printf("  adaptive: %.4g case-steps, %.3g%% of a fixed-length run's %.4g\n", s["case_steps"].get<double>(),
                fixed > 0 ? 100.0 * s["case_steps"].get<double>() / fixed : 0.0, fixed);
  }
  // the classes, or the statuses of a sweep that does not classify
  for (const auto& [name, count] : (s["classes"].empty() ? s["status"] : s["classes"]).items())
    std::printf("  %-28s %ld\n", name.c_str(), count.get<long>());
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  std::unique_ptr<Ranks> ranks;
  try {
    ranks = std::make_unique<Ranks>();
  } catch (const std::exception& e) {
    // every process of the launch fails alike: the first says why
    const char* rank =
        std::getenv("OMPI_COMM_WORLD_RANK") ? std::getenv("OMPI_COMM_WORLD_RANK") : std::getenv("PMI_RANK");
    if (!rank || std::atoi(rank) == 0) std::fprintf(stderr, "fivsim sweep: %s\n", e.what());
    return kExitBadInput;
  }
  ProgressLine progress(!args.quiet && ranks->rank() == 0, 1.0, "cases", "", "case-steps/s");
  // rank 0 says a failure and exits with its code; any other rank hands it to rank 0 quietly
  const auto fail = [&](int code, const char* message) {
    progress.done();
    if (ranks->rank() == 0) {
      std::fprintf(stderr, "fivsim sweep: %s\n", message);
      return code;
    }
    make_worker_exchange(*ranks, json::object())->fail(code, message);
    return kExitOk;
  };
  return exit_code_of(
      [&] {
        SweepRequest request = args.request;
        request.inputs = {args.scenario};
        request.hooks = hooks_from_environment();
        request.document = load_json_file(args.scenario);
        for (const auto& s : args.set) apply_override(request.document, s);
        request.progress = [&](double done, double total, double case_steps) {
          progress.set_total(total);
          progress.update(done, case_steps);
        };
        const SweepOutcome out = run_sweep_request(request, *ranks);
        progress.done();
        if (out.writer) print_outcome(out, args.verbose);
        return kExitOk;
      },
      fail);
}

}  // namespace fivsim::cli
