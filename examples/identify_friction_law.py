#!/usr/bin/python3
"""Identifies the friction of a base-excited oscillator from a record, from Python: the record is
"measured" here by simulating the two-stop Coulomb case of seed 003 (fivsim.run, the event-driven
reference, a little noise added), written as a CSV as a lab would, and identified by SINDy and
extended SINDy (fivsim.identify). Prints the identified k/m, c/m and Ff/m against the truth and
draws the record beside both identified responses.

usage: examples/identify_friction_law.py [--small] [--noise SIGMA] [--out FOLDER]
       (PYTHONPATH=build/python, after the README's build)
"""
import argparse
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import fivsim  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "scenarios", "sdof_base_two_stop.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="a 6 s record and a coarse bound grid (a check, as CI runs it)")
    ap.add_argument("--noise", type=float, default=1e-8, help="std of the noise added to x (m; default 1e-8)")
    ap.add_argument("--out", default="runs/example_identify", help="folder of the record and the figure")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    # the "measurement": the event-driven reference sampled every 0.2 ms at f = 0.95 Hz
    t_end, dt = (6.0, 2e-4) if args.small else (20.0, 2e-4)
    truth = fivsim.load(SCENARIO, set={"/model/f_hz": 0.95})["model"]
    sim = fivsim.run(SCENARIO, set={"/model/f_hz": 0.95, "/integrator/method": "switching", "/integrator/dt": dt, "/analysis/t_transient": 1,
                                    "/integrator/t_end": t_end, "/output/every": 1})
    t, x, v = sim.timeseries["t"], sim.timeseries["q0"], sim.timeseries["u0"]
    w = 2 * math.pi * truth["f_hz"]
    base, base_rate = truth["A"] * np.sin(w * t), truth["A"] * w * np.cos(w * t)
    x = x + np.random.default_rng(1).normal(0.0, args.noise, x.size)
    record = os.path.join(os.path.abspath(args.out), "measured.csv")
    np.savetxt(record, np.column_stack([t, x, v, base, base_rate]), delimiter=",", header="t,q0,u0,base,base_rate",
               comments="", fmt="%.17g")

    config = {
        "name": "two_stop_from_python",
        "method": "extended_sindy",
        "data": {"path": record, "x": "q0", "v": "u0", "u": "base", "du": "base_rate"},
        "library": {"polynomial_degree": 1, "input": True, "sign": True},
        "options": {"optimizer": "sr3", "threshold": 0.05, "window": 35, "v_stop": 1e-7, "v_slip": 1e-3},
    }
    if args.small:
        config["options"].update({"k_grid": [300, 420, 41], "c_grid": [0, 0.3, 31]})
    fit = fivsim.identify(config)

    m = truth["m"]
    print(f"record: {fit.identified['record']['samples']} samples, {len(sim.events['t'])} events")
    print(f"{'':18s}{'k/m':>12s}{'c/m':>12s}{'Ff/m':>12s}")
    print(f"{'truth':18s}{truth['k'] / m:12.5g}{truth['c'] / m:12.5g}{truth['Ff'] / m:12.5g}")
    for label, key in (("SINDy", "sindy"), ("extended SINDy", "extended_sindy")):
        report = fit.identified.get(key) or fit.identified["extended_sindy"]["slip_sindy"]
        p = report["parameters"]
        print(f"{label:18s}{p['k']:12.5g}{p['c']:12.5g}{p['F']:12.5g}")

    fig, ax = plt.subplots(figsize=(8, 4))
    r = fit.response
    ax.plot(r["t"], r["x"], "k", lw=2, label="record")
    for name in r:
        if name.startswith("x_"):
            ax.plot(r["t"], r[name], lw=1, label=name[2:].replace("_", " "))
    ax.set_xlabel("t (s)")
    ax.set_ylabel("x (m)")
    ax.legend()
    path = os.path.join(args.out, "identified.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print("->", path)


if __name__ == "__main__":
    main()
