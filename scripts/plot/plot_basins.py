#!/usr/bin/python3
"""Basins of attraction of a `fivsim sweep` over initial conditions (random or on a grid): each
start drawn at its two swept initial values, coloured by the class its case settled in, with each
class's basin stability (its share of the starts, and the standard error from summary.json) in
the legend. Reads cases.csv, or results.h5 where the sweep wrote only that.

usage: scripts/plot/plot_basins.py SWEEP_DIR [--x /initial/q/0] [--y /initial/u/0] [--out FILE.png]
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_bifurcation import class_colour  # noqa: E402
from plot_classmap import class_order  # noqa: E402
from sweep_tables import two_axes_cli  # noqa: E402


def main():
    a, rows, x, y = two_axes_cli(__doc__, "initial value", "/initial/", "basins.png")
    stability = {}
    summary = os.path.join(a.folder, "summary.json")
    if os.path.exists(summary):
        with open(summary) as f:
            stability = json.load(f).get("basin_stability", {})

    names = sorted({r["class"] for r in rows}, key=class_order)
    fig, ax = plt.subplots(figsize=(8, 6))
    for n in names:
        pts = [(float(r[x]), float(r[y])) for r in rows if r["class"] == n]
        s = stability.get(n)
        label = ("%s: %.4f ± %.4f" % (n, s["fraction"], s["standard_error"]) if s
                 else "%s (%d)" % (n, len(pts)))
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=4, color=class_colour(n), label=label,
                   rasterized=True)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), markerscale=3)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title("%s: %d starts" % (os.path.basename(os.path.normpath(a.folder)), len(rows)))
    out = a.out
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    print("wrote", out)


if __name__ == "__main__":
    main()
