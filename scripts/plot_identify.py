#!/usr/bin/python3
"""Measured versus identified response of one or more `fivsim identify` folders (seed 003
Fig. 2): per folder, the record's x(t) with the response of every identified equation, and the
RMSE of each in the legend; with --window T0 T1 only that time span is drawn. With --bounds, the
extended-SINDy bound surfaces of one folder instead (seed 003 Fig. 3): the distance
D = |Φ2 − Φ1| over the (k̂, ĉ) grid with its minimum (and the truth, when known), and Φ1, Φ2 along
k̂ at the chosen ĉ*.

usage: scripts/plot_identify.py DIR [DIR ...] [--window 10 14] [--out FILE.png]
       scripts/plot_identify.py DIR --bounds [--out FILE.png]
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"x_sindy": ("sindy", "SINDy"), "x_extended_sindy": ("extended_sindy", "extended SINDy"),
          "x_greybox": ("greybox", "grey-box"), "x_joint_terms": ("joint_terms", "known + identified terms")}


def plot_bounds(folder, out):
    import numpy as np
    try:
        with open(os.path.join(folder, "identified.json")) as f:
            meta = json.load(f)
        b = np.genfromtxt(os.path.join(folder, "bounds.csv"), delimiter=",", names=True)
    except OSError as e:
        sys.exit("plot_identify: %s (bounds.csv is written by extended_sindy with stop samples)" % e)
    ks, cs = np.unique(b["k"]), np.unique(b["c"])
    shape = (len(ks), len(cs))  # bounds.csv lists k-major rows
    D = b["D"].reshape(shape)
    star = meta["extended_sindy"]["bounds"]
    fig, (a, r) = plt.subplots(1, 2, figsize=(11, 3.8))
    m = a.pcolormesh(cs, ks, np.log10(np.maximum(D, 1e-12)), shading="auto", cmap="viridis")
    fig.colorbar(m, ax=a, label="log10 D = log10 |Φ2 − Φ1|")
    a.plot(star["c_star"], star["k_star"], "r*", ms=12, label="min D: (k̂*, ĉ*)")
    truth = meta.get("truth")
    if truth:
        a.plot(truth["c"], truth["k"], "wo", mfc="none", ms=9, label="truth")
    a.set_xlabel("ĉ")
    a.set_ylabel("k̂")
    a.legend(fontsize=8, loc="upper right")
    a.set_title("%s: D over the grid" % meta["name"], fontsize=9)
    j = int(np.argmin(np.abs(cs - star["c_star"])))
    r.plot(ks, b["phi1"].reshape(shape)[:, j], label="Φ1 (stop samples, Eq. 16)")
    r.plot(ks, b["phi2"].reshape(shape)[:, j], label="Φ2 (slip samples, Eq. 17)")
    r.axvline(star["k_star"], color="r", lw=0.8)
    r.set_xlabel("k̂ (at ĉ* = %.4g)" % star["c_star"])
    r.set_ylabel("F̂f bound")
    r.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="output folders of `fivsim identify`")
    ap.add_argument("--window", nargs=2, type=float, default=None, metavar=("T0", "T1"))
    ap.add_argument("--bounds", action="store_true", help="draw bounds.csv (extended SINDy) instead")
    ap.add_argument("--out", default=None, help="PNG file (default FIRST_DIR/response.png or bounds.png)")
    a = ap.parse_args()
    if a.bounds:
        return plot_bounds(a.folders[0], a.out or os.path.join(a.folders[0], "bounds.png"))
    fig, axes = plt.subplots(len(a.folders), 1, figsize=(9, 2.8 * len(a.folders)), squeeze=False)
    for ax, folder in zip(axes[:, 0], a.folders):
        try:
            with open(os.path.join(folder, "identified.json")) as f:
                meta = json.load(f)
            with open(os.path.join(folder, "response.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            sys.exit("plot_identify: %s" % e)
        if a.window:
            rows = [r for r in rows if a.window[0] <= float(r["t"]) <= a.window[1]]
        t = [float(r["t"]) for r in rows]
        ax.plot(t, [1e3 * float(r["x"]) for r in rows], "k-", lw=2.2, alpha=0.35, label="record")
        for col, (key, label) in LABELS.items():
            if col not in rows[0]:
                continue
            rmse = meta.get(key, {}).get("rmse")
            ax.plot(t, [1e3 * float(r[col]) for r in rows], "--" if key == "sindy" else "-", lw=1.0,
                    label="%s (RMSE %s m)" % (label, "%.2g" % rmse if rmse is not None else "diverged"))
        ax.set_title(meta["name"], fontsize=10)
        ax.set_ylabel("x (mm)")
        ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("t (s)")
    fig.tight_layout()
    out = a.out or os.path.join(a.folders[0], "response.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
