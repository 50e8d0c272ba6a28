#!/usr/bin/python3
"""The 2-DoF slider chain swept over the normal load from Python, drawn as a bifurcation diagram:
each case's Poincaré samples (the outer slider's break-away positions) against the load, coloured
by the case's class. The sweep runs in memory (fivsim.sweep); nothing is read back from files.

usage: examples/load_sweep_bifurcation.py [--loads N] [--small] [--out FOLDER]
       (PYTHONPATH=build/python, after the README's build)
"""
import argparse
import collections
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import fivsim  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "scenarios", "chain2_bifurcation.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=400, help="normal loads between 1 and 30 N (default 400)")
    ap.add_argument("--small", action="store_true", help="40 loads (a check, as CI runs it)")
    ap.add_argument("--out", default="runs/example_bifurcation", help="folder of the figure")
    args = ap.parse_args()

    overrides = {"/sweep/parameters/0/linspace": [1, 30, 40 if args.small else args.loads]}
    sweep = fivsim.sweep(SCENARIO, set=overrides, progress=True)
    cases, points = sweep.cases, sweep.points
    load = cases["/model/Fn"]
    print(f"{len(load)} cases on {sweep.summary['device']} in {sweep.summary['wall_s']:.3g} s")
    for name, count in collections.Counter(cases["class"]).most_common():
        print(f"  {name:16s} {count}")

    # the Poincaré samples of every case, from the time its samples settled
    section = points["kind"] == "poincare"
    case_of = points["case"][section]
    settled = np.nan_to_num(cases["settled_at"], nan=-np.inf)[case_of] if "settled_at" in cases else -np.inf
    keep = points["t"][section] >= settled
    x, y = load[case_of][keep], points["q0"][section][keep]
    klass = cases["class"][case_of][keep]

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in sorted(set(klass)):
        mine = klass == name
        ax.scatter(x[mine], y[mine], s=2, label=name)
    ax.set_xlabel("normal load Fn (N)")
    ax.set_ylabel("q0 at the outer slider's break-away")
    ax.set_title(f"{sweep.summary['name']}: {len(load)} loads")
    ax.legend(markerscale=4, fontsize=8)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "bifurcation.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print("->", path)


if __name__ == "__main__":
    main()
