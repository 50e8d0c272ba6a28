"""Seed 000 Model II (§4, Tables 2–3, Fig. 19): the mode-coupling slider with a spring contact — its
flutter threshold, the RMS tables of Examples 1 and 2, and the search for Example 1's unstated v0 and Fp."""
import json
import os

import numpy as np
from scipy.optimize import minimize

from .common import ROOT, fmt, pct, found, SEED2, NAMES


def example1_search(fv, sets=()):
    """v0 and Fp of Example 1 (with `sets` applied) whose event-driven RMS row is closest to the seed's
    root-shooting row (sum of squared log ratios), by a grid and then Nelder–Mead"""
    target = np.array(SEED2["model2_example1.json"]["ref"], dtype=float)
    keys = SEED2["model2_example1.json"]["keys"]
    cache = {}

    def rms(v0, fp):
        key = (round(v0, 9), round(fp, 9))
        if key not in cache:
            s = fv.run("model2_example1.json", ["/integrator/method=\"switching\"", "/integrator/dt=1e-3",
                                                "/model/v0=%r" % v0, "/model/Fp=%r" % fp,
                                                "/initial/u=[%r,%r]" % (v0, v0)] + list(sets))
            cache[key] = np.array([s["rms"][k] for k in keys])
        return cache[key]

    def cost(p):
        v0, fp = p
        if v0 <= 0 or fp < 0:
            return 1e9
        return float(np.sum(np.log(rms(v0, fp) / target) ** 2))

    grid_v = np.linspace(20, 300, 15)
    grid_f = np.linspace(0, 4000, 15)
    best = min(((cost((v, f)), v, f) for v in grid_v for f in grid_f))
    res = minimize(cost, [best[1], best[2]], method="Nelder-Mead",
                   options={"xatol": 1e-3, "fatol": 1e-9, "maxfev": 200})
    v0, fp = res.x
    return v0, fp, rms(v0, fp), len(cache)


SEED_MU_C = 0.83


def mu_c(fv, sets=()):
    """the flutter threshold μc of Example 1's steady sliding with `sets` (None: none up to μ = 3)"""
    return fv.stability("model2_example1.json", "/friction/mu", [0, 3, 301], sets)["critical"]


def mu_c_search(fv):
    """for each of k1, k3, kc alone: the values, within a quarter to four times the seed's, whose μc is the
    seed's 0.83 (a scan, then bisection on each bracket), and the smallest μc the scan met"""
    found = {}
    for name, seed in (("k1", 1000.0), ("k3", 600.0), ("kc", 500.0)):
        values = list(np.geomspace(seed / 4, seed * 4, 33))
        mus = [mu_c(fv, ["/model/%s=%r" % (name, v)]) for v in values]
        roots = []
        for (a, ma), (b, mb) in zip(zip(values, mus), zip(values[1:], mus[1:])):
            if ma is None or mb is None or (ma - SEED_MU_C) * (mb - SEED_MU_C) > 0:
                continue
            for _ in range(30):
                mid = 0.5 * (a + b)
                mm = mu_c(fv, ["/model/%s=%r" % (name, mid)])
                if mm is not None and (mm - SEED_MU_C) * (ma - SEED_MU_C) > 0:
                    a, ma = mid, mm
                else:
                    b = mid
            roots.append(0.5 * (a + b))
        found[name] = (seed, roots, min(m for m in mus if m is not None))
    return found


def model2(ctx, lines):
    fv = ctx.fv
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
    search = mu_c_search(fv)
    lines.append("- Which one stated constant, changed alone, gives the seed's μc = 0.83 (`fivsim stability` over "
                 "μ ∈ [0, 3] for each value of the constant from a quarter to four times the seed's, then bisection):\n")
    lines.append("| constant | seed | values giving μc = 0.83 | smallest μc in the range |")
    lines.append("| --- | --- | --- | --- |")
    for name, (seed, roots, lowest) in search.items():
        lines.append("| %s | %g | %s | %s |" % (name, seed, ", ".join(fmt(r, 5) for r in roots) or "none",
                                                fmt(lowest, 5)))
    near = {name: min(roots, key=lambda r: abs(r / seed - 1)) for name, (seed, roots, _) in search.items() if roots}
    lines.append("\n- μc does not depend on m (the mass scales both modes alike; m = 10: μc = %s). %s\n" % (
        fmt(mu_c(fv, ["/model/m=10"]), 7),
        "; ".join("%s = %s (%+.1f%% from the seed's %g)" % (n, fmt(r, 5), 100 * (r / search[n][0] - 1), search[n][0])
                  for n, r in near.items()) + " reproduce 0.83; no k3 does, since μc is smallest (%s) at k3 = |k1 − kc|. "
        "The seed's Fig. 19 fits a contact stiffness about %.0f%% above the printed kc = 500, or k1 %.0f%% below the "
        "printed 1000." % (fmt(search["k3"][2], 4), 100 * (near["kc"] / 500 - 1), 100 * (1 - near["k1"] / 1000))
        if "kc" in near and "k1" in near else "No single constant reproduces 0.83 in the range."))
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
                         "force RMS is about twice the seed's; the search over Fp and v0 is in the thresholds section "
                         "below); the percentages compare each method with fivsim's own reference.\n" % (
                             found(by[("moreau", 1e-3)]), found(by[("moreau", 5e-4)]), found(by[("moreau", 1e-4)]),
                             found(by[("irk10-interp", 1e-3)]), 100 * by[("irk10-interp", 1e-3)]["rel_error"]["lamN0"]))
            ctx.plot("plot_compare.py", [folder, "--from", "8.7", "--to", "9.7", "--runs",
                                         "moreau_dt0.001,irk10_dt0.001,irk10-interp_dt0.001",
                                         "--out", ctx.image("model2_example2_dt1e-3.png"), "--dpi", "110"])
            lines.append("![Model II Example 2, 8.7–9.7 s, dt = 1e-3](img/model2_example2_dt1e-3.png)\n")
            lines.append("*Model II Example 2 over 8.7–9.7 s (seed Figs. 23b, 24b) at dt = 1e-3: Moreau, IRK-LCP "
                         "(10 stages, held forces) and IRK-LCP with interpolated forces over the event-driven "
                         "reference; made by `fivsim compare ... --series` and `scripts/plot/plot_compare.py`.*\n")

    if ctx.cheap:
        return
    fits = [("seed's", [])] + [("%s = %s" % (n, fmt(r, 5)), ["/model/%s=%r" % (n, r)]) for n, r in near.items()]
    results = [(label,) + example1_search(fv, sets) for label, sets in fits]
    target = SEED2["model2_example1.json"]["ref"]
    keys = SEED2["model2_example1.json"]["keys"]
    lines.append("**Identifying Example 1's unstated v0 and Fp from the seed's reference row.** A grid over v0 ∈ "
                 "[20, 300] and Fp ∈ [0, 4000] and then Nelder–Mead on the sum of squared log ratios between fivsim's "
                 "event-driven RMS row and the seed's root-shooting row, with the seed's stiffnesses and with each "
                 "stiffness that gives μc = 0.83 (%d reference runs):\n" % sum(r[4] for r in results))
    lines.append("| | stiffnesses | v0 | Fp | " + " | ".join(NAMES[k] for k in keys) + " |")
    lines.append("| --- | --- | --- | --- | " + " | ".join("---" for _ in keys) + " |")
    lines.append("| seed root-shooting | | ? | ? | " + " | ".join(fmt(v) for v in target) + " |")
    worst = {}
    for label, v0, fp, row, _ in results:
        lines.append("| fivsim, best fit | %s | %s | %s | %s |" % (label, fmt(v0, 5), fmt(fp, 5), " | ".join(
            pct(v, t) for v, t in zip(row, target))))
        worst[label] = max(abs(v - t) / t for v, t in zip(row, target))
    best = min(worst, key=worst.get)
    lines.append("\n- The best (v0, Fp) reproduces the seed's row to within %s. %s\n" % (
        ", ".join("%.1f%% (%s stiffnesses)" % (100 * w, k) if k == "seed's" else "%.1f%% (%s)" % (100 * w, k)
                  for k, w in worst.items()),
        "That is close enough to take these as the seed's likely values." if worst[best] < 0.02 else
        "No fit comes within %.0f%% (the best with %s stiffnesses), and a stiffness that reproduces μc fits no "
        "better: the seed's model differs in more than v0, Fp and one stiffness (the sign of its printed stiffness "
        "terms, its contact-force definition), so fivsim keeps its documented choices for the bundled scenario." % (
            100 * worst[best], best if best == "seed's" else "the " + best)))


