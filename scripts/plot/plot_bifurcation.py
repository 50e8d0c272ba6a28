#!/usr/bin/python3
"""Bifurcation diagram of a `fivsim sweep` folder, like seed 001 Fig. 5: for every case, its
Poincaré samples (or its transition points) of one coordinate against the swept parameter (a
periodic case's from the time its samples settled, cases.csv's settled_at), coloured by the case's class (periodic-1, periodic-2, …, quasi-periodic, chaotic, undetermined, …).
Several panels, one above the other, with --panels KIND:COORD,... Reads cases.csv and points.csv,
or results.h5 where the sweep wrote only that.

usage: scripts/plot/plot_bifurcation.py SWEEP_DIR [--param /model/Fn]
                                   [--panels poincare:q0,stick_to_slip@0:q0,...] [--out FILE.png]
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_tables import table_rows  # noqa: E402

# one colour per class, in the order a reader scans the legend
CLASS_COLOURS = {
    "periodic-1": "tab:blue",
    "periodic-2": "tab:orange",
    "periodic-3": "tab:olive",
    "periodic-4": "tab:green",
    "periodic-5": "tab:purple",
    "periodic-6": "saddlebrown",
    "periodic-7": "gold",
    "periodic-8": "navy",
    "quasi-periodic": "tab:cyan",
    "chaotic": "tab:red",
    "undetermined": "tab:pink",
    "no-stick-slip": "tab:gray",
    "diverged": "black",
}


def class_colour(name):
    return CLASS_COLOURS.get(name, "tab:purple" if name.startswith("periodic-") else "tab:brown")


def read_cases(folder, param):
    rows = table_rows(folder, "cases")
    if not rows:
        sys.exit("plot_bifurcation: the sweep has no cases")
    params = [k for k in rows[0] if k.startswith("/")]
    if param is None:
        param = params[0]
    if param not in rows[0]:
        sys.exit("plot_bifurcation: %s is not a swept parameter (%s)" % (param, ", ".join(params)))
    value = {int(r["case"]): float(r[param]) for r in rows}
    klass = {int(r["case"]): r["class"] for r in rows}
    # a periodic case's points from the moment its samples settled (an adaptive case's rings also
    # hold its transient)
    settled = {int(r["case"]): float(r["settled_at"]) for r in rows
               if r.get("settled_at") not in (None, "", "nan") and float(r["settled_at"]) == float(r["settled_at"])}
    return param, value, klass, settled


def read_points(folder, panels, value, klass, settled):
    """{(kind, coord): (xs, ys, classes)} from the points table in one pass"""
    got = {p: ([], [], []) for p in panels}
    rows = table_rows(folder, "points")
    for _, coord in panels:
        if rows and coord not in rows[0]:
            sys.exit("plot_bifurcation: no column %s in the points table" % coord)
    for r in rows:
        for kind, coord in panels:
            if r["kind"] != kind:
                continue
            c = int(r["case"])
            if c in settled and float(r["t"]) < settled[c]:
                continue
            xs, ys, cs = got[(kind, coord)]
            xs.append(value[c])
            ys.append(float(r[coord]))
            cs.append(klass[c])
    return {p: tuple(np.array(v) for v in got[p]) for p in panels}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="output folder of `fivsim sweep`")
    ap.add_argument("--param", default=None, help="swept parameter on the x axis (default: the first)")
    ap.add_argument("--panels", default="poincare:q0",
                    help="comma-separated KIND:COORD, one panel each; KIND is poincare or a transition kind "
                         "such as stick_to_slip@0, COORD a column of points.csv (q0, u1, ...)")
    ap.add_argument("--out", default=None, help="PNG file (default FOLDER/bifurcation.png)")
    a = ap.parse_args()

    panels = []
    for item in a.panels.split(","):
        kind, _, coord = item.partition(":")
        panels.append((kind, coord or "q0"))
    param, value, klass, settled = read_cases(a.folder, a.param)
    data = read_points(a.folder, panels, value, klass, settled)

    names = sorted(set(klass.values()), key=lambda n: (not n.startswith("periodic-"), len(n), n))
    counts = {n: sum(1 for k in klass.values() if k == n) for n in names}
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 1.0 + 4.2 * len(panels)), sharex=True, squeeze=False)
    for ax, (kind, coord) in zip(axes[:, 0], panels):
        xs, ys, cs = data[(kind, coord)]
        for name in names:
            sel = cs == name
            if sel.any():
                ax.scatter(xs[sel], ys[sel], s=0.6, color=class_colour(name), rasterized=True,
                           label="%s (%d cases)" % (name, counts[name]))
        where = "the Poincaré section" if kind == "poincare" else kind.replace("stick_to_slip@", "break-away of contact ")
        ax.set_ylabel("%s at %s" % (coord, where))
        ax.grid(alpha=0.3)
        if not len(xs):
            ax.text(0.5, 0.5, "no points of kind %s" % kind, transform=ax.transAxes, ha="center")
    axes[0, 0].legend(markerscale=12, fontsize=8, loc="best")
    axes[0, 0].set_title("%s: %d cases" % (os.path.basename(os.path.normpath(a.folder)), len(klass)))
    axes[-1, 0].set_xlabel(param)
    out = a.out or os.path.join(a.folder, "bifurcation.png")
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    print("wrote", out)


if __name__ == "__main__":
    main()
