#!/usr/bin/python3
"""Branches of `fivsim continue` folders against the continued parameter: stable points solid,
unstable dashed, each located bifurcation marked (fold, Hopf, period doubling, torus, grazing);
an orbit's branch drawn through every section crossing of its orbit (orbit_points.csv), an
equilibrium's through its state (branches.csv). With --sweep, over that sweep's bifurcation diagram (its Poincaré samples,
coloured by class, as scripts/plot/plot_bifurcation.py draws them: the sweep must sample the same
section). With --check, every periodic-N case of the sweep inside the branches' range must lie on
a stable period-N branch: where its exact orbit decided its class (cases.csv's orbit columns), that
orbit's period within --period-tol (relative) of the branch's at the case's parameter; otherwise
its last N samples within --tol times each coordinate's range over the case's trajectory (the
sweep's periodic_tol) of the branch's orbit there (interpolated between the two branch points
around it, a branch stable up to the bifurcation located between them); the cases that do not are
listed and the exit status is 1.

Several folders (continuations of the same parameter from different starts) are drawn together.

usage: scripts/plot/plot_continuation.py CONT_DIR [CONT_DIR ...] [--sweep SWEEP_DIR] [--coord q0]
                                         [--out FILE.png] [--check] [--tol 1e-3]
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_bifurcation import class_colour, read_cases, read_points  # noqa: E402
from sweep_tables import table_rows  # noqa: E402

MARKERS = {"fold": ("s", "black"), "hopf": ("*", "tab:red"), "period_doubling": ("D", "tab:purple"),
           "torus": ("^", "tab:green"), "grazing": ("v", "tab:orange")}


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([r[k] for r in rows]) for k in (rows[0] if rows else [])}


def read_continuation(folder):
    """the summary, branches.csv, bifurcations.csv and orbit_points.csv (None for equilibria)"""
    for name in ("summary.json", "branches.csv", "bifurcations.csv"):
        if not os.path.exists(os.path.join(folder, name)):
            sys.exit("plot_continuation: %s has no %s (is it a `fivsim continue` folder?)" % (folder, name))
    with open(os.path.join(folder, "summary.json")) as f:
        summary = json.load(f)
    branches = read_csv(os.path.join(folder, "branches.csv"))
    bifurcations = read_csv(os.path.join(folder, "bifurcations.csv"))
    path = os.path.join(folder, "orbit_points.csv")
    orbit_points = read_csv(path) if os.path.exists(path) else None
    return summary, branches, bifurcations, orbit_points


def curves(summary, branches, orbit_points, coords):
    """[(branch, period_n, crossing, p, state (points × len(coords)), stable)] for every branch and,
    for an orbit, every crossing of its period"""
    param = summary["parameter"]
    b = branches["branch"].astype(float).astype(int)
    pt = branches["point"].astype(float).astype(int)
    stable = {(bi, i): float(s) == 1.0 for bi, i, s in zip(b, pt, branches["stable"])}
    period_n = {}
    if "period_n" in branches:
        for bi, n in zip(b, branches["period_n"]):
            period_n[bi] = int(float(n))
    out = []
    if orbit_points is None:
        for bi in sorted(set(b)):
            sel = b == bi
            state = np.column_stack([branches[c][sel].astype(float) for c in coords])
            out.append((bi, 0, 0, branches[param][sel].astype(float), state,
                        np.array([stable[(bi, i)] for i in pt[sel]])))
        return out
    ob = orbit_points["branch"].astype(float).astype(int)
    op = orbit_points["point"].astype(float).astype(int)
    oc = orbit_points["crossing"].astype(float).astype(int)
    for bi in sorted(set(ob)):
        for c in sorted(set(oc[ob == bi])):
            sel = (ob == bi) & (oc == c)
            order = np.argsort(op[sel])
            state = np.column_stack([orbit_points[k][sel].astype(float)[order] for k in coords])
            out.append((bi, period_n.get(bi, 1), c, orbit_points[param][sel].astype(float)[order], state,
                        np.array([stable[(bi, i)] for i in op[sel][order]])))
    return out


def draw_curve(ax, p, y, stable, colour, label):
    """solid over runs of stable points, dashed over unstable ones (each run joined to the next)"""
    start = 0
    for i in range(1, len(p) + 1):
        if i == len(p) or stable[i] != stable[start]:
            stop = min(i + 1, len(p))
            ax.plot(p[start:stop], y[start:stop], "-" if stable[start] else "--", color=colour, lw=1.4,
                    label=label)
            label = None
            start = i


def stable_span(p, stable, i, located):
    """the part of the segment from point i to i + 1 where the branch is stable: all of it, none of
    it, or where its stability changes, between its stable end and the bifurcation located inside
    (`located`: after_point → parameter)"""
    if stable[i] and stable[i + 1]:
        return min(p[i], p[i + 1]), max(p[i], p[i + 1])
    if not (stable[i] or stable[i + 1]) or i not in located:
        return None
    end = p[i] if stable[i] else p[i + 1]
    return min(end, located[i]), max(end, located[i])


def check_sweep(sweep, summary, branch_curves, branch_periods, located, coords, tol, period_tol):
    """every periodic-N case of the sweep on a stable period-N branch: (checked, failures) with the
    failures as (case, parameter, class, distance, what); cases outside the parameter range of the
    branches of their period are not checked. A case whose class its exact orbit decided
    (cases.csv's orbit_n = N and an orbit_settle_t: the observer's Newton converged to its own
    tolerance on a stable orbit): its orbit's period against the branch's
    at its parameter, relative, in units of period_tol; otherwise its last N samples (its last
    orbit) against the branch's orbit, each coordinate in units of tol times its range over the case's
    trajectory (the sweep's periodic_tol)"""
    param = summary["parameter"]
    _, value, klass, _ = read_cases(sweep, param)
    spans, orbit_period = {}, {}
    for r in table_rows(sweep, "cases"):
        c = int(r["case"])
        try:
            spans[c] = np.array([float(r["max_" + k]) - float(r["min_" + k]) for k in coords])
        except (KeyError, ValueError):
            pass
        try:
            if int(float(r["orbit_n"])) > 0 and np.isfinite(float(r["orbit_settle_t"])):
                orbit_period[c] = (int(float(r["orbit_n"])), float(r["orbit_period"]))
        except (KeyError, ValueError):
            pass
    samples = {}
    for r in table_rows(sweep, "points"):
        if r["kind"] == "poincare":
            samples.setdefault(int(r["case"]), []).append([float(r[k]) for k in coords])
    by_period = {}
    for bi, n, c, p, state, stable in branch_curves:
        by_period.setdefault(n, {}).setdefault(bi, []).append((p, state, stable))
    checked, failures = 0, []
    for case, name in sorted(klass.items()):
        if not name.startswith("periodic-"):
            continue
        n = int(name.split("-")[1])
        if n not in by_period or case not in samples:
            continue
        x = value[case]
        ps = [q for crossings in by_period[n].values() for q in crossings[0][0]]
        if not min(ps) <= x <= max(ps):
            continue
        checked += 1
        by_orbit = case in orbit_period and orbit_period[case][0] == n
        pts = np.array(samples[case][-n:])
        scale = tol * np.maximum(spans.get(case, np.ones(len(coords))), 1e-12)
        best = np.inf
        for key, crossings in by_period[n].items():
            p, _, stable = crossings[0]
            period = branch_periods[key]
            for i in range(len(p) - 1):
                span = stable_span(p, stable, i, located.get(key, {}))
                if span is None or not span[0] <= x <= span[1]:
                    continue
                w = 0.0 if p[i + 1] == p[i] else (x - p[i]) / (p[i + 1] - p[i])
                if by_orbit:
                    t = (1 - w) * period[i] + w * period[i + 1]
                    d = abs(orbit_period[case][1] - t) / (period_tol * t)
                else:
                    orbit = np.array([(1 - w) * s[i] + w * s[i + 1] for _, s, _ in crossings])
                    # each sample to its nearest point of the orbit
                    d = (np.abs(pts[:, None, :] - orbit[None, :, :]) / scale).max(axis=2).min(axis=1).max()
                best = min(best, d)
        if not best <= 1.0:
            failures.append((case, x, name, best, "orbit period" if by_orbit else "samples"))
    return checked, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="output folders of `fivsim continue` (the same parameter)")
    ap.add_argument("--sweep", default=None, help="a `fivsim sweep` folder over the same parameter to draw beneath")
    ap.add_argument("--coord", default="q0", help="the state coordinate on the y axis (q0, q1, u0, ...)")
    ap.add_argument("--out", default=None, help="PNG file (default FOLDER/continuation.png, the first folder)")
    ap.add_argument("--check", action="store_true",
                    help="with --sweep: every periodic-N case on a stable period-N branch (exit 1 where not)")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="--check's distance: this times each coordinate's range over the case's trajectory, "
                         "as the sweep's periodic_tol (1e-3)")
    ap.add_argument("--period-tol", type=float, default=1e-4,
                    help="--check's relative distance of an orbit's period from the branch's, for cases "
                         "whose exact orbit decided their class (1e-4)")
    a = ap.parse_args()
    if a.check and not a.sweep:
        sys.exit("plot_continuation: --check needs --sweep")

    runs = [read_continuation(f) for f in a.folders]
    summary = runs[0][0]
    param = summary["parameter"]
    for f, run in zip(a.folders, runs):
        if run[0]["parameter"] != param:
            sys.exit("plot_continuation: %s continues %s, %s %s" % (f, run[0]["parameter"], a.folders[0], param))
    orbits = runs[0][3] is not None
    table = runs[0][3] if orbits else runs[0][1]
    if a.coord not in table:
        sys.exit("plot_continuation: no column %s in the branches (%s)" %
                 (a.coord, ", ".join(k for k in table if k[0] in "qu" and k[1:].isdigit())))
    state_coords = [k for k in table if k[0] in "qu" and k[1:].isdigit()]

    fig, ax = plt.subplots(figsize=(10, 5.2))
    if a.sweep:
        _, value, klass, settled = read_cases(a.sweep, param)
        xs, ys, cs = read_points(a.sweep, [("poincare", a.coord)], value, klass, settled)[("poincare", a.coord)]
        for name in sorted(set(cs)):
            sel = cs == name
            ax.scatter(xs[sel], ys[sel], s=0.6, color=class_colour(name), alpha=0.5, rasterized=True,
                       label="sweep: %s" % name)
    drawn, seen = set(), set()
    all_curves = []
    column = state_coords.index(a.coord)
    for run_index, (run_summary, branches, bifurcations, orbit_points) in enumerate(runs):
        run_curves = curves(run_summary, branches, orbit_points, state_coords)
        all_curves += [((run_index, bi), n, c, p, state, stable) for bi, n, c, p, state, stable in run_curves]
        for bi, n, c, p, state, stable in run_curves:
            what = ("periodic-%d orbits" % n) if orbit_points is not None else "equilibria"
            colour = {"equilibria": "tab:blue", "periodic-1 orbits": "black", "periodic-2 orbits": "tab:purple"}.get(
                what, "tab:brown")
            label = None if what in drawn else what
            drawn.add(what)
            draw_curve(ax, p, state[:, column], stable, colour, label)
        for kind, p, y in zip(bifurcations.get("kind", []), bifurcations.get(param, np.array([])).astype(float),
                              bifurcations.get(a.coord, np.array([])).astype(float)):
            marker, colour = MARKERS.get(kind, ("o", "gray"))
            ax.plot([p], [y], marker, color=colour, ms=8, mec="white", zorder=5,
                    label=None if kind in seen else kind.replace("_", " "))
            seen.add(kind)
    ax.set_xlabel(param)
    ax.set_ylabel("%s at the %s" % (a.coord, "section" if orbits else "equilibrium"))
    ax.set_title("%s: continuation in %s (solid stable, dashed unstable)" % (summary.get("name", ""), param))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, markerscale=1.5, loc="best")
    out = a.out or os.path.join(a.folders[0], "continuation.png")
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    print("wrote", out)

    if a.check:
        periods, located = {}, {}
        for run_index, (_, branches, bifurcations, _) in enumerate(runs):
            b = branches["branch"].astype(float).astype(int)
            for bi in sorted(set(b)):
                order = np.argsort(branches["point"][b == bi].astype(float))
                periods[(run_index, bi)] = branches["period"][b == bi].astype(float)[order]
            for bi, after, p in zip(bifurcations.get("branch", []), bifurcations.get("after_point", []),
                                    bifurcations.get(param, [])):
                located.setdefault((run_index, int(float(bi))), {})[int(float(after))] = float(p)
        checked, failures = check_sweep(a.sweep, summary, all_curves, periods, located, state_coords, a.tol,
                                        a.period_tol)
        for case, x, name, d, what in failures:
            print("case %d (%s = %.6g, %s): %s from the nearest stable branch" %
                  (case, param, x, name, "no stable branch there" if d == np.inf else "%s %.3g tolerances" % (what, d)))
        print("check: %d of %d periodic cases on a stable branch of their period within %g of their ranges" %
              (checked - len(failures), checked, a.tol))
        if failures:
            sys.exit(1)


if __name__ == "__main__":
    main()
