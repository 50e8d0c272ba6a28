"""fivsim.plot's figures of a continuation: its branches (stable solid, unstable dashed, a colour
per family, every located bifurcation marked), over a sweep's bifurcation diagram where given; the
two-parameter curves of a curves block; and the check of a sweep's periodic cases against the
branches.
"""

import numpy as _np

from .figure import _axes, _finish
from .labels import _name_unit, class_colour, class_order, label
from .results import _as_list, _continuation, _name, _scenario, _sweep, _sweep_points, _swept

# a bifurcation's marker and colour, and its name in a legend; a curve's line style by its kind
BIFURCATION_MARKERS = {"fold": ("s", "black"), "hopf": ("*", "tab:red"), "period_doubling": ("D", "tab:purple"),
                       "torus": ("^", "tab:green"), "grazing": ("v", "tab:orange")}
_BIFURCATION_NAMES = {"fold": "fold", "hopf": "Hopf", "period_doubling": "period doubling", "torus": "torus",
                      "grazing": "grazing"}
_CURVE_STYLES = {"period_doubling": "-", "fold": "--", "hopf": "-.", "torus": ":", "grazing": ":"}
# a branch family's colour by its period (0: the equilibria)
_FAMILY_COLOURS = {0: "tab:blue", 1: "black", 2: "tab:purple", 4: "tab:green", 8: "tab:olive"}


# --- branches ---------------------------------------------------------------------------------
def _state_coords(run):
    table = run.orbit_points if run.orbit_points and len(run.orbit_points.get("branch", [])) else run.branches
    return [k for k in table if len(k) > 1 and k[0] in "qu" and k[1:].isdigit()]


def _branch_lines(run, coords):
    """[(branch, period_n, crossing, p, state (points × coords), stable)] for every branch and, for
    an orbit, every crossing of its period"""
    param = run.report["parameter"]
    br = run.branches
    b = _np.asarray(br["branch"], dtype=float).astype(int)
    pt = _np.asarray(br["point"], dtype=float).astype(int)
    stable = {(bi, i): float(s) == 1.0 for bi, i, s in zip(b, pt, br["stable"])}
    period_n = {}
    if "period_n" in br:
        for bi, n in zip(b, br["period_n"]):
            period_n[bi] = int(float(n))
    out = []
    op = run.orbit_points
    if not op or not len(op.get("branch", [])):
        for bi in sorted(set(b.tolist())):
            sel = b == bi
            state = _np.column_stack([_np.asarray(br[c], dtype=float)[sel] for c in coords])
            out.append((bi, 0, 0, _np.asarray(br[param], dtype=float)[sel], state,
                        _np.array([stable[(bi, i)] for i in pt[sel]])))
        return out
    ob = _np.asarray(op["branch"], dtype=float).astype(int)
    opt = _np.asarray(op["point"], dtype=float).astype(int)
    oc = _np.asarray(op["crossing"], dtype=float).astype(int)
    for bi in sorted(set(ob.tolist())):
        for c in sorted(set(oc[ob == bi].tolist())):
            sel = (ob == bi) & (oc == c)
            order = _np.argsort(opt[sel])
            state = _np.column_stack([_np.asarray(op[k], dtype=float)[sel][order] for k in coords])
            out.append((bi, period_n.get(bi, 1), c, _np.asarray(op[param], dtype=float)[sel][order], state,
                        _np.array([stable[(bi, i)] for i in opt[sel][order]])))
    return out


def _draw_branch(ax, p, y, stable, colour):
    """solid over runs of stable points, dashed over unstable ones (each run joined to the next)"""
    start = 0
    for i in range(1, len(p) + 1):
        if i == len(p) or stable[i] != stable[start]:
            stop = min(i + 1, len(p))
            ax.plot(p[start:stop], y[start:stop], "-" if stable[start] else "--", color=colour, lw=1.4)
            start = i



def _family(n):
    """(name, colour) of a branch family: the equilibria (n = 0) or the period-n orbits"""
    return ("equilibria" if n == 0 else "period-%d orbits" % n), _FAMILY_COLOURS.get(n, "tab:brown")


def continuation(results, ax=None, coord="q0", sweep=None, legend=True, figsize=None, **options):
    """Branches of one or more continuations of the same parameter: a coordinate of each
    equilibrium, or of each section crossing of each orbit, against the parameter; stable solid,
    unstable dashed, a colour per family (equilibria, period-N orbits), every located bifurcation
    marked; with `sweep`, over that sweep's bifurcation diagram (its Poincaré samples)."""
    from matplotlib.lines import Line2D

    runs = [_continuation(r) for r in _as_list(results)]
    param = runs[0].report["parameter"]
    for run in runs[1:]:
        if run.report["parameter"] != param:
            raise ValueError("the continuations follow different parameters (%s, %s)" % (param,
                                                                                         run.report["parameter"]))
    coords = _state_coords(runs[0])
    if coord not in coords:
        raise ValueError("no column %s in the branches (%s)" % (coord, ", ".join(coords)))
    ax = _axes(ax, figsize or (7, 4.2))
    scenario = _scenario(runs[0])
    handles = []
    if sweep is not None:
        sw = _sweep(sweep)
        xs, ys, cs = _sweep_points(sw, param, "poincare", coord)
        for name in sorted(set(cs.tolist()), key=class_order):
            sel = cs == name
            ax.scatter(xs[sel], ys[sel], s=0.6, color=class_colour(name), alpha=0.5, rasterized=True, linewidths=0)
            handles.append(Line2D([], [], ls="", marker="o", ms=3, color=class_colour(name), alpha=0.6,
                                  label="sweep: %s" % name))
    families, kinds = {}, set()
    column = coords.index(coord)
    orbits = False
    for run in runs:
        for bi, n, c, p, state, stable in _branch_lines(run, coords):
            orbits = orbits or n > 0
            name, colour = _family(n)
            families[n] = (name, colour)
            _draw_branch(ax, p, state[:, column], stable, colour)
        bif = run.bifurcations
        for kind, p, yv in zip(_np.asarray(bif.get("kind", [])).astype(str),
                               _np.asarray(bif.get(param, []), dtype=float),
                               _np.asarray(bif.get(coord, []), dtype=float)):
            marker, colour = BIFURCATION_MARKERS.get(kind, ("o", "gray"))
            ax.plot([p], [yv], marker, color=colour, ms=7, mec="white", zorder=5)
            kinds.add(kind)
    for n in sorted(families):
        handles.append(Line2D([], [], color=families[n][1], lw=1.4, label=families[n][0]))
    handles += [Line2D([], [], color="0.3", lw=1.4, ls="-", label="stable"),
                Line2D([], [], color="0.3", lw=1.4, ls="--", label="unstable")]
    for kind in sorted(kinds):
        marker, colour = BIFURCATION_MARKERS.get(kind, ("o", "gray"))
        handles.append(Line2D([], [], ls="", marker=marker, color=colour, mec="white", ms=7,
                              label=_BIFURCATION_NAMES.get(kind, kind.replace("_", " "))))
    ax.set_xlabel(label(param, scenario))
    ax.set_ylabel("%s %s" % (label(coord, scenario), "at the section" if orbits else "at equilibrium"))
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(handles=handles, fontsize="small", loc="best")
    return _finish(ax, default_title="%s: continuation in %s" % (_name(runs[0]), _name_unit(param, scenario)[0]),
                   **options)


def _stable_span(p, stable, i, located):
    """the part of the segment from point i to i + 1 where the branch is stable: all of it, none of
    it, or where its stability changes, between its stable end and the bifurcation located inside
    (`located`: after_point -> parameter)"""
    if stable[i] and stable[i + 1]:
        return min(p[i], p[i + 1]), max(p[i], p[i + 1])
    if not (stable[i] or stable[i + 1]) or i not in located:
        return None
    end = p[i] if stable[i] else p[i + 1]
    return min(end, located[i]), max(end, located[i])


def check_continuation(results, sweep, tol=1e-3, period_tol=1e-4):
    """Every periodic-N case of the sweep inside the branches' range on a stable period-N branch:
    where its exact orbit decided its class (orbit_n = N and an orbit_settle_t), its orbit's period
    within period_tol (relative) of the branch's at its parameter; otherwise its last N samples
    within tol times each coordinate's range over its trajectory of the branch's orbit there
    (interpolated between the two branch points around it, stable up to a bifurcation located
    between them). Returns (checked, failures): failures as (case, parameter, class, distance in
    tolerances, "orbit period" or "samples")."""
    runs = [_continuation(r) for r in _as_list(results)]
    sw = _sweep(sweep)
    param = runs[0].report["parameter"]
    coords = _state_coords(runs[0])
    branch_curves, periods, located = [], {}, {}
    for r, run in enumerate(runs):
        branch_curves += [((r, bi), n, c, p, state, stable)
                          for bi, n, c, p, state, stable in _branch_lines(run, coords)]
        b = _np.asarray(run.branches["branch"], dtype=float).astype(int)
        for bi in sorted(set(b.tolist())):
            order = _np.argsort(_np.asarray(run.branches["point"], dtype=float)[b == bi])
            periods[(r, bi)] = _np.asarray(run.branches["period"], dtype=float)[b == bi][order]
        bif = run.bifurcations
        for bi, after, p in zip(bif.get("branch", []), bif.get("after_point", []), bif.get(param, [])):
            located.setdefault((r, int(float(bi))), {})[int(float(after))] = float(p)
    cases = sw.cases
    if param not in cases:
        raise ValueError("%s is not a swept parameter of the sweep (%s)" % (param, ", ".join(_swept(cases))))
    numbers = _np.asarray(cases["case"]).astype(int)
    value = dict(zip(numbers, _np.asarray(cases[param], dtype=float)))
    klass = dict(zip(numbers, _np.asarray(cases["class"]).astype(str)))
    spans, orbit_period = {}, {}
    if all("max_" + k in cases and "min_" + k in cases for k in coords):
        width = _np.column_stack([_np.asarray(cases["max_" + k], dtype=float) -
                                  _np.asarray(cases["min_" + k], dtype=float) for k in coords])
        spans = dict(zip(numbers, width))
    if all(k in cases for k in ("orbit_n", "orbit_settle_t", "orbit_period")):
        for c, n, t, period in zip(numbers, cases["orbit_n"], cases["orbit_settle_t"], cases["orbit_period"]):
            if int(float(n)) > 0 and _np.isfinite(float(t)):
                orbit_period[c] = (int(float(n)), float(period))
    samples = {}
    pts = sw.points or {}
    if len(pts.get("case", [])):
        sel = _np.asarray(pts["kind"]).astype(str) == "poincare"
        pc = _np.asarray(pts["case"]).astype(int)[sel]
        values = _np.column_stack([_np.asarray(pts[k], dtype=float)[sel] for k in coords])
        for c, v in zip(pc, values):
            samples.setdefault(int(c), []).append(v)
    by_period = {}
    for key, n, c, p, state, stable in branch_curves:
        by_period.setdefault(n, {}).setdefault(key, []).append((p, state, stable))
    checked, failures = 0, []
    for case in sorted(klass):
        name = klass[case]
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
        last = _np.array(samples[case][-n:])
        scale = tol * _np.maximum(spans.get(case, _np.ones(len(coords))), 1e-12)
        best = _np.inf
        for key, crossings in by_period[n].items():
            p, _, stable = crossings[0]
            period = periods[key]
            for i in range(len(p) - 1):
                span = _stable_span(p, stable, i, located.get(key, {}))
                if span is None or not span[0] <= x <= span[1]:
                    continue
                w = 0.0 if p[i + 1] == p[i] else (x - p[i]) / (p[i + 1] - p[i])
                if by_orbit:
                    t = (1 - w) * period[i] + w * period[i + 1]
                    d = abs(orbit_period[case][1] - t) / (period_tol * t)
                else:
                    orbit = _np.array([(1 - w) * s[i] + w * s[i + 1] for _, s, _ in crossings])
                    # each sample to its nearest point of the orbit
                    d = (_np.abs(last[:, None, :] - orbit[None, :, :]) / scale).max(axis=2).min(axis=1).max()
                best = min(best, d)
        if not best <= 1.0:
            failures.append((case, x, name, best, "orbit period" if by_orbit else "samples"))
    return checked, failures


# --- two-parameter curves ---------------------------------------------------------------------
def _draw_curves(runs, ax, x, y, colour):
    """the runs' curves.csv on ax; (legend handles, x, y)"""
    from matplotlib.lines import Line2D

    kinds = set()
    for run in runs:
        table = run.curves
        if not table or not len(table.get("curve", [])):
            raise ValueError("%s has no curves (a continuation with a \"curves\" block writes curves.csv)"
                             % (getattr(run, "folder", None) or _name(run)))
        x = x or run.report["parameter"]
        y = y or run.report["curves"]["parameter"]
        if x not in table or y not in table:
            raise ValueError("the curves of %s are not over %s and %s" % (getattr(run, "folder", None) or _name(run),
                                                                          x, y))
        curve = _np.asarray(table["curve"]).astype(int)
        point = _np.asarray(table["point"]).astype(int)
        kind = _np.asarray(table["kind"]).astype(str)
        px, py = _np.asarray(table[x], dtype=float), _np.asarray(table[y], dtype=float)
        for c in sorted(set(curve.tolist())):
            sel = _np.flatnonzero(curve == c)
            sel = sel[_np.argsort(point[sel])]
            k = kind[sel[0]]
            kinds.add(k)
            marker, kind_colour = BIFURCATION_MARKERS.get(k, ("o", "gray"))
            ax.plot(px[sel], py[sel], color=colour or kind_colour, lw=1.6, ls=_CURVE_STYLES.get(k, "-"))
            ax.plot(px[sel[0]], py[sel[0]], marker, color=colour or kind_colour, ms=6, mec="white", zorder=5)
    handles = []
    for k in sorted(kinds):
        marker, kind_colour = BIFURCATION_MARKERS.get(k, ("o", "gray"))
        handles.append(Line2D([], [], color=colour or kind_colour, ls=_CURVE_STYLES.get(k, "-"), marker=marker,
                              mec="white", label=_BIFURCATION_NAMES.get(k, k.replace("_", " "))))
    return handles, x, y


def curves(results, ax=None, x=None, y=None, colour=None, legend=True, figsize=None, **options):
    """The two-parameter curves of one or more continuations with a curves block (curves.csv: folds,
    Hopf points, period doublings followed in a second parameter) in the plane of the two
    parameters (x, y: default the continued one and the curves block's), a line style per kind,
    each curve's start (the bifurcation it follows) marked."""
    runs = [_continuation(r) for r in _as_list(results)]
    ax = _axes(ax, figsize or (6.4, 4.2))
    handles, x, y = _draw_curves(runs, ax, x, y, colour)
    scenario = _scenario(runs[0])
    ax.set_xlabel(label(x, scenario))
    ax.set_ylabel(label(y, scenario))
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(handles=handles, fontsize="small", loc="best")
    return _finish(ax, default_title="%s: bifurcations in two parameters" % _name(runs[0]), **options)
