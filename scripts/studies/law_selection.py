#!/usr/bin/python3
"""Which friction law a record supports: simulated records of bSTAB's belt-driven oscillator
(m = k = 1, c = 0.1, belt 1.5, load 1; scenarios/bstab_friction.json) under each of five static
laws, started stuck to the belt at x = 0 so that every record holds stick and slip, 40 s sampled at
200 Hz and 1 kHz with measurement noise at 60, 40 and 30 dB (20 noise seeds a cell), identified by
`fivsim identify` with the five laws as candidates (grey-box Levenberg–Marquardt on the output
error, each law from the same neutral start). Prints per cell how often the true law ranks first by
BIC and how often its parameters' 95 % intervals hold the truth, and writes every fit to
--csv (docs/IDENTIFY.md "Choosing the law").

usage: scripts/studies/law_selection.py [--fivsim build/fivsim] [--seeds 20] [--jobs 2]
                                        [--laws coulomb,...] [--snr 60,40,30] [--rates 200,1000]
                                        [--csv law_selection.csv]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "bstab_friction.json")

# each law's truth: friction that sticks and slips on the belt at 1.5
TRUTH = {
    "coulomb": {"mu": 0.5},
    "coulomb_viscous": {"mu": 0.4, "mu_v": 0.1},
    "coulomb_static": {"mu_s": 1.0, "mu_k": 0.5},
    "stribeck_rational": {"mu_s": 1.0, "delta": 1.0},
    "stribeck_exp": {"mu_s": 1.0, "mu_d": 0.5, "alpha": 2.0},
}
START = {"/initial/q": [0.0], "/initial/u": [1.5]}


def config(law, snr, rate, seed):
    """the identification of one record: the true law's simulation, every law a candidate"""
    data_set = dict(START)
    data_set["/friction"] = dict(TRUTH[law], law=law)
    model_set = dict(START)
    # one neutral start for every candidate: the defaults of docs/IDENTIFY.md but mu
    model_set["/friction"] = {"law": "coulomb", "mu": 0.3}
    return {"name": "law_selection_%s_%gdb_%dhz_%d" % (law, snr, rate, seed), "method": "greybox",
            "data": {"scenario": SCENARIO, "set": data_set, "t_end": 40.0, "sample_dt": 1.0 / rate},
            "noise": {"snr_db": snr, "seed": seed},
            "model": {"scenario": SCENARIO, "set": model_set},
            "candidates": list(TRUTH),
            "options": {"optimizer": "levenberg_marquardt"}}


def identify(fivsim, law, snr, rate, seed, threads):
    with tempfile.TemporaryDirectory(prefix="fivsim_laws_") as tmp:
        path = os.path.join(tmp, "config.json")
        with open(path, "w") as f:
            json.dump(config(law, snr, rate, seed), f)
        out = os.path.join(tmp, "out")
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        r = subprocess.run([fivsim, "identify", path, "--out", out], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            sys.exit("law_selection: %s failed:\n%s" % (path, r.stderr))
        with open(os.path.join(out, "identified.json")) as f:
            j = json.load(f)
    ranked = sorted(j["candidates"], key=lambda c: c["rank"])
    mine = next(c for c in j["candidates"] if c["law"] == law)
    covered = [lo <= mine["truth"][p] <= hi for p, (lo, hi) in mine["interval_95"].items()
               if mine["interval_95"][p] is not None and p in mine.get("truth", {})]
    return {"law": law, "snr_db": snr, "rate_hz": rate, "seed": seed, "best": ranked[0]["law"],
            "true_rank": mine["rank"], "true_delta_bic": mine["delta_bic"],
            "runner_up": ranked[1]["law"] if ranked[0]["law"] == law else ranked[0]["law"],
            "parameters": len(mine["interval_95"]), "covered": sum(covered), "intervals": len(covered),
            "warnings": len(j["warnings"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"), help="the fivsim binary.")
    ap.add_argument("--seeds", type=int, default=20, help="noise seeds per cell.")
    ap.add_argument("--jobs", type=int, default=2, help="identifications run side by side.")
    ap.add_argument("--laws", default=",".join(TRUTH), help="the true laws, comma-separated.")
    ap.add_argument("--snr", default="60,40,30", help="noise levels in dB, comma-separated.")
    ap.add_argument("--rates", default="200,1000", help="sampling rates in Hz, comma-separated.")
    ap.add_argument("--csv", default=None, help="write every fit's row to this CSV file.")
    a = ap.parse_args()
    laws = a.laws.split(",")
    cells = [(law, float(s), int(r)) for law in laws for s in a.snr.split(",") for r in a.rates.split(",")]
    threads = max(1, (os.cpu_count() or 1) // a.jobs)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(identify, a.fivsim, law, snr, rate, seed, threads)
                   for law, snr, rate in cells for seed in range(1, a.seeds + 1)]
        for f in futures:
            rows.append(f.result())
    print("%-18s %6s %6s %14s %16s %9s  %s" % ("true law", "dB", "Hz", "ranked first", "intervals hold",
                                              "warnings", "runner-up (most often)"))
    for law, snr, rate in cells:
        cell = [r for r in rows if r["law"] == law and r["snr_db"] == snr and r["rate_hz"] == rate]
        first = sum(r["best"] == law for r in cell)
        held = sum(r["covered"] for r in cell)
        total = sum(r["intervals"] for r in cell)
        warned = sum(r["warnings"] > 0 for r in cell)
        runners = [r["runner_up"] for r in cell]
        runner = max(set(runners), key=runners.count)
        print("%-18s %6g %6d %8d/%-5d %10d/%-5d %9d  %s" % (law, snr, rate, first, len(cell), held, total, warned,
                                                            runner))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
