#!/usr/bin/python3
"""Plots a `fivsim run` folder: displacement and velocity of each DoF against time with the contact
states of contact 0 shaded (stick / slip / free), the contact forces, and the phase plot of DoF 0
with its stick-slip events marked. Writes <run>/timeseries.png.

usage: scripts/plot/plot_timeseries.py runs/model1_slow_stribeck [--out file.png] [--from T0] [--to T1]
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

SHADE = {"stick": "#b3d9ff", "free": "#e0e0e0"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run", help="folder written by fivsim run")
    ap.add_argument("--out", help="PNG path (default <run>/timeseries.png)")
    ap.add_argument("--from", dest="t0", type=float, default=None)
    ap.add_argument("--to", dest="t1", type=float, default=None)
    a = ap.parse_args()
    d = np.genfromtxt(os.path.join(a.run, "timeseries.csv"), delimiter=",", names=True, dtype=None, encoding=None)
    with open(os.path.join(a.run, "summary.json")) as f:
        s = json.load(f)
    t = d["t"]
    keep = np.ones_like(t, dtype=bool)
    if a.t0 is not None:
        keep &= t >= a.t0
    if a.t1 is not None:
        keep &= t <= a.t1
    d = d[keep]
    t = d["t"]
    names = d.dtype.names
    dof = sorted(int(n[1:]) for n in names if n.startswith("q"))
    contacts = sorted(int(n[5:]) for n in names if n.startswith("state"))

    fig, ax = plt.subplots(2, 2, figsize=(12, 7))
    for i in dof:
        ax[0, 0].plot(t, d["q%d" % i], label="q%d" % i, lw=0.8)
        ax[1, 0].plot(t, d["u%d" % i], label="u%d" % i, lw=0.8)
    for c in contacts:
        ax[0, 1].plot(t, d["lamN%d" % c], label="λN%d" % c, lw=0.8)
        ax[0, 1].plot(t, d["lamT%d" % c], label="λT%d" % c, lw=0.8, ls="--")
    # shade the states of contact 0 on the time histories
    if contacts:
        st = d["state0"]
        start = 0
        for k in range(1, len(st) + 1):
            if k == len(st) or st[k] != st[start]:
                colour = SHADE.get(st[start])
                if colour:
                    for axis in (ax[0, 0], ax[1, 0]):
                        axis.axvspan(t[start], t[min(k, len(t) - 1)], color=colour, lw=0, alpha=0.6)
                start = k
    ax[1, 1].plot(d["q0"], d["u0"], lw=0.6, color="k")
    for e in s["events"]:
        if e["contact"] == 0 and e["type"] in ("stick_to_slip", "slip_to_stick") and t[0] <= e["t"] <= t[-1]:
            ax[1, 1].plot(e["q"][0], np.interp(e["t"], t, d["u0"]), "o", ms=3,
                          color="tab:red" if e["type"] == "stick_to_slip" else "tab:blue")
    ax[0, 0].set_ylabel("displacement")
    ax[1, 0].set_ylabel("velocity")
    ax[1, 0].set_xlabel("t")
    ax[0, 1].set_ylabel("contact forces")
    ax[0, 1].set_xlabel("t")
    ax[1, 1].set_xlabel("q0")
    ax[1, 1].set_ylabel("u0")
    ax[1, 1].set_title("phase plot (red: stick→slip, blue: slip→stick)", fontsize=9)
    for axis in (ax[0, 0], ax[1, 0], ax[0, 1]):
        axis.legend(fontsize=7, loc="upper right")
    fig.suptitle("%s — shaded: contact 0 sticking (blue) / separated (grey)" % s["name"], fontsize=10)
    fig.tight_layout()
    out = a.out or os.path.join(a.run, "timeseries.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
