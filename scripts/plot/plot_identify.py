#!/usr/bin/python3
"""Measured versus identified response of one or more `fivsim identify` folders (seed 003
Fig. 2): per folder, the record's x(t) with the response of every identified equation, and the
RMSE of each in the legend, and every estimate with its 95 % interval (docs/IDENTIFY.md);
with --window T0 T1 only that time span is drawn. With --bounds, the
extended-SINDy bound surfaces of one folder instead (seed 003 Fig. 3): the distance
D = |Φ2 − Φ1| over the (k̂, ĉ) grid with its minimum (and the truth, when known), and Φ1, Φ2 along
k̂ at the chosen ĉ*. A `pinn` folder (seed 002 Fig. 17) gets three panels: the record beside N1's
response, N2's torque beside the record's friction when known, and the torque's error.

usage: scripts/plot/plot_identify.py DIR [DIR ...] [--window 10 14] [--out FILE.png]
       scripts/plot/plot_identify.py DIR --bounds [--out FILE.png]
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


def intervals_text(meta):
    """Every identified number with its 95 % interval, a block per method (None without any):
    SINDy's and grey-box least squares' covariance intervals widened by the doubled window's change,
    extended SINDy's held intervals, a grey-box search's output-error covariance intervals, and
    joint terms' per-term coefficient intervals."""
    names = {"k": "k̂", "c": "ĉ", "F": "F̂f"}
    titles = {"sindy": "SINDy", "extended_sindy": "extended SINDy", "greybox": "grey-box",
              "joint_terms": "identified terms"}
    blocks = []
    for key, title in titles.items():
        b = meta.get(key, {})
        # joint terms identify the unknown row's coefficients (per term: [dx1, dx2])
        by_term = key == "joint_terms"
        iv = b.get("coefficient_interval_95" if by_term else "interval_95")
        if not iv:
            continue
        p = {t: c[1] for t, c in b["coefficients"].items()} if by_term else b["parameters"]
        # sdof reports by (k, c, F), a grey-box search by JSON pointer (null: no interval)
        order = [n for n in ("k", "c", "F") if n in iv] or list(iv)
        lines = ["%s = %.5g  [%.5g, %.5g]" % (names.get(n, n), p[n], *iv[n]) for n in order if iv[n]]
        if lines:
            blocks.append("%s, 95 %% intervals\n%s" % (title, "\n".join(lines)))
    return "\n".join(blocks) or None


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


def plot_pinn(folder, meta, rows, out):
    t = [float(r["t"]) for r in rows]
    p = meta["pinn"]
    fig, axes = plt.subplots(3 if "friction" in rows[0] else 2, 1, figsize=(9, 7.5), sharex=True)
    axes[0].plot(t, [float(r["x"]) for r in rows], "k-", lw=2.2, alpha=0.35, label="record")
    axes[0].plot(t, [float(r["x_pinn"]) for r in rows], "-", lw=1.0, label="N1 (RMSE %.2g)" % p["rmse"])
    axes[0].set_ylabel("x = φ2")
    axes[0].set_title("%s: balance %s" % (meta["name"], p["balance"]), fontsize=9)
    axes[1].plot(t, [float(r["tau_pinn"]) for r in rows], "-", lw=1.0, label="N2: τ_f")
    if "friction" in rows[0]:
        err = p.get("torque_error_percent")
        axes[1].plot(t, [float(r["friction"]) for r in rows], "k-", lw=2.2, alpha=0.35,
                     label="record's friction" + (" (N2 RMS error %.3g%%)" % err if err is not None else ""))
        axes[2].plot(t, [float(r["tau_pinn"]) - float(r["friction"]) for r in rows], "r-", lw=0.8)
        axes[2].set_ylabel("τ_f − friction")
    axes[1].set_ylabel("τ_f")
    for ax in axes[:2]:
        ax.legend(fontsize=8, loc="upper right")
    axes[-1].set_xlabel("t (s)")
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
        if meta["method"] == "pinn":
            if len(a.folders) > 1:
                sys.exit("plot_identify: a pinn folder is drawn on its own")
            plt.close(fig)
            return plot_pinn(folder, meta, rows, a.out or os.path.join(folder, "response.png"))
        t = [float(r["t"]) for r in rows]
        ax.plot(t, [1e3 * float(r["x"]) for r in rows], "k-", lw=2.2, alpha=0.35, label="record")
        for col, (key, label) in LABELS.items():
            if col not in rows[0]:
                continue
            rmse = meta.get(key, {}).get("rmse")
            ax.plot(t, [1e3 * float(r[col]) for r in rows], "--" if key == "sindy" else "-", lw=1.0,
                    label="%s (RMSE %s m)" % (label, "%.2g" % rmse if rmse is not None else "diverged"))
        text = intervals_text(meta)
        if text:
            ax.text(0.01, 0.03, text, transform=ax.transAxes, fontsize=7, va="bottom", family="monospace",
                    bbox={"boxstyle": "round", "fc": "white", "alpha": 0.8})
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
