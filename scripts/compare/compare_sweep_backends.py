#!/usr/bin/env python3
"""Runs every bundled sweep (scenarios/*.json with a sweep block) on the CPU and the CUDA backend
and compares their cases.csv case by case: the class, the transition count, and the largest
relative difference over the statistics columns (RMS, min, max, time fractions, period, Lyapunov
exponent), the training counters of PINN sweeps left out (their trainings stop at a tolerance, so
their iteration counts may differ). The device's exp and sin may differ from the host's in the
last bit, so a case may change class where its evidence lies at the boundary: a class (and its
transition count) may differ where either backend's recurrence is within BOUNDARY (10 %) of the
scenario's periodic_tol; such cases are counted and printed as "near the boundary". Prints one
line per sweep and exits 1 if a sweep failed to run or a class or transition count differs
anywhere else.

A device may name its kernels: cuda/generic and cuda/specialised run `--device cuda --kernels …`,
so that the scenario's specialised kernel is compared with the prebuilt one.

Large sweeps are cut to keep the CPU side short: the 10^6-case benchmark to 3*10^4 cases, the PINN
sweep to 32 belt speeds x 300 steps; the others run as bundled.

usage: scripts/compare/compare_sweep_backends.py [--fivsim build/fivsim] [--out DIR] [--threads N] [--devices cpu,cuda]
                                        [--only NAME,...] [--set POINTER=VALUE ...]
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# overrides that keep the CPU run of a large bundled sweep within seconds
CUTS = {
    "chain2_bench_random": ["--set", "/sweep/samples=30000"],
    "model1_pinn_v0_sweep": ["--set", "/integrator/t_end=3", "--set", "/analysis/t_transient=1",
                             "--set", "/sweep/parameters/0/linspace=[0.2,1.2,32]"],
}
EXACT = ("case", "class", "n_transitions", "status", "steps")
BOUNDARY = 0.1


def run(fivsim, scenario, device, out, extra, env):
    device, _, kernels = device.partition("/")
    cmd = [fivsim, "sweep", scenario, "-q", "--device", device, "--format", "csv", "--out", out] + extra
    if kernels:
        cmd += ["--kernels", kernels]
    t0 = time.time()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        return None, " ".join(cmd) + " failed: " + (res.stderr.strip() or res.stdout.strip())
    with open(os.path.join(out, "cases.csv")) as f:
        rows = list(csv.DictReader(f))
    return (rows, time.time() - t0), None


def near_boundary(a, b, tol):
    """whether either backend's recurrence lies within BOUNDARY of the periodic tolerance"""
    for row in (a, b):
        try:
            r = float(row.get("recurrence", "nan"))
        except ValueError:
            continue
        if r == r and abs(r / tol - 1.0) <= BOUNDARY:
            return True
    return False


def compare(cpu, gpu, tol):
    """(classes differing, transitions differing, cases excused near the boundary, worst relative
    difference, its column); a value near zero is compared relative to 1e-6 of its column's
    largest magnitude"""
    classes = transitions = excused = 0
    worst, where = 0.0, ""
    scale = {}
    for a in cpu:
        for k, x in a.items():
            try:
                scale[k] = max(scale.get(k, 0.0), abs(float(x)))
            except ValueError:
                pass
    for a, b in zip(cpu, gpu):
        if a["class"] != b["class"] or a.get("n_transitions") != b.get("n_transitions"):
            if near_boundary(a, b, tol):
                excused += 1
                continue
        classes += a["class"] != b["class"]
        transitions += a.get("n_transitions") != b.get("n_transitions")
        for k, x in a.items():
            if k in EXACT or k.startswith("pinn_") or k.startswith("/"):
                continue
            try:
                u, v = float(x), float(b[k])
            except ValueError:
                continue
            if u != u and v != v:  # both NaN (no Lyapunov window)
                continue
            d = abs(u - v) / max(abs(u), abs(v), 1e-6 * scale.get(k, 0.0), 1e-300)
            if d > worst or d != d:
                worst, where = d, k
    return classes, transitions, excused, worst, where


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--out", default=None, help="keep the outputs here (default: a temporary folder)")
    ap.add_argument("--threads", type=int, default=0, help="OMP_NUM_THREADS of the CPU runs (default: all)")
    ap.add_argument("--devices", default="cpu,cuda",
                    help="the two --device values compared (default cpu,cuda; cuda/generic, cuda/specialised: "
                         "with their --kernels)")
    ap.add_argument("--only", default="", help="these sweeps alone (names without .json, comma-separated)")
    ap.add_argument("--set", action="append", default=[], metavar="POINTER=VALUE",
                    help="passed to every run (e.g. /integrator/t_end=2 for a short check)")
    a = ap.parse_args()
    only = [n for n in a.only.split(",") if n]
    env = dict(os.environ)
    if a.threads:
        env["OMP_NUM_THREADS"] = str(a.threads)
    scenarios = []
    for path in sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        name = os.path.splitext(os.path.basename(path))[0]
        if "sweep" in doc and (not only or name in only):
            scenarios.append((path, doc.get("analysis", {}).get("periodic_tol", 1e-3)))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or tmp
        print("%-24s %8s %10s %10s %8s %8s %12s  %s" % ("sweep", "cases", "%s s" % a.devices.split(",")[0],
                                                       "%s s" % a.devices.split(",")[1], "classes", "transit.",
                                                       "worst rel.", "(column)"))
        for path, tol in scenarios:
            name = os.path.splitext(os.path.basename(path))[0]
            extra = CUTS.get(name, []) + [arg for v in a.set for arg in ("--set", v)]
            first, second = a.devices.split(",")
            cpu, err_c = run(a.fivsim, path, first, os.path.join(out, name + "_a"), extra, env)
            gpu, err_g = run(a.fivsim, path, second, os.path.join(out, name + "_b"), extra, env)
            if err_c or err_g:
                print("%-24s %s" % (name, err_c or err_g))
                bad += 1
                continue
            if len(cpu[0]) != len(gpu[0]):
                print("%-24s case counts differ: %d on cpu, %d on cuda" % (name, len(cpu[0]), len(gpu[0])))
                bad += 1
                continue
            c, t, e, w, k = compare(cpu[0], gpu[0], tol)
            bad += c > 0 or t > 0
            print("%-24s %8d %10.2f %10.2f %8s %8s %12.3g  (%s)%s" % (
                name, len(cpu[0]), cpu[1], gpu[1], "same" if c == 0 else "%d diff" % c,
                "same" if t == 0 else "%d diff" % t, w, k,
                "; %d near the boundary" % e if e else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
