#!/usr/bin/env python3
"""Many branches at once against one at a time (`fivsim continue` with "start": "sweep",
docs/SCENARIOS.md): a sweep of the demo chain over the load with its orbit observer, then a branch
down and up from every family of its stable orbits, continued in the same command three ways: one
branch at a time on one thread (as a serial tool follows them), one branch at a time with its
corrector's shots spread over the threads asked for ("at_once": 1), and every branch together, the
shots of all their corrector iterations one batch over those threads ("at_once": 0, the default).
Prints each run's branches, points, shots and batches, wall time (the best of --repeat runs),
branches and points per second,
the ratios, and whether all wrote the same branches.csv (the branches do not depend on how the
shots are batched). --cuda adds both ways with the shots on the GPU and the device's branches
against the CPU's (its exp may differ in the last bit: the largest relative difference).

usage: scripts/bench/bench_continuation.py --fivsim build/fivsim [--threads 2] [--loads 120]
                                           [--range 5,29] [--shooting single] [--repeat 1]
                                           [--cuda] [--json FILE]
"""
import argparse
import csv
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def read_numbers(path):
    """branches.csv's rows as numbers (a cell that is not one, such as "stable", as 0 or 1)"""
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    def number(cell):
        try:
            return float(cell)
        except ValueError:
            return float(cell in ("true", "stable", "yes"))
    return [[number(c) for c in r] for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "chain2_bifurcation.json"))
    ap.add_argument("--threads", type=int, default=2, help="threads of the batched runs (default 2)")
    ap.add_argument("--loads", type=int, default=120, help="loads of the sweep the branches start from")
    ap.add_argument("--range", default="5,29", help="the loads swept and continued over (default 5,29)")
    ap.add_argument("--shooting", default="single", choices=["single", "multiple"])
    ap.add_argument("--cuda", action="store_true",
                    help="also with the shots on the GPU (--device cuda), one branch at a time and all at once")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each kind, the best wall time kept (default 1)")
    ap.add_argument("--json", default=None, help="write the figures here too")
    a = ap.parse_args()
    lo, hi = (float(x) for x in a.range.split(","))
    kinds = [("serial", 1, 1, "cpu", "one at a time, 1 thread"),
             ("alone", a.threads, 1, "cpu", "one at a time, %d threads" % a.threads),
             ("batched", a.threads, 0, "cpu", "all at once, %d threads" % a.threads)]
    if a.cuda:
        kinds.append(("gpu_alone", a.threads, 1, "cuda", "one at a time, cuda"))
        kinds.append(("gpu_batched", a.threads, 0, "cuda", "all at once, cuda"))
    with tempfile.TemporaryDirectory() as tmp:
        sweep = os.path.join(tmp, "sweep")
        run([a.fivsim, "sweep", a.scenario, "-q", "--device", "cpu", "--out", sweep,
             "--set", "/sweep/parameters/0/linspace=[%g,%g,%d]" % (lo, hi, a.loads)])
        runs = {}
        for key, threads, at_once, device, label in kinds:
            block = json.dumps({"parameter": "/model/Fn", "range": [lo, hi], "start": "sweep", "from": sweep,
                                "shooting": a.shooting, "at_once": at_once})
            out = os.path.join(tmp, key)
            walls = []
            for _ in range(max(1, a.repeat)):
                shutil.rmtree(out, ignore_errors=True)
                run([a.fivsim, "continue", a.scenario, "-q", "--threads", str(threads), "--device", device,
                     "--out", out, "--set", "/continuation=" + block])
                with open(os.path.join(out, "summary.json")) as f:
                    s = json.load(f)
                walls.append(s["wall_s"])
            runs[key] = {"label": label, "threads": threads, "at_once": at_once, "device": device,
                         "branches": len(s["branches"]),
                         "families": len(s["starts"]), "points": s["points"], "shots": s["shots"],
                         "batches": s["shot_batches"], "wall_s": min(walls), "walls": walls, "out": out}
        # on the CPU the branches do not depend on the batching; the device's exp differs in the last bit
        same = all(filecmp.cmp(os.path.join(runs["serial"]["out"], "branches.csv"),
                               os.path.join(r["out"], "branches.csv"), shallow=False)
                   for r in runs.values() if r["device"] == "cpu")
        # the device's branches against the CPU's: the same points, their numbers within rounding
        device_diff = None
        if a.cuda:
            cpu_rows = read_numbers(os.path.join(runs["serial"]["out"], "branches.csv"))
            gpu_rows = read_numbers(os.path.join(runs["gpu_batched"]["out"], "branches.csv"))
            if len(cpu_rows) == len(gpu_rows):
                device_diff = max((abs(x - y) / max(1.0, abs(x)) for r, q in zip(cpu_rows, gpu_rows)
                                   for x, y in zip(r, q)), default=0.0)
    print("\n%d loads in [%g, %g] N; branches from %d families of stable orbits, %s shooting"
          % (a.loads, lo, hi, runs["serial"]["families"], a.shooting))
    print("%-26s %8s %7s %8s %8s %8s %11s %9s" % ("run", "branches", "points", "shots", "batches", "wall s",
                                                  "branches/s", "points/s"))
    for r in runs.values():
        print("%-26s %8d %7d %8d %8d %8.2f %11.3f %9.1f" % (r["label"], r["branches"], r["points"], r["shots"],
                                                           r["batches"], r["wall_s"], r["branches"] / r["wall_s"],
                                                           r["points"] / r["wall_s"]))
    alone = runs["serial"]["wall_s"] / runs["alone"]["wall_s"]
    batched = runs["alone"]["wall_s"] / runs["batched"]["wall_s"]
    print("one at a time, %d threads / 1 thread: %.2fx; all at once / one at a time (%d threads): %.2fx; "
          "branches.csv identical on the CPU: %s" % (a.threads, alone, a.threads, batched, "yes" if same else "NO"))
    if a.cuda:
        print("all at once / one at a time (cuda): %.2fx; all at once, cuda / all at once, %d threads: %.2fx; "
              "the device's branches.csv against the CPU's: %s"
              % (runs["gpu_alone"]["wall_s"] / runs["gpu_batched"]["wall_s"], a.threads,
                 runs["batched"]["wall_s"] / runs["gpu_batched"]["wall_s"],
                 "other points" if device_diff is None else "largest relative difference %.1e" % device_diff))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"loads": a.loads, "range": [lo, hi], "shooting": a.shooting,
                       "runs": {k: {x: v for x, v in r.items() if x != "out"} for k, r in runs.items()},
                       "threads_ratio": alone, "batched_ratio": batched, "identical": same,
                       "device_difference": device_diff}, f, indent=1)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
