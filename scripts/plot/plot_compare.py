#!/usr/bin/python3
"""Plots a `fivsim compare --series` folder like seed 000 Figs. 10–16: time histories of a
displacement, a velocity and a contact force, and the phase plot (displacement against
velocity), every run over the event-driven reference.

usage: scripts/plot/plot_compare.py COMPARE_DIR [--dof 0] [--contact 0] [--from T0] [--to T1]
                               [--runs moreau_dt0.01,irk10-interp_dt0.01] [--out FILE.png]
"""
import argparse
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def load(path):
    return np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="output folder of `fivsim compare ... --series`")
    ap.add_argument("--dof", type=int, default=0, help="which q/u to plot")
    ap.add_argument("--contact", type=int, default=0, help="which contact's forces to plot")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="start of the time window (s)")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="end of the time window (s)")
    ap.add_argument("--runs", default="", help="comma-separated series names (file names without .csv); default all")
    ap.add_argument("--out", default=None, help="PNG file (default FOLDER/compare.png)")
    a = ap.parse_args()

    series_dir = os.path.join(a.folder, "series")
    ref_path = os.path.join(series_dir, "reference.csv")
    if not os.path.exists(ref_path):
        sys.exit("plot_compare: %s not found (run fivsim compare with --series)" % ref_path)
    names = [n for n in a.runs.split(",") if n] or sorted(
        os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(series_dir, "*.csv"))
        if not p.endswith("reference.csv"))
    ref = load(ref_path)
    q, u = "q%d" % a.dof, "u%d" % a.dof
    lamN, lamT = "lamN%d" % a.contact, "lamT%d" % a.contact
    for col in (q, u, lamN, lamT):
        if col not in ref.dtype.names:
            sys.exit("plot_compare: no column %s in %s" % (col, ref_path))

    def window(d):
        m = np.ones(len(d["t"]), dtype=bool)
        if a.t0 is not None:
            m &= d["t"] >= a.t0
        if a.t1 is not None:
            m &= d["t"] <= a.t1
        return d[m]

    ref = window(ref)
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    panels = [(axes[0, 0], q, "displacement %s" % q), (axes[0, 1], u, "velocity %s" % u),
              (axes[1, 0], lamN if np.ptp(ref[lamN]) > 0 else lamT,
               "contact force %s" % (lamN if np.ptp(ref[lamN]) > 0 else lamT))]
    for ax, col, title in panels:
        ax.plot(ref["t"], ref[col], "k-", lw=2.0, label="reference (event-driven)")
        ax.set_title(title)
        ax.set_xlabel("t (s)")
    phase = axes[1, 1]
    phase.plot(ref[q], ref[u], "k-", lw=2.0, label="reference (event-driven)")
    phase.set_xlabel(q)
    phase.set_ylabel(u)
    phase.set_title("phase plot")
    for name in names:
        path = os.path.join(series_dir, name + ".csv")
        if not os.path.exists(path):
            sys.exit("plot_compare: %s not found" % path)
        d = window(load(path))
        for ax, col, _ in panels:
            ax.plot(d["t"], d[col], lw=1.0, label=name)
        phase.plot(d[q], d[u], lw=1.0, label=name)
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    out = a.out or os.path.join(a.folder, "compare.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
