#!/usr/bin/python3
"""Siconos peer for the sweep benchmark: the slider chain in Moreau–Jean time stepping, one core.

Builds the chain of scenarios/chain2_F15.json in Siconos (LagrangianLinearTIDS, MoreauJeanOSI,
TimeStepping, a FrictionContact(2) one-step problem, one NewtonImpactFrictionNSL per slider),
checks it against fivsim's Moreau run of the same scenario (RMS, stick->slip timing, largest
position gap), then times N steps of a few cases (different Fn and x0) in this process on one
thread, and, when `--fivsim BIN` has a `sweep` command, sets Siconos' case-steps/s beside
`fivsim sweep --device cpu --threads 1`.

How the fivsim model maps onto Siconos:
  - each slider has a tangential DoF x and a normal DoF y; y is pressed by -Fn onto a rigid
    unilateral contact (e = 0), so the normal impulse is Fn*dt every step (fivsim: given normal);
  - the belt: Siconos' linear relation has no offset on the relative velocity, so the dynamics
    are written in the belt frame, x' = x - v0 t; the springs to the wall then give the force
    -v0 t K*1 (and -v0 C*1 from dampers), set on fExt before each step at t_k + theta*dt;
  - mu(v_r) of the stribeck_exp law is set on each slider's nslaw before each step from the
    start-of-step relative velocity v_r = u - v0 = x'-velocity, as fivsim does;
  - what differs: Siconos' theta scheme (W = M + theta^2 dt^2 K, q += dt((1-theta)u_k +
    theta u_k+1)) against fivsim's explicit free velocity with q += dt u_k+1 (symplectic Euler);
    theta = 0.5 (default) is the non-dissipative choice, as symplectic Euler is.
The timed loop is Python calling Siconos' C++ (computeOneStep, nextStep); the per-step mu and
force updates written in Python are about 1 us of its ~15 us per step.

    FIVSIM_SETUP_PEERS=1 scripts/setup.sh          # python3-siconos
    scripts/bench/bench_sweep_siconos.py --fivsim build/fivsim [--steps 10000] [--json out.json]
"""
import os

# one core: set before numpy and Siconos load their threading runtimes
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STICK_TOL = 1e-6  # |v_r| below this counts as sticking when states are read from velocities


def load_params(path):
    """The chain's numbers from a fivsim scenario (slider_chain with the stribeck_exp law)."""
    with open(path) as f:
        sc = json.load(f)
    model, fr, ini, integ = sc["model"], sc["friction"], sc["initial"], sc["integrator"]
    if model["type"] != "slider_chain" or fr["law"] != "stribeck_exp":
        sys.exit(f"bench_sweep_siconos: {path} is not a slider_chain with the stribeck_exp law")
    n = int(model["n"])
    return {
        "name": sc["name"], "n": n,
        "m": np.array(model["m"], float), "k": np.array(model["k"], float),
        "c": np.array(model.get("c", [0.0] * n), float),
        "v0": float(model["v0"]), "Fn": float(model["Fn"]),
        "mu_s": float(fr["mu_s"]), "mu_d": float(fr["mu_d"]), "alpha": float(fr["alpha"]),
        "q0": np.array(ini["q"], float), "u0": np.array(ini["u"], float),
        "dt": float(integ["dt"]), "t_end": float(integ["t_end"]),
        "t_transient": float(sc.get("analysis", {}).get("t_transient", 0.0)),
    }


def chain_matrix(coef):
    """Stiffness (or damping) matrix of a chain: coef[0] to the wall, coef[i] between i-1 and i."""
    n = coef.size
    A = np.zeros((n, n))
    for i in range(n):
        A[i, i] += coef[i]
        if i > 0:
            A[i - 1, i - 1] += coef[i]
            A[i - 1, i] -= coef[i]
            A[i, i - 1] -= coef[i]
    return A


class SiconosChain:
    """The slider chain as a Siconos Moreau–Jean simulation, stepped from Python."""

    def __init__(self, p, Fn, q0, theta, tol, t_end):
        import siconos.kernel as sk
        import siconos.numerics as sn
        n = p["n"]
        self.n, self.v0, self.dt, self.theta = n, p["v0"], p["dt"], theta
        self.mu_s, self.mu_d, self.alpha = p["mu_s"], p["mu_d"], p["alpha"]
        K, C = chain_matrix(p["k"]), chain_matrix(p["c"])
        # dofs: x'_0..x'_{n-1} (belt frame), then y_0..y_{n-1} (normal)
        M = np.diag(np.concatenate([p["m"], p["m"]]))
        K4, C4 = np.zeros((2 * n, 2 * n)), np.zeros((2 * n, 2 * n))
        K4[:n, :n], C4[:n, :n] = K, C
        # belt frame: K x = K x' + v0 t K*1, C u = C u' + v0 C*1
        self.k_one = -self.v0 * (K @ np.ones(n))
        self.c_one = -self.v0 * (C @ np.ones(n))
        self.ds = sk.LagrangianLinearTIDS(np.concatenate([q0, np.zeros(n)]),
                                          np.concatenate([p["u0"] - self.v0, np.zeros(n)]), M)
        self.ds.setKPtr(K4)
        if np.any(C4):
            self.ds.setCPtr(C4)
        self.ds.setFExtPtr(np.concatenate([self.c_one, -Fn * np.ones(n)]))
        nsds = sk.NonSmoothDynamicalSystem(0.0, t_end)
        nsds.insertDynamicalSystem(self.ds)
        self.laws = []
        for i in range(n):
            # local frame of a 2D friction contact: [normal, tangent]
            H = np.zeros((2, 2 * n))
            H[0, n + i] = 1.0
            H[1, i] = 1.0
            law = sk.NewtonImpactFrictionNSL(0.0, 0.0, self.mu_d, 2)
            nsds.link(sk.Interaction(law, sk.LagrangianLinearTIR(H)), self.ds)
            self.laws.append(law)
        osnspb = sk.FrictionContact(2, sn.SICONOS_FRICTION_2D_NSGS)
        opts = osnspb.numericsSolverOptions()
        opts.dparam[sn.SICONOS_DPARAM_TOL] = tol
        self.sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, self.dt),
                                   sk.MoreauJeanOSI(theta), osnspb)
        self.sim.initialize()
        # views on Siconos' own vectors: written and read in place each step
        self.fext, self.q, self.u = self.ds.fExt(), self.ds.q(), self.ds.velocity()
        self.step_index = 0

    def run(self, steps, record=False):
        """Takes `steps` steps; with record, returns lab-frame (q, u) after each step."""
        n, v0, dt, th = self.n, self.v0, self.dt, self.theta
        mu_d, dmu, alpha = self.mu_d, self.mu_s - self.mu_d, self.alpha
        fext, q, u, laws, sim = self.fext, self.q, self.u, self.laws, self.sim
        k_one, c_one = self.k_one, self.c_one
        if record:
            Q, U = np.empty((steps, n)), np.empty((steps, n))
        for s in range(steps):
            # the wall springs seen from the belt, at the scheme's t_k + theta*dt
            t_theta = (self.step_index + th) * dt
            for i in range(n):
                fext[i] = k_one[i] * t_theta + c_one[i]
                # Stribeck mu at the start-of-step relative velocity
                laws[i].setMu(mu_d + dmu * math.exp(-alpha * abs(u[i])))
            sim.computeOneStep()
            sim.nextStep()
            self.step_index += 1
            if record:
                Q[s] = q[:n] + v0 * self.step_index * dt
                U[s] = u[:n] + v0
        return (Q, U) if record else None


def fivsim_scheme(p, steps):
    """fivsim's Moreau scheme for the chain with given normal force, written out (used when no
    binary is given): u_free = u - dt M^-1 (K q + C u), P = clip(-m (u_free - v0), +-mu Fn dt)."""
    n, dt, v0, Fn = p["n"], p["dt"], p["v0"], p["Fn"]
    m, K, C = p["m"], chain_matrix(p["k"]), chain_matrix(p["c"])
    q, u = p["q0"].copy(), p["u0"].copy()
    Q, U = np.empty((steps, n)), np.empty((steps, n))
    for s in range(steps):
        mu = p["mu_d"] + (p["mu_s"] - p["mu_d"]) * np.exp(-p["alpha"] * np.abs(u - v0))
        uf = u - dt * (K @ q + C @ u) / m
        P = np.clip(-m * (uf - v0), -mu * Fn * dt, mu * Fn * dt)
        u = uf + P / m
        q = q + dt * u
        Q[s], U[s] = q, u
    return Q, U


def metrics(t, Q, U, v0, t_transient):
    """RMS after the transient and the stick->slip times of each slider."""
    keep = t >= t_transient - 1e-9
    out = {f"rms_q{i}": float(np.sqrt(np.mean(Q[keep, i] ** 2))) for i in range(Q.shape[1])}
    out.update({f"rms_u{i}": float(np.sqrt(np.mean(U[keep, i] ** 2))) for i in range(Q.shape[1])})
    stick = np.abs(U - v0) < STICK_TOL
    onsets = [t[1:][stick[:-1, i] & ~stick[1:, i]] for i in range(Q.shape[1])]
    return out, onsets


def period_of(onsets, t_transient):
    """Mean interval between one slider's stick->slip transitions after the transient."""
    late = onsets[onsets >= t_transient]
    return float(np.mean(np.diff(late))) if late.size >= 2 else None


def check(p, args):
    """Siconos against fivsim on the scenario itself; returns the figures and prints them."""
    steps = int(round(args.check_t_end / p["dt"]))
    t = np.arange(1, steps + 1) * p["dt"]
    t_tr = min(p["t_transient"], 0.5 * args.check_t_end)
    t0 = time.perf_counter()
    chain = SiconosChain(p, p["Fn"], p["q0"], args.theta, args.tol, args.check_t_end)
    Qs, Us = chain.run(steps, record=True)
    sic_s = time.perf_counter() - t0
    sic, sic_on = metrics(t, Qs, Us, p["v0"], t_tr)

    ref_label, ref, ref_on, ref_series = None, None, None, None
    if args.fivsim:
        ref_label = f"fivsim run ({args.fivsim})"
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            subprocess.run([args.fivsim, "run", args.scenario, "--out", out,
                            "--set", f"/integrator/t_end={args.check_t_end}",
                            "--set", f"/analysis/t_transient={t_tr}"],
                           check=True, capture_output=True, text=True)
            with open(os.path.join(out, "summary.json")) as f:
                summary = json.load(f)
            data = np.genfromtxt(os.path.join(out, "timeseries.csv"), delimiter=",", names=True,
                                 dtype=None, encoding=None)
        ref = {k.replace("q", "rms_q").replace("u", "rms_u"): v
               for k, v in summary["rms"].items() if k[0] in "qu"}
        ref_on = [np.array([e["t"] for e in summary["events"]
                            if e["contact"] == i and e["type"] == "stick_to_slip"])
                  for i in range(p["n"])]
        ref_series = (data["t"], np.column_stack([data[f"q{i}"] for i in range(p["n"])]))
        ref["steps_per_s"] = summary.get("steps_per_s")
    else:
        ref_label = "fivsim's Moreau scheme re-written in this script (no --fivsim)"
        Qf, Uf = fivsim_scheme(p, steps)
        ref, ref_on = metrics(t, Qf, Uf, p["v0"], t_tr)
        ref_series = (t, Qf)

    # largest position gap at the reference's sample times
    idx = np.rint(ref_series[0] / p["dt"]).astype(int) - 1
    ok = idx >= 0
    gap = float(np.max(np.abs(Qs[idx[ok]] - ref_series[1][ok])))

    print(f"check: {p['name']}, {args.check_t_end:g} s ({steps} steps, Siconos {sic_s:.1f} s), "
          f"statistics after {t_tr:g} s, against {ref_label}")
    print(f"  {'':8} {'Siconos':>12} {'fivsim':>12} {'rel. diff':>10}")
    result = {"t_end": args.check_t_end, "t_transient": t_tr, "reference": ref_label,
              "siconos": sic, "fivsim": {k: v for k, v in ref.items() if k.startswith("rms_")},
              "max_abs_q_gap": gap}
    worst = 0.0
    for key in sorted(sic):
        a, b = sic[key], ref.get(key)
        if b is None:
            continue
        rel = abs(a - b) / abs(b) if b else float("nan")
        worst = max(worst, rel)
        print(f"  {key:8} {a:12.6g} {b:12.6g} {100 * rel:9.4f}%")
    periods = (period_of(sic_on[0], t_tr), period_of(ref_on[0], t_tr))
    counts = [(int(np.sum(sic_on[i] >= t_tr)), int(np.sum(ref_on[i] >= t_tr)))
              for i in range(p["n"])]
    print("  stick->slip after the transient (Siconos / fivsim): "
          + ", ".join(f"slider {i}: {a} / {b}" for i, (a, b) in enumerate(counts)))
    if None not in periods:
        rel = abs(periods[0] - periods[1]) / periods[1]
        print(f"  mean interval between slider 0's stick->slip: Siconos {periods[0]:.4f} s, "
              f"fivsim {periods[1]:.4f} s ({100 * rel:.3f}%)")
    print(f"  largest |q_Siconos - q_fivsim| over the run: {gap:.3g}")
    print(f"  agreement: RMS within {100 * worst:.3g}% (theta = {args.theta:g}; the schemes differ "
          f"by the position update, not by the contact law)")
    result.update(worst_rms_rel_diff=worst, stick_slip_interval_siconos=periods[0],
                  stick_slip_interval_fivsim=periods[1],
                  stick_to_slip_counts=counts, fivsim_run_steps_per_s=ref.get("steps_per_s"))
    return result


def draw_cases(p, count, seed):
    """Case 0 is the scenario itself; the others draw Fn in [10, 25] N and x0 in [-1, 1]."""
    rng = np.random.default_rng(seed)
    cases = [(p["Fn"], p["q0"].copy())]
    for _ in range(count - 1):
        cases.append((float(rng.uniform(10.0, 25.0)), rng.uniform(-1.0, 1.0, p["n"])))
    return cases


def time_siconos(p, args):
    """Builds and steps each case in turn; construction and stepping are timed apart, each the
    fastest of `repeats` fresh builds (the machine may be shared)."""
    rows = []
    for Fn, q0 in draw_cases(p, args.cases, args.seed):
        build_s, run_s = float("inf"), float("inf")
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            chain = SiconosChain(p, Fn, q0, args.theta, args.tol, args.steps * p["dt"])
            t1 = time.perf_counter()
            chain.run(args.steps)
            t2 = time.perf_counter()
            build_s, run_s = min(build_s, t1 - t0), min(run_s, t2 - t1)
        rows.append({"Fn": Fn, "q0": q0.tolist(), "build_s": build_s, "run_s": run_s,
                     "steps": args.steps, "steps_per_s": args.steps / run_s,
                     "q_end": (chain.q[:p["n"]] + p["v0"] * args.steps * p["dt"]).tolist()})
    steps = sum(r["steps"] for r in rows)
    run_s = sum(r["run_s"] for r in rows)
    build_s = sum(r["build_s"] for r in rows)
    print(f"\nSiconos Moreau–Jean (theta {args.theta:g}, FrictionContact(2) NSGS tol "
          f"{args.tol:g}), one thread, {args.steps} steps per case, fastest of {args.repeats}:")
    print(f"  {'Fn':>6} {'x0':>18} | {'build ms':>9} {'run s':>7} {'steps/s':>10}")
    for r in rows:
        x0 = ", ".join(f"{v:.3f}" for v in r["q0"])
        print(f"  {r['Fn']:6.2f} {'(' + x0 + ')':>18} | {1e3 * r['build_s']:9.2f} "
              f"{r['run_s']:7.3f} {r['steps_per_s']:10.4g}")
    summary = {"cases": rows, "steps": steps, "run_s": run_s, "build_s": build_s,
               "steps_per_s": steps / run_s, "steps_per_s_with_build": steps / (run_s + build_s)}
    print(f"  all cases: {summary['steps_per_s']:.4g} case-steps/s per core stepping only, "
          f"{summary['steps_per_s_with_build']:.4g} with model construction "
          f"({1e3 * build_s / len(rows):.2f} ms per case)")
    return summary


def time_fivsim_sweep(args):
    """`fivsim sweep` on the CPU backend with one thread; None (and why) when it cannot run."""
    if not args.fivsim:
        return None, "no --fivsim given"
    scenario = os.path.join(ROOT, args.sweep_scenario) \
        if not os.path.isabs(args.sweep_scenario) else args.sweep_scenario
    # CLI11 answers `BIN sweep --help` with the main help when sweep is unknown: read the list
    usage = subprocess.run([args.fivsim, "--help"], capture_output=True, text=True).stdout
    if not re.search(r"^\s+sweep\s", usage, re.MULTILINE):
        return None, f"{args.fivsim} has no sweep command yet"
    if not os.path.exists(scenario):
        return None, f"{args.sweep_scenario} does not exist yet"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sweep")
        cmd = [args.fivsim, "sweep", scenario, "--device", "cpu", "--threads", "1",
               "--set", f"/sweep/samples={args.sweep_samples}", "--out", out, "--quiet"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return None, f"fivsim sweep exited {run.returncode}: {run.stderr.strip()[-300:]}"
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
    if "case_steps_per_s" not in summary:
        return None, "fivsim sweep's summary.json has no case_steps_per_s"
    shown = cmd[:2] + [args.sweep_scenario] + cmd[3:-3] + ["--out", "DIR", "--quiet"]
    return summary, " ".join(shown)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "chain2_F15.json"),
                        help="the slider chain to model (default scenarios/chain2_F15.json)")
    parser.add_argument("--fivsim", help="fivsim binary: reference run and `sweep` timing")
    parser.add_argument("--steps", type=int, default=10_000, help="timed steps per case")
    parser.add_argument("--cases", type=int, default=4, help="timed cases (case 0: the scenario)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timings per case; the fastest counts")
    parser.add_argument("--seed", type=int, default=1, help="seed of the other cases' Fn and x0")
    parser.add_argument("--theta", type=float, default=0.5, help="MoreauJeanOSI theta")
    parser.add_argument("--tol", type=float, default=1e-10, help="FrictionContact NSGS tolerance")
    parser.add_argument("--check-t-end", type=float, default=None,
                        help="seconds of the check run (default: the scenario's t_end; 0 skips)")
    parser.add_argument("--sweep-scenario", default="scenarios/chain2_bench_random.json")
    parser.add_argument("--sweep-samples", type=int, default=2000)
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()
    try:
        import siconos.kernel  # noqa: F401
    except ImportError:
        sys.exit("bench_sweep_siconos: python3-siconos is missing "
                 "(FIVSIM_SETUP_PEERS=1 scripts/setup.sh)")
    if args.fivsim and not os.path.exists(args.fivsim):
        sys.exit(f"bench_sweep_siconos: {args.fivsim} does not exist")
    p = load_params(args.scenario)
    if args.check_t_end is None:
        args.check_t_end = p["t_end"]

    cpu = cpu_model()
    print(f"CPU: {cpu}; Siconos {siconos_version()}; OMP_NUM_THREADS=1")
    report = {"cpu": cpu, "siconos": siconos_version(), "scenario": args.scenario,
              "theta": args.theta, "tol": args.tol, "mu": "stribeck_exp, set per step"}
    if args.check_t_end > 0:
        report["check"] = check(p, args)
    report["siconos_timing"] = time_siconos(p, args)
    sic_rate = report["siconos_timing"]["steps_per_s"]

    sweep, how = time_fivsim_sweep(args)
    print(f"\ncase-steps/s per core (one thread, dt {p['dt']:g}, {p['n']} sliders):")
    print(f"  {'peer':<44} {'case-steps/s':>13} {'fivsim/peer':>12}")
    print(f"  {'Siconos Moreau–Jean (Python-driven)':<44} {sic_rate:13.4g} {'':>12}")
    run_rate = report.get("check", {}).get("fivsim_run_steps_per_s")
    if run_rate:
        # one case through `fivsim run` (the check run, time series written every 10 steps)
        print(f"  {'fivsim run, one case (the check run)':<44} {run_rate:13.4g} "
              f"{run_rate / sic_rate:11.1f}x")
    if sweep is None:
        print(f"  fivsim sweep: not measured ({how})")
    else:
        fv = float(sweep["case_steps_per_s"])
        print(f"  {'fivsim sweep --device cpu --threads 1':<44} {fv:13.4g} {fv / sic_rate:11.1f}x")
        print(f"  ({how})")
        report["fivsim_sweep"] = {"command": how, "case_steps_per_s": fv,
                                  "ratio_fivsim_over_siconos": fv / sic_rate,
                                  "summary": {k: v for k, v in sweep.items()
                                              if not isinstance(v, (dict, list))}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


def siconos_version():
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-siconos"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


if __name__ == "__main__":
    main()
