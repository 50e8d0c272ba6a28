#!/usr/bin/env python3
"""PINN sweep benchmark of BENCHMARKS.md: `fivsim sweep scenarios/model1_pinn_v0_sweep.json`
with the lockstep trainings on the GPU against the CPU backend on the same machine's cores, in one
command, for the advanced dual framework with 4 Gauss stages and the advanced single framework with
10, at each case count. Each run is `--steps` steps from t = 0 (all of it counted; no transient), so
the case-steps per second compare like with like. Prints a table with the GPU / CPU ratios and the
classes and training totals of both backends (they must agree), and writes the JSON.

usage: scripts/bench/bench_pinn_sweep.py --fivsim build/fivsim [--cases 1024,10000] [--steps 50]
                                   [--devices cuda,cpu] [--json FILE]
"""
import argparse
import json
import subprocess
import sys
import tempfile

FRAMEWORKS = [("pinn_adv_dual", 4), ("pinn_adv_single", 10)]


def run_sweep(fivsim, method, order, cases, steps, device, out):
    dt = 0.01
    cmd = [fivsim, "sweep", "scenarios/model1_pinn_v0_sweep.json", "-q", "--device", device, "--format", "csv",
           "--out", out, "--set", '/integrator/method="%s"' % method, "--set", "/integrator/order=%d" % order,
           "--set", "/integrator/t_end=%g" % (steps * dt), "--set", "/analysis/t_transient=0",
           "--set", "/sweep/parameters/0/linspace=[0.2,1.2,%d]" % cases]
    print("$", " ".join(cmd), flush=True)
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stdout + res.stderr)
        return {"error": "exit %d" % res.returncode}
    s = json.load(open(out + "/summary.json"))
    classes = {}
    iterations = 0
    with open(out + "/cases.csv") as f:
        head = f.readline().strip().split(",")
        ci, ii = head.index("class"), head.index("pinn_iterations")
        for line in f:
            row = line.strip().split(",")
            classes[row[ci]] = classes.get(row[ci], 0) + 1
            iterations += int(float(row[ii]))
    return {"case_steps_per_s": s["case_steps_per_s"], "compute_s": s["compute_s"], "classes": classes,
            "pinn_iterations": iterations}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True)
    ap.add_argument("--cases", default="1024,10000")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--devices", default="cuda,cpu")
    ap.add_argument("--json")
    a = ap.parse_args()
    devices = a.devices.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for method, order in FRAMEWORKS:
            for n in [int(x) for x in a.cases.split(",")]:
                row = {"method": method, "order": order, "cases": n, "steps": a.steps}
                for d in devices:
                    row[d] = run_sweep(a.fivsim, method, order, n, a.steps, d, "%s/%s_%d_%s" % (tmp, method, n, d))
                rows.append(row)
    print("\n| method | cases × steps | " + " | ".join("%s case-steps/s (s)" % d for d in devices) +
          " | GPU / CPU | classes agree | dynamic iterations " + " / ".join(devices) + " |")
    print("|---|---|" + "---|" * len(devices) + "---|---|---|")
    for r in rows:
        cells = []
        for d in devices:
            x = r[d]
            cells.append("%.4g (%.3g)" % (x["case_steps_per_s"], x["compute_s"]) if "error" not in x else x["error"])
        ok = all("error" not in r[d] for d in devices)
        ratio = r["cuda"]["case_steps_per_s"] / r["cpu"]["case_steps_per_s"] if ok and "cuda" in r and "cpu" in r else None
        same = ok and len({json.dumps(r[d]["classes"], sort_keys=True) for d in devices}) == 1
        its = " / ".join(str(r[d].get("pinn_iterations", "?")) for d in devices)
        print("| %s%d | %d × %d | %s | %s | %s | %s |" % (r["method"], r["order"], r["cases"], r["steps"], " | ".join(cells),
                                                      "**%.1f×**" % ratio if ratio else "n/a", "yes" if same else "NO", its))
        r["ratio_gpu_cpu"] = ratio
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
