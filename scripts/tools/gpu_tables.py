#!/usr/bin/env python3
"""The tables of BENCHMARKS.md from the results files of scripts/tools/gpu_checks.sh (one JSON file per
stage: its verdicts, seconds, device, date and command, and the figures its benchmarks wrote).

    scripts/tools/gpu_tables.py gpu_checks_results/            (or the files themselves)

Prints Markdown: one table of every check (stage, state, check, detail), then what the sweep
benchmark measured (rates and the ratios against the JAX peers, the FP64 fraction of peak), the
host's cost per case and the scaling runs where those stages ran. Exits 1 where a check failed,
2 where a file cannot be read.
"""
import argparse
import glob
import json
import os
import sys

ORDER = ["build", "tests", "mpi", "memory", "scaling", "sweep", "host", "backends", "greybox", "switching", "pinn",
         "mlp"]


def load(paths):
    files = []
    for p in paths:
        files += sorted(glob.glob(os.path.join(p, "*.json"))) if os.path.isdir(p) else [p]
    stages = []
    for f in files:
        with open(f) as fh:
            r = json.load(fh)
        if isinstance(r, dict) and "stage" in r and "verdicts" in r:
            stages.append(r)
    stages.sort(key=lambda r: ORDER.index(r["stage"]) if r["stage"] in ORDER else len(ORDER))
    return stages


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def sweep_figures(rep):
    rows = []
    for key, label in (("gpu_lean", "lean observers"), ("gpu_double", "bifurcation observers"),
                       ("gpu_float", "bifurcation observers, float")):
        if key in rep:
            r = rep[key]
            rows.append((label + " (kernel)", "%.3g" % r["case_steps_per_s"]))
            rows.append((label + " (end to end)", "%.3g" % r["end_to_end_case_steps_per_s"]))
    if "jax" in rep:
        best = rep["jax"]["best"]["rate"]
        rows.append(("JAX lean, best", "%.3g" % best))
        rows.append(("lean / JAX best (target >= 1.0)", "%.2fx" % (rep["gpu_lean"]["case_steps_per_s"] / best)))
        if rep["jax"].get("best_xla"):
            xla = rep["jax"]["best_xla"]["rate"]
            rows.append(("lean / JAX XLA (target >= 2.0)", "%.2fx" % (rep["gpu_lean"]["case_steps_per_s"] / xla)))
        rows.append(("bifurcation / JAX lean best (target >= 0.5)",
                     "%.2fx" % (rep["gpu_double"]["case_steps_per_s"] / best)))
    if "jax_full" in rep:
        rows.append(("bifurcation / full-observer JAX (target >= 1.0)",
                     "%.2fx" % (rep["gpu_double"]["case_steps_per_s"] / rep["jax_full"]["best"]["rate"])))
    if "fp64_fraction_of_peak" in rep:
        rows.append(("FP64 fraction of peak", "%.2f%%" % (100 * rep["fp64_fraction_of_peak"])))
    # the launch bounds' minimum blocks (bench_sweep_gpu.py --min-blocks): rate and registers at each
    for key in sorted(k for k in rep if k.startswith("min_blocks_")):
        blocks, name = key[len("min_blocks_"):].split("_", 1)
        base = rep["gpu_lean" if name == "lean" else "gpu_double"]["case_steps_per_s"]
        k = rep[key].get("kernel", {})
        rows.append(("%s observers, min blocks %s (kernel; registers %s)" %
                     ("lean" if name == "lean" else "bifurcation", blocks, k.get("registers", "?")),
                     "%.3g (%.2fx)" % (rep[key]["case_steps_per_s"], rep[key]["case_steps_per_s"] / base)))
    return rows


def scalar(v):
    return isinstance(v, (int, float, str, bool)) or v is None


def print_table(rep):
    """a benchmark's JSON as a table: rows of a list of records, or one row of a record; the
    scalar fields only (nested ones are in the results file)"""
    rows = rep if isinstance(rep, list) else [rep]
    rows = [r for r in rows if isinstance(r, dict)]
    keys = [k for k in (rows[0] if rows else {}) if all(scalar(r.get(k)) for r in rows)]
    if not keys:
        print("(no scalar figures; see the results file)")
        return
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join("%.4g" % r[k] if isinstance(r.get(k), float) else cell(r.get(k, ""))
                                for k in keys) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="results folders or files")
    a = ap.parse_args()
    try:
        stages = load(a.paths)
    except (OSError, ValueError) as e:
        print("gpu_tables.py: %s" % e, file=sys.stderr)
        return 2
    if not stages:
        print("gpu_tables.py: no stage results in " + " ".join(a.paths), file=sys.stderr)
        return 2
    failed = False
    print("| stage | device | date | s | state | check | detail |")
    print("|---|---|---|---:|---|---|---|")
    for r in stages:
        for v in r["verdicts"] or [{"state": "-", "check": "(no checks)", "detail": ""}]:
            failed |= v["state"] == "FAIL"
            print("| %s | %s | %s | %.0f | %s | %s | %s |" % (r["stage"], cell(r["device"]), r["date"], r["seconds"],
                                                             v["state"], cell(v["check"]), cell(v["detail"])))
    commands = sorted({r["command"] for r in stages})
    print("\ncommand%s: %s" % ("s" if len(commands) > 1 else "", "; ".join("`%s`" % c for c in commands)))
    for r in stages:
        figs = r.get("figures", {})
        if "bench_sweep_gpu" in figs:
            print("\n**Sweep kernel** (%s, %s)\n\n| run | case-steps/s or ratio |\n|---|---:|" % (r["device"], r["date"]))
            for label, value in sweep_figures(figs["bench_sweep_gpu"]):
                print("| %s | %s |" % (label, value))
        for name, rep in figs.items():
            if name == "bench_sweep_gpu":
                continue
            print("\n**%s** (%s, %s)\n" % (name, r["device"], r["date"]))
            print_table(rep)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
