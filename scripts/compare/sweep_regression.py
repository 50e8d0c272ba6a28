#!/usr/bin/env python3
"""Runs a fixed set of sweeps (every bundled sweep, cut where it is long, and variants that cover
each kind of swept parameter, each stepper, the switching integrator, float, the Lyapunov twin and
the lean observers) with one fivsim binary into OUT/<run>/, and with --against REF compares each
run's cases.csv and points.csv with REF/<run>/: byte for byte, else the largest relative
difference of any number (and whether the classes agree). Used to show that a change of the sweep engine leaves its results as
they were: run it once with the old binary, once with the new one.

usage: scripts/compare/sweep_regression.py --fivsim build/fivsim --out /tmp/new [--against /tmp/old]
                                   [--only RUN,RUN] [--device cpu] [--threads 2]
Exit 1 if a run failed, or (with --against) a file differs beyond --tol (default 0: identical).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SC = os.path.join(ROOT, "scenarios")

CHAIN_SHORT = ["--set", "/integrator/t_end=30", "--set", "/analysis/t_transient=10",
               "--set", "/sweep/parameters/0/linspace=[1,30,240]"]
# (run name, scenario, extra arguments)
RUNS = [
    ("chain2_load_sweep", "chain2_load_sweep.json", []),
    ("chain2_bench_random", "chain2_bench_random.json", ["--set", "/sweep/samples=30000"]),
    ("model1_v0_delta_grid", "model1_v0_delta_grid.json", []),
    ("model2_mu_scan", "model2_mu_scan.json", []),
    ("model1_pinn_v0_sweep", "model1_pinn_v0_sweep.json",
     ["--set", "/integrator/t_end=3", "--set", "/analysis/t_transient=1",
      "--set", "/sweep/parameters/0/linspace=[0.2,1.2,8]"]),
    # variants: each stepper, float, the twin, structural parameters, other presets
    ("chain2_float", "chain2_load_sweep.json", CHAIN_SHORT + ["--precision", "float"]),
    ("chain2_lyapunov", "chain2_load_sweep.json", CHAIN_SHORT + ["--set", '/analysis/lyapunov={"every":10}']),
    ("chain2_rk4lcp", "chain2_load_sweep.json", CHAIN_SHORT + ["--set", '/integrator/method="rk4lcp"']),
    ("chain2_irk_interp", "chain2_load_sweep.json",
     CHAIN_SHORT + ["--set", '/integrator/method="irk"', "--set", '/integrator/stage_forces="interpolated"']),
    ("chain2_structural", "chain2_load_sweep.json",
     ["--set", "/integrator/t_end=30", "--set", "/analysis/t_transient=10", "--set",
      '/sweep={"mode":"grid","parameters":[{"path":"/model/k/1","linspace":[0.5,2,12]},'
      '{"path":"/model/m/0","values":[0.5,1,2]},{"path":"/model/c/0","values":[0,0.05]}]}']),
    ("chain2_velocity_state", "chain2_load_sweep.json",
     ["--set", "/integrator/t_end=30", "--set", "/analysis/t_transient=10", "--set",
      '/sweep={"mode":"random","samples":200,"seed":7,"parameters":[{"path":"/model/v0","range":[0.1,1]},'
      '{"path":"/initial/u/1","range":[-0.5,0.5]},{"path":"/friction/alpha","logrange":[1,10]},'
      '{"path":"/friction/mu_s","values":[0.1,0.12,0.15]}]}']),
    ("chain2_per_slider_load", "chain2_load_sweep.json",
     ["--set", "/integrator/t_end=30", "--set", "/analysis/t_transient=10", "--set", "/model/Fn=[15,15]", "--set",
      '/sweep={"mode":"zip","parameters":[{"path":"/model/Fn/0","linspace":[5,25,40]},'
      '{"path":"/model/Fn/1","linspace":[25,5,40]}]}']),
    # the switching integrator: its exact events, the orbit observer and exponents from the variational equations
    ("chain2_switching", "chain2_bifurcation.json",
     ["--set", "/integrator/t_end=600", "--set", "/sweep/parameters/0/linspace=[1,30,120]"]),
    ("chain5_load", "chain5_F15.json",
     ["--set", "/integrator/t_end=20", "--set", "/analysis/t_transient=10", "--set", "/output/timeseries=false",
      "--set", '/sweep={"mode":"grid","parameters":[{"path":"/model/Fn","linspace":[5,25,30]}]}']),
    ("model1_rk4lcp", "model1_v0_delta_grid.json",
     ["--set", '/integrator/method="rk4lcp"', "--set", "/integrator/t_end=100", "--set", "/analysis/t_transient=50"]),
    ("model2_irk", "model2_mu_scan.json",
     ["--set", '/integrator/method="irk"', "--set", "/integrator/order=3",
      "--set", "/sweep/parameters/0/linspace=[0.8,1.4,61]"]),
    ("model2_structural", "model2_mu_scan.json",
     ["--set", "/sweep/parameters/0/linspace=[1.1,1.4,7]", "--set", "/integrator/t_end=12", "--set",
      '/sweep={"mode":"grid","parameters":[{"path":"/friction/mu","linspace":[1.1,1.4,7]},'
      '{"path":"/model/kc","values":[300,500]},{"path":"/model/k3","values":[500,600]},'
      '{"path":"/model/Fp","values":[15,20]}]}']),
    ("sdof_forced_fast", "sdof_base_two_stop.json",
     ["--set", "/integrator/t_end=6", "--set", "/analysis/t_transient=3", "--set", "/output/timeseries=false", "--set",
      '/sweep={"mode":"grid","parameters":[{"path":"/model/Ff","linspace":[0.02,0.1,9]},'
      '{"path":"/initial/q/0","values":[0,0.001]}]}']),
    ("model1_tanh", "model1_v0_delta_grid.json",
     ["--set", '/friction={"law":"coulomb_tanh","mu":0.1,"eps":20}', "--set", "/integrator/t_end=100",
      "--set", "/analysis/t_transient=50", "--set",
      '/sweep={"mode":"grid","parameters":[{"path":"/model/v0","linspace":[0.05,1.5,30]},'
      '{"path":"/friction/eps","values":[5,50]}]}']),
    ("chain2_velocity_section", "chain2_load_sweep.json",
     CHAIN_SHORT + ["--set", '/analysis/poincare={"section":"velocity","dof":1,"value":0.3,"direction":"both"}']),
    ("chain2_blowup", "chain2_load_sweep.json",
     ["--set", "/integrator/t_end=30", "--set", "/analysis/t_transient=10", "--set",
      # a stiffness whose period dt does not resolve: the explicit half of Moreau's step blows up
      '/sweep={"mode":"grid","parameters":[{"path":"/model/k/0","values":[1,1e8,2]},'
      '{"path":"/model/Fn","values":[5,15]}]}']),
    ("sdof_forced", "sdof_base_two_stop.json",
     ["--set", "/integrator/t_end=6", "--set", "/analysis/t_transient=3", "--set", "/output/timeseries=false", "--set",
      '/sweep={"mode":"grid","parameters":[{"path":"/model/Ff","values":[0.05,0.0856]},'
      '{"path":"/model/f_hz","linspace":[0.5,1.5,5]},{"path":"/model/A","values":[0.001,0.0015]}]}']),
]


def numbers_close(a, b, tol):
    """largest relative difference between two CSV files of equal shape (None if the shapes or
    the text fields differ)"""
    ra, rb = list(csv.reader(open(a))), list(csv.reader(open(b)))
    if len(ra) != len(rb) or ra[:1] != rb[:1]:
        return None, "rows or header differ"
    worst, where = 0.0, ""
    for i, (x, y) in enumerate(zip(ra, rb)):
        if len(x) != len(y):
            return None, f"row {i} differs in length"
        for j, (u, v) in enumerate(zip(x, y)):
            if u == v:
                continue
            try:
                fu, fv = float(u), float(v)
            except ValueError:
                return None, f"row {i} column {ra[0][j]}: {u} != {v}"
            if math.isnan(fu) and math.isnan(fv):
                continue
            d = abs(fu - fv) / max(abs(fu), abs(fv), 1e-300)
            if d > worst:
                worst, where = d, f"row {i} column {ra[0][j]}: {u} vs {v}"
    return worst, where


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--against")
    ap.add_argument("--only", default="")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--tol", type=float, default=0.0)
    ap.add_argument("--extra", default="", help="arguments added to every run (space-separated)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    failed = False
    for name, scenario, extra in RUNS:
        if only and name not in only:
            continue
        out = os.path.join(args.out, name)
        subprocess.run(["rm", "-rf", out])
        cmd = [args.fivsim, "sweep", os.path.join(SC, scenario), "-q", "--device", args.device, "--out", out] + extra
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        cmd += args.extra.split()
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if r.returncode != 0:
            print(f"{name:24s} FAILED ({r.returncode}): {r.stderr.strip()[:300]}")
            failed = True
            continue
        line = f"{name:24s} {wall:7.2f} s"
        if args.against:
            for f in ("cases.csv", "points.csv"):
                a, b = os.path.join(args.against, name, f), os.path.join(out, f)
                if not os.path.exists(a) and not os.path.exists(b):
                    continue
                if not os.path.exists(a) or not os.path.exists(b):
                    line += f"  {f}: only one side has it"
                    failed = True
                    continue
                if open(a, "rb").read() == open(b, "rb").read():
                    line += f"  {f}: identical"
                    continue
                worst, where = numbers_close(a, b, args.tol)
                if worst is None or worst > args.tol:
                    failed = True
                line += f"  {f}: DIFFERS {worst if worst is not None else ''} ({where})"
        print(line, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
