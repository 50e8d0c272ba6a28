#!/usr/bin/python3
"""Long runs of chosen cases of a sweep: checks a sweep's classes against runs long enough to settle.

The cases of SWEEP_DIR (a `fivsim sweep` folder of SCENARIO) whose class is one of --class (every
--every-th of them) run again, each as one case of a "zip" sweep over the swept values, for --t-end
seconds without the adaptive stop, judged after --t-transient; then a second pass runs them
adaptive over the same time with the chaos stop put off (analysis.lyapunov.window beyond the run):
a case that settles on a periodic orbit stops there, and its `settled_at` says how long its
transient chaos lasted. Prints a row per case (values, the sweep's class, the long run's class,
both exponents with their errors, when the adaptive long run settled) and the confusion counts.

usage: scripts/compare/long_runs.py --fivsim build/fivsim SCENARIO SWEEP_DIR [--class chaotic]
           [--every 1] [--t-end 40000] [--t-transient 10000] [--set /pointer=value ...] [--out DIR]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plot"))
from sweep_tables import table_rows  # noqa: E402


def run(fivsim, doc, out, sets):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "scenario.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    cmd = [fivsim, "sweep", path, "-q", "--device", "cpu", "--out", os.path.join(out, "run")]
    for s in sets:
        cmd += ["--set", s]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "run", "summary.json")) as f:
        wall = json.load(f)["wall_s"]
    return table_rows(os.path.join(out, "run"), "cases"), wall


def number(row, key):
    try:
        return float(row.get(key, "nan"))
    except ValueError:
        return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("scenario")
    ap.add_argument("sweep_dir")
    ap.add_argument("--class", dest="classes", action="append", default=None,
                    help="the sweep's classes to check (default: chaotic); repeat for more")
    ap.add_argument("--every", type=int, default=1, help="every n-th of those cases")
    ap.add_argument("--t-end", type=float, default=40000.0)
    ap.add_argument("--t-transient", type=float, default=10000.0)
    ap.add_argument("--set", action="append", default=[], help="an override for the long runs")
    ap.add_argument("--out", default=None, help="keep the long runs' folders here")
    a = ap.parse_args()
    classes = set(a.classes or ["chaotic"])
    with open(a.scenario) as f:
        doc = json.load(f)
    pointers = [p["path"] for p in doc["sweep"]["parameters"]]
    rows = [r for r in table_rows(a.sweep_dir, "cases") if r["class"] in classes][::max(1, a.every)]
    if not rows:
        sys.exit("long_runs: no case of %s is %s" % (a.sweep_dir, " or ".join(sorted(classes))))
    doc["sweep"] = {"mode": "zip", "parameters": [{"path": p, "values": [float(r[p]) for r in rows]} for p in pointers]}
    doc["integrator"]["t_end"] = a.t_end
    analysis = doc.setdefault("analysis", {})
    analysis.setdefault("lyapunov", {"every": 10})
    analysis["adaptive"] = False
    analysis["t_transient"] = a.t_transient
    analysis["points"] = max(int(analysis.get("points", 88)), 256)
    adaptive = json.loads(json.dumps(doc))
    adaptive["analysis"]["adaptive"] = True
    adaptive["analysis"]["t_transient"] = json.load(open(a.scenario))["analysis"].get("t_transient", 0.0)
    # the chaos stop put off beyond the run: a case stops only once periodic
    adaptive["analysis"]["lyapunov"]["window"] = 10 ** 9
    with tempfile.TemporaryDirectory() as tmp:
        base = a.out or tmp
        fixed, wall_fixed = run(a.fivsim, doc, os.path.join(base, "fixed"), a.set)
        settle, wall_adaptive = run(a.fivsim, adaptive, os.path.join(base, "adaptive"), a.set)
    names = [p.rsplit("/", 1)[-1] for p in pointers]
    print("\n" + " ".join("%8s" % n for n in names) +
          "  %-15s %-15s %20s %20s %12s" % ("sweep", "long run", "sweep exponent", "long exponent", "settled at"))
    pairs = collections.Counter()
    for r, f, s in zip(rows, fixed, settle):
        pairs[(r["class"], f["class"])] += 1
        settled = number(s, "settled_at") if s["class"].startswith("periodic") else float("nan")
        print(" ".join("%8.4g" % float(r[p]) for p in pointers) +
              "  %-15s %-15s %9.4f ± %8.4f %9.4f ± %8.4f %12s%s" % (
                  r["class"], f["class"], number(r, "lyapunov"), number(r, "lyapunov_err"),
                  number(f, "lyapunov"), number(f, "lyapunov_err"),
                  "%.0f s" % settled if settled == settled else "-", "" if r["class"] == f["class"] else "   *"))
    same = sum(n for (x, y), n in pairs.items() if x == y)
    print("\n%d of %d cases in the long runs' class (%.0f s fixed, %.0f s adaptive)" % (
        same, len(rows), wall_fixed, wall_adaptive))
    for (x, y), n in sorted(pairs.items(), key=lambda p: (-p[1], p[0])):
        print("  %-15s -> %-15s %4d" % (x, y, n))


if __name__ == "__main__":
    main()
