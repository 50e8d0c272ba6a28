#!/usr/bin/env python3
"""MPI scaling table of BENCHMARKS.md: one sweep run as a single process and under mpirun with
1, 2, ... ranks (each rank `--threads` threads, CPU backend by default), checking that every run
writes the single process's cases.csv and points.csv byte for byte, and printing the end-to-end
rate, each rank's share and stepping rate, and the speed-up over the single process.

usage: scripts/bench/bench_mpi_scaling.py --fivsim build/fivsim [--ranks 1,2] [--threads 1]
                                    [--scenario scenarios/chain2_load_sweep.json] [--set PTR=V ...]
                                    [--device cpu] [--chunk N] [--out DIR] [--json FILE]
(any --set replaces the default overrides, which suit the default scenario)
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env=None):
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=env)


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--scenario", default=os.path.join(HERE, "..", "..", "scenarios", "chain2_load_sweep.json"))
    # overrides of the scenario; without any, those of the CPU table (the load sweep's 2000 loads)
    ap.add_argument("--set", action="append", default=None)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--chunk", type=int, default=32)
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    if a.set is None:
        a.set = ["/integrator/t_end=100", "/analysis/t_transient=50", "/sweep/parameters/0/linspace=[1,30,2000]"]

    out = a.out or tempfile.mkdtemp(prefix="fivsim_mpi_scaling_")
    common = ["sweep", a.scenario, "-q", "--device", a.device, "--threads", str(a.threads), "--chunk", str(a.chunk),
              "--format", "csv"]
    for s in a.set:
        common += ["--set", s]
    # mpirun refuses root unless told; more ranks than cores may be asked for on a small machine
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")

    single = os.path.join(out, "single")
    shutil.rmtree(single, ignore_errors=True)
    run([a.fivsim, *common, "--out", single])
    base = summary(single)
    rows = [("single process", 1, base, True)]
    # the files a scenario writes (points.csv only where /output/points is on)
    compared = [f for f in ("cases.csv", "points.csv") if os.path.exists(os.path.join(single, f))]
    for n in [int(x) for x in a.ranks.split(",")]:
        d = os.path.join(out, "ranks%d" % n)
        shutil.rmtree(d, ignore_errors=True)
        run([a.mpirun, "--oversubscribe", "-np", str(n), "--map-by", "slot:PE=%d" % a.threads, a.fivsim, *common,
             "--out", d], env=env)
        same = all(filecmp.cmp(os.path.join(single, f), os.path.join(d, f), shallow=False) for f in compared)
        rows.append(("mpirun -np %d" % n, n, summary(d), same))

    print()
    print("%d cases x %d steps, %s, %d thread(s) per rank, chunk %d" %
          (base["cases"], base["case_steps"] / max(1, base["cases"]), a.device, a.threads, a.chunk))
    print("%-16s %6s %8s %14s %10s %-40s %s" % ("run", "ranks", "wall s", "end-to-end/s", "speed-up",
                                             "per rank: cases, stepping case-steps/s", "files"))
    report = []
    for name, n, s, same in rows:
        e2e = s["end_to_end_case_steps_per_s"]
        per = ", ".join("%d: %d, %.3g" % (r["rank"], r["cases"], r["case_steps_per_s"]) for r in s["ranks"])
        print("%-16s %6d %8.3f %14.4g %9.2fx %-40s %s" % (name, n, s["wall_s"], e2e,
                                                         e2e / base["end_to_end_case_steps_per_s"], per,
                                                         "identical" if same else "DIFFER"))
        report.append({"run": name, "ranks": n, "wall_s": s["wall_s"], "end_to_end_case_steps_per_s": e2e,
                       "case_steps_per_s": s["case_steps_per_s"], "per_rank": s["ranks"], "files_identical": same})
    devices = sorted({r.get("device", "") for _, _, s, _ in rows for r in s["ranks"]})
    print("devices: %s; files compared: %s" % ("; ".join(devices), ", ".join(compared)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if not all(r["files_identical"] for r in report):
        print("files differ from the single process", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
