#!/usr/bin/env python3
"""Many branches at once against one at a time (`fivsim continue` with "start": "sweep",
docs/SCENARIOS.md): a sweep of the demo chain over the load with its orbit observer, then a branch
down and up from every family of its stable orbits, continued once with one CPU thread (the
branches one after another, as a serial tool follows them) and once with all the threads asked
for (side by side), in the same command. Prints each run's branches, points, wall time, branches
and points per second, the ratio of the two, and whether both wrote the same branches.csv (the
branches do not depend on the threads).

usage: scripts/bench/bench_continuation.py --fivsim build/fivsim [--threads 2] [--loads 120]
                                           [--range 5,29] [--json FILE]
"""
import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "chain2_bifurcation.json"))
    ap.add_argument("--threads", type=int, default=2, help="threads of the side-by-side run (default 2)")
    ap.add_argument("--loads", type=int, default=120, help="loads of the sweep the branches start from")
    ap.add_argument("--range", default="5,29", help="the loads swept and continued over (default 5,29)")
    ap.add_argument("--json", default=None, help="write the figures here too")
    a = ap.parse_args()
    lo, hi = (float(x) for x in a.range.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        sweep = os.path.join(tmp, "sweep")
        run([a.fivsim, "sweep", a.scenario, "-q", "--device", "cpu", "--out", sweep,
             "--set", "/sweep/parameters/0/linspace=[%g,%g,%d]" % (lo, hi, a.loads)])
        block = json.dumps({"parameter": "/model/Fn", "range": [lo, hi], "start": "sweep", "from": sweep})
        runs = {}
        for threads in (1, a.threads):
            out = os.path.join(tmp, "continue_%d" % threads)
            run([a.fivsim, "continue", a.scenario, "-q", "--threads", str(threads), "--out", out,
                 "--set", "/continuation=" + block])
            with open(os.path.join(out, "summary.json")) as f:
                s = json.load(f)
            runs[threads] = {"branches": len(s["branches"]), "families": len(s["starts"]), "points": s["points"],
                             "wall_s": s["wall_s"], "out": out}
        same = filecmp.cmp(os.path.join(runs[1]["out"], "branches.csv"),
                           os.path.join(runs[a.threads]["out"], "branches.csv"), shallow=False)
    print("\n%d loads in [%g, %g] N; branches from %d families of stable orbits" % (a.loads, lo, hi,
                                                                                    runs[1]["families"]))
    print("%-28s %9s %8s %9s %12s %10s" % ("run", "branches", "points", "wall s", "branches/s", "points/s"))
    for threads, r in runs.items():
        label = "one at a time (1 thread)" if threads == 1 else "side by side (%d threads)" % threads
        print("%-28s %9d %8d %9.2f %12.3f %10.1f" % (label, r["branches"], r["points"], r["wall_s"],
                                                     r["branches"] / r["wall_s"], r["points"] / r["wall_s"]))
    ratio = runs[1]["wall_s"] / runs[a.threads]["wall_s"]
    print("side by side / one at a time: %.2fx; branches.csv identical: %s" % (ratio, "yes" if same else "NO"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"loads": a.loads, "range": [lo, hi], "runs": {str(k): {x: v for x, v in r.items() if x != "out"}
                                                                      for k, r in runs.items()},
                       "ratio": ratio, "identical": same}, f, indent=1)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
