#!/usr/bin/python3
"""Class map of a two-parameter `fivsim sweep` (a grid over two swept values): one cell per case,
coloured by its class (periodic-1, periodic-2, …, quasi-periodic, chaotic, undetermined,
no-stick-slip, diverged), with the count of each class in the legend. Reads cases.csv, or
results.h5 where the sweep wrote only that. With --curves, the two-parameter curves of `fivsim
continue` (curves.csv of a continuation with a "curves" block over the same two parameters) drawn
over it: period doublings solid, folds dashed.

usage: scripts/plot/plot_classmap.py SWEEP_DIR [--x /model/Fn] [--y /model/v0] [--out FILE.png]
                                     [--curves CONTINUATION_DIR ...]
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_bifurcation import class_colour  # noqa: E402
from sweep_tables import two_axes_cli  # noqa: E402


def class_order(name):
    """periodic-N by N, then the others in a fixed reading order"""
    if name.startswith("periodic-"):
        return (0, int(name.split("-")[1]), name)
    rest = ["quasi-periodic", "chaotic", "undetermined", "no-stick-slip", "diverged", "unclassified"]
    return (1, rest.index(name) if name in rest else len(rest), name)


def main():
    a, rows, x, y = two_axes_cli(__doc__, "parameter", "/", "classmap.png",
                                 extra=(("--curves", {"nargs": "*", "default": [],
                                                      "help": "folders of `fivsim continue` with curves.csv"}),))
    xs = sorted({float(r[x]) for r in rows})
    ys = sorted({float(r[y]) for r in rows})
    names = sorted({r["class"] for r in rows}, key=class_order)
    code = {n: i for i, n in enumerate(names)}
    grid = np.full((len(ys), len(xs)), np.nan)
    xi = {v: i for i, v in enumerate(xs)}
    yi = {v: i for i, v in enumerate(ys)}
    for r in rows:
        grid[yi[float(r[y])], xi[float(r[x])]] = code[r["class"]]
    if np.isnan(grid).any():
        sys.exit("plot_classmap: the cases do not fill the %d × %d grid of %s and %s" % (len(xs), len(ys), x, y))

    def edges(v):
        v = np.asarray(v)
        if len(v) == 1:
            return np.array([v[0] - 0.5, v[0] + 0.5])
        mid = 0.5 * (v[1:] + v[:-1])
        return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])

    fig, ax = plt.subplots(figsize=(9, 6))
    ax.pcolormesh(edges(xs), edges(ys), grid, cmap=ListedColormap([class_colour(n) for n in names]),
                  vmin=-0.5, vmax=len(names) - 0.5, shading="flat", rasterized=True)
    counts = {n: sum(1 for r in rows if r["class"] == n) for n in names}
    ax.legend(handles=[Patch(color=class_colour(n), label="%s (%d)" % (n, counts[n])) for n in names],
              fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    for folder in a.curves:
        path = os.path.join(folder, "curves.csv")
        if not os.path.exists(path):
            sys.exit("plot_classmap: %s has no curves.csv (a continuation with a \"curves\" block)" % folder)
        with open(path, newline="") as f:
            points = list(csv.DictReader(f))
        if points and (x not in points[0] or y not in points[0]):
            sys.exit("plot_classmap: the curves of %s are not over %s and %s" % (folder, x, y))
        for c in sorted({int(p["curve"]) for p in points}):
            on = [p for p in points if int(p["curve"]) == c]
            ax.plot([float(p[x]) for p in on], [float(p[y]) for p in on], color="black", lw=1.6,
                    ls="-" if on[0]["kind"] == "period_doubling" else "--")
    if a.curves:
        ax.set_xlim(edges(xs)[0], edges(xs)[-1])
        ax.set_ylim(edges(ys)[0], edges(ys)[-1])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title("%s: %d cases" % (os.path.basename(os.path.normpath(a.folder)), len(rows)))
    out = a.out
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    print("wrote", out)


if __name__ == "__main__":
    main()
