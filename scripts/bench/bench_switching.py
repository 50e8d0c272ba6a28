#!/usr/bin/python3
"""Poincare-sample error and cost of the time steppers against the event-driven sweep.

The load scan of the 2-DoF chain (scenarios/chain2_load_sweep.json, N loads in [2, 30] N, from
the same start) runs as fixed-length sweeps without a transient: Moreau at dt = 1e-3, 1e-4, 1e-5
(the belt runner, fivsim's fastest path) and `integrator.method: switching` at its default
tolerances. Each sweep's break-away samples (the Poincare section: stick to slip of the outer
slider, all kept) are matched by time to those of a reference sweep, switching at rel_tol 1e-13,
abs_tol 1e-15, event_tol 1e-13 (tests/integrate/switching_test.cpp and tests/cases/case_runner_test.cpp hold the
switching integrator to the host's event-driven reference to 1e-9); a case's error is the largest
|dq|, |du| of its matched samples, and a sample of the reference that a sweep misses counts as
missed. The table prints the median and largest case error, the cases within 1e-8, and each
sweep's wall time and ratio to Moreau at dt = 1e-3, all from one command.

With --against-host the same loads also run as an adaptive switching sweep (each case stopped
once its class is known, t_end the longest) on --device and on all the host's cores, in the same
command: both walls, their ratio, and the cases whose classes differ.

usage: scripts/bench/bench_switching.py [--fivsim build/fivsim] [--cases 64] [--t-end 60]
                                  [--device cpu|cuda] [--threads N] [--keep DIR] [--against-host]
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SCENARIO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scenarios", "chain2_load_sweep.json")


def run_sweep(fivsim, out, sets, device, threads):
    cmd = [fivsim, "sweep", SCENARIO, "--out", out, "-q", "--format", "csv", "--device", device]
    if threads:
        cmd += ["--threads", str(threads)]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("bench_switching: %s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return wall


def section_samples(folder):
    """{case: [(t, [q.., u..]), ...]} of the Poincare samples"""
    out = {}
    with open(os.path.join(folder, "points.csv")) as f:
        rd = csv.reader(f)
        head = next(rd)
        for row in rd:
            if row[1] != "poincare":
                continue
            out.setdefault(int(row[0]), []).append((float(row[2]), [float(x) for x in row[3:]]))
    return out, head


def case_errors(ref, other, match_window):
    """per case: (largest state error over matched samples, samples of the reference missed)"""
    errors, missed = [], 0
    for case, samples in ref.items():
        mine = other.get(case, [])
        worst = 0.0
        for t, x in samples:
            best = min(mine, key=lambda s: abs(s[0] - t), default=None)
            if best is None or abs(best[0] - t) > match_window:
                missed += 1
                continue
            worst = max(worst, max(abs(a - b) for a, b in zip(x, best[1])))
        errors.append(worst)
    return errors, missed


def classes(folder):
    """{case: class} of a sweep's cases.csv"""
    with open(os.path.join(folder, "cases.csv")) as f:
        return {int(r["case"]): r["class"] for r in csv.DictReader(f)}


def adaptive_against_host(args, base, root):
    """the adaptive switching sweep on args.device and on every host core: walls, ratio, classes"""
    sets = base + ["/integrator/method=switching", "/integrator/dt=0.01", "/analysis/adaptive=true",
                   "/output/points=false"]
    walls, found, compile_s = {}, {}, 0.0
    for device in (args.device, "cpu"):
        out = os.path.join(root, "adaptive_" + device)
        # on a GPU the first run compiles the scenario's kernel; the second, timed, loads it cached
        for _ in range(2 if device != "cpu" else 1):
            shutil.rmtree(out, ignore_errors=True)
            walls[device] = run_sweep(args.fivsim, out, sets, device, 0)
            with open(os.path.join(out, "summary.json")) as f:
                compile_s = max(compile_s, json.load(f).get("kernel", {}).get("compile_s", 0.0))
        found[device] = classes(out)
    differ = sum(found[args.device][c] != found["cpu"].get(c) for c in found[args.device])
    print("adaptive switching sweep, %d loads, up to %g s each: %s %.2f s (its kernel compiled once before, %.2f s), "
          "host cores (%d) %.2f s: %.2fx; %d of %d classes differ" %
          (args.cases, args.t_end, args.device, walls[args.device], compile_s, os.cpu_count() or 0, walls["cpu"],
           walls["cpu"] / walls[args.device], differ, len(found["cpu"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", default="build/fivsim")
    ap.add_argument("--cases", type=int, default=64)
    ap.add_argument("--t-end", type=float, default=60.0)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--keep", help="keep the sweeps' folders here")
    ap.add_argument("--against-host", action="store_true",
                    help="also run the loads as an adaptive switching sweep on --device and on all host cores")
    args = ap.parse_args()

    base = ["/sweep/parameters/0/linspace=[2,30,%d]" % args.cases, "/integrator/t_end=%g" % args.t_end,
            "/analysis/t_transient=0", "/analysis/points=256"]
    runs = [
        ("reference: switching 1e-13", ["/integrator/method=switching", "/integrator/dt=0.01",
                                        "/integrator/rel_tol=1e-13", "/integrator/abs_tol=1e-15",
                                        "/integrator/event_tol=1e-13"]),
        ("switching (defaults)", ["/integrator/method=switching", "/integrator/dt=0.01"]),
        ("moreau dt=1e-3", ["/integrator/dt=0.001"]),
        ("moreau dt=1e-4", ["/integrator/dt=0.0001"]),
        ("moreau dt=1e-5", ["/integrator/dt=0.00001"]),
    ]
    root = args.keep or tempfile.mkdtemp(prefix="bench_switching_")
    walls, samples = {}, {}
    for i, (label, sets) in enumerate(runs):
        out = os.path.join(root, "run%d" % i)
        shutil.rmtree(out, ignore_errors=True)
        walls[label] = run_sweep(args.fivsim, out, base + sets, args.device, args.threads)
        samples[label], _ = section_samples(out)
        print("  %-28s %8.2f s" % (label, walls[label]), file=sys.stderr)
    ref = samples[runs[0][0]]
    n_ref = sum(len(v) for v in ref.values())
    moreau3 = walls["moreau dt=1e-3"]
    print("chain2 load scan: %d loads in [2, 30] N, %g s each from the same start, %d break-away samples in the reference "
          "(%s, %s)" % (args.cases, args.t_end, n_ref, args.device, "all cores" if not args.threads else "%d threads" % args.threads))
    print("%-22s %12s %12s %14s %8s %10s %20s" % ("method", "median err", "max err", "cases <=1e-8", "missed", "wall s",
                                                  "speed vs Moreau 1e-3"))
    for label, _ in runs[1:]:
        errs, missed = case_errors(ref, samples[label], 0.05)
        errs.sort()
        within = sum(e <= 1e-8 for e in errs)
        print("%-22s %12.3g %12.3g %9d / %-3d %8d %10.2f %19.2fx" % (label, errs[len(errs) // 2], errs[-1], within,
                                                                 len(errs), missed, walls[label], moreau3 / walls[label]))
    if args.against_host:
        adaptive_against_host(args, base, root)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
