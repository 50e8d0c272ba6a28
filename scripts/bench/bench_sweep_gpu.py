#!/usr/bin/env python3
"""GPU sweep benchmark of BENCHMARKS.md: fivsim's figure of merit (case-steps per second for the
2-DoF chain with Moreau, 10^6 cases x 10^4 steps, scenarios/chain2_bench_random.json) on the CUDA
backend with the lean observers (RMS only) and the bifurcation observers (the default), in double
and float, and on the CPU backend, beside the JAX peer (scripts/bench/bench_sweep_jax.py) on the same GPU
in the same command, lean and with the same full observers, with the ratios:
    lean fivsim / lean Pallas peer, lean fivsim / lean XLA peer,
    bifurcation fivsim / lean Pallas peer, bifurcation fivsim / best full-observer peer.
Also the registers, stack and spills of every sweep kernel (cuobjdump --dump-resource-usage) and,
with --ncu, the FP64 instructions per case-step of the belt kernel from Nsight Compute for the
fraction of the GPU's FP64 peak. With --fmad-fivsim, a second binary built with FIVSIM_CUDA_FMAD=ON
(nvcc fuses multiply-adds) runs the two GPU double sweeps too: what the default build's
--fmad=false, which makes the device round as the CPU does, costs, and how far the fused results
move (cases whose class differs, the largest relative difference of the rms columns). With
--min-blocks, the GPU double runs again with the specialised kernels' launch bounds asking for that
many resident blocks a multiprocessor: their rates against the default's, beside their registers.

usage: scripts/bench/bench_sweep_gpu.py --fivsim build/fivsim [--cases 1000000] [--cpu-cases 30000]
                                  [--ncu] [--fp64-peak 33.5e12] [--out DIR] [--json FILE]
                                  [--fmad-fivsim build-fma/fivsim] [--no-cpu] [--min-blocks 2,3,4]
Run it with the python3 that has JAX (on the device machines: /opt/torch/.venv/bin/python3).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

import profile_sweep_kernels

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "scenarios", "chain2_bench_random.json")


def sweep(fivsim, out, *extra, env=None):
    cmd = [fivsim, "sweep", SCENARIO, "-q", "--out", out, *extra]
    print("$", " ".join(("%s=%s" % kv for kv in (env or {}).items())), " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=dict(os.environ, **env) if env else None)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return {"command": " ".join(cmd), "case_steps_per_s": s["case_steps_per_s"],
            "end_to_end_case_steps_per_s": s["end_to_end_case_steps_per_s"], "wall_s": s["wall_s"],
            "setup_s": s["setup_s"], "compute_s": s["compute_s"], "cases": s["cases"], "device": s["device"],
            "threads": s["threads"], "precision": s["precision"], "kernel": s.get("kernel", {})}


def fp64_per_case_step(fivsim, out):
    """FP64 operations per case-step of the sweep kernel (bifurcation observers), counted by Nsight
    Compute (profile_sweep_kernels.py has the whole profile, the peer's kernel beside)"""
    cases, steps = 20000, 2000
    cmd = [fivsim, "sweep", SCENARIO, "-q", "--out", out, "--device", "cuda", "--set", "/sweep/samples=%d" % cases,
           "--set", "/integrator/t_end=%g" % (steps * 1e-3), "--set", "/analysis/t_transient=%g" % (steps * 0.5e-3)]
    launch = profile_sweep_kernels.heaviest(
        profile_sweep_kernels.profile(cmd, profile_sweep_kernels.FP64, "belt_kernel|sweep_kernel", count=1))
    if not launch:
        return None
    row = profile_sweep_kernels.summarise(launch, float(cases) * steps)
    return {"flops_per_case_step": row["fp64_per_case_step"], "counts": {m: launch[m] for m in profile_sweep_kernels.FP64},
            "command": " ".join(cmd)}


def kernel_resources(fivsim):
    """registers, stack, shared and local bytes of each sweep kernel in the binary, by kernel"""
    if not shutil.which("cuobjdump"):
        return []
    # a device bundle's programs are wrapper scripts (scripts/tools/device_bundle.sh): read the binary
    real = os.path.join(os.path.dirname(os.path.realpath(fivsim)), "..", "real", os.path.basename(fivsim))
    with open(fivsim, "rb") as f:
        if f.read(2) == b"#!" and os.path.exists(real):
            fivsim = real
    res = subprocess.run(["cuobjdump", "--dump-resource-usage", fivsim], capture_output=True, text=True)
    kernels, name = [], None
    for line in res.stdout.splitlines():
        line = line.strip()
        if line.startswith("Function "):
            name = line[len("Function "):].rstrip(":")
        elif name and line.startswith("REG:"):
            if "belt_kernel" in name or "sweep_kernel" in name:
                fields = dict(f.split(":", 1) for f in line.split() if ":" in f)
                demangled = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
                kernels.append({"kernel": demangled, "registers": int(fields.get("REG", 0)),
                                "stack": int(fields.get("STACK", 0)), "shared": int(fields.get("SHARED", 0)),
                                "local": int(fields.get("LOCAL", 0))})
            name = None
    return kernels


def compare_cases(a_dir, b_dir):
    """cases whose class differs between two runs' cases.csv, and the largest relative difference
    of their rms columns (relative to 1e-12 + |a|)"""
    with open(os.path.join(a_dir, "cases.csv")) as fa, open(os.path.join(b_dir, "cases.csv")) as fb:
        ra, rb = csv.DictReader(fa), csv.DictReader(fb)
        rms = [c for c in ra.fieldnames if c.startswith("rms_")]
        classes, worst, n = 0, 0.0, 0
        for x, y in zip(ra, rb):
            n += 1
            classes += x.get("class") != y.get("class")
            for c in rms:
                u, v = float(x[c]), float(y[c])
                if u == u and v == v:
                    worst = max(worst, abs(u - v) / (1e-12 + abs(u)))
    return {"cases": n, "classes_differ": classes, "worst_rms_rel": worst}


def jax_peer(out, cases, observers, formulations):
    jax_json = os.path.join(out, "jax_%s.json" % observers)
    cmd = [sys.executable, os.path.join(HERE, "bench_sweep_jax.py"), "--cases", str(cases), "--steps", "10000",
           "--dt", "1e-3", "--t-transient", "5", "--formulations", formulations, "--unrolls", "8",
           "--pallas-unrolls", "8", "--blocks", "128", "--repeat", "3", "--observers", observers, "--json", jax_json]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(jax_json) as f:
        j = json.load(f)
    return {"command": " ".join(cmd), "best": j["best"], "best_xla": j.get("best_xla"), "version": j.get("jax_version")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fivsim", required=True, help="the fivsim binary")
    ap.add_argument("--cases", type=int, default=1000000)
    ap.add_argument("--cpu-cases", type=int, default=30000, help="cases of the CPU backend runs")
    ap.add_argument("--ncu", action="store_true", help="count FP64 operations with Nsight Compute")
    ap.add_argument("--fp64-peak", type=float, default=33.5e12,
                    help="FP64 peak of the GPU without tensor cores (H100 SXM: 33.5e12 per its datasheet)")
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--device", default="cuda",
                    help="the backend of the 'gpu' runs (cpu: scripts/tools/gpu_checks.sh --dry checks this script on the CPU)")
    ap.add_argument("--fmad-fivsim", default=None,
                    help="a fivsim built with -DFIVSIM_CUDA_FMAD=ON: the cost of --fmad=false")
    ap.add_argument("--no-cpu", action="store_true", help="skip the CPU backend runs")
    ap.add_argument("--min-blocks", default="",
                    help="comma-separated resident blocks a multiprocessor for the specialised kernels' launch "
                         "bounds (FIVSIM_KERNEL_MIN_BLOCKS): the GPU double runs again at each, registers beside rates")
    ap.add_argument("--out", default="runs/bench_sweep_gpu")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    n = ["--set", "/sweep/samples=%d" % a.cases]
    lean = ["--set", '/analysis/observers="lean"']
    rep = {"gpu_lean": sweep(a.fivsim, os.path.join(a.out, "gpu_lean"), "--device", a.device, *n, *lean),
           "gpu_double": sweep(a.fivsim, os.path.join(a.out, "gpu_double"), "--device", a.device, *n),
           "gpu_float": sweep(a.fivsim, os.path.join(a.out, "gpu_float"), "--device", a.device, "--precision", "float", *n),
           }
    if not a.no_cpu:
        rep["cpu_all"] = sweep(a.fivsim, os.path.join(a.out, "cpu_all"), "--device", "cpu",
                               "--set", "/sweep/samples=%d" % a.cpu_cases)
        rep["cpu_one"] = sweep(a.fivsim, os.path.join(a.out, "cpu_one"), "--device", "cpu", "--threads", "1",
                               "--set", "/sweep/samples=%d" % max(1, a.cpu_cases // 10))
    for blocks in [b for b in a.min_blocks.split(",") if b]:
        # registers against occupancy: the specialised kernels held to the registers `blocks`
        # resident blocks leave
        env = {"FIVSIM_KERNEL_MIN_BLOCKS": blocks}
        rep["min_blocks_%s_lean" % blocks] = sweep(a.fivsim, os.path.join(a.out, "gpu_lean_mb%s" % blocks), "--device",
                                                  a.device, *n, *lean, env=env)
        rep["min_blocks_%s_double" % blocks] = sweep(a.fivsim, os.path.join(a.out, "gpu_double_mb%s" % blocks),
                                                    "--device", a.device, *n, env=env)
    if a.fmad_fivsim:
        # both builds write cases.csv for the comparison
        csv_out = ["--format", "both"]
        for name, extra in (("lean", lean), ("double", [])):
            plain = os.path.join(a.out, "gpu_%s_csv" % name)
            fused = os.path.join(a.out, "gpu_%s_fmad" % name)
            rep["nofma_" + name] = sweep(a.fivsim, plain, "--device", a.device, *n, *extra, *csv_out)
            rep["fmad_" + name] = sweep(a.fmad_fivsim, fused, "--device", a.device, *n, *extra, *csv_out)
            rep["fmad_" + name]["against_nofma"] = compare_cases(plain, fused)
    if not a.no_jax:
        rep["jax"] = jax_peer(a.out, a.cases, "lean", "vmap,pallas")
        rep["jax_full"] = jax_peer(a.out, a.cases, "full", "vmap,pallas")
    if a.ncu:
        rep["ncu"] = fp64_per_case_step(a.fivsim, os.path.join(a.out, "ncu"))
    rep["kernels"] = kernel_resources(a.fivsim)

    g = rep["gpu_double"]["case_steps_per_s"]
    gl = rep["gpu_lean"]["case_steps_per_s"]
    print("\n%-56s %14s %12s" % ("run", "case-steps/s", "ratio"))
    print("%-56s %14.3g %12s" % ("fivsim cuda double, lean observers (kernel)", gl, ""))
    print("%-56s %14.3g %12s" % ("fivsim cuda double, lean observers (end to end)",
                                 rep["gpu_lean"]["end_to_end_case_steps_per_s"], ""))
    print("%-56s %14.3g %12s" % ("fivsim cuda double, bifurcation observers (kernel)", g, ""))
    print("%-56s %14.3g %12s" % ("fivsim cuda double, bifurcation observers (end to end)",
                                 rep["gpu_double"]["end_to_end_case_steps_per_s"], ""))
    print("%-44s %14.3g %11.2fx" % ("fivsim cuda float (kernel)", rep["gpu_float"]["case_steps_per_s"],
                                    rep["gpu_float"]["case_steps_per_s"] / g))
    if "cpu_all" in rep:
        cpu_all, cpu_one = rep["cpu_all"], rep["cpu_one"]
        print("%-44s %14.3g %12s" % ("fivsim cpu, %d threads" % cpu_all["threads"], cpu_all["case_steps_per_s"], ""))
        print("%-44s %14.3g %12s" % ("fivsim cpu, 1 thread", cpu_one["case_steps_per_s"], ""))
    for blocks in [b for b in a.min_blocks.split(",") if b]:
        for name, base in (("lean", gl), ("double", g)):
            run = rep["min_blocks_%s_%s" % (blocks, name)]
            k = run.get("kernel", {})
            print("%-44s %14.3g %11.2fx   (REG %s, spilled %s)" %
                  ("fivsim cuda double, %s, min blocks %s" % ("lean" if name == "lean" else "bifurcation", blocks),
                   run["case_steps_per_s"], run["case_steps_per_s"] / base, k.get("registers", "?"),
                   k.get("spill_stores", "?")))
    for name in ("lean", "double") if a.fmad_fivsim else ():
        plain, fused = rep["nofma_" + name], rep["fmad_" + name]
        d = fused["against_nofma"]
        print("%-44s %14.3g %11.2fx   (against --fmad=false %.3g; %d of %d classes differ, rms within %.2g)" %
              ("fivsim cuda double, %s, fused multiply-add" % ("lean" if name == "lean" else "bifurcation"),
               fused["case_steps_per_s"], fused["case_steps_per_s"] / plain["case_steps_per_s"],
               plain["case_steps_per_s"], d["classes_differ"], d["cases"], d["worst_rms_rel"]))
    if "jax" in rep:
        best, bx = rep["jax"]["best"], rep["jax"]["best_xla"]
        full = rep["jax_full"]["best"]
        print("%-56s %14.3g" % ("JAX lean, best (%s)" % best["formulation"], best["rate"]))
        if bx:
            print("%-56s %14.3g" % ("JAX lean, XLA only (%s, unroll %d)" % (bx["formulation"], bx["unroll"]), bx["rate"]))
        print("%-56s %14.3g" % ("JAX full observers, best (%s)" % full["formulation"], full["rate"]))
        print("ratios (fivsim double / peer):")
        print("  lean fivsim / lean JAX best:              %6.2fx   (target >= 1.0)" % (gl / best["rate"]))
        if bx:
            print("  lean fivsim / lean JAX XLA:               %6.2fx   (target >= 2.0)" % (gl / bx["rate"]))
        print("  bifurcation fivsim / lean JAX best:       %6.2fx   (target >= 0.5)" % (g / best["rate"]))
        print("  bifurcation fivsim / full-observer JAX:   %6.2fx   (target >= 1.0)" % (g / full["rate"]))
    for k in rep["kernels"]:
        print("kernel %-100s REG %3d STACK %5d LOCAL %5d" % (k["kernel"][:100], k["registers"], k["stack"], k["local"]))
    # the kernels each run compiled for its scenario (summary.json's kernel)
    for name, run in rep.items():
        k = run.get("kernel") if isinstance(run, dict) else None
        if k and k.get("kernel") == "specialised":
            print("specialised kernel of %-30s REG %3d LOCAL %5d SPILLED %s (%s)" %
                  (name, k.get("registers", -1), k.get("local_bytes", -1),
                   k["spill_stores"] if k.get("spill_stores", -1) >= 0 else "? (cached)", k.get("how", "")))
    if rep.get("ncu"):
        f = rep["ncu"]["flops_per_case_step"]
        rep["fp64_fraction_of_peak"] = f * g / a.fp64_peak
        print("FP64 operations per case-step: %.1f; at %.3g case-steps/s: %.3g FLOP/s = %.2f%% of %.3g" %
              (f, g, f * g, 100 * f * g / a.fp64_peak, a.fp64_peak))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rep, f, indent=1)


if __name__ == "__main__":
    main()
