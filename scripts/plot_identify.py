#!/usr/bin/python3
"""Measured versus identified response of one or more `fivsim identify` folders (seed 003
Fig. 2): per folder, the record's x(t) with the response of every identified equation, and the
RMSE of each in the legend; with --window T0 T1 only that time span is drawn.

usage: scripts/plot_identify.py DIR [DIR ...] [--window 10 14] [--out FILE.png]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="output folders of `fivsim identify`")
    ap.add_argument("--window", nargs=2, type=float, default=None, metavar=("T0", "T1"))
    ap.add_argument("--out", default=None, help="PNG file (default FIRST_DIR/response.png)")
    a = ap.parse_args()
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
