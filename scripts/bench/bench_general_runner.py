#!/usr/bin/env python3
"""The CPU's general runner (Moreau with Lemke, RK4-LCP, Gauss IRK-LCP, the Lyapunov twin) and the
switching runner, one thread, in case-steps per second of stepping (summary.json's
case_steps_per_s: the runner's loop, files excluded). The runs are BENCHMARKS.md's profile
commands: the seeds' Model II (2 DoF, one spring contact: the general runner's 2-DoF one-contact
shape), Model I (1 DoF, exact 1 x 1) with RK4-LCP and the 2-DoF chain with the switching
integrator.

--against OTHER runs a second binary (an earlier build) on the same commands, alternating with
the first, and prints the ratio; --capacity also runs the first binary with
FIVSIM_GENERAL_SHAPES=capacity (the 2 x 2 capacity instantiation instead of the exact one of the
model's shape). --repeat N keeps each run's best of N (a shared machine's noise is one-sided).

usage: scripts/bench/bench_general_runner.py [--fivsim build/fivsim] [--against OTHER] [--capacity]
                                             [--repeat 3] [--only moreau,irk] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
S = os.path.join(ROOT, "scenarios")

RUNS = {
    "moreau": ["model2_mu_scan.json", "--set", "/sweep/parameters/0/linspace=[0,1.5,1001]"],
    "rk4lcp": ["model2_mu_scan.json", "--set", '/integrator/method="rk4lcp"', "--set",
               "/sweep/parameters/0/linspace=[0.8,1.4,601]"],
    "irk": ["model2_mu_scan.json", "--set", '/integrator/method="irk"', "--set", "/integrator/order=3", "--set",
            "/sweep/parameters/0/linspace=[0.8,1.4,601]"],
    "lyapunov": ["model2_mu_scan.json", "--set", '/analysis/lyapunov={"every":10}', "--set",
                 "/sweep/parameters/0/linspace=[0.8,1.4,401]"],
    "model1_rk4lcp": ["model1_v0_delta_grid.json", "--set", '/integrator/method="rk4lcp"', "--set",
                      "/integrator/t_end=100", "--set", "/analysis/t_transient=50"],
    "switching": ["chain2_bifurcation.json", "--set", "/sweep/parameters/0/linspace=[1,30,60]"],
}


def run(fivsim, name, env_extra):
    args = RUNS[name]
    with tempfile.TemporaryDirectory() as out:
        cmd = [fivsim, "sweep", os.path.join(S, args[0])] + args[1:] + ["-q", "--device", "cpu", "--threads", "1",
                                                                        "--out", os.path.join(out, "o")]
        env = dict(os.environ, **env_extra)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if p.returncode != 0:
            sys.exit("failed: " + " ".join(cmd) + "\n" + p.stderr.decode())
        with open(os.path.join(out, "o", "summary.json")) as f:
            s = json.load(f)
    return s["case_steps_per_s"], " ".join(cmd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--against")
    ap.add_argument("--capacity", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=",".join(RUNS))
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.repeat < 1:
        sys.exit("--repeat: at least 1")
    names = a.only.split(",")
    for n in names:
        if n not in RUNS:
            sys.exit(f"--only: unknown run {n} (known: {', '.join(RUNS)})")
    variants = [("this", a.fivsim, {})]
    if a.capacity:
        variants.append(("capacity", a.fivsim, {"FIVSIM_GENERAL_SHAPES": "capacity"}))
    if a.against:
        variants.append(("against", a.against, {}))
    rows = []
    head = f"{'run':<15}" + "".join(f"{v[0] + ' steps/s':>22}" for v in variants)
    head += "".join(f"{'this / ' + v[0]:>18}" for v in variants[1:])
    print(head)
    for name in names:
        best = {v[0]: 0.0 for v in variants}
        command = ""
        for _ in range(a.repeat):
            # alternating, so that a slow spell of the machine falls on every variant alike
            for label, binary, env in variants:
                rate, cmd = run(binary, name, env)
                best[label] = max(best[label], rate)
                if label == "this":
                    command = cmd
        line = f"{name:<15}" + "".join(f"{best[v[0]]:>22.3e}" for v in variants)
        line += "".join(f"{best['this'] / best[v[0]]:>18.2f}" for v in variants[1:])
        print(line, flush=True)
        rows.append({"run": name, "command": command, "case_steps_per_s": best})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
