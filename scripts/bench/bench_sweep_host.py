#!/usr/bin/env python3
"""The host's cost per case of a sweep, in one command: preparing the rows, the copies and writing
results.h5, i.e. (wall time - stepping time) / cases, where the wall time is summary.json's (from
the files opened to the last written: start-up and the plan excluded) and the stepping time the
backend's own (device events on CUDA, the runner's loop on the CPU). Cases are
scenarios/chain2_bench_random.json's with few steps each, so that the stepping is small beside the
rest. Also printed: the whole command's wall time and its peak resident memory (the process's
maximum RSS, from wait4). --repeat N keeps each size's best of N runs (a shared machine's noise is
one-sided); --against OTHER runs a second binary (an earlier build) on the same sizes, alternating
with the first, and prints its host cost and the ratio.

usage: scripts/bench/bench_sweep_host.py [--fivsim build/fivsim] [--cases 200000,1000000] [--steps 10]
                                   [--device cpu] [--observers lean,bifurcation] [--format h5] [--compression none]
                                   [--repeat 1] [--against OTHER] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(fivsim, cases, steps, device, observers, fmt, out, compression=None):
    t_end = steps * 1e-3
    cmd = [fivsim, "sweep", os.path.join(ROOT, "scenarios", "chain2_bench_random.json"), "-q", "--device", device,
           "--format", fmt, "--out", out, "--set", f"/sweep/samples={cases}", "--set", f"/integrator/t_end={t_end}",
           "--set", "/analysis/t_transient=0", "--set", f'/analysis/observers="{observers}"']
    if compression:
        cmd += ["--compression", compression]
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.time() - t0
    if status != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + p.stderr.read().decode())
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return {"command": " ".join(cmd), "cases": cases, "observers": observers, "wall_s": s["wall_s"],
            "compute_s": s["compute_s"], "setup_s": s["setup_s"], "command_s": wall, "peak_rss_mb": usage.ru_maxrss / 1024,
            "host_us_per_case": (s["wall_s"] - s["compute_s"]) / cases * 1e6, "device": s["device"],
            "chunks": s["chunks"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--cases", default="200000,1000000")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--observers", default="lean,bifurcation")
    ap.add_argument("--format", default="h5")
    ap.add_argument("--compression", help="results.h5's real columns: none or deflate (default: the binary's own)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--against")
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.repeat < 1:
        sys.exit("--repeat: at least 1")
    rows = []
    best = lambda runs: min(runs, key=lambda r: r["host_us_per_case"])
    print(f"host cost per case: chain2_bench_random, {a.steps} steps a case, --format {a.format}, --device {a.device}"
          + (f", --compression {a.compression}" if a.compression else "")
          + (f", best of {a.repeat}" if a.repeat > 1 else ""))
    print(f"{'cases':>10s} {'observers':>12s} {'wall s':>8s} {'stepping s':>10s} {'host us/case':>13s} "
          f"{'command s':>10s} {'peak RSS MB':>12s}" + (f" {'against wall':>12s} {'against us':>11s} {'ratio':>6s}" if a.against else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(c) for c in a.cases.split(",")]:
            for obs in a.observers.split(","):
                mine, theirs = [], []
                for _ in range(a.repeat):
                    mine.append(run(a.fivsim, n, a.steps, a.device, obs, a.format, os.path.join(tmp, "out"),
                                    a.compression))
                    if a.against:
                        theirs.append(run(a.against, n, a.steps, a.device, obs, a.format, os.path.join(tmp, "peer")))
                r = best(mine)
                line = (f"{n:10d} {obs:>12s} {r['wall_s']:8.3f} {r['compute_s']:10.3f} {r['host_us_per_case']:13.2f} "
                        f"{r['command_s']:10.2f} {r['peak_rss_mb']:12.0f}")
                if a.against:
                    p = best(theirs)
                    r["against_wall_s"] = p["wall_s"]
                    r["against_host_us_per_case"] = p["host_us_per_case"]
                    line += (f" {p['wall_s']:12.3f} {p['host_us_per_case']:11.2f} "
                             f"{p['host_us_per_case'] / r['host_us_per_case']:5.2f}x")
                rows.append(r)
                print(line, flush=True)
    print(f"device: {rows[0]['device']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
