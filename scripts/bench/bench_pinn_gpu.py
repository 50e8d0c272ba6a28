#!/usr/bin/env python3
"""Batched-network benchmark of BENCHMARKS.md: fivsim's fused forward + backward of B
small MLPs (scripts/bench/mlp_batch_bench.cpp: the CUDA backend in each mapping of networks onto
threads, cuBLAS's batched products among them, and the CPU backend) beside the PyTorch peer (scripts/bench/bench_mlp_torch.py: vmap,
torch.compile, hand-batched bmm in a CUDA graph) on the same GPU in the same command, for the
seed papers' layouts: the dynamic IRK-PINN 7 x 20 (2 inputs, 10 outputs: Model II with 4 stages)
and the LCP-PINN 3 x 5 (1 input, 4 outputs), at 1 and 32 points per network. Prints a table with
the ratios and writes the JSON. Then, unless --train-steps 0, the same layouts trained: forward +
backward + Adam step of every network per step (fivsim: all steps in one launch, the optimizer over
each network's group of lanes; PyTorch: vmap or autograd + torch.optim.Adam in a CUDA graph), in a
second table of seconds per step.

usage: scripts/bench/bench_pinn_gpu.py --bench build/fivsim_bench_mlp [--networks 10000]
                                 [--precision double] [--train-steps 100] [--json FILE]
"""
import argparse
import json
import subprocess
import sys

LAYOUTS = [("20x7", 2, 10, "IRK-PINN 7x20"), ("5x3", 1, 4, "LCP-PINN 3x5")]
MAPPINGS = ("thread", "group", "points", "gemm")  # the CUDA mappings fivsim_bench_mlp times


def run_json(cmd):
    print("$", " ".join(cmd), flush=True)
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stdout + res.stderr)
        return {"error": "exit %d" % res.returncode}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--networks", type=int, default=10000)
    ap.add_argument("--precision", default="double")
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--python", default=sys.executable, help="python3 with PyTorch")
    ap.add_argument("--train-steps", type=int, default=100, help="Adam steps of the training table (0: none)")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    for hidden, nin, nout, name in LAYOUTS:
        for points in (1, 32):
            common = ["--networks", str(a.networks), "--points", str(points), "--hidden", hidden, "--inputs", str(nin),
                      "--outputs", str(nout), "--repeats", str(a.repeats), "--precision", a.precision]
            ours = run_json([a.bench] + common)
            peer = run_json([a.python, __file__.replace("bench_pinn_gpu.py", "bench_mlp_torch.py")] + common)
            ratio = peer["best_s"] / ours["gpu_s"] if ours.get("gpu_s") and peer.get("best_s") else None
            rows.append({"layout": name, "points": points, "fivsim": ours, "torch": peer, "ratio_vs_torch": ratio})
    print("\n| network | points | fivsim GPU (s/batch) | thread / group / points / gemm mapping (s/batch) "
          "| fivsim CPU (s/batch) | PyTorch best (form) | ratio | fastest mapping: ratio "
          "| against double: loss / gradient |")
    print("|---|---|---|---|---|---|---|---|---|")
    nan = float("nan")
    for r in rows:
        f, p = r["fivsim"], r["torch"]
        acc = f.get("against_double", {})
        # the mapping the policy table (pinn/mlp_batch_policy.hpp) should name for this shape
        timed = {m: f["gpu_%s_s" % m] for m in MAPPINGS if f.get("gpu_%s_s" % m)}
        fastest = min(timed, key=timed.get) if timed else None
        print("| %s | %d | %.3g | %s | %.3g | %s (%s) | %s | %s | %s |" % (
            r["layout"], r["points"], f.get("gpu_s", nan),
            " / ".join("%.3g" % f["gpu_%s_s" % m] if f.get("gpu_%s_s" % m) else "n/a" for m in MAPPINGS),
            f.get("cpu_s", nan), "%.3g" % p["best_s"] if "best_s" in p else "n/a", p.get("best", p.get("error", "?")),
            "%.1fx" % r["ratio_vs_torch"] if r["ratio_vs_torch"] else "n/a",
            "%s %.1fx" % (fastest, p["best_s"] / timed[fastest]) if fastest and p.get("best_s") else "n/a",
            "%.1e / %.1e (%s)" % (acc["loss_rel"], acc["grad_rel"], acc.get("of", "?"))
            if a.precision != "double" and acc else "–"))
    train_rows = []
    for hidden, nin, nout, name in LAYOUTS if a.train_steps > 0 else []:
        for points in (1, 32):
            common = ["--networks", str(a.networks), "--points", str(points), "--hidden", hidden, "--inputs", str(nin),
                      "--outputs", str(nout), "--precision", a.precision, "--train-steps", str(a.train_steps)]
            ours = run_json([a.bench] + common)
            peer = run_json([a.python, __file__.replace("bench_pinn_gpu.py", "bench_mlp_torch.py")] + common)
            ratio = peer["best_s"] / ours["gpu_step_s"] if ours.get("gpu_step_s") and peer.get("best_s") else None
            train_rows.append({"layout": name, "points": points, "fivsim": ours, "torch": peer,
                               "ratio_vs_torch": ratio})
    if train_rows:
        print("\n| network | points | fivsim GPU (s/step) | group / gemm mapping (s/step) | fivsim CPU (s/step) "
              "| PyTorch best (form, optimizer) | ratio | loss0 CPU / GPU |")
        print("|---|---|---|---|---|---|---|---|")
        for r in train_rows:
            f, p = r["fivsim"], r["torch"]
            print("| %s | %d | %.3g | %s | %.3g | %s (%s, %s) | %s | %.6g / %.6g |" % (
                r["layout"], r["points"], f.get("gpu_step_s", nan),
                " / ".join("%.3g" % f["gpu_%s_step_s" % m] if f.get("gpu_%s_step_s" % m) else "n/a"
                           for m in ("group", "gemm")), f.get("cpu_step_s", nan),
                "%.3g" % p["best_s"] if "best_s" in p else "n/a", p.get("best", p.get("error", "?")),
                p.get("optimizer", {}).get(p.get("best"), "?") if isinstance(p.get("optimizer"), dict) else "?",
                "%.1fx" % r["ratio_vs_torch"] if r["ratio_vs_torch"] else "n/a",
                f.get("cpu_loss0", nan), f.get("gpu_loss0", nan)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"networks": a.networks, "precision": a.precision, "rows": rows, "training": train_rows}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
