#!/usr/bin/python3
"""Throughput of fivsim's batched identification work beside a NumPy peer in the same command:
the extended-SINDy bound grid (seed 003 Eqs. 16-17, grid points x samples per second) on the
two-stop record, compared with the same surfaces computed by NumPy broadcasting from fivsim's own
record.csv (the same samples, derivatives and grid); and the grey-box genetic search (simulations
per second). Prints one line per figure and the ratio.

usage: scripts/bench/bench_identify.py [--fivsim build/fivsim] [--grid 201] [--threads N]
                                 [--device auto|cpu|cuda]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def savgol_derivative(y, dt, window, order=3):
    """The same filter as fivsim's: centred least-squares polynomial slope, edge windows reused."""
    h = window // 2
    V = np.vander(np.arange(-h, h + 1, dtype=float), order + 1, increasing=True)
    P = np.linalg.pinv(V)
    d = np.convolve(y, P[1][::-1], mode="same") / dt
    first, last = P @ y[:window], P @ y[-window:]
    for i in range(h):
        s0, s1 = i - h, i + 1
        d[i] = sum(c * first[c] * s0 ** (c - 1) for c in range(1, order + 1)) / dt
        d[len(y) - h + i] = sum(c * last[c] * s1 ** (c - 1) for c in range(1, order + 1)) / dt
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--grid", type=int, default=201, help="points per grid axis")
    ap.add_argument("--threads", type=int, default=0, help="OMP_NUM_THREADS for fivsim (default: all cores)")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                    help="where fivsim computes the bound grid (default: the GPU when one is present)")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.threads:
        env["OMP_NUM_THREADS"] = str(a.threads)
    cfg = os.path.join(ROOT, "scenarios", "identify", "sdof_two_stop_extended_sindy_grid.json")
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "esindy")
        k_grid = "[%g,%g,%d]" % (300, 420, a.grid)
        c_grid = "[%g,%g,%d]" % (0, 0.2, a.grid)
        subprocess.run([a.fivsim, "identify", cfg, "--out", out, "--set", "/options/k_grid=" + k_grid,
                        "--set", "/options/c_grid=" + c_grid, "--set", "/options/device=\"%s\"" % a.device],
                       check=True, env=env, capture_output=True)
        with open(os.path.join(out, "identified.json")) as f:
            j = json.load(f)
        b = j["extended_sindy"]["bounds"]
        n_stop, n_slip = j["extended_sindy"]["n_stop"], j["extended_sindy"]["n_slip"]
        fivsim_rate = b["point_samples_per_s"]
        print("fivsim bound grid (%s): %d x %d points, %d stop + %d slip samples, %.3f s -> %.3g point-samples/s"
              % (b.get("backend", "?"), a.grid, a.grid, n_stop, n_slip, b["wall_s"], fivsim_rate))

        # the NumPy peer on the same record, derivatives, segregation and grid
        rec = np.genfromtxt(os.path.join(out, "record.csv"), delimiter=",", names=True)
        dt = rec["t"][1] - rec["t"][0]
        dx2 = savgol_derivative(rec["v"], dt, 35)
        stop = np.abs(rec["v"]) <= 1e-7
        slip = np.abs(rec["v"]) > 1e-3
        ks = np.linspace(300, 420, a.grid)
        cs = np.linspace(0, 0.2, a.grid)
        t0 = time.perf_counter()
        phi1 = np.empty((a.grid, a.grid))
        phi2 = np.empty((a.grid, a.grid))
        for i, k in enumerate(ks):  # one k row at a time keeps the broadcast within memory
            f1 = cs[:, None] * rec["du"][stop][None, :] + k * (rec["u"][stop] - rec["x"][stop])[None, :]
            phi1[i] = np.abs(f1).max(axis=1)
            f2 = (cs[:, None] * (rec["du"][slip] - rec["v"][slip])[None, :]
                  + (k * (rec["u"][slip] - rec["x"][slip]) - dx2[slip])[None, :])
            phi2[i] = np.abs(f2).min(axis=1)
        numpy_s = time.perf_counter() - t0
        numpy_rate = a.grid * a.grid * (stop.sum() + slip.sum()) / numpy_s
        D = np.abs(phi2 - phi1)
        i, jc = np.unravel_index(np.argmin(D), D.shape)
        print("numpy bound grid:  same grid and samples, %.3f s -> %.3g point-samples/s; argmin k = %.6g, c = %.6g "
              "(fivsim %.6g, %.6g)" % (numpy_s, numpy_rate, ks[i], cs[jc], b["k_star"], b["c_star"]))
        print("ratio fivsim / numpy: %.1fx" % (fivsim_rate / numpy_rate))

        out = os.path.join(work, "ga")
        subprocess.run([a.fivsim, "identify", os.path.join(ROOT, "scenarios", "identify", "model1_stribeck_genetic.json"),
                        "--out", out], check=True, env=env, capture_output=True)
        with open(os.path.join(out, "identified.json")) as f:
            g = json.load(f)["greybox"]
        print("fivsim grey-box genetic search: %d simulations (4001 samples each, event-driven) in %.2f s -> %.3g "
              "simulations/s; mu_s = %.10g, delta = %.10g" % (g["evaluations"], g["wall_s"], g["simulations_per_s"],
                                                               g["parameters"]["/friction/mu_s"],
                                                               g["parameters"]["/friction/delta"]))


if __name__ == "__main__":
    sys.exit(main())
