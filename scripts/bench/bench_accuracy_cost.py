#!/usr/bin/python3
"""Accuracy against cost for every time stepper on one scenario (default seed 000 Model II
Example 2): `fivsim compare` over a ladder of step sizes, repeated, the fastest wall time of each
run kept. Prints a markdown table (worst RMS error over the series, transitions, wall time,
steps/s), and writes the error-versus-wall-time plot. With --pinn, the PINN methods run too (once
each, at the --pinn-dt steps: a run trains thousands of networks) and a second table sets each
PINN run beside the cheapest classical run that is at least as accurate: wall time per simulated
second and their ratio (the cost picture of BENCHMARKS.md).

usage: scripts/bench/bench_accuracy_cost.py [--scenario scenarios/model2_example2.json] [--repeat 3]
                                      [--png accuracy_cost.png] [--fivsim build/fivsim]
                                      [--pinn pinn_adv_single4,pinn_adv_dual10] [--pinn-dt 1e-3]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
METHODS = ["moreau", "rk4lcp", "irk4", "irk10", "irk4-interp", "irk10-interp"]
DTS = [2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "model2_example2.json"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--png", default="accuracy_cost.png")
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--pinn", default="", help="PINN methods to add (comma separated)")
    ap.add_argument("--pinn-dt", default="1e-3", help="their steps (comma separated)")
    a = ap.parse_args()
    pinn_methods = [m for m in a.pinn.split(",") if m]
    pinn_dts = [float(d) for d in a.pinn_dt.split(",")]
    best = {}
    ref_wall = float("inf")

    def compare(out, methods, dts):
        cmd = [a.fivsim, "compare", a.scenario, "-q", "--out", out, "--methods", ",".join(methods),
               "--dt", ",".join("%g" % d for d in dts)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit("bench_accuracy_cost: %s\n%s" % (" ".join(cmd), proc.stderr))
        with open(os.path.join(out, "compare.json")) as f:
            return json.load(f)

    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.repeat):
            j = compare(os.path.join(tmp, "c%d" % k), METHODS, DTS)
            ref_wall = min(ref_wall, j["reference"]["wall_s"])
            ref_events = sum(j["reference"]["event_counts"].values())
            ref_steps = j["reference"]["steps"]
            for r in j["runs"]:
                key = (r["method"], r["dt"])
                if key not in best or r["wall_s"] < best[key]["wall_s"]:
                    best[key] = r
        if pinn_methods:
            pj = compare(os.path.join(tmp, "pinn"), pinn_methods, pinn_dts)
            span = pj["t_end"]
            for r in pj["runs"]:
                best[(r["method"], r["dt"])] = r
    print("scenario: %s, %d repeats, fastest wall time kept" % (os.path.relpath(a.scenario, ROOT), a.repeat))
    print("reference (event-driven, %d samples, %d events): %.4f s\n" % (ref_steps, ref_events, ref_wall))
    print("| method | dt | worst RMS error | transitions | wall (s) | steps/s |")
    print("| --- | --- | --- | --- | --- | --- |")
    fig, ax = plt.subplots(figsize=(7, 5))
    for m in METHODS:
        xs, ys = [], []
        for dt in DTS:
            r = best[(m, dt)]
            err = max(r["rel_error"].values())
            t = r["transitions"]
            print("| %s | %g | %.3g | %s | %.4f | %.3g |" % (
                m, dt, err, "all found" if t["all_found"] else "%d missed" % t["missed"], r["wall_s"],
                r["steps_per_s"]))
            xs.append(r["wall_s"])
            ys.append(err)
        ax.loglog(xs, ys, "o-", label=m)
    if pinn_methods:
        print_pinn_costs(best, pinn_methods, pinn_dts, span, ax)
    ax.axvline(ref_wall, color="k", ls="--", lw=1, label="event-driven reference")
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("worst relative RMS error over the series")
    ax.set_title(os.path.splitext(os.path.basename(a.scenario))[0] + ": accuracy against cost")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print("\nwrote", a.png)


def print_pinn_costs(best, pinn_methods, pinn_dts, span, ax):
    """the PINN runs beside the cheapest classical run at least as accurate (worst RMS error)"""
    classical = [r for (m, _), r in best.items() if m in METHODS and r["status"] == "ok"]
    print("\nPINN runs (one run each; span %g s, so wall per simulated second = wall / %g):\n" % (span, span))
    print("| method | dt | worst RMS error | transitions | wall per simulated s | cheapest classical run as "
          "accurate | its wall per simulated s | PINN / classical | unconverged trainings |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for m in pinn_methods:
        xs, ys = [], []
        for dt in pinn_dts:
            r = best[(m, dt)]
            if r["status"] != "ok":
                print("| %s | %g | failed: %s | | | | | | |" % (m, dt, r.get("message", r["status"])))
                continue
            err = max(r["rel_error"].values())
            t = r["transitions"]
            ok = [c for c in classical if max(c["rel_error"].values()) <= err]
            match = min(ok, key=lambda c: c["wall_s"]) if ok else None
            print("| %s | %g | %.3g | %s | %.4g | %s | %s | %s | %d |" % (
                m, dt, err, "all found" if t["all_found"] else "%d missed" % t["missed"], r["wall_s"] / span,
                "%s at %g" % (match["method"], match["dt"]) if match else "none as accurate",
                "%.3g" % (match["wall_s"] / span) if match else "",
                "%.0fx" % (r["wall_s"] / match["wall_s"]) if match else "",
                r.get("pinn", {}).get("unconverged_steps", 0)))
            xs.append(r["wall_s"])
            ys.append(err)
        if xs:
            ax.loglog(xs, ys, "s--", label=m)


if __name__ == "__main__":
    main()
