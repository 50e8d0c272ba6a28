"""Seed 001's open constants searched, not chosen: the belt speed v0 and the Stribeck constants
(μ_s, μ_d, α of μ = μ_d + (μ_s − μ_d) exp(−α|v|)) for which fivsim's classes at the seed's three
loads are the regimes of its Fig. 5 — 11 N chaotic (Lyapunov exponent positive beyond three standard
errors), 15 N periodic-1, 24 N periodic-2 on the break-away of m1 (m1 sticks twice a cycle) — and,
among those, the smallest largest gap to its Table 1 transition-displacement RMS (200–400 s).
The sweep is scenarios/seed_constants/seed001_chain_constants.json, then the same on a finer grid."""
import numpy as np

from .common import SEED1

KEYS = ["/model/v0", "/friction/alpha", "/friction/mu_s", "/friction/mu_d"]
SWEEP = "seed_constants/seed001_chain_constants.json"


def regimes(cases):
    """constants -> (meets all three regimes, the classes at 11, 15 and 24 N, the exponent at 11 N)"""
    out = {}
    for key, grp in cases.groupby(KEYS):
        by = {int(fn): row for fn, (_, row) in zip(grp["/model/Fn"], grp.iterrows())}
        chaos = by[11]["class"] == "chaotic" and by[11]["lyapunov"] > 3 * by[11]["lyapunov_err"]
        ok = chaos and by[15]["class"] == "periodic-1" and by[24]["class"] == "periodic-2"
        out[tuple(float("%.9g" % v) for v in key)] = (ok, [by[fn]["class"] for fn in (11, 15, 24)],
                                                        (by[11]["lyapunov"], by[11]["lyapunov_err"]))
    return out


def sets_of(constants):
    return ["%s=%r" % (k, v) for k, v in zip(KEYS, constants)]


def table1(fv, constants):
    """the switching model's transition-displacement RMS of m1, m2 at each load (200–400 s) and the
    largest relative gap to the seed's"""
    rms, gap = {}, 0.0
    for fn in (11, 15, 24):
        cmp, _ = fv.compare("chain2_F%d.json" % fn, ["moreau"], [1e-3], sets_of(constants) + [
            "/integrator/t_end=400", "/analysis/t_transient=200"])
        rms[fn] = cmp["reference"]["transition_displacement_rms"]
        gap = max([gap] + [abs(rms[fn][i] - SEED1[fn][0][i]) / SEED1[fn][0][i] for i in range(2)])
    return rms, gap


def neighbours(grid, constants):
    """of the grid points one step from `constants` along one axis, how many meet the regimes"""
    axes = [sorted({k[i] for k in grid}) for i in range(len(KEYS))]
    near = []
    for i, axis in enumerate(axes):
        j = axis.index(constants[i])
        for jj in (j - 1, j + 1):
            if 0 <= jj < len(axis):
                near.append(tuple(axis[jj] if a == i else constants[a] for a in range(len(KEYS))))
    return sum(1 for n in near if grid[n][0]), len(near)


def verify(fv, constants):
    """the classes at 11, 15, 24 N at the constants as printed and with v0 moved by one part in a
    million; the regimes are the constants' own only where both meet them"""
    v0 = constants[0]
    sets = ['/sweep/parameters/0={"path": "/model/v0", "values": [%r, %r]}' % (v0, v0 * (1 + 1e-6))]
    for i in range(1, len(KEYS)):
        sets.append('/sweep/parameters/%d={"path": "%s", "values": [%r]}' % (i, KEYS[i], constants[i]))
    cases, _ = fv.sweep(SWEEP, sets)
    both = [v for _, v in sorted(regimes(cases).items())]
    assert len(both) == 2, "the two values of v0 are one set"
    return all(v[0] for v in both), [v[1] for v in both]


def search(fv):
    """the coarse grid; each constant set meeting the regimes checked at its printed values and ranked
    by its Table 1 gap; a finer grid around the best; returns what the report states"""
    coarse, _ = fv.sweep(SWEEP)
    grid = regimes(coarse)
    hits = [k for k, v in grid.items() if v[0]]
    checked = {k: verify(fv, k) + (table1(fv, k)[1],) for k in hits}
    pool = [k for k in hits if checked[k][0]] or hits
    best = min(pool, key=lambda k: checked[k][2])
    # the finer grid: half the coarse steps, two each side of the best
    steps = [0.025, 0.5, 0.01, 0.0075]
    local_sets = []
    for i, (k, h) in enumerate(zip(KEYS, steps)):
        local_sets.append('/sweep/parameters/%d={"path": "%s", "linspace": [%r, %r, 5]}'
                          % (i, k, best[i] - 2 * h, best[i] + 2 * h))
    local, _ = fv.sweep(SWEEP, local_sets)
    fine = regimes(local)
    fine_hits = [k for k, v in fine.items() if v[0]]
    # the 40 nearest the coarse best are checked (each a sweep and three compares)
    near = sorted(fine_hits, key=lambda k: sum(((a - b) / h) ** 2 for a, b, h in zip(k, best, steps)))[:40]
    fine_checked = {k: verify(fv, k) + (table1(fv, k)[1],) for k in near}
    robust = [k for k in near if fine_checked[k][0]] + [k for k in hits if checked[k][0]]
    everything = {**checked, **fine_checked}
    chosen = min(robust or near or [best], key=lambda k: everything[k][2])
    # the same grid judged on the seed's own window: 400-s runs, classes from 200-400 s only
    window, _ = fv.sweep(SWEEP, ["/integrator/t_end=400", "/analysis/t_transient=200", "/analysis/adaptive=false",
                                 "/analysis/orbit=false"])
    in_window = regimes(window)
    pairs = {"11 N chaotic": 0, "15 N periodic-1 and 24 N periodic-2": 0, "all three": 0}
    at_11 = {}  # the classes at 11 N where 15 and 24 N are the seed's
    for ok, classes, _ in in_window.values():
        pairs["11 N chaotic"] += classes[0] == "chaotic"
        if classes[1:] == ["periodic-1", "periodic-2"]:
            pairs["15 N periodic-1 and 24 N periodic-2"] += 1
            at_11[classes[0]] = at_11.get(classes[0], 0) + 1
        pairs["all three"] += ok
    undetermined = int((window["class"] == "undetermined").sum())
    return {"window": pairs, "window_at_11": at_11, "window_cases": window,
            "window_undetermined": undetermined, "coarse": coarse, "coarse_cases": len(coarse),
            "coarse_sets": len(grid), "checked": checked, "coarse_best": best,
            "coarse_neighbours": neighbours(grid, best), "local_sets": len(fine), "local_hits": len(fine_hits),
            "local_checked": len(near), "local_robust": sum(1 for k in near if fine_checked[k][0]),
            "robust": bool(robust), "constants": chosen, "gap": everything[chosen][2],
            "classes": everything[chosen][1], "local_neighbours": neighbours(fine, chosen) if chosen in fine else (0, 0)}


# what the last full report's search found (the cheap check runs its tables with these; a search
# that finds other constants writes them into the report, and the check then fails until they are
# copied here)
SEARCHED = (0.825, 1.5, 0.12, 0.06)


def describe_search(lines, r):
    """the search's paragraph and table of the report"""
    c = r["constants"]
    lines.append("**The belt speed and Stribeck constants, searched** (the seed gives neither). `fivsim sweep "
                 "scenarios/seed_constants/seed001_chain_constants.json`: v0 = 0.05–1.5 (30 values) × α ∈ {0.5, 1, 2, "
                 "3, 4, 6, 8, 12} × μ_s ∈ {0.1, 0.12, 0.15, 0.2} × μ_d ∈ {0.03, 0.045, 0.06, 0.08} at 11, 15 and 24 N "
                 "(%d cases, each run by the exact switching model until its class is known, at most 3000 s, on the "
                 "section of m1's break-away). Objective: the regimes of seed Fig. 5 — 11 N chaotic (Lyapunov exponent "
                 "beyond three standard errors), 15 N periodic-1, 24 N periodic-2 (m1 sticks twice a cycle) — at the "
                 "constants as printed and with v0 moved by one part in a million (a regime a rounding changes is not "
                 "the constants' own), then the smallest largest gap between the six transition RMS values of seed "
                 "Table 1 and fivsim's (switching model, 200–400 s). %d of %d constant sets meet the three regimes on "
                 "the grid:\n" % (r["coarse_cases"], len(r["checked"]), r["coarse_sets"]))
    lines.append("| v0 | α | μ_s | μ_d | classes at 11, 15, 24 N as printed | with v0 × (1 + 1e-6) | largest Table 1 gap |")
    lines.append("|---|---|---|---|---|---|---|")
    for k, (ok, classes, gap) in sorted(r["checked"].items(), key=lambda kv: kv[1][2]):
        lines.append("| %g | %g | %g | %g | %s | %s | %.1f%% |" % (tuple(k) + tuple(
            ", ".join(cls) for cls in classes) + (100 * gap,)))
    near, of = r["local_neighbours"]
    lines.append("\n- Of these, %d keep the regimes at their printed values and under the perturbation. A grid of half the "
                 "steps around the best (%d constant sets, `--set /sweep/parameters/i=...`) has %d sets meeting them "
                 "on the grid, %d of the %d nearest checked keep them. %s\n" % (
                     sum(1 for v in r["checked"].values() if v[0]), r["local_sets"], r["local_hits"], r["local_robust"],
                     r["local_checked"],
                     ("The constants below, **v0 = %g, α = %g, μ_s = %g, μ_d = %g**, give 11 N %s, 15 N %s, 24 N %s "
                      "(as printed) with Table 1 within %.1f%%; %d of their %d grid neighbours meet the regimes."
                      % (c[0], c[1], c[2], c[3], r["classes"][0][0], r["classes"][0][1], r["classes"][0][2],
                         100 * r["gap"], near, of)) if r["robust"] else
                     ("No set in the ranges searched keeps all three: where the grid shows them, a change of v0 in "
                      "the sixth digit turns 15 N or 11 N into another class (the table), so the regimes come from "
                      "long transients or marginal classifications, not from attractors of those constants. The "
                      "tables below use the set whose Table 1 gap is smallest among the grid's, **v0 = %g, α = %g, "
                      "μ_s = %g, μ_d = %g** (Table 1 within %.1f%%), with the classes its long runs show."
                      % (c[0], c[1], c[2], c[3], 100 * r["gap"]))))
    w = r["window"]
    lines.append("- Judged on the seed's own window instead (the same grid, 400-s runs, classes from 200–400 s alone, "
                 "no orbit shot; %d of the %d cases undetermined in so short a window): 11 N chaotic in %d sets, 15 N "
                 "periodic-1 with 24 N periodic-2 in %d, all three in %d. Where 15 and 24 N are the seed's, 11 N is %s: "
                 "no set in the ranges searched gives the seed's three regimes in its window, and the fact that fails "
                 "is the chaos at 11 N (the second class map).\n"
                 % (r["window_undetermined"], r["coarse_cases"], w["11 N chaotic"],
                    w["15 N periodic-1 and 24 N periodic-2"], w["all three"],
                    ", ".join("%s in %d" % kv for kv in sorted(r["window_at_11"].items(), key=lambda kv: -kv[1]))
                    or "never reached"))


def class_map(r, png, d):
    """seed Fig. 5's loads as class maps over v0 and α on the coarse grid's cases d, at the chosen μ_s
    and μ_d"""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = r["constants"]
    d = d[(abs(d["/friction/mu_s"] - c[2]) < 1e-9) & (abs(d["/friction/mu_d"] - c[3]) < 1e-9)]
    names = ["no-stick-slip", "periodic-1", "periodic-2", "periodic-3+", "quasi-periodic", "chaotic", "undetermined"]
    colours = ["#dddddd", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#d62728", "#ffffff"]

    def index(cls):
        if cls.startswith("periodic-") and cls not in ("periodic-1", "periodic-2"):
            return 3
        return names.index(cls) if cls in names else 6

    alphas = sorted(d["/friction/alpha"].unique())
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6), sharey=True)
    for ax, fn in zip(axes, (11, 15, 24)):
        at = d[d["/model/Fn"] == fn]
        for _, row in at.iterrows():
            ax.add_patch(plt.Rectangle((row["/model/v0"] - 0.025, alphas.index(row["/friction/alpha"]) - 0.5), 0.05, 1,
                                       color=colours[index(row["class"])], lw=0))
        ax.plot([c[0]], [alphas.index(c[1]) if c[1] in alphas else np.interp(c[1], alphas, range(len(alphas)))],
                "k*", ms=10)
        ax.set_xlim(0.025, 1.525)
        ax.set_ylim(-0.5, len(alphas) - 0.5)
        ax.set_yticks(range(len(alphas)))
        ax.set_yticklabels(["%g" % a for a in alphas])
        ax.set_xlabel("belt speed v0 [m/s]")
        ax.set_title("Fn = %d N (seed: %s)" % (fn, {11: "chaotic", 15: "period-1", 24: "period-2"}[fn]), fontsize=9)
    axes[0].set_ylabel("Stribeck decay α [s/m]")
    handles = [plt.Rectangle((0, 0), 1, 1, color=col) for col in colours[:-1]]
    fig.legend(handles, names[:-1], loc="lower center", ncol=6, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(png, dpi=110)
    plt.close(fig)
