#!/usr/bin/python3
"""Basins of attraction of a `fivsim sweep` over initial conditions (random or on a grid): each
start drawn at its two swept initial values, coloured by the attractor its case reached
(attractors.csv; the class where the folder has none), with each attractor's basin stability
(its share of the starts and the standard error, basins.csv) in the legend. Where the sweep also
varies a parameter (initial conditions drawn at each of its values), a second panel draws each
class's basin stability against it, and the picture shows the starts at one value (--at, default
the value with the most attractors). Reads cases.csv, or results.h5 where the sweep wrote only that.

usage: scripts/plot/plot_basins.py SWEEP_DIR [--x /initial/q/0] [--y /initial/u/0] [--at VALUE]
                                   [--out FILE.png]
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_bifurcation import class_colour  # noqa: E402
from plot_classmap import class_order  # noqa: E402
from sweep_tables import two_axes_cli  # noqa: E402


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    a, rows, x, y = two_axes_cli(__doc__, "initial value", "/initial/", "basins.png",
                                 extra=[("--at", dict(type=float, default=None,
                                                      help="the value of the other swept parameter to draw"))])
    basins_path = os.path.join(a.folder, "basins.csv")
    attractors_path = os.path.join(a.folder, "attractors.csv")
    if not (os.path.exists(basins_path) and os.path.exists(attractors_path)):
        sys.exit("plot_basins: %s has no basins.csv and attractors.csv (a sweep that varies initial conditions and "
                 "classifies its cases writes them)" % a.folder)
    basins = read_csv(basins_path)
    attractor_of = {int(r["case"]): int(r["attractor"]) for r in read_csv(attractors_path)}
    fixed = [k for k in basins[0] if k.startswith("/") and not k.startswith("/initial/")]
    if len(fixed) > 1:
        sys.exit("plot_basins: the sweep varies %d parameters besides initial conditions (%s); the picture takes one"
                 % (len(fixed), ", ".join(fixed)))
    param = fixed[0] if fixed else None

    # the group drawn: --at, else the value with the most attractors
    def value_of(r):
        return float(r[param]) if param else 0.0

    values = sorted({value_of(r) for r in basins})
    if param and a.at is not None:
        at = min(values, key=lambda v: abs(v - a.at))
    else:
        at = max(values, key=lambda v: sum(1 for r in basins if value_of(r) == v and r["attractor"] != "0"))
    drawn = [r for r in basins if value_of(r) == at]
    label_of = {}
    for r in drawn:
        word = r["class"] if r["attractor"] != "0" else "no attractor"
        label_of[int(r["attractor"])] = ("%s #%s: %.4f ± %.4f" % (word, r["attractor"], float(r["fraction"]),
                                                                 float(r["standard_error"])), r["class"])

    fig, axes = plt.subplots(1, 2 if param else 1, figsize=(14 if param else 8, 6), squeeze=False)
    ax = axes[0][-1]
    starts = [r for r in rows if not param or abs(float(r[param]) - at) <= 1e-12 * (1 + abs(at))]
    markers = "os^Dv<>p"
    for k in sorted(label_of):
        pts = [(float(r[x]), float(r[y])) for r in starts if attractor_of.get(int(float(r["case"]))) == k]
        label, word = label_of[k]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=5, color=class_colour(word),
                   marker=markers[(k - 1) % len(markers)] if k > 0 else "x", label=label, rasterized=True)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), markerscale=3, ncol=2)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    title = "%s: %d starts" % (os.path.basename(os.path.normpath(a.folder)), len(starts))
    ax.set_title(title + (" at %s = %.4g" % (param, at) if param else ""))

    if param:
        # each class's basin stability against the parameter: its attractors' shares added
        ax = axes[0][0]
        classes = sorted({r["class"] for r in basins if r["attractor"] != "0"}, key=class_order)
        for c in classes:
            xs, ps, es = [], [], []
            for v in values:
                group = [r for r in basins if value_of(r) == v]
                n = sum(int(r["cases"]) for r in group)
                m = sum(int(r["cases"]) for r in group if r["class"] == c and r["attractor"] != "0")
                p = m / n if n else 0.0
                xs.append(v)
                ps.append(p)
                es.append((p * (1 - p) / n) ** 0.5 if n else 0.0)
            ax.errorbar(xs, ps, yerr=es, color=class_colour(c), marker="o", ms=3, capsize=2, label=c)
        ax.axvline(at, color="0.6", lw=0.8, ls=":")
        ax.set_xlabel(param)
        ax.set_ylabel("basin stability")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
        ax.set_title("basin stability (± one standard error)")
    out = a.out
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    print("wrote", out)


if __name__ == "__main__":
    main()
