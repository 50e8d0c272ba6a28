// src/cli/main.cpp — the fivsim command line: verbs, options and --help (docs/DESIGN.md §6).
#include <CLI/CLI.hpp>

#include <charconv>
#include <string>

#include "commands.hpp"
#include "fivsim/app/sweep.hpp"
#include "fivsim/core/input_error.hpp"
#include "fivsim/integrate/method.hpp"
#include "fivsim/io/output.hpp"

namespace {

// an integer option within [lo, hi], refused in fivsim's words ("--threads: must be an integer in
// [1, 1024], got 0")
CLI::Validator integer_in(long lo, long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
          return "must be an integer in " + range + ", got '" + fivsim::printable(text) + "'";
        return "";
      },
      "INT in " + range);
}

// a folder option: never the empty string, which would silently mean runs/<name>
CLI::Validator named_folder() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "is empty: name the results folder (or leave --out out for runs/<name>)" : "";
      },
      "FOLDER");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fivsim::cli;
  CLI::App app{
      "fivsim — nonsmooth friction-induced vibration: LCP time stepping for stick-slip and "
      "separation-reattachment.\nScenario format: docs/SCENARIOS.md; outputs: docs/DESIGN.md §5."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fivsim 0.1.0");

  RunArgs run;
  std::string device = "auto", precision = "double";
  auto* run_cmd = app.add_subcommand("run", "simulate one scenario; writes timeseries.csv and summary.json into --out");
  run_cmd->add_option("scenario", run.scenario, "scenario JSON file")->required();
  run_cmd->add_option("--out", run.out, "output folder (default runs/<name>)")->check(named_folder());
  run_cmd->add_option("--set", run.set, "override a value: /json/pointer=value (repeatable; =null removes the key)");
  run_cmd->add_option("--device", device, "where to run: auto|cpu (a single run is CPU work)")
      ->check(CLI::IsMember({"auto", "cpu"}));
  run_cmd->add_option("--precision", precision, "arithmetic: double (float is for sweeps)")
      ->check(CLI::IsMember({"double"}));
  run_cmd->add_flag("--quiet,-q", run.quiet, "no progress line on stderr");

  SweepArgs sweep;
  auto* sweep_cmd = app.add_subcommand(
      "sweep",
      "run every case of the scenario's sweep block (grid, zip, random) on the GPU or all CPU cores; writes "
      "cases.csv, points.csv and/or results.h5 (--format), and summary.json into --out");
  sweep_cmd->add_option("scenario", sweep.scenario, "scenario JSON file with a sweep block")->required();
  sweep_cmd->add_option("--out", sweep.request.out, "output folder (default runs/<name>)")->check(named_folder());
  sweep_cmd->add_option("--set", sweep.set,
                        "override a value: /json/pointer=value (repeatable; =null removes the key)");
  sweep_cmd->add_option("--device", sweep.request.device, "auto (CUDA when a device is present), cpu or cuda")
      ->capture_default_str();
  sweep_cmd->add_option("--precision", sweep.request.precision, "double or float")->capture_default_str();
  sweep_cmd
      ->add_option("--format", sweep.request.format,
                   "files of the results: csv (cases.csv, points.csv), h5 (results.h5), both, or auto: both below "
                   "10^6 cases, h5 from there on")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--compression", sweep.request.compression,
                   "results.h5's real columns: none (their bytes as they are: the fastest to write and read) or "
                   "deflate (shuffled and deflated, as the whole-number and word columns always are)")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--chunk", sweep.request.chunk,
                   "cases per chunk (default: half the free GPU memory; on the CPU at least 256 per thread, "
                   "about 2^26 case-steps)")
      ->check(integer_in(1, fivsim::sweep::kMaxSweepChunk));
  sweep_cmd->add_option("--threads", sweep.request.threads, "CPU backend threads (default: all cores)")
      ->check(integer_in(1, fivsim::sweep::kMaxSweepThreads));
  sweep_cmd->add_flag("--quiet,-q", sweep.quiet, "no progress line on stderr");
  sweep_cmd->add_flag("--verbose,-v", sweep.verbose,
                      "print where the time went: preparing chunks, launches, waiting for results, the kernels, "
                      "columns, writing");
  sweep_cmd
      ->add_option("--kernels", sweep.request.kernels,
                   "on the GPU: specialised (the scenario compiled into the kernel by NVRTC, kept in the kernel "
                   "cache) or generic (the prebuilt kernels)")
      ->capture_default_str();
  sweep_cmd->add_option("--kernel-cache", sweep.request.kernel_cache,
                        "folder of compiled kernels (default $FIVSIM_KERNEL_CACHE, else $XDG_CACHE_HOME/fivsim/"
                        "kernels or ~/.cache/fivsim/kernels); off: compile every time");
  sweep_cmd->add_option("--shard", sweep.request.shard,
                        "i/N: run only the i-th of N contiguous ranges of cases (0-based); join the N output "
                        "folders with `fivsim merge`");

  sweep_cmd->add_flag("--resume", sweep.request.resume,
                      "continue the unfinished sweep in <out>.partial (killed or crashed) from its last recorded "
                      "chunk; without one, start");

  MergeArgs merge;
  auto* merge_cmd = app.add_subcommand(
      "merge", "join the output folders of `fivsim sweep --shard i/N` (i = 0..N-1) into the files one run writes");
  merge_cmd->add_option("shards", merge.shards, "the shards' output folders, in any order")->required();
  merge_cmd->add_option("--out", merge.out, "output folder (default runs/<name>)")->check(named_folder());

  CompareArgs compare;
  auto* compare_cmd =
      app.add_subcommand("compare",
                         "run methods × step sizes against the event-driven reference; writes compare.md, compare.csv, "
                         "compare.json into --out");
  compare_cmd->add_option("scenario", compare.scenario, "scenario JSON file")->required();
  compare_cmd->add_option("--methods", compare.methods, std::string("comma-separated: ") + fivsim::kMethodLabels)
      ->capture_default_str();
  compare_cmd->add_option("--dt", compare.dt, "comma-separated step sizes (default: the scenario's dt)");
  compare_cmd->add_option("--out", compare.out, "output folder (default runs/<name>_compare)")->check(named_folder());
  compare_cmd->add_option("--set", compare.set,
                          "override a value: /json/pointer=value (repeatable; =null removes the key)");
  compare_cmd->add_option("--window", compare.window,
                          "pair transitions at most this far apart in time, s (default: a quarter of the shortest "
                          "spacing of the reference's transitions of the same contact and kind)");
  compare_cmd->add_flag("--series", compare.series, "also write each run's time series into series/");
  compare_cmd->add_flag("--quiet,-q", compare.quiet, "no progress lines on stderr");

  StabilityArgs stability;
  auto* stability_cmd = app.add_subcommand(
      "stability",
      "eigenvalues of the linearised steady-sliding system versus a parameter and where the largest real "
      "part crosses zero (seed 000 Fig. 19); writes stability.csv and stability.json into --out");
  stability_cmd->add_option("scenario", stability.scenario, "scenario JSON file")->required();
  stability_cmd->add_option("--param", stability.param,
                            "JSON pointer of the swept value (default: the first coefficient of /friction)");
  stability_cmd->add_option("--linspace", stability.linspace, "start stop count (default 0 1.5 151)")->expected(3);
  stability_cmd->add_option("--out", stability.out, "output folder (default runs/<name>_stability)")
      ->check(named_folder());
  stability_cmd->add_option("--set", stability.set,
                            "override a value: /json/pointer=value (repeatable; =null removes the key)");

  ContinueArgs cont;
  auto* continue_cmd = app.add_subcommand(
      "continue",
      "follow the scenario's equilibria (steady sliding) or periodic orbits (from a run, or from every family of "
      "stable orbits in a sweep's results) in one parameter by pseudo-arclength continuation, as its continuation "
      "block says: their eigenvalues or Floquet multipliers and stability; folds, Hopf points, period doublings "
      "(switching onto the doubled orbit), torus and grazing points located once each, with the side of the "
      "parameter where the solution is stable; with a curves block each fold, doubling and Hopf point followed in a "
      "second parameter, and where a branch or curve ends, why (a codimension-two point where it meets a grazing). "
      "Writes branches.csv, bifurcations.csv, orbit_points.csv, curves.csv, results.h5 and summary.json into --out");
  continue_cmd->add_option("scenario", cont.scenario, "scenario JSON file with a continuation block")->required();
  continue_cmd->add_option("--out", cont.out, "output folder (default runs/<name>_continuation)")
      ->check(named_folder());
  continue_cmd->add_option("--set", cont.set,
                           "override a value: /json/pointer=value (repeatable; =null removes the key)");
  continue_cmd->add_option("--threads", cont.threads, "CPU threads that run the orbits' shots (default: all cores)")
      ->check(integer_in(1, 1024));
  continue_cmd
      ->add_option("--device", cont.device,
                   "where the orbits' shots run: cpu (default) or cuda (each batch of shots one launch)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  continue_cmd->add_flag("--quiet,-q", cont.quiet, "print nothing but errors");

  FrictionArgs friction;
  auto* friction_cmd = app.add_subcommand(
      "friction",
      "drive a scenario's friction law (static or dynamic: dahl, lugre, gms) with the sliding velocity v = A sin(2πft) "
      "(seed 002 Fig. 6); writes friction.csv (t, v, mu, F, z) and friction.json into --out");
  friction_cmd->add_option("scenario", friction.scenario, "scenario JSON file")->required();
  friction_cmd->add_option("--amplitude", friction.amplitude,
                           "A of v = A sin(2πft) (default: a torsion_pendulum's input)");
  friction_cmd->add_option("--f-hz", friction.f_hz, "f of v = A sin(2πft) (default: a torsion_pendulum's input)");
  friction_cmd->add_option("--t-end", friction.t_end, "duration, s (default two periods)");
  friction_cmd->add_option("--dt", friction.dt, "sample interval, s (default a 2000th of a period)");
  friction_cmd->add_option("--contact", friction.contact, "which contact's law (default 0)");
  friction_cmd->add_option("--out", friction.out, "output folder (default runs/<name>_friction)")
      ->check(named_folder());
  friction_cmd->add_option("--set", friction.set,
                           "override a value: /json/pointer=value (repeatable; =null removes the key)");

  IdentifyArgs identify;
  auto* identify_cmd = app.add_subcommand(
      "identify",
      "identify a single-DoF friction oscillator from a record: sindy, extended_sindy (seed 003), greybox (seed 002: "
      "least squares, Nelder-Mead, genetic, Levenberg-Marquardt), joint_terms (seed 004) or pinn (seed 002); writes "
      "identified.json, record.csv, "
      "response.csv (and bounds.csv) into --out; a config with a sweep block runs one identification per case "
      "into identifications.csv. Format: docs/IDENTIFY.md");
  identify_cmd->add_option("config", identify.config, "identification JSON file")->required();
  identify_cmd->add_option("--out", identify.out, "output folder (default runs/<name>)")->check(named_folder());
  identify_cmd->add_option("--set", identify.set,
                           "override a value of the config: /json/pointer=value (repeatable; =null removes the key)");

  ScenarioArgs validate;
  auto* validate_cmd = app.add_subcommand(
      "validate", "check a scenario file and print what it describes; exit 2 with the JSON pointer of the first error");
  validate_cmd->add_option("scenario", validate.scenario, "scenario JSON file")->required();
  validate_cmd->add_option("--set", validate.set,
                           "override a value: /json/pointer=value (repeatable; =null removes the key)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and end well; a bad command line is one line naming the verb
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string verb;
    for (const CLI::App* sub : app.get_subcommands()) verb = " " + sub->get_name();
    std::fprintf(stderr, "fivsim%s: %s (fivsim%s --help lists what it takes)\n", verb.c_str(),
                 fivsim::printable(e.what()).c_str(), verb.c_str());
    return kExitBadInput;
  }
  // Ctrl-C or a scheduler's SIGTERM leaves no staging folder or lock file behind
  fivsim::remove_staging_on_signals();
  if (*run_cmd) return run_command(run);
  if (*sweep_cmd) return sweep_command(sweep);
  if (*merge_cmd) return merge_command(merge);
  if (*compare_cmd) return compare_command(compare);
  if (*stability_cmd) return stability_command(stability);
  if (*continue_cmd) return continue_command(cont);
  if (*identify_cmd) return identify_command(identify);
  if (*friction_cmd) return friction_command(friction);
  if (*validate_cmd) return validate_command(validate);
  return kExitBadInput;
}
