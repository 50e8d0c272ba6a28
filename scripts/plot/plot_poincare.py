#!/usr/bin/python3
"""Poincaré maps of chosen cases of a `fivsim sweep` folder, like the inset of seed 001 Fig. 5:
per case, the section samples in a plane of two coordinates (left) and the return map
x_n → x_{n+1} of one coordinate (right). Each case's title gives its class and swept values.

usage: scripts/plot/plot_poincare.py SWEEP_DIR --cases 12,345 [--kind poincare] [--x q0] [--y q1]
                                [--out FILE.png]
       (--param-values /model/Fn=11,15,24 picks the cases nearest those values instead of --cases)
Reads cases.csv and points.csv, or results.h5 where the sweep wrote only that.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_tables import table_rows  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="output folder of `fivsim sweep`")
    ap.add_argument("--cases", default="", help="comma-separated case numbers")
    ap.add_argument("--param-values", default="", help="PATH=v1,v2,...: the cases nearest these values")
    ap.add_argument("--kind", default="poincare", help="points to draw (poincare or e.g. stick_to_slip@0)")
    ap.add_argument("--x", default="q0", help="horizontal coordinate of the section plane")
    ap.add_argument("--y", default="u0", help="vertical coordinate of the section plane")
    ap.add_argument("--out", default=None, help="PNG file (default FOLDER/poincare.png)")
    a = ap.parse_args()

    cases = {int(r["case"]): r for r in table_rows(a.folder, "cases")}
    params = [k for k in next(iter(cases.values())) if k.startswith("/")]
    chosen = [int(c) for c in a.cases.split(",") if c]
    if a.param_values:
        path, _, values = a.param_values.partition("=")
        if path not in params:
            sys.exit("plot_poincare: %s is not a swept parameter (%s)" % (path, ", ".join(params)))
        for v in (float(x) for x in values.split(",")):
            chosen.append(min(cases, key=lambda c: abs(float(cases[c][path]) - v)))
    if not chosen:
        sys.exit("plot_poincare: give --cases or --param-values")
    missing = [c for c in chosen if c not in cases]
    if missing:
        sys.exit("plot_poincare: no case %s" % missing)

    samples = {c: [] for c in chosen}
    points = table_rows(a.folder, "points")
    for col in (a.x, a.y):
        if points and col not in points[0]:
            sys.exit("plot_poincare: no column %s in the points table" % col)
    for r in points:
        c = int(r["case"])
        if c in samples and r["kind"] == a.kind:
            samples[c].append((float(r["t"]), float(r[a.x]), float(r[a.y])))

    fig, axes = plt.subplots(len(chosen), 2, figsize=(9, 3.2 * len(chosen)), squeeze=False)
    for row, c in zip(axes, chosen):
        pts = sorted(samples[c])
        label = "case %d: %s (%s)" % (c, cases[c]["class"],
                                      ", ".join("%s = %.4g" % (p, float(cases[c][p])) for p in params))
        xs = [p[1] for p in pts]
        row[0].plot(xs, [p[2] for p in pts], "o", ms=3)
        row[0].set_xlabel(a.x)
        row[0].set_ylabel(a.y)
        row[0].set_title(label, fontsize=9)
        row[1].plot(xs[:-1], xs[1:], "o", ms=3, color="tab:red")
        if xs:
            lo, hi = min(xs), max(xs)
            row[1].plot([lo, hi], [lo, hi], "k:", lw=0.8)
        row[1].set_xlabel("%s (n)" % a.x)
        row[1].set_ylabel("%s (n+1)" % a.x)
        row[1].set_title("return map, %d samples" % len(pts), fontsize=9)
        for ax in row:
            ax.grid(alpha=0.3)
    fig.tight_layout()
    out = a.out or os.path.join(a.folder, "poincare.png")
    fig.savefig(out, dpi=130)
    print("wrote", out)


if __name__ == "__main__":
    main()
