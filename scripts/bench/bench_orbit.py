#!/usr/bin/env python3
"""The orbit observer's cost (analysis.orbit, docs/METHODS.md "Classes decided by the orbit"): one
sweep run twice in the same command, without and with the observer, on the same backend; prints
each run's wall time and classes, the observer's cost per case and the ratio of the two times.

usage: scripts/bench/bench_orbit.py --fivsim build/fivsim [--scenario scenarios/chain2_bifurcation.json]
                                    [--device cpu] [--set /pointer=value ...] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def sweep(fivsim, scenario, device, sets, orbit, out):
    cmd = [fivsim, "sweep", scenario, "-q", "--device", device, "--out", out,
           "--set", "/analysis/orbit=%s" % ("true" if orbit else "false")]
    for s in sets:
        cmd += ["--set", s]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return {"command": " ".join(cmd), "wall_s": s["wall_s"], "cases": s["cases"], "classes": s["classes"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("--scenario", default=os.path.join(HERE, "..", "..", "scenarios", "chain2_bifurcation.json"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--set", action="append", default=[], help="an override for both runs")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = sweep(a.fivsim, a.scenario, a.device, a.set, False, os.path.join(tmp, "samples"))
        orbit = sweep(a.fivsim, a.scenario, a.device, a.set, True, os.path.join(tmp, "orbit"))
    n = base["cases"]
    print("\n%-24s %10s  %s" % ("run", "wall s", "classes"))
    for name, r in (("samples alone", base), ("with the orbit", orbit)):
        print("%-24s %10.2f  %s" % (name, r["wall_s"], ", ".join("%s %d" % kv for kv in sorted(r["classes"].items()))))
    cost = (orbit["wall_s"] - base["wall_s"]) / n
    ratio = orbit["wall_s"] / base["wall_s"]
    print("orbit observer: %.3g ms a case (%d cases), %.2fx the sweep's time" % (1e3 * cost, n, ratio))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"samples": base, "orbit": orbit, "cost_per_case_s": cost, "ratio": ratio}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
