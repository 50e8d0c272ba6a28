#!/usr/bin/env python3
"""The sweep kernel and the JAX Pallas peer's kernel side by side in Nsight Compute: per case-step
the FP64 operations (add, mul, and fma counted twice) and the thread instructions, and per launch
the registers a thread, the theoretical and achieved occupancy, the FP64 pipe's and DRAM's share of
their peaks and the kernel's rate — so that a gap between fivsim and its peer reads as more work a
step, or the same work done less efficiently. The problem is BENCHMARKS.md's benchmark chain
(scenarios/chain2_bench_random.json: the 2-DoF chain, Moreau, double), at --cases × --steps, with
fivsim's lean and bifurcation observers and the peer's lean and full ones
(scripts/bench/bench_sweep_jax.py --formulations pallas).

usage: scripts/bench/profile_sweep_kernels.py --fivsim build/fivsim [--peer-python PY] [--cases 1000000]
                                        [--steps 200] [--out DIR] [--json FILE] [--no-jax] [--seconds 60]
Needs `ncu` on the PATH; metrics this ncu does not know (`ncu --query-metrics`) are left out.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "scenarios", "chain2_bench_random.json")

FP64 = ["sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
        "sm__sass_thread_inst_executed_op_dfma_pred_on.sum"]
# what each column of the table is, by metric
LAUNCH = {
    "registers": "launch__registers_per_thread",
    "block": "launch__block_size",
    "blocks_per_sm_by_registers": "launch__occupancy_limit_registers",
    "blocks_per_sm_by_warps": "launch__occupancy_limit_warps",
    "occupancy_achieved_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "fp64_pipe_pct": "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
    "dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "thread_instructions": "smsp__thread_inst_executed.sum",
    "seconds": "gpu__time_duration.sum",
}


def known_metrics():
    """the base names of the metrics this ncu and GPU know"""
    res = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True)
    return {line.split()[0] for line in res.stdout.splitlines() if line.strip() and not line.startswith(("-", "Device"))}


def metrics_to_ask(known):
    """the table's metrics this ncu knows (a launch's own figures are always there; an unknown
    metric would fail the whole run)"""
    wanted = FP64 + list(LAUNCH.values())
    return [m for m in wanted if not known or m.startswith(("launch__", "gpu__time")) or m.split(".")[0] in known]


def profile(cmd, metrics, kernel_regex=None, count=12, seconds=None, env=None):
    """the first `count` profiled launches of `cmd`, each as {metric: value} with its kernel's name
    (none where it runs past `seconds`)"""
    ncu = ["ncu", "--clock-control", "none", "--csv", "--metrics", ",".join(metrics), "--launch-count", str(count)]
    if kernel_regex:
        ncu += ["--kernel-name", "regex:" + kernel_regex]
    print("$", " ".join(ncu + cmd), flush=True)
    try:
        res = subprocess.run(ncu + cmd, capture_output=True, text=True, timeout=seconds,
                             env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        print("ncu ran past %g s" % seconds, flush=True)
        return []
    launches = {}
    rows = [r for r in csv.reader(l for l in res.stdout.splitlines() if l.startswith('"'))]
    if not rows:
        print("ncu printed no rows:\n" + res.stdout[-2000:] + res.stderr[-2000:])
        if len(metrics) > len(FP64) + 1:
            print("again with the FP64 counts and the duration alone", flush=True)
            return profile(cmd, FP64 + [LAUNCH["seconds"]], kernel_regex, count, seconds, env)
        return []
    head = rows[0]
    col = {name: head.index(name) for name in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")}
    for r in rows[1:]:
        launch = launches.setdefault(r[col["ID"]], {"kernel": r[col["Kernel Name"]]})
        value = r[col["Metric Value"]].replace(",", "")
        try:
            v = float(value)
        except ValueError:
            continue
        # durations in seconds, whatever unit this ncu prints
        scale = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0,
                 "second": 1.0}.get(r[col["Metric Unit"]], 1e-9)  # ncu's own unit of time, ns, where unnamed
        launch[r[col["Metric Name"]]] = v * (scale if r[col["Metric Name"]] == LAUNCH["seconds"] else 1.0)
    return list(launches.values())


def summarise(launch, case_steps):
    """one profiled launch as the table's row: per case-step counts, the launch's figures"""
    row = {"kernel": launch["kernel"][:90]}
    if all(m in launch for m in FP64):
        row["fp64_per_case_step"] = (launch[FP64[0]] + launch[FP64[1]] + 2 * launch[FP64[2]]) / case_steps
    for name, metric in LAUNCH.items():
        if metric in launch:
            row[name] = launch[metric]
    if "thread_instructions" in row:
        row["instructions_per_case_step"] = row.pop("thread_instructions") / case_steps
    if row.get("seconds"):
        row["case_steps_per_s"] = case_steps / row["seconds"]
    # resident warps of a multiprocessor (64 on sm_80 … sm_90) as the launch's limits allow
    limits = [row[k] for k in ("blocks_per_sm_by_registers", "blocks_per_sm_by_warps") if row.get(k)]
    if limits and row.get("block"):
        row["occupancy_theoretical_pct"] = 100.0 * min(64.0, min(limits) * row["block"] / 32.0) / 64.0
    return row


def heaviest(launches):
    """the launch that did the most FP64 work (the peer's run also launches copies and reductions)"""
    return max(launches, key=lambda l: sum(l.get(m, 0.0) for m in FP64), default=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("--peer-python", default=sys.executable, help="the python3 that has JAX")
    # enough cases to fill the device (20 000 leave an H200's 132 multiprocessors 7 % occupied), few steps
    ap.add_argument("--cases", type=int, default=1000000)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--out", default="runs/profile_sweep_kernels")
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--seconds", type=float, default=60.0, help="the most one profiled run may take")
    a = ap.parse_args()
    if not shutil.which("ncu"):
        print("profile_sweep_kernels: no ncu on the PATH", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    metrics = metrics_to_ask(known_metrics())
    case_steps = float(a.cases) * a.steps
    dt = 1e-3
    cols = [("fp64_per_case_step", "FP64/step", "%9.1f"), ("instructions_per_case_step", "instr/step", "%10.1f"),
            ("registers", "regs", "%5.0f"), ("occupancy_theoretical_pct", "occ theo %", "%10.1f"),
            ("occupancy_achieved_pct", "occ achv %", "%10.1f"), ("fp64_pipe_pct", "FP64 pipe %", "%11.1f"),
            ("dram_pct", "DRAM %", "%7.1f"), ("case_steps_per_s", "case-steps/s", "%13.3g")]
    header = "%-24s" % ("%d x %d" % (a.cases, a.steps)) + "".join(" %*s" % (len(f % 0), h) for _, h, f in cols)
    rows = {}

    def measured(name, launch):
        """a kernel's row, printed at once (a later run may not finish)"""
        if not launch:
            return
        rows[name] = row = summarise(launch, case_steps)
        print(header + "\n%-24s" % name + "".join(" " + (f % row[k] if k in row else "%*s" % (len(f % 0), "-"))
                                                  for k, _, f in cols) + "\n  " + row["kernel"], flush=True)

    for observers in ("lean", "bifurcation"):
        cmd = [a.fivsim, "sweep", SCENARIO, "-q", "--device", "cuda", "--out", os.path.join(a.out, observers),
               "--set", "/sweep/samples=%d" % a.cases, "--set", "/integrator/t_end=%g" % (a.steps * dt),
               "--set", "/analysis/t_transient=%g" % (a.steps * dt / 2), "--set", '/analysis/observers="%s"' % observers]
        measured("fivsim " + observers, heaviest(profile(cmd, metrics, "belt_kernel|sweep_kernel", 1, a.seconds)))
    if not a.no_jax:
        for observers in ("lean", "full"):
            cmd = [a.peer_python, os.path.join(HERE, "bench_sweep_jax.py"), "--cases", str(a.cases), "--steps",
                   str(a.steps), "--dt", str(dt), "--t-transient", str(a.steps * dt / 2), "--formulations", "pallas",
                   "--pallas-unrolls", "8", "--blocks", "128", "--repeat", "1", "--observers", observers]
            # JAX's default pool (three quarters of the device) would be saved and restored at every
            # replay of a profiled kernel
            measured("JAX pallas " + observers, heaviest(profile(cmd, metrics, None, 30, a.seconds,
                                                                 {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"})))
    print("\n" + header)
    for name, row in rows.items():
        print("%-24s" % name + "".join(" " + (f % row[k] if k in row else "%*s" % (len(f % 0), "-")) for k, _, f in cols))
    if a.json:
        with open(a.json, "w") as f:
            # a row a kernel, as scripts/tools/gpu_tables.py prints a list of records
            json.dump([dict(run=name, cases=a.cases, steps=a.steps, **row) for name, row in rows.items()], f, indent=1)
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
