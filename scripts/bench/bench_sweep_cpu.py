#!/usr/bin/env python3
"""CPU benchmark of the sweep engine against a hand-written peer, in one command.

The peer (scripts/bench/chain2_moreau_peer.cpp) is a specialised scalar Moreau loop of the 2-DoF
chain, compiled here with g++ -O3 -march=native -fopenmp (g++'s defaults then fuse multiply-adds).
Both run scenarios/chain2_bench_random.json's cases (the same random Fn and initial positions),
`--steps` steps of 1 ms each; fivsim with its lean observers (RMS only, what the peer keeps) and
with the default bifurcation observers, on one thread and on all of them. The figure is
case-steps per second of stepping (fivsim: summary.json's case_steps_per_s, the backend's own
time; the peer: its loop's wall time); the ratio is fivsim / peer at the same thread count.
Also printed: fivsim's whole command (end to end) and how close the two sides' RMS values are
(the peer fuses multiply-adds and divides by m = 1 nowhere, so its last bits differ; chaotic cases
then part ways, so the share of cases within 1e-9 is the figure, not the largest difference).

The roofline: the cores' FP64 peak measured by scripts/bench/fp64_peak.cpp (fused multiply-adds
on independent vectors, compiled like the peer) at each thread count, and fivsim's stepping rate
times its flops per case-step (FLOPS below, counted by hand) as a share of it. A step's state
stays in the L1 cache (a group of lanes is a few KB), so the roof is the FP64 peak, not bandwidth.

usage: scripts/bench/bench_sweep_cpu.py [--fivsim build/fivsim] [--cases 100000] [--steps 10000]
                                  [--threads 1,2] [--repeat 3] [--law exp|rational|tanh|asymmetric|stribeck] [--json FILE]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# the laws the benchmark runs: fivsim's settings for each, the peer's compile flags for the same model
LAWS = {
    "exp": ([], []),
    "rational": (["--set", '/friction={"law":"stribeck_rational","mu_s":0.2,"delta":3}', "--set", "/model/v0=0.5"],
                 ["-DPEER_RATIONAL"]),
    "tanh": (["--set", '/friction={"law":"coulomb_tanh","mu":0.1,"eps":20}'], ["-DPEER_TANH"]),
    "asymmetric": (["--set", '/friction={"law":"asymmetric","Ts_l":0.2328,"Ts_r":0.0928,"T0_l":0.2188,'
                    '"T0_r":0.0917,"alpha":92.6465,"beta":0.0928}'], ["-DPEER_ASYMMETRIC"]),
    "stribeck": (["--set", '/friction={"law":"stribeck","mu_s":0.12,"mu_c":0.045,"v_s":0.1,"alpha":1.5,"mu_v":0.01}'],
                 ["-DPEER_STRIBECK"]),
}


# fivsim's flops per case-step of the 2-DoF chain, per contact (two contacts), counted by hand from
# include/fivsim/cases/belt_runner.hpp (the step), friction/static_laws.hpp (the laws) and
# core/reproducible_math.hpp (the exponential): a division is one flop, a negation, |x|, a
# comparison or a select none
FLOPS = {
    # h = f − Σ_j (C_ij u_j + K_ij q_j) (4 a DoF), u_free = u + dt (0 + M⁻¹ h) (4)
    "free_flight": 4 * 2 + 4,
    # the law at the slip velocity v = u − v_s: the exponential one μ_d + (μ_s − μ_d) e^(−α|v|)
    # (v 1, α|v| 1, e^x 39: reduction 7, r², r⁴, r⁸ 3, Estrin's pairs 20, the tail 5, 2^k 4; the
    # combination 3); the rational one μ_s / (1 + δ|v|) (v 1, δ|v| 1, the sum 1, the quotient 1); the
    # smooth one μ_0 tanh(ε|v|) (v 1, ε|v| 1, tanh 78, both of its forms: 1 − 2/(e^(2|x|) + 1) 43, the
    # polynomial's powers 4, pairs 14 and their sums 14, x + x·y·P 3; the product 1); the asymmetric
    # one, both directions at |v| (v 1, α|v| 1, sech 43: e^x 39, m² 1, 1 + m² 1, 2m 1, the quotient 1;
    # tanh 78; per direction 1 + T0|v| 2, Ts/(…) 1, 1 + β sech 2, the two products 2); the general
    # Stribeck one μ_c + (μ_s − μ_c) e^(−(|v|/v_s)^α) + μ_v|v| (v 1, |v|/v_s 1, ln 31: k 1, f 1,
    # f²/2 2, s 2, s² and s⁴ 2, the two polynomials 5 and 7, their sum 1, the combination 8; α ln 1;
    # e^x 39; μ_s − μ_c, its product, μ_v|v| and the two sums 5)
    "law": {"exp": 1 + 1 + 39 + 3, "rational": 4, "tanh": 1 + 1 + 43 + 4 + 14 + 14 + 3 + 1,
            "asymmetric": 1 + 1 + 43 + 78 + 2 * 7, "stribeck": 1 + 1 + 31 + 1 + 39 + 5},
    # γ_free, the bounds 2, p_T = −γ/g, γ_end 2, λ_T = p_T/dt, 0 + p_T, u 3, q 2
    "impulse": 1 + 2 + 1 + 2 + 1 + 1 + 3 + 2,
    # x − x of q and u and their sum
    "finite_check": 4,
    # per settled step: the sum of squares of q, u, λ_N, λ_T (8); the bifurcation observers add
    # their sums (4) and the changes of q and u over the step (2)
    "statistics": {"lean": 8, "bifurcation": 14},
}


def flops_per_case_step(law, observers, settled_share):
    per_contact = (FLOPS["free_flight"] + FLOPS["law"][law] + FLOPS["impulse"] + FLOPS["finite_check"] +
                   settled_share * FLOPS["statistics"][observers])
    return 2 * per_contact


def build_peak(out_dir):
    exe = os.path.join(out_dir, "fp64_peak")
    src = os.path.join(ROOT, "scripts", "bench", "fp64_peak.cpp")
    subprocess.run(["g++", "-O3", "-march=native", "-mprefer-vector-width=512", "-ffp-contract=fast", "-fopenmp",
                    "-std=c++17", src, "-o", exe], check=True)
    return exe


def measure_peak(exe, threads, seconds=2.0):
    return json.loads(subprocess.run([exe, str(seconds), str(threads)], check=True, capture_output=True,
                                     text=True).stdout)["flops_per_s"]


def build_peer(out_dir, law="exp"):
    exe = os.path.join(out_dir, "chain2_moreau_peer")
    src = os.path.join(ROOT, "scripts", "bench", "chain2_moreau_peer.cpp")
    subprocess.run(["g++", "-O3", "-march=native", "-fopenmp", "-std=c++17", *LAWS[law][1], src, "-o", exe],
                   check=True)
    return exe


def run_fivsim(fivsim, cases, steps, threads, observers, out, law="exp"):
    t_end = steps * 1e-3
    cmd = [fivsim, "sweep", os.path.join(ROOT, "scenarios", "chain2_bench_random.json"), "-q", "--device", "cpu",
           "--threads", str(threads), "--out", out, "--set", f"/sweep/samples={cases}",
           "--set", f"/integrator/t_end={t_end}", "--set", f"/analysis/t_transient={t_end / 2}",
           "--set", f'/analysis/observers="{observers}"', *LAWS[law][0]]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def run_peer(peer, cases, steps, threads, rms_csv=None):
    cmd = [peer, str(cases), str(steps), "1e-3", str(steps * 1e-3 / 2), str(threads)] + ([rms_csv] if rms_csv else [])
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def agreement(fivsim_dir, peer_csv):
    """share of cases whose six RMS values agree within 1e-9 relative, and the median difference"""
    with open(os.path.join(fivsim_dir, "cases.csv")) as f:
        ours = list(csv.DictReader(f))
    with open(peer_csv) as f:
        theirs = list(csv.DictReader(f))
    names = ["rms_q0", "rms_q1", "rms_u0", "rms_u1", "rms_lamT0", "rms_lamT1"]
    worst = []
    for a, b in zip(ours, theirs):
        w = 0.0
        for n in names:
            x, y = float(a[n]), float(b[n])
            w = max(w, abs(x - y) / max(abs(x), abs(y), 1e-300))
        worst.append(w)
    worst.sort()
    return sum(1 for w in worst if w <= 1e-9) / len(worst), worst[len(worst) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--cases", type=int, default=100000)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side; the fastest is kept")
    ap.add_argument("--law", choices=sorted(LAWS), default="exp",
                    help="the chain's friction law: the exponential Stribeck law (the scenario's), the rational "
                         "one (mu_s 0.2, delta 3, belt speed 0.5), the smooth tanh one (mu 0.1, eps 20), seed "
                         "002's asymmetric one or its general Stribeck one (mu_s 0.12, mu_c 0.045, v_s 0.1, "
                         "alpha 1.5, mu_v 0.01)")
    ap.add_argument("--json")
    args = ap.parse_args()
    threads = sorted({int(t) for t in args.threads.split(",")})
    results = {"cases": args.cases, "steps": args.steps, "law": args.law, "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        peer = build_peer(tmp, args.law)
        peak = build_peak(tmp)
        # the share of steps whose end lies in the statistics window (t ≥ t_transient = t_end / 2)
        settled_share = (args.steps - args.steps // 2) / args.steps
        print(f"CPU sweep benchmark: 2-DoF chain ({args.law} law), {args.cases} random cases x {args.steps} Moreau "
              f"steps (double), fastest of {args.repeat}")
        print(f"{'run':44s} {'threads':>7s} {'case-steps/s':>14s} {'fivsim/peer':>12s} {'GFLOP/s':>8s} "
              f"{'of peak':>8s}")
        for t in threads:
            roof = max(measure_peak(peak, t) for _ in range(args.repeat))
            print(f"{'FP64 peak (fp64_peak.cpp, FMA)':44s} {t:7d} {'':14s} {'':12s} {roof / 1e9:8.1f}")
            results["rows"].append({"run": "fp64 peak", "threads": t, "flops_per_s": roof})
            best_peer = max((run_peer(peer, args.cases, args.steps, t) for _ in range(args.repeat)),
                            key=lambda r: r["case_steps_per_s"])
            rate_peer = best_peer["case_steps_per_s"]
            print(f"{'peer: hand-written scalar loop (-O3 -march=native)':44s} {t:7d} {rate_peer:14.4g}")
            results["rows"].append({"run": "peer", "threads": t, "case_steps_per_s": rate_peer})
            for observers in ("lean", "bifurcation"):
                runs = [run_fivsim(args.fivsim, args.cases, args.steps, t, observers, os.path.join(tmp, "f"), args.law)
                        for _ in range(args.repeat)]
                best = max(runs, key=lambda s: s["case_steps_per_s"])
                rate = best["case_steps_per_s"]
                e2e = best["end_to_end_case_steps_per_s"]
                flops = rate * flops_per_case_step(args.law, observers, settled_share)
                print(f"{'fivsim sweep, ' + observers + ' observers (stepping)':44s} {t:7d} {rate:14.4g} "
                      f"{rate / rate_peer:11.2f}x {flops / 1e9:8.1f} {100 * flops / roof:7.1f}%")
                print(f"{'fivsim sweep, ' + observers + ' observers (end to end)':44s} {t:7d} {e2e:14.4g} "
                      f"{e2e / rate_peer:11.2f}x")
                results["rows"].append({"run": f"fivsim {observers}", "threads": t, "case_steps_per_s": rate,
                                        "end_to_end_case_steps_per_s": e2e, "ratio": rate / rate_peer,
                                        "flops_per_case_step": flops_per_case_step(args.law, observers,
                                                                                   settled_share),
                                        "share_of_peak": flops / roof})
        # the two sides' answers, case by case
        check_cases = min(args.cases, 20000)
        peer_csv = os.path.join(tmp, "peer.csv")
        run_peer(peer, check_cases, args.steps, threads[-1], peer_csv)
        run_fivsim(args.fivsim, check_cases, args.steps, threads[-1], "lean", os.path.join(tmp, "check"), args.law)
        share, median = agreement(os.path.join(tmp, "check"), peer_csv)
        print(f"RMS of q, u, lamT on {check_cases} cases: {100 * share:.1f}% agree within 1e-9 relative "
              f"(median difference {median:.2g})")
        results["agreement"] = {"cases": check_cases, "within_1e-9": share, "median": median}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
