#!/usr/bin/python3
"""Writes docs/REPRODUCTION.md: fivsim's accuracy studies of the seed cases beside the seeds' own
tables and statements. Every figure in that file comes from a `fivsim compare`, `fivsim stability`
or `fivsim run` made here (and the two PNGs under docs/img/ from scripts/plot/plot_compare.py).

usage: scripts/studies/reproduction.py [--fivsim build/fivsim] [--out docs/REPRODUCTION.md] [--quick]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.optimize import minimize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Fivsim:
    def __init__(self, binary, workdir):
        self.binary = binary
        self.workdir = workdir
        self.count = 0

    def _call(self, verb, scenario, extra, sets):
        self.count += 1
        out = os.path.join(self.workdir, "%s%d" % (verb, self.count))
        args = [self.binary, verb, os.path.join(ROOT, "scenarios", scenario), "--out", out] + list(extra)
        for s in sets:
            args += ["--set", s]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit("fivsim failed (%d): %s\n%s" % (proc.returncode, " ".join(args), proc.stderr))
        return out

    def compare(self, scenario, methods, dts, sets=(), series=False):
        extra = ["-q", "--methods", ",".join(methods), "--dt", ",".join("%g" % d for d in dts)]
        if series:
            extra.append("--series")
        out = self._call("compare", scenario, extra, sets)
        with open(os.path.join(out, "compare.json")) as f:
            return json.load(f), out

    def run(self, scenario, sets=()):
        out = self._call("run", scenario, ["-q"], list(sets) + ["/output/timeseries=false"])
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)

    def friction(self, scenario, sets=()):
        out = self._call("friction", scenario, [], sets)
        return np.genfromtxt(os.path.join(out, "friction.csv"), delimiter=",", names=True)

    def series(self, scenario, sets=()):
        out = self._call("run", scenario, ["-q"], sets)
        return np.genfromtxt(os.path.join(out, "timeseries.csv"), delimiter=",", names=True, dtype=None,
                             encoding=None)

    def identify(self, config, sets=()):
        out = self._call("identify", config, [], sets)
        with open(os.path.join(out, "identified.json")) as f:
            return json.load(f), out

    def stability(self, scenario, param, linspace):
        out = self._call("stability", scenario, ["--param", param, "--linspace"] + ["%g" % v for v in linspace], [])
        with open(os.path.join(out, "stability.json")) as f:
            return json.load(f)


def fmt(x, digits=4):
    if x is None or not np.isfinite(x):
        return "–"
    return ("%." + str(digits) + "g") % x


def pct(value, ref):
    return "%s (%.2f%%)" % (fmt(value), 100 * abs(value - ref) / abs(ref))


def found(run):
    t = run["transitions"]
    return "✓" if t["all_found"] else "× %d missed" % t["missed"]


def runs_of(cmp, method):
    return [r for r in cmp["runs"] if r["method"] == method]


def model1(fv, lines, quick):
    lines.append("## Seed 000 Model I: slider on a belt (§3.3, Figs. 10–16)\n")
    lines.append("m = k = 1, c = 0, μ_s = 0.1 (seed); **v0 = 0.5, Fn = 10 N, x(0) = 0, ẋ(0) = 0** (fivsim's "
                 "choice: the seed does not state them). Each row is a `fivsim compare` run over 20–200 s against the "
                 "event-driven reference (switching model, events located to 1e-12 s): whether every stick-slip "
                 "transition of the reference is found (× otherwise, as the seed marks it), the worst timing error "
                 "of the paired transitions, the RMS of x and its error, and the first three spectral peaks of x "
                 "(seed Fig. 13: a primary frequency with its double and triple).\n")
    methods = ["moreau", "rk4lcp", "irk10", "irk10-interp"]
    t_end = 100 if quick else 200
    notes = {}
    for scenario, label, dts in (("model1_slow_stribeck.json", "slow decay, δ = 1 (Fig. 9a)", [0.08, 0.01, 0.005]),
                                 ("model1_sharp_stribeck.json", "sharp decay, δ = 10 (Fig. 9b)",
                                  [0.01, 0.005, 1e-4])):
        cmp, _ = fv.compare(scenario, methods, dts, ["/integrator/t_end=%g" % t_end, "/analysis/t_transient=20"])
        ref = cmp["reference"]
        lines.append("**%s**\n" % label)
        lines.append("| method | dt | transitions | worst timing (s) | RMS x | f1, f2, f3 (Hz) |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        lines.append("| reference (event-driven) | | %d events | | %s | %s |" % (
            sum(ref["event_counts"].values()), fmt(ref["rms"]["q0"]),
            ", ".join(fmt(p["hz"]) for p in ref["q0_peaks"])))
        for r in cmp["runs"]:
            lines.append("| %s | %g | %s | %s | %s | %s |" % (
                r["method"], r["dt"], found(r), fmt(r["transitions"]["worst_timing_s"], 3),
                pct(r["rms"]["q0"], ref["rms"]["q0"]), ", ".join(fmt(p["hz"]) for p in r["q0_peaks"])))
            notes[(scenario, r["method"], r["dt"])] = r
        lines.append("")
        notes[(scenario, "reference")] = ref
    slow = lambda m, dt: notes[("model1_slow_stribeck.json", m, dt)]  # noqa: E731
    sharp = lambda m, dt: notes[("model1_sharp_stribeck.json", m, dt)]  # noqa: E731
    ref = notes[("model1_slow_stribeck.json", "reference")]
    peaks = ref["q0_peaks"]
    lines.append("- Seed Fig. 13: one primary frequency with a double and a triple. fivsim's reference: %s Hz with "
                 "peaks at %s Hz (ratios %s).\n" % (
                     fmt(peaks[0]["hz"]), ", ".join(fmt(p["hz"]) for p in peaks[1:]),
                     ", ".join("%.2f" % (p["hz"] / peaks[0]["hz"]) for p in peaks[1:])))
    lines.append("- Seed Figs. 11, 14: at dt = 0.01 the conventional LCP method still predicts the transitions, at "
                 "dt = 0.08 it does not; the conventional RK4 LCP method fails already at 0.01. fivsim: Moreau %s at "
                 "0.01 and %s at 0.08 — as the seed; RK4-LCP %s at 0.01 — unlike the seed: fivsim's RK4-LCP writes "
                 "the LCP on RK4's own end state, so a stick holds exactly and the transitions come out as with "
                 "Moreau. The worst timing errors (%s s at 0.01) are phase drift accumulated over 180 s of cycles, "
                 "not late detection: the RMS of x is within %.2f%%.\n" % (
                     found(slow("moreau", 0.01)), found(slow("moreau", 0.08)), found(slow("rk4lcp", 0.01)),
                     fmt(slow("moreau", 0.01)["transitions"]["worst_timing_s"], 3),
                     100 * slow("moreau", 0.01)["rel_error"]["q0"]))
    lines.append("- With interpolated stage forces the IRK-LCP is the least robust at large steps (%s at 0.08, %s at "
                 "0.01): a force ramped across a stick-slip step lags the jump, so at dt = 0.08 whole stick phases "
                 "are lost. The interpolation pays where forces vary smoothly (Model II below), not at "
                 "stick-slip with a large dt.\n" % (found(slow("irk10-interp", 0.08)), found(slow("irk10-interp", 0.01))))
    lines.append("- Seed Figs. 15–16: with the sharp law the conventional method needs dt = 1e-4 and fails to return "
                 "to stick at 0.005; RK4-LCP needs 1e-6. fivsim: Moreau %s at 0.005 and %s at 1e-4; RK4-LCP %s at "
                 "0.005. Near the end of a slip phase the sharp law lets the slider cross the belt speed with a "
                 "spring force beyond the static limit: the reference logs a slip reversal there, which a time "
                 "stepper resolves as a one- or two-step stick (compare pairs those as reversals). The case built "
                 "to miss a short stick is `scenarios/model1_sharp_short_stick.json`: its 8 ms stick is missed by "
                 "Moreau at dt = 0.01 and found at 1e-3 (tests/analysis/compare_test.cpp).\n" % (
                     found(sharp("moreau", 0.005)), found(sharp("moreau", 1e-4)), found(sharp("rk4lcp", 0.005))))


SEED2 = {
    "model2_example1.json": {
        "title": "Example 1 (μ = 0.4; seed Table 2), RMS over 0–10 s",
        "keys": ["lamN0", "q0", "q1", "u0", "u1"],
        "ref": [1790, 6.298, 9.647, 94.883, 75.042],
        "rows": [("conventional LCP", 1e-3, [1716, 6.195, 9.322, 93.640, 72.544]),
                 ("conventional LCP", 5e-4, [1780, 6.285, 9.604, 94.721, 74.709]),
                 ("conventional RK4", 1e-3, [1752, 6.245, 9.480, 94.253, 73.755]),
                 ("conventional RK4", 5e-4, [1785, 6.292, 9.625, 94.801, 74.878]),
                 ("10th-order advanced single PINN", 1e-3, [1785, 6.291, 9.626, 94.977, 74.968]),
                 ("10th-order advanced dual PINN", 1e-3, [1786, 6.296, 9.632, 94.984, 74.983])],
    },
    "model2_example2.json": {
        "title": "Example 2 (μ = 1.2; seed Table 3), RMS over 0–10 s",
        "keys": ["lamN0", "q0", "q1"],
        "ref": [224.449, 0.3997, 0.7629],
        "rows": [("conventional LCP", 1e-3, None), ("conventional LCP", 5e-4, None),
                 ("conventional LCP", 1e-4, [222.331, 0.3980, 0.7530]),
                 ("conventional RK4", 1e-3, None), ("conventional RK4", 5e-4, [224.396, 0.7603, 0.7603]),
                 ("conventional RK4", 1e-4, [224.221, 0.3996, 0.7619]),
                 ("10th-order advanced single PINN", 1e-3, [221.828, 0.3970, 0.7512]),
                 ("10th-order advanced dual PINN", 1e-3, [221.835, 0.3969, 0.7511])],
    },
}
NAMES = {"lamN0": "contact force", "q0": "x", "q1": "y", "u0": "ẋ", "u1": "ẏ"}


def example1_search(fv, quick):
    """v0 and Fp of Example 1 whose event-driven RMS row is closest to the seed's root-shooting row
    (sum of squared log ratios), by a grid and then Nelder–Mead"""
    target = np.array(SEED2["model2_example1.json"]["ref"], dtype=float)
    keys = SEED2["model2_example1.json"]["keys"]
    cache = {}

    def rms(v0, fp):
        key = (round(v0, 9), round(fp, 9))
        if key not in cache:
            s = fv.run("model2_example1.json", ["/integrator/method=\"switching\"", "/integrator/dt=1e-3",
                                                "/model/v0=%r" % v0, "/model/Fp=%r" % fp,
                                                "/initial/u=[%r,%r]" % (v0, v0)])
            cache[key] = np.array([s["rms"][k] for k in keys])
        return cache[key]

    def cost(p):
        v0, fp = p
        if v0 <= 0 or fp < 0:
            return 1e9
        return float(np.sum(np.log(rms(v0, fp) / target) ** 2))

    grid_v = np.linspace(20, 300, 8 if quick else 15)
    grid_f = np.linspace(0, 4000, 8 if quick else 15)
    best = min(((cost((v, f)), v, f) for v in grid_v for f in grid_f))
    res = minimize(cost, [best[1], best[2]], method="Nelder-Mead",
                   options={"xatol": 1e-3, "fatol": 1e-9, "maxfev": 60 if quick else 200})
    v0, fp = res.x
    return v0, fp, rms(v0, fp), len(cache)


def model2(fv, lines, quick):
    lines.append("## Seed 000 Model II: mode-coupling slider with a spring contact (§4, Tables 2–3, Fig. 19)\n")
    lines.append("m = 5, k1 = 1000, k3 = 600, kc = 500, c1 = c2 = 0 (seed). The stiffness matrix and the sign "
                 "conventions are in docs/MODELS.md.\n")
    st = fv.stability("model2_example1.json", "/friction/mu", [0, 1.5, 151])
    lines.append("- Flutter threshold, `fivsim stability scenarios/model2_example1.json --param /friction/mu "
                 "--linspace 0 1.5 151`: **μc = %.6f** (= 61/60; seed Fig. 19: 0.83). Linearising the sliding contact "
                 "(λ_N = −k_c y, λ_T = +μλ_N) adds [[0, μk_c], [0, k_c]] to K; the modes merge where "
                 "(K11 − K22)² + 4 K12 K21 = 0. The seed's printed h has +k3·y/2 and cross terms −k3/2; with those "
                 "signs (and the belt in +x) the sliding system never flutters, and the sign variants give 1.017 or "
                 "2.617, never 0.83, so the seed's figure must come from parameters or signs it does not print. "
                 "Example 1 (μ = 0.4) is stable and Example 2 (μ = 1.2) unstable in both.\n" % st["critical"])
    with open(os.path.join(ROOT, "scenarios", "model2_example1.json")) as f:
        e1 = json.load(f)
    with open(os.path.join(ROOT, "scenarios", "model2_example2.json")) as f:
        e2 = json.load(f)
    lines.append("- fivsim's choices: Example 1 **Fp = %g, v0 = %g** (ẋ(0) = ẏ(0) = v0, Coulomb μ = 0.4): the slider "
                 "separates and reattaches but never sticks, as the seed reports. Example 2 **Fp = %g, v0 = %g**, "
                 "Coulomb-Stribeck %s μ_s = 1.2, δ = %g: separation-reattachment from the start and stick-slip "
                 "from about 4.3 s (seed: about 4.6 s).\n"
                 % (e1["model"]["Fp"], e1["model"]["v0"], e2["model"]["Fp"], e2["model"]["v0"],
                    e2["friction"]["law"], e2["friction"]["delta"]))
    methods = ["moreau", "rk4lcp", "irk4", "irk10", "irk4-interp", "irk10-interp"]
    for scenario, seed in SEED2.items():
        cmp, folder = fv.compare(scenario, methods, [1e-3, 5e-4, 1e-4], series=(scenario == "model2_example2.json"))
        keys = seed["keys"]
        lines.append("**%s**\n" % seed["title"])
        lines.append("| source | method | dt | " + " | ".join(NAMES[k] for k in keys) + " | transitions |")
        lines.append("| --- | --- | --- | " + " | ".join("---" for _ in keys) + " | --- |")
        lines.append("| seed | root-shooting reference | | " + " | ".join(fmt(v) for v in seed["ref"]) + " | |")
        for label, dt, vals in seed["rows"]:
            cells = [pct(v, r) for v, r in zip(vals, seed["ref"])] if vals else ["×"] * len(keys)
            lines.append("| seed | %s | %g | %s | %s |" % (label, dt, " | ".join(cells), "" if vals else "×"))
        ref = cmp["reference"]
        lines.append("| fivsim | event-driven reference | | " + " | ".join(fmt(ref["rms"][k]) for k in keys) +
                     " | %d events |" % sum(ref["event_counts"].values()))
        for r in cmp["runs"]:
            cells = [pct(r["rms"][k], ref["rms"][k]) for k in keys]
            lines.append("| fivsim | %s | %g | %s | %s |" % (r["method"], r["dt"], " | ".join(cells), found(r)))
        lines.append("")
        by = {(r["method"], r["dt"]): r for r in cmp["runs"]}
        if scenario == "model2_example1.json":
            lines.append("- Seed: at equal dt the advanced (interpolated-force) PINNs beat the conventional methods, "
                         "and the conventional methods need a smaller dt. fivsim: the Gauss IRK-LCP with interpolated "
                         "stage forces, the classical counterpart of the advanced PINN, is at %.3f%% (contact force) "
                         "at dt = 1e-3 against Moreau's %.2f%% and RK4-LCP's %.2f%%; with held forces the stage count "
                         "hardly matters (irk4 and irk10 equal RK4-LCP), because the force held over a step, not the "
                         "smooth integrator, limits the accuracy — as the seed's single and dual PINNs (held forces) "
                         "sit at the RK4 level in its Table 2.\n" % (
                             100 * by[("irk10-interp", 1e-3)]["rel_error"]["lamN0"],
                             100 * by[("moreau", 1e-3)]["rel_error"]["lamN0"],
                             100 * by[("rk4lcp", 1e-3)]["rel_error"]["lamN0"]))
        else:
            lines.append("- Seed Table 3: the conventional LCP method misses stick-slip transitions at 1e-3 and 5e-4 "
                         "and the 10th-order advanced PINNs find them at 1e-3. fivsim: Moreau %s at 1e-3, %s at 5e-4, "
                         "%s at 1e-4; irk10-interp %s at 1e-3 with %.3f%% error in the contact force. The RMS values "
                         "cannot match the seed's without its unstated Fp, v0 and Stribeck constants (fivsim's contact "
                         "force RMS is about twice the seed's); the percentages compare each method with fivsim's own "
                         "reference.\n" % (
                             found(by[("moreau", 1e-3)]), found(by[("moreau", 5e-4)]), found(by[("moreau", 1e-4)]),
                             found(by[("irk10-interp", 1e-3)]), 100 * by[("irk10-interp", 1e-3)]["rel_error"]["lamN0"]))
            os.makedirs(os.path.join(ROOT, "docs", "img"), exist_ok=True)
            png = os.path.join(ROOT, "docs", "img", "model2_example2_dt1e-3.png")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot", "plot_compare.py"), folder,
                            "--from", "8.7", "--to", "9.7", "--runs", "moreau_dt0.001,irk10_dt0.001,irk10-interp_dt0.001",
                            "--out", png, "--dpi", "110"],
                           check=True, capture_output=True)
            lines.append("![Model II Example 2, 8.7–9.7 s, dt = 1e-3](img/model2_example2_dt1e-3.png)\n")
            lines.append("*Model II Example 2 over 8.7–9.7 s (seed Figs. 23b, 24b) at dt = 1e-3: Moreau, IRK-LCP "
                         "(10 stages, held forces) and IRK-LCP with interpolated forces over the event-driven "
                         "reference; made by `fivsim compare ... --series` and `scripts/plot/plot_compare.py`.*\n")

    v0, fp, row, evals = example1_search(fv, quick)
    target = SEED2["model2_example1.json"]["ref"]
    keys = SEED2["model2_example1.json"]["keys"]
    lines.append("**Identifying Example 1's unstated v0 and Fp from the seed's reference row.** A grid over v0 ∈ "
                 "[20, 300] and Fp ∈ [0, 4000] and then Nelder–Mead on the sum of squared log ratios between fivsim's "
                 "event-driven RMS row and the seed's root-shooting row (%d reference runs):\n" % evals)
    lines.append("| | v0 | Fp | " + " | ".join(NAMES[k] for k in keys) + " |")
    lines.append("| --- | --- | --- | " + " | ".join("---" for _ in keys) + " |")
    lines.append("| seed root-shooting | ? | ? | " + " | ".join(fmt(v) for v in target) + " |")
    lines.append("| fivsim, best fit | %s | %s | %s |" % (fmt(v0, 5), fmt(fp, 5), " | ".join(
        pct(v, t) for v, t in zip(row, target))))
    worst = max(abs(v - t) / t for v, t in zip(row, target))
    lines.append("\n- The best (v0, Fp) reproduces the seed's row to within %.1f%% in every series. %s\n" % (
        100 * worst, "That is close enough to take these as the seed's likely values." if worst < 0.02 else
        "The remaining gap means the seed's model differs in more than these two values (the sign of its printed "
        "stiffness terms, its Stribeck constants or its contact-force definition), so fivsim keeps its documented "
        "choices for the bundled scenario."))


def distinct(values, tol):
    """the number of clusters of values, tol apart"""
    values = sorted(values)
    return 0 if not values else 1 + sum(1 for a, b in zip(values, values[1:]) if b - a > tol)


SEED1 = {11: ((1.2543, 2.3219), (1.2598, 2.3325), "chaotic (red)"),
         15: ((2.2606, 4.6629), (2.2689, 4.4804), "period-1, both sliders (blue)"),
         24: ((2.8238, 6.7292), (2.8174, 6.7425), "m1 two stick-slip transitions, m2 one (green)")}
SEED1_5 = ((2.7785, 4.4424, 6.0170, 8.0101, 6.8254), (2.7779, 4.4431, 6.0159, 8.0116, 6.8272))


def chains(fv, lines, quick):
    lines.append("## Seed 001: slider chains on a belt (§3, Tables 1–2, Figs. 5–10)\n")
    with open(os.path.join(ROOT, "scenarios", "chain2_F15.json")) as f:
        c = json.load(f)
    fr = c["friction"]
    lines.append("m_i = k_i = 1, x(0) = 0.5, dt = 1e-3 (seed); **v0 = %g, c = 0, ẋ(0) = 0, %s friction μ_s = %g, "
                 "μ_d = %g, α = %g** (fivsim's choice, picked by a scan of v0 and Stribeck constants for the closest "
                 "transition RMS and the seed's regimes). The seed's measure: the RMS of each slider's displacement "
                 "at its stick→slip and slip→stick transitions in 200–400 s, against its switching model; fivsim's "
                 "reference is its event-driven switching model.\n"
                 % (c["model"]["v0"], fr["law"], fr["mu_s"], fr["mu_d"], fr["alpha"]))
    sets = ["/integrator/t_end=%g" % (300 if quick else 400), "/analysis/t_transient=200"]
    lines.append("| Fn | seed regime | slider | seed switching model | seed conventional LCP (1e-3) | fivsim switching model "
                 "| fivsim Moreau 1e-3 | fivsim Moreau 1e-4 | fivsim irk10-interp 1e-3 | transitions Moreau 1e-3 |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    regimes, seed_gap, step_gap = {}, [], {1e-3: [], 1e-4: []}
    for fn in (11, 15, 24):
        cmp, _ = fv.compare("chain2_F%d.json" % fn, ["moreau", "irk10-interp"], [1e-3, 1e-4], sets)
        ref = cmp["reference"]
        by = {(r["method"], r["dt"]): r for r in cmp["runs"]}
        sw = fv.run("chain2_F%d.json" % fn, sets + ["/integrator/method=\"switching\""])
        regimes[fn] = distinct([e["q"][0] for e in sw["events"]
                                if e["type"] == "stick_to_slip" and e["contact"] == 0 and e["t"] >= 200.0], 1e-3)
        for i in range(2):
            r_ref = ref["transition_displacement_rms"][i]
            seed_gap.append(abs(r_ref - SEED1[fn][0][i]) / SEED1[fn][0][i])
            for dt in (1e-3, 1e-4):
                step_gap[dt].append(abs(by[("moreau", dt)]["transition_displacement_rms"][i] - r_ref) / r_ref)
            lines.append("| %d | %s | m%d | %s | %s | %s | %s | %s | %s | %s |" % (
                fn, SEED1[fn][2] if i == 0 else "", i + 1, fmt(SEED1[fn][0][i]), fmt(SEED1[fn][1][i]),
                fmt(ref["transition_displacement_rms"][i]),
                pct(by[("moreau", 1e-3)]["transition_displacement_rms"][i], ref["transition_displacement_rms"][i]),
                pct(by[("moreau", 1e-4)]["transition_displacement_rms"][i], ref["transition_displacement_rms"][i]),
                pct(by[("irk10-interp", 1e-3)]["transition_displacement_rms"][i],
                    ref["transition_displacement_rms"][i]),
                found(by[("moreau", 1e-3)]) if i == 0 else ""))
    lines.append("")
    lines.append("- Distinct stick→slip positions of m1 in 200–400 s in fivsim's switching model (clusters 1e-3 "
                 "apart; 1 or 2 for a periodic cycle, many for chaos): %s. Seed Fig. 5: chaotic at 11 N, period-1 at "
                 "15 N, two transitions of m1 per cycle at 24 N.\n" % ", ".join(
                     "%d N: %d" % (fn, regimes[fn]) for fn in (11, 15, 24)))
    lines.append("- The seed's switching-model transition RMS values are matched to within %.0f%% with fivsim's "
                 "chosen (unstated) belt speed and Stribeck constants; within fivsim, Moreau at dt = 1e-3 is within "
                 "%.2f%% of the switching model and at 1e-4 within %.2f%%.\n" % (
                     100 * max(seed_gap), 100 * max(step_gap[1e-3]), 100 * max(step_gap[1e-4])))
    cmp, _ = fv.compare("chain5_F15.json", ["moreau"], [1e-3, 1e-4], sets)
    ref = cmp["reference"]
    by = {(r["method"], r["dt"]): r for r in cmp["runs"]}
    lines.append("**5-DoF chain, Fn = 15 N (seed Table 2; the seed's reference is its conventional LCP at dt = 1e-7)**\n")
    lines.append("| slider | seed dt = 1e-7 | seed dt = 1e-3 | fivsim switching model | fivsim Moreau 1e-3 | fivsim Moreau 1e-4 |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for i in range(5):
        lines.append("| m%d | %s | %s | %s | %s | %s |" % (
            i + 1, fmt(SEED1_5[0][i]), fmt(SEED1_5[1][i]), fmt(ref["transition_displacement_rms"][i]),
            pct(by[("moreau", 1e-3)]["transition_displacement_rms"][i], ref["transition_displacement_rms"][i]),
            pct(by[("moreau", 1e-4)]["transition_displacement_rms"][i], ref["transition_displacement_rms"][i])))
    sw = fv.run("chain5_F15.json", sets + ["/integrator/method=\"switching\""])
    d5 = distinct([e["q"][0] for e in sw["events"]
                   if e["type"] == "stick_to_slip" and e["contact"] == 0 and e["t"] >= 200.0], 1e-3)
    lines.append("\n- With fivsim's parameters the 5-slider chain at 15 N is not periodic (%d distinct stick→slip "
                 "positions of m1 in the switching model), so runs that differ by rounding drift apart and their "
                 "transition RMS values differ by several percent, whatever the step. The seed's Table 2 compares "
                 "its conventional LCP at two step sizes, not against a switching model; fivsim's values differ from "
                 "the seed's by up to a factor of two for the outer sliders, because the belt speed and Stribeck "
                 "constants are fivsim's own.\n" % d5)


SEED1_PINN = {11: (1.2599, 2.3325), 15: (2.2682, 4.6732), 24: (2.8167, 6.7389)}
SEED1_5_PINN = (2.7756, 4.4391, 6.0116, 7.9647, 6.8140)


def outcome(r):
    """✓ / × n missed for a finished run, or where and why it stopped"""
    if r["status"] != "ok":
        return "stopped: %s" % r.get("message", r["status"])
    return found(r)


def pinn_cell(r):
    """the trainings of a PINN run: worst final loss of a dynamic training and unconverged steps"""
    p = r.get("pinn")
    if not p:
        return "", ""
    loss = fmt(p["max_dynamic_loss"], 2) if p["dynamic_iterations"] else "–"
    return loss, "%d" % p["unconverged_steps"]


def pinn(fv, lines, quick):
    lines.append("## PINN frameworks (seed 000 §2.3, §3.3, §4.2–4.3; seed 001 §2.3)\n")
    lines.append("fivsim's PINN steppers (docs/METHODS.md): `pinn_singleQ` (a dynamic 7 × 20 tanh IRK-PINN with Q "
                 "Gauss stages trained every step by L-BFGS to a squared residual of 1e-24, contact forces from the "
                 "classical LCP, held over the stages), `pinn_dualQ` (forces from a 3 × 5 LCP-PINN trained in the "
                 "same step), `pinn_adv_singleQ` / `pinn_adv_dualQ` (forces interpolated over the stages, Eqs. "
                 "30–31), `pinn_central` (seed 001: central difference with the LCP-PINN). Every network starts "
                 "from the previous step's weights. A trained IRK-PINN is the Gauss collocation step, so the "
                 "PINNs' accuracy is that of the IRK-LCP with the same stages and force treatment (`irkQ`, "
                 "`irkQ-interp` above) as long as every training converges; the columns *worst loss* and "
                 "*unconverged* say whether they did. Where a span is shorter than above (the PINNs train "
                 "thousands of networks per simulated second on one core), the reference and the classical rows of "
                 "that table are recomputed over the same span.\n")
    t_end = 30 if quick else 40
    sets = ["/integrator/t_end=%g" % t_end, "/analysis/t_transient=10"]
    header = ("| method | dt | transitions | worst timing (s) | RMS x (error) | wall (s) | worst loss | unconverged |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- |")

    def rows(cmp):
        ref = cmp["reference"]
        out = []
        for r in cmp["runs"]:
            loss, unconv = pinn_cell(r)
            if r["status"] != "ok":
                out.append("| %s | %g | %s | | | %s | %s | %s |" % (r["method"], r["dt"], outcome(r),
                                                                   fmt(r["wall_s"], 3), loss, unconv))
                continue
            out.append("| %s | %g | %s | %s | %s | %s | %s | %s |" % (
                r["method"], r["dt"], found(r), fmt(r["transitions"]["worst_timing_s"], 3),
                pct(r["rms"]["q0"], ref["rms"]["q0"]), fmt(r["wall_s"], 3), loss, unconv))
        return out

    # dt = 0.08 over the first section's span (20–200 s, where the classical steppers miss a
    # transition); dt = 0.01 over the shorter span
    pinn10 = ["pinn_single10", "pinn_dual10", "pinn_adv_single10", "pinn_adv_dual10"]
    long_sets = ["/integrator/t_end=%g" % (100 if quick else 200), "/analysis/t_transient=20"]
    coarse, _ = fv.compare("model1_slow_stribeck.json", ["moreau", "rk4lcp", "irk10", "irk10-interp"] + pinn10, [0.08],
                           long_sets)
    fine, _ = fv.compare("model1_slow_stribeck.json", ["moreau", "rk4lcp", "irk10", "irk10-interp"] + pinn10, [0.01],
                         sets)
    by = {(r["method"], r["dt"]): r for c in (coarse, fine) for r in c["runs"]}
    for c, span in ((coarse, "20–%s s" % long_sets[0].split("=")[1]), (fine, "10–%g s" % t_end)):
        lines.append("**Model I, slow Stribeck (seed 000 Figs. 11–14), dt = %g, %s, reference: %d events**\n" % (
            c["runs"][0]["dt"], span, sum(c["reference"]["event_counts"].values())))
        lines += [header] + rows(c) + [""]

    def same(a, b, dt):
        ra, rb = by[(a, dt)], by[(b, dt)]
        return (ra["status"] == rb["status"] == "ok" and ra["transitions"]["missed"] == rb["transitions"]["missed"]
                and abs(ra["rms"]["q0"] - rb["rms"]["q0"]) <= 1e-6 * abs(rb["rms"]["q0"]))

    lines.append("- Seed Figs. 11–14: at dt = 0.08 the conventional methods lose the stick-slip cycle and both PINN "
                 "frameworks keep it. fivsim at dt = 0.08 over 20–%s s: Moreau %s, RK4-LCP %s, irk10 %s, pinn_single10 "
                 "%s, pinn_dual10 %s, irk10-interp %s, pinn_adv_single10 %s, pinn_adv_dual10 %s. The trained PINNs "
                 "give their IRK-LCP counterparts' answers (pinn_single10 and pinn_dual10 as irk10: %s; the advanced "
                 "ones as irk10-interp: %s, RMS x within 1e-6 relative and the same missed transitions), at about %.0f "
                 "times the cost of irk10 at dt = 0.01. fivsim does not reproduce the seed's finding that the PINN "
                 "frameworks keep a cycle the conventional methods lose: with the contact LCP written on the same Gauss "
                 "map, the network can only reproduce that map's step.\n" % (
                     long_sets[0].split("=")[1], outcome(by[("moreau", 0.08)]), outcome(by[("rk4lcp", 0.08)]),
                     outcome(by[("irk10", 0.08)]), outcome(by[("pinn_single10", 0.08)]),
                     outcome(by[("pinn_dual10", 0.08)]), outcome(by[("irk10-interp", 0.08)]),
                     outcome(by[("pinn_adv_single10", 0.08)]), outcome(by[("pinn_adv_dual10", 0.08)]),
                     "yes" if same("pinn_single10", "irk10", 0.08) and same("pinn_dual10", "irk10", 0.08) else "no",
                     "yes" if same("pinn_adv_single10", "irk10-interp", 0.08) and
                     same("pinn_adv_dual10", "irk10-interp", 0.08) else "no",
                     by[("pinn_dual10", 0.01)]["wall_s"] / max(by[("irk10", 0.01)]["wall_s"], 1e-9)))

    sharp = []
    for methods, dt in ((["pinn_dual10", "moreau", "rk4lcp"], 0.005), (["moreau"], 1e-4),
                        (["rk4lcp"], 1e-5 if quick else 1e-6)):
        c, _ = fv.compare("model1_sharp_stribeck.json", methods, [dt], sets)
        sharp.append(c)
    lines.append("**Model I, sharp Stribeck (seed 000 Figs. 15–16), 10–%g s, reference: %d events**\n" % (
        t_end, sum(sharp[0]["reference"]["event_counts"].values())))
    lines += [header] + [row for c in sharp for row in rows(c)] + [""]
    bys = {(r["method"], r["dt"]): r for c in sharp for r in c["runs"]}
    lines.append("- Seed: the dual PINN at dt = 0.005 matches the conventional method at 1e-4 and RK4 at 1e-6. "
                 "fivsim: pinn_dual10 at 0.005 %s (RMS x error %.3f%%), Moreau at 0.005 %s and at 1e-4 %s (%.3f%%), "
                 "RK4-LCP at 0.005 %s (%.3f%%). At equal dt the dual PINN is as accurate as the conventional "
                 "methods, not more: its accuracy is that of the Gauss step it is trained to, and the sharp law's "
                 "difficulty — the force jump at the end of a slip phase — sits in the contact LCP, which every "
                 "method here solves alike.\n" % (
                     outcome(bys[("pinn_dual10", 0.005)]),
                     100 * bys[("pinn_dual10", 0.005)].get("rel_error", {}).get("q0", float("nan")),
                     outcome(bys[("moreau", 0.005)]), outcome(bys[("moreau", 1e-4)]),
                     100 * bys[("moreau", 1e-4)]["rel_error"]["q0"], outcome(bys[("rk4lcp", 0.005)]),
                     100 * bys[("rk4lcp", 0.005)].get("rel_error", {}).get("q0", float("nan"))))

    m2_methods = ["irk4", "irk4-interp", "irk10-interp", "pinn_single4", "pinn_dual4", "pinn_adv_single4", "pinn_adv_dual4",
                  "pinn_adv_single10", "pinn_adv_dual10"]
    m2_sets = ["/integrator/t_end=%g" % (5 if quick else 10)]
    for scenario, seed in SEED2.items():
        c, _ = fv.compare(scenario, m2_methods, [1e-3], m2_sets)
        keys = seed["keys"]
        ref = c["reference"]
        lines.append("**Model II %s: the PINN rows**\n" % seed["title"].split(";")[0].replace("(", "").strip())
        lines.append("| source | method | dt | " + " | ".join(NAMES[k] for k in keys) +
                     " | transitions | wall (s) | worst loss | unconverged |")
        lines.append("| --- | --- | --- | " + " | ".join("---" for _ in keys) + " | --- | --- | --- | --- |")
        for label, dt, vals in seed["rows"]:
            if "PINN" in label:
                lines.append("| seed | %s | %g | %s | | | | |" % (
                    label, dt, " | ".join(pct(v, r) for v, r in zip(vals, seed["ref"]))))
        lines.append("| fivsim | event-driven reference | | " + " | ".join(fmt(ref["rms"][k]) for k in keys) +
                     " | %d events | | | |" % sum(ref["event_counts"].values()))
        for r in c["runs"]:
            loss, unconv = pinn_cell(r)
            cells = [pct(r["rms"][k], ref["rms"][k]) for k in keys] if r["status"] == "ok" else ["–"] * len(keys)
            lines.append("| fivsim | %s | %g | %s | %s | %s | %s | %s |" % (
                r["method"], r["dt"], " | ".join(cells), outcome(r), fmt(r["wall_s"], 3), loss, unconv))
        lines.append("")
    lines.append("- Seed Tables 2–3: the advanced PINNs at 1e-3 are closer to the reference than the conventional "
                 "methods at the same step. fivsim agrees in kind — the interpolated-force rows beat the held-force "
                 "ones (`pinn_single4`, `pinn_dual4` and `irk4` here; Moreau and RK4-LCP in the Model II tables above) "
                 "at 1e-3 — and shows that the gain belongs to the force interpolation, which `irkQ-interp` has "
                 "without a network. Where a dynamic training stops above its tolerance (the *unconverged* column: "
                 "4-stage networks on Example 2 reach losses of 1e-8 to 1e-11 in some steps within their 500 "
                 "L-BFGS iterations) the PINN row can drift from its IRK-LCP counterpart; the 10-stage networks "
                 "converged in every step. The fivsim values differ from the seed's because Fp, v0 and the Stribeck "
                 "constants of Model II are fivsim's (stated above).\n")

    chain_t = 300 if quick else 400
    csets = ["/integrator/t_end=%g" % chain_t, "/analysis/t_transient=200"]
    lines.append("**Seed 001 scheme (`pinn_central`, LCP-PINN 3 × 5 in a central-difference step) on the slider "
                 "chains, dt = 1e-3, transition-displacement RMS in 200–%g s**\n" % chain_t)
    lines.append("| Fn | slider | seed switching model | seed PINN | fivsim switching model | fivsim Moreau | fivsim "
                 "pinn_central | wall Moreau / pinn_central (s) |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    def tr(r, i, ref_i):
        return pct(r["transition_displacement_rms"][i], ref_i) if r["status"] == "ok" else outcome(r)

    chain_errors = []

    for fn in (11, 15, 24):
        c, _ = fv.compare("chain2_F%d.json" % fn, ["moreau", "pinn_central"], [1e-3], csets)
        by = {r["method"]: r for r in c["runs"]}
        ref = c["reference"]["transition_displacement_rms"]
        for i in range(2):
            pc = by["pinn_central"]
            chain_errors.append(abs(pc["transition_displacement_rms"][i] - ref[i]) / ref[i] if pc["status"] == "ok"
                                else None)
            lines.append("| %d | m%d | %s | %s | %s | %s | %s | %s |" % (
                fn, i + 1, fmt(SEED1[fn][0][i]), fmt(SEED1_PINN[fn][i]), fmt(ref[i]),
                tr(by["moreau"], i, ref[i]), tr(by["pinn_central"], i, ref[i]),
                "%s / %s" % (fmt(by["moreau"]["wall_s"], 3), fmt(by["pinn_central"]["wall_s"], 3)) if i == 0 else ""))
    c, _ = fv.compare("chain5_F15.json", ["moreau", "pinn_central"], [1e-3], csets)
    by = {r["method"]: r for r in c["runs"]}
    ref = c["reference"]["transition_displacement_rms"]
    for i in range(5):
        lines.append("| 15 (5 sliders) | m%d | %s (dt = 1e-7) | %s | %s | %s | %s | %s |" % (
            i + 1, fmt(SEED1_5[0][i]), fmt(SEED1_5_PINN[i]), fmt(ref[i]),
            tr(by["moreau"], i, ref[i]), tr(by["pinn_central"], i, ref[i]),
            "%s / %s" % (fmt(by["moreau"]["wall_s"], 3), fmt(by["pinn_central"]["wall_s"], 3)) if i == 0 else ""))
    errs = [e for e in chain_errors if e is not None]
    lines.append("\n- Seed 001 Tables 1–2: the PINN's transition RMS is within 0.1–0.6%% of the reference, at the "
                 "conventional method's level. fivsim's `pinn_central` (the seed's central-difference step with the "
                 "LCP-PINN, polished answers held to the natural-map residual 1e-9) is within %s of fivsim's "
                 "switching model on the 2-slider chains%s. Its absolute values differ from the seed's because "
                 "fivsim's belt speed and Stribeck constants are its own (see above); on the 5-slider chain, which is "
                 "not periodic with these constants, every time stepper drifts by several percent from the switching "
                 "model, as Moreau does.\n\n" % (
                     "%.2f%%" % (100 * max(errs)) if errs else "– (no run finished)",
                     "" if len(errs) == 6 else " (%d of 6 runs finished)" % len(errs)))


def sdof(fv, lines):
    lines.append("## Seed 003: base-excited SDOF with Coulomb friction (§2.2, Table 1, 0.95 Hz)\n")
    s = fv.run("sdof_base_two_stop.json", ["/integrator/method=\"switching\"", "/integrator/t_end=40",
                                           "/analysis/t_transient=20"])
    f = 0.95
    stops = [e for e in s["events"] if e["type"] == "slip_to_stick" and e["t"] >= 20.0]
    starts = [e for e in s["events"] if e["type"] == "stick_to_slip" and e["t"] >= 20.0]
    durations = []
    for e in stops:
        nxt = [x["t"] for x in starts if x["t"] > e["t"]]
        if nxt:
            durations.append(nxt[0] - e["t"])
    lines.append("k̂ = 358.706, ĉ = 0.0658, F̂f = 0.0856, A = 0.0015 m, 0.95 Hz (seed). The event-driven switching "
                 "model (seed 003 Eqs. 13–14) over 20–40 s: **%.2f stops per forcing cycle** (seed: the 0.95 Hz case "
                 "is 'two-stop'), mean stop %.4f s.\n" % (len(stops) / ((40.0 - 20.0) * f), np.mean(durations)))


SEED003_TABLE5 = {"continuous": ((0, 23.07, 0), None), "two-stop": ((6.19, 623.07, 82.35), (0.84, 23.07, 5.88)),
                  "four-stop": ((9.82, 530.7, 70.58), (1.15, 38.46, 2.35))}
SEED003_RMSE = {"continuous": (0.014, None), "two-stop": (1.06, 0.01), "four-stop": (5.4, 0.05)}  # 1e-4 m


def identify_section(fv, lines, quick):
    lines.append("## Seed 003: identification of the Coulomb oscillator (Tables 3, 5, 6, Figs. 2, 4)\n")
    cfg = "identify/sdof_two_stop_extended_sindy_grid.json"
    regimes = [("continuous", 2.013), ("two-stop", 0.95), ("four-stop", 0.47)]
    sample = "1e-3" if quick else "2e-4"
    lines.append("Records from fivsim's event-driven `base_excited_sdof` (seed 003 Table 1: k̂ = 358.706, ĉ = 0.0658, "
                 "F̂f = 0.0856, A = 0.0015 m, from rest) over 0–20 s, **sampled at %s s** (the seed does not give its "
                 "rate), identified by `fivsim identify` with the Table 4 hyperparameters (SR3 threshold 0.05 with "
                 "ẋ1 = x2 fixed, Savitzky–Golay window 35, v_stop = 1e-7, v_slip = 1e-3; the seed's grid step 3, `step3: grid`, where the default is the held regression of docs/IDENTIFY.md; the (k̂, ĉ) grid is 201 × 201 "
                 "over 0.8–1.2 × and 0–3 × the slip-sample SINDy estimate). `config`: `scenarios/%s` with "
                 "`--set /data/set/~1model~1f_hz=F`.\n" % (sample, cfg))
    lines.append("| regime (Hz) | algorithm | identified ẋ2 (fivsim) | RMSE 1e-4 m fivsim (seed) | errors k̂, ĉ, F̂f % fivsim | seed |")
    lines.append("|---|---|---|---|---|---|")
    folders = []
    for name, f in regimes:
        j, out = fv.identify(cfg, ["/data/set/~1model~1f_hz=%g" % f, "/data/sample_dt=%s" % sample])
        folders.append(out)
        seed_err, seed_rmse = SEED003_TABLE5[name], SEED003_RMSE[name]
        for key, label, k in (("sindy", "SINDy", 0), ("extended_sindy", "extended SINDy", 1)):
            r = j[key]
            e = r["errors_percent"]
            eq = r["equations"][1].replace("dx2 = ", "")
            seed_e = seed_err[k]
            note = ""
            if key == "extended_sindy" and j[key]["converges_to_sindy"]:
                note = " (no stop samples: converges to SINDy)"
            lines.append("| %s (%g) | %s%s | %s | %s (%s) | %.3g, %.3g, %.3g | %s |" % (
                name, f, label, note, eq, fmt(1e4 * r["rmse"] if r["rmse"] is not None else None, 3),
                "–" if seed_rmse[k] is None else seed_rmse[k], e["k"], e["c"], e["F"],
                "converges to SINDy" if seed_e is None else "%g, %g, %g" % seed_e))
        ext = j["extended_sindy"]
        lines.append("| | *slip-sample SINDy (step 2)* | %s | %s | %.3g, %.3g, %.3g | |" % (
            ext["slip_sindy"]["equations"][1].replace("dx2 = ", ""), fmt(1e4 * ext["slip_sindy"]["rmse"], 3),
            ext["slip_sindy"]["errors_percent"]["k"], ext["slip_sindy"]["errors_percent"]["c"],
            ext["slip_sindy"]["errors_percent"]["F"]))
    png = os.path.join(ROOT, "docs", "img", "identify_seed003_responses.png")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "plot", "plot_identify.py")] + folders +
                   ["--window", "10", "14", "--out", png, "--dpi", "110"], check=True, capture_output=True)
    lines.append("\n![records and identified responses](img/identify_seed003_responses.png)\n")
    bounds_png = os.path.join(ROOT, "docs", "img", "identify_seed003_bounds.png")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "plot", "plot_identify.py"), folders[1],
                    "--bounds", "--out", bounds_png, "--dpi", "110"], check=True, capture_output=True)
    lines.append("Seed 003 Fig. 3 for the two-stop record (`scripts/plot/plot_identify.py DIR --bounds`): D = |Φ2 − Φ1| "
                 "over the grid, and Φ1, Φ2 along k̂ at ĉ*.\n")
    lines.append("![bound surfaces, two-stop](img/identify_seed003_bounds.png)\n")
    lines.append("- Plain SINDy over stick and slip samples is biased in the stick-slip regimes, as in the seed (k̂ off by "
                 "several %, ĉ by hundreds of %, F̂f by tens of %), and its response misses the stop positions.\n"
                 "- Step 2 alone — SINDy on the slip samples — already identifies the noise-free records almost exactly "
                 "at this sampling rate (the slip rows). Step 3's grid argmin of D = |Φ2 − Φ1| then gives k̂ and F̂f "
                 "within about 1% but moves ĉ: at the right k̂, D is nearly flat along ĉ (the valley in the figure "
                 "above; seed 003 Fig. 3 shows the same non-unique intersection), so ĉ* moves with the grid and with the segregation thresholds (compare "
                 "the noise rows below). The seed reports ĉ errors of 23–38% for the extended method.\n"
                 "- In the continuous regime the record starts from rest, so it holds a few stop samples before the "
                 "first break-away: step 3 runs on them and is not better than SINDy there; the seed reports "
                 "'converges to SINDy' (no stops).\n")
    # noise study: seed Table 6 standard deviations (mm) against extended SINDy's errors
    table6 = [(20, 1.4e-2), (30, 1.4e-3), (60, 1.4e-6), (70, 1.4e-7), (90, 1.4e-9), (105, 1.4e-10), (120, 1.4e-12)]
    if quick:
        table6 = table6[::3]
    lines.append("**Noise (Table 6, Fig. 4).** Gaussian noise of the seed's standard deviation σ on x and on v (scaled "
                 "by rms(v)/rms(x)), seed 1. The seed's σ column is not 20·log10 of one amplitude ratio (20 → 30 dB "
                 "divides σ by 10, 30 → 60 dB by 1000), so fivsim uses its σ values and lists both. With noise, "
                 "**v_stop = 3σ_v and v_slip = max(1e-3, 30σ_v)** (the seed: 'v_stop will strongly depend on the noise "
                 "level'; with v_stop = 1e-7 a noisy record has no stop samples at all).\n")
    lines.append("| SNR dB (seed) | σ mm | two-stop: SINDy k̂, ĉ, F̂f % | two-stop: extended | four-stop: SINDy | four-stop: extended |")
    lines.append("|---|---|---|---|---|---|")
    ratio = {}
    for name, f in regimes[1:]:
        with open(os.path.join(folders[regimes.index((name, f))], "record.csv")) as fh:
            rec = np.genfromtxt(fh, delimiter=",", names=True)
        ratio[name] = np.sqrt(np.mean(rec["v"] ** 2) / np.mean(rec["x"] ** 2))
    noise_errs = {name: [] for name, _ in regimes[1:]}
    for snr, sigma_mm in table6:
        cells = []
        for name, f in regimes[1:]:
            sv = 1e-3 * sigma_mm * ratio[name]
            j, _ = fv.identify(cfg, ["/data/set/~1model~1f_hz=%g" % f, "/data/sample_dt=%s" % sample,
                                     "/noise/std=%g" % (1e-3 * sigma_mm), "/options/v_stop=%g" % (3 * sv),
                                     "/options/v_slip=%g" % max(1e-3, 30 * sv)])
            for key in ("sindy", "extended_sindy"):
                e = j[key]["errors_percent"]
                cells.append("%.3g, %.3g, %.3g%s" % (e["k"], e["c"], e["F"],
                             " (no stops)" if key == "extended_sindy" and j[key]["converges_to_sindy"] else ""))
            noise_errs[name].append((snr, j["extended_sindy"]["errors_percent"]))
        lines.append("| %d | %g | %s |" % (snr, sigma_mm, " | ".join(cells)))
    fig, axes = plt_subplots(len(noise_errs))
    for ax, (name, rows) in zip(axes, noise_errs.items()):
        for key, label in (("k", "k̂"), ("c", "ĉ"), ("F", "F̂f")):
            ax.semilogy([r[0] for r in rows], [max(r[1][key], 1e-6) for r in rows], "o-", label=label)
        ax.set_title("extended SINDy, %s" % name, fontsize=10)
        ax.set_xlabel("SNR (dB, seed Table 6 σ)")
        ax.set_ylabel("relative error (%)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(ROOT, "docs", "img", "identify_seed003_noise.png"), dpi=110)
    lines.append("\n![extended SINDy errors versus noise](img/identify_seed003_noise.png)\n")
    lines.append("- A measured velocity is never exactly zero: with any noise the sgn(x2) column of a sticking sample "
                 "is random, and plain SINDy loses the friction term (F̂f error 100%) even at 120 dB, where the "
                 "noise-free record's exact zeros gave the errors of the first table. Extended SINDy, which fits only "
                 "slip samples and bounds F̂f from the stops, keeps k̂ and F̂f within 1% down to 60 dB; at 20–30 dB "
                 "σ_v exceeds v_slip's margin and the segregation fails, as the seed observes below 20 dB.\n")


# seed 002 §2.3.2: the four friction models of Figs. 6–7 (torques in N m: Fn = 1)
TORSION_MODELS = [
    ("LuGre", '{"law": "lugre", "sigma0": 2e4, "sigma1": 1e2, "sigma2": 0.5, "Fc": 0.12, "Fs": 0.16, "vs": 1e-3, '
              '"beta": 2}', "smooth"),
    ("Coulomb-viscous", '{"law": "coulomb_viscous", "mu": 0.12, "mu_v": 0.5}', "switching"),
    ("Dahl", '{"law": "dahl", "sigma0": 2e4, "Fc": 0.12, "beta": 2}', "smooth"),
    ("Coulomb, tanh ε = 1e3", '{"law": "coulomb_tanh", "mu": 0.12, "eps": 1e3}', "smooth"),
    ("Coulomb, exact", '{"law": "coulomb", "mu": 0.12}', "switching"),
]


def torsion_section(fv, lines, quick):
    lines.append("## Seed 002: friction models on the torsion pendulum (§2.3, Eq. 9, Figs. 6–7)\n")
    sc = "torsion_pendulum_lugre.json"
    lines.append("J2 = 2.17e-4, c2 = 0.19, k2 = 0.7, μv = 0.5, μc = 0.12, μs = 0.16, β = 2, σ0 = 2e4, σ1 = 1e2, σ2 = μv, "
                 "vs = 1e-3, ε = 1e3 (seed); input rate 0.02 sin(0.2πt). Scenario `scenarios/%s` with `/friction` "
                 "replaced per model; dynamic and tanh-smoothed laws run with the `smooth` method (Rosenbrock 4), "
                 "set-valued ones with the exact event-driven `switching` reference.\n" % sc)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Fig. 6: each law driven by v(t) = 0.02 sin(0.2πt), `fivsim friction`
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6))
    rows = []
    for label, law, _ in TORSION_MODELS:
        f = fv.friction(sc, ["/friction=" + law, "/integrator/method=\"smooth\"" if "coulomb\"" not in law and
                             "viscous" not in law else "/integrator/method=\"switching\""])
        a.plot(f["v"], f["F"], lw=1, label=label)
        b.plot(f["t"], f["F"], lw=1, label=label)
        # v = 0.01 on the way down from the peak: 0.2π t = 5π/6
        rows.append("| %s | %.4f | %.4f |" % (label, np.max(f["F"]), f["F"][np.argmin(np.abs(f["t"] - 25.0 / 6.0))]))
    a.set_xlabel("sliding velocity (rad/s)")
    a.set_ylabel("friction torque (N m)")
    b.set_xlabel("t (s)")
    a.legend(fontsize=7)
    a.set_title("seed 002 Fig. 6a: torque over velocity", fontsize=9)
    b.set_title("Fig. 6b: response to v = 0.02 sin(0.2πt)", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(ROOT, "docs", "img", "torsion_friction_models.png"), dpi=110)
    plt.close(fig)
    lines.append("**Fig. 6** (`fivsim friction scenarios/%s --set /friction=…`): the torque of each law along "
                 "v(t) = 0.02 sin(0.2πt) from rest.\n" % sc)
    lines.append("| model | peak torque (N m) | torque at v = 0.01 rad/s, decelerating (t = 25/6 s) |")
    lines.append("|---|---|---|")
    lines += rows
    lines.append("\n![friction models](img/torsion_friction_models.png)\n")
    lines.append("- LuGre peaks at Fs + σ2·v near v = vs (the Stribeck hump) and settles to Fc + μv v; Coulomb-viscous "
                 "has the same sliding branch without the hump; Dahl rises along its pre-sliding curve to Fc; the tanh "
                 "Coulomb law reaches Fc within a few 1/ε = 1e-3 rad/s.\n")
    # Fig. 7: Eq. 9 with the seed's input, then with a lighter contact
    t_end = "10" if quick else "20"
    seed_rows, light = [], []
    for label, law, method in TORSION_MODELS:
        base = ["/friction=" + law, "/integrator/method=\"%s\"" % method, "/integrator/t_end=" + t_end]
        d = fv.series(sc, base)
        seed_rows.append((label, np.max(np.abs(d["q0"])), np.max(np.abs(d["u0"]))))
        light.append((label, fv.series(sc, base + ["/model/Fn=1e-5"])))
    lines.append("**Fig. 7** (`fivsim run`). With the stated input the inertial torque J2·φ̈1,m is at most "
                 "J2·0.02·0.2π = %.3g N m against a break-away torque of 0.12–0.16 N m, so in Eq. 9 as printed the disk "
                 "never slips on the column:\n" % (2.17e-4 * 0.02 * 0.2 * np.pi))
    lines.append("| model | max abs φ2 (rad) | max abs φ̇2 (rad/s) |")
    lines.append("|---|---|---|")
    for label, q, u in seed_rows:
        lines.append("| %s | %.3g | %.3g |" % (label, q, u))
    lines.append("\nThe seed's Fig. 7 comes from its measured φ1,m(t), which it does not print. To compare the models in "
                 "motion, fivsim scales the contact down (**Fn = 1e-5**, fivsim's choice: every law's torque × 1e-5, so "
                 "the same input makes the disk stick and slip):\n")
    lines.append("| model | RMS φ2 (rad) | max abs φ̇2 (rad/s) | time with abs φ̇2 < 1% of its max |")
    lines.append("|---|---|---|---|")
    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 5.4), sharex=True)
    for label, d in light:
        u = d["u0"]
        lines.append("| %s | %.3g | %.3g | %.0f%% |" % (label, np.sqrt(np.mean(d["q0"] ** 2)), np.max(np.abs(u)),
                                                       100 * np.mean(np.abs(u) < 0.01 * np.max(np.abs(u)))))
        a.plot(d["t"], 1e6 * d["q0"], lw=1, label=label)
        b.plot(d["t"], 1e6 * u, lw=1, label=label)
    a.set_ylabel("φ2 (µrad)")
    b.set_ylabel("φ̇2 (µrad/s)")
    b.set_xlabel("t (s)")
    a.legend(fontsize=7, ncol=3)
    a.set_title("seed 002 Eq. 9, input rate 0.02 sin(0.2πt), contact scaled to Fn = 1e-5", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(ROOT, "docs", "img", "torsion_pendulum_response.png"), dpi=110)
    plt.close(fig)
    lines.append("\n![torsion pendulum responses](img/torsion_pendulum_response.png)\n")
    lines.append("- The seed pairs Coulomb-viscous with LuGre and Coulomb with Dahl. In fivsim's lighter-contact run the "
                 "viscous term is scaled down with the rest (μv·v·Fn is negligible at these speeds), so Coulomb-viscous "
                 "and exact Coulomb coincide, and the dynamic laws (whose pre-sliding compliance lets the disk creep "
                 "while 'stuck') sit with the tanh-smoothed Coulomb law. The pairing cannot be checked without the "
                 "seed's measured input.\n")
    # §4.3: the torque from the motion by the PINN pair (Eq. 23), on fivsim's own LuGre record
    lugre_u = dict(light)["LuGre"]["u0"]
    lugre_slow = 100 * np.mean(np.abs(lugre_u) < 0.01 * np.max(np.abs(lugre_u)))
    cfg = "identify/torsion_pendulum_pinn.json"
    j, out = fv.identify(cfg, ["/options/adam_iter=1500", "/options/max_iter=1000"] if quick else [])
    p = j["pinn"]
    png = os.path.join(ROOT, "docs", "img", "torsion_pinn_identify.png")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "plot", "plot_identify.py"), out, "--out", png,
                    "--dpi", "110"],
                   check=True, stdout=subprocess.DEVNULL)
    opts = j["config"]["options"]
    lines.append("### §4.3: the friction torque by PINN identification (Eq. 23)\n")
    lines.append("`fivsim identify scenarios/%s`: the Fn = 1e-5 LuGre record above (20 s at dt = 0.01 s, %d samples; "
                 "φ2 relative to the column, so the balance is Eq. 9's: J1 = −J2, c = c2, k = k2, fixed), networks "
                 "N1(t, φ1) → φ2 and N2(t, φ1) → τ_f of %s tanh neurons, trained on every %dth sample by %s "
                 "(%d Adam steps at learning rate %g, then L-BFGS) and tested on every sample.\n"
                 % (cfg, j["record"]["samples"], "×".join(str(w) for w in opts["hidden"]), opts["train_every"],
                    opts["optimizer"], opts["adam_iter"], opts["learning_rate"]))
    lines.append("| | fivsim | seed 002 §4.4 |")
    lines.append("|---|---|---|")
    lines.append("| record | simulated LuGre, Fn = 1e-5, 2001 samples | measured, 2950 samples |")
    lines.append("| training | %d iterations, %.1f s (CPU, %s) | 10⁴ Adam epochs, 90.23 s |"
                 % (p["iterations"], p["wall_s"], "2 threads" if os.cpu_count() == 2 else "%d threads" % os.cpu_count()))
    lines.append("| final loss | %.3g (scaled: data %.3g + physics %.3g) | 0.587 (unscaled, measured data) |"
                 % (p["loss"], p["data_loss"], p["physics_loss"]))
    lines.append("| N1 against φ2, every sample | RMSE %.3g rad | shown in Fig. 17a |" % p["rmse"])
    lines.append("| N2 against the true friction torque | %.3g%% RMS error | no friction measurement |"
                 % p["torque_error_percent"])
    lines.append("\n![PINN identification of the LuGre torque](img/torsion_pinn_identify.png)\n")
    lines.append("- The seed could not check its torque (no friction was measured); on a simulated record fivsim can, and "
                 "N2 follows the LuGre torque to a few percent except at the first samples, where the difference stencil "
                 "leaves N2 free. At this load LuGre's bristles creep rather than stick (%.0f%% of the time below 1%% of "
                 "the peak rate, table above), so the torque is smooth; a record with sharp stick-slip corners asks more of "
                 "N2, and no such case is reported here. The seed's loss is not comparable: it is unscaled and on "
                 "measured data.\n" % lugre_slow)
    lines.append("- The seed trains J1 and J2 within bounds. Eq. 23 does not determine them (any pair is closed by "
                 "N2 = J1 φ̈1 − J2 φ̈2), so fivsim fixes them here; trainable coefficients are supported and tested "
                 "(docs/IDENTIFY.md).\n")


def plt_subplots(n):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, n, figsize=(5 * n, 3.4), squeeze=False)
    return fig, list(axes[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "REPRODUCTION.md"))
    ap.add_argument("--quick", action="store_true", help="shorter runs and a coarser search (for a smoke test)")
    ap.add_argument("--sections", default="model1,model2,chains,sdof,identify,torsion,pinn",
                    help="sections to regenerate; the others are kept from the existing --out file")
    a = ap.parse_args()
    wanted = a.sections.split(",")
    lines = ["# Reproduction of the seed cases",
             "",
             "Generated by `scripts/studies/reproduction.py` on %s from `fivsim compare`, `fivsim stability` and "
             "`fivsim run` on the bundled scenarios. Values the seeds leave open are **in bold** with what they "
             "were chosen to reproduce. Method names: `moreau` (the seeds' conventional LCP method), `rk4lcp` (the "
             "conventional RK4 LCP method), `irkQ` (Gauss–Legendre IRK-LCP with Q stages, contact forces held over "
             "the step), `-interp` (forces interpolated over the stages, seed 000 Eqs. 30–31, the classical "
             "counterpart of the advanced PINNs). The PINN methods have their own section at the end."
             % datetime.date.today(),
             ""]
    # the sections in order, each "## " block of the file; those not regenerated are kept
    old = {}
    if os.path.exists(a.out):
        with open(a.out) as f:
            text = f.read().split("\n---\n")[0]
        for block in text.split("\n## ")[1:]:
            old[block.split("\n", 1)[0]] = "## " + block.rstrip("\n") + "\n"
    sections = [("model1", lambda fv, out: model1(fv, out, a.quick)), ("model2", lambda fv, out: model2(fv, out, a.quick)),
                ("chains", lambda fv, out: chains(fv, out, a.quick)), ("sdof", lambda fv, out: sdof(fv, out)),
                ("identify", lambda fv, out: identify_section(fv, out, a.quick)),
                ("torsion", lambda fv, out: torsion_section(fv, out, a.quick)),
                ("pinn", lambda fv, out: pinn(fv, out, a.quick))]
    with tempfile.TemporaryDirectory() as work:
        fv = Fivsim(a.fivsim, work)
        for name, make in sections:
            out = []
            if name in wanted:
                make(fv, out)
                print("section", name, "done", flush=True)
            else:
                # the kept block whose title is this section's (first line after "## ")
                title = {"model1": "Seed 000 Model I:", "model2": "Seed 000 Model II:", "chains": "Seed 001:",
                         "sdof": "Seed 003: base-excited", "identify": "Seed 003: identification",
                         "torsion": "Seed 002:",
                         "pinn": "PINN frameworks"}[name]
                out = [v for k, v in old.items() if k.startswith(title)]
            lines += out
        lines.append("---\n%d fivsim commands in the last pass (sections: %s)." % (fv.count, a.sections))
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", a.out)


if __name__ == "__main__":
    main()
