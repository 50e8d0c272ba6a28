"""fivsim.plot's figures of a sweep: the bifurcation diagram, the basins of attraction and their
basin stability, the class map of a two-parameter grid, and chosen cases' Poincaré sections and
return maps.
"""

import numpy as _np
from matplotlib import pyplot as _plt

from .branches import _draw_curves
from .figure import _axes, _finish, _split_title
from .labels import _name_unit, _value_text, attractor_style, class_colour, class_order, label
from .results import _as_list, _continuation, _name, _positions, _scenario, _sweep, _sweep_points, _swept


# --- the bifurcation diagram ------------------------------------------------------------------
def _section_words(kind):
    if kind == "poincare":
        return "at the Poincaré section"
    words = {"stick_to_slip@": "at break-away of contact ", "slip_to_stick@": "at sticking of contact ",
             "contact_open@": "at lift-off of contact ", "contact_close@": "at touch-down of contact "}
    for prefix, text in words.items():
        if kind.startswith(prefix):
            return text + kind[len(prefix):]
    return "at " + kind.replace("_", " ")


def bifurcation(result, ax=None, param=None, kind="poincare", coord="q0", markersize=0.6, legend=True,
                figsize=None, **options):
    """A sweep's bifurcation diagram: every case's points of one kind (the Poincaré samples, or a
    transition such as stick_to_slip@0) of one coordinate against the swept parameter (default the
    first), coloured by the case's class, a periodic case's from when its samples settled."""
    sw = _sweep(result)
    ax = _axes(ax, figsize or (7, 4.2))
    param = param or _swept(sw.cases)[0]
    xs, ys, cs = _sweep_points(sw, param, kind, coord)
    classes = _np.asarray(sw.cases["class"]).astype(str)
    scenario = _scenario(sw)
    for name in sorted(set(classes), key=class_order):
        sel = cs == name
        if sel.any():
            ax.scatter(xs[sel], ys[sel], s=markersize, color=class_colour(name), rasterized=True, linewidths=0,
                       label="%s (%d cases)" % (name, int((classes == name).sum())))
    if not len(xs):
        ax.text(0.5, 0.5, "no points of kind %s" % kind, transform=ax.transAxes, ha="center")
    ax.set_xlabel(label(param, scenario))
    ax.set_ylabel("%s %s" % (label(coord, scenario), _section_words(kind)))
    ax.grid(alpha=0.3)
    if legend and len(xs):
        ax.legend(markerscale=max(1.0, 3.0 / max(markersize, 1e-3) ** 0.5), fontsize="small", loc="best")
    return _finish(ax, default_title="%s: %d cases" % (_name(sw), len(classes)), **options)


def bifurcation_figure(result, panels=("poincare:q0",), param=None, figsize=None, **options):
    """Several bifurcation diagrams one above the other, sharing the parameter axis: panels are
    "KIND:COORD" (poincare:q1, stick_to_slip@0:q0). Returns the Figure; the title goes to the top
    panel, the other options to the bottom one."""
    sw = _sweep(result)
    title, options = _split_title(options)
    fig, axes = _plt.subplots(len(panels), 1, figsize=figsize or (7, 1.0 + 3.2 * len(panels)), sharex=True,
                              squeeze=False, layout="constrained")
    for i, (ax, item) in enumerate(zip(axes[:, 0], panels)):
        kind, _, coord = item.partition(":")
        bifurcation(sw, ax=ax, param=param, kind=kind, coord=coord or "q0", legend=i == 0,
                    title=title if i == 0 else "")
        if i < len(panels) - 1:
            ax.set_xlabel("")
    _finish(axes[-1, 0], **options)
    return fig


# --- basins -----------------------------------------------------------------------------------
def _basin_table(sw):
    """(basins table, the swept parameter other than the initial conditions or None)"""
    b = sw.basins
    if b is None:
        raise ValueError("this sweep varies no initial condition: it has no basins")
    params = [k for k in b if k.startswith("/")]
    if len(params) > 1:
        raise ValueError("the sweep varies %d parameters besides initial conditions (%s); a basin picture takes one"
                         % (len(params), ", ".join(params)))
    return b, (params[0] if params else None)


def _group_value(b, param, at):
    """the value of the parameter whose group is drawn: the nearest to `at`, else the one with the
    most attractors"""
    if param is None:
        return None
    values = _np.asarray(b[param], dtype=float)
    distinct = sorted(set(values.tolist()))
    if at is not None:
        return min(distinct, key=lambda v: abs(v - at))
    attractor = _np.asarray(b["attractor"]).astype(int)
    return max(distinct, key=lambda v: int(((values == v) & (attractor != 0)).sum()))


def _attractor_label(k, klass):
    return "#%d %s" % (k, klass) if k else "#0 no attractor"


def _two_swept(cases, x, y, prefix, what, needs):
    """the two swept paths (under prefix) a picture is drawn over: x and y where given, else the
    first two; a clear error where the sweep has fewer or one is not swept"""
    swept = _swept(cases, prefix)
    if len(swept) < 2 and (x is None or y is None):
        raise ValueError("the sweep varies %d %s(s); %s needs two" % (len(swept), what, needs))
    x = x or swept[0]
    y = y or [p for p in swept if p != x][0]
    for p in (x, y):
        if p not in cases:
            raise ValueError("%s is not a swept %s (%s)" % (p, what, ", ".join(swept)))
    return x, y


def basins(result, ax=None, x=None, y=None, at=None, markersize=9, legend=True, figsize=None, **options):
    """The starts of a basin sweep at their two swept initial values (x, y: pointers under
    /initial/, default the first two), each in its attractor's own colour and marker, with each
    attractor's basin stability and standard error in the legend; where the sweep also varies a
    parameter, the starts at one value of it (`at`, default the value with the most attractors)."""
    sw = _sweep(result)
    b, param = _basin_table(sw)
    cases = sw.cases
    if "attractor" not in cases:
        raise ValueError("the sweep's cases carry no attractor (attractors.csv)")
    x, y = _two_swept(cases, x, y, "/initial/", "initial value", "the picture")
    ax = _axes(ax, figsize or (5.5, 5.0))
    at = _group_value(b, param, at)
    rows = _np.ones(len(b["attractor"]), dtype=bool) if param is None else _np.asarray(b[param], dtype=float) == at
    starts = _np.ones(len(cases["case"]), dtype=bool) if param is None else \
        _np.abs(_np.asarray(cases[param], dtype=float) - at) <= 1e-12 * (1 + abs(at))
    attractor = _np.asarray(cases["attractor"]).astype(int)
    xs, ys = _np.asarray(cases[x], dtype=float), _np.asarray(cases[y], dtype=float)
    scenario = _scenario(sw)
    drawn = sorted(zip(_np.asarray(b["attractor"]).astype(int)[rows], _np.asarray(b["class"]).astype(str)[rows],
                       _np.asarray(b["fraction"], dtype=float)[rows],
                       _np.asarray(b["standard_error"], dtype=float)[rows]), key=lambda r: (r[0] == 0, r[0]))
    for k, klass, p, se in drawn:
        sel = starts & (attractor == k)
        colour, marker = attractor_style(k)
        ax.scatter(xs[sel], ys[sel], s=markersize, color=colour, marker=marker, rasterized=True, linewidths=0.6 if
                   marker == "x" else 0, label="%s: %.3f ± %.3f" % (_attractor_label(k, klass), p, se))
    ax.set_xlabel(label(x, scenario))
    ax.set_ylabel(label(y, scenario))
    if legend:
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14), markerscale=2, ncol=2,
                  title="attractor: basin stability ± standard error", title_fontsize="small")
    title = "%s: %d starts" % (_name(sw), int(starts.sum()))
    if param is not None:
        title += " at " + _value_text(param, at, scenario)
    return _finish(ax, default_title=title, **options)


def basin_stability(result, ax=None, at=None, legend=True, figsize=None, **options):
    """Each attractor's basin stability against the swept parameter, one line per attractor number
    (an attractor keeps its number while it continues) with standard-error bars, legend "#k class";
    `at` marks a value (a dotted line). Without a swept parameter, a bar per attractor."""
    sw = _sweep(result)
    b, param = _basin_table(sw)
    ax = _axes(ax, figsize or (6.0, 4.2))
    scenario = _scenario(sw)
    attractor = _np.asarray(b["attractor"]).astype(int)
    klass = _np.asarray(b["class"]).astype(str)
    fraction = _np.asarray(b["fraction"], dtype=float)
    error = _np.asarray(b["standard_error"], dtype=float)
    numbers = sorted(set(attractor.tolist()), key=lambda k: (k == 0, k))
    if param is None:
        for i, k in enumerate(numbers):
            sel = attractor == k
            colour, _ = attractor_style(k)
            ax.bar(i, fraction[sel].sum(), yerr=error[sel].max(), color=colour, capsize=3,
                   label=_attractor_label(k, klass[sel][0]))
        ax.set_xticks(range(len(numbers)), [_attractor_label(k, klass[attractor == k][0]) for k in numbers],
                      rotation=30, ha="right", fontsize="small")
        legend = False
    else:
        values = _np.asarray(b[param], dtype=float)
        for k in numbers:
            sel = attractor == k
            order = _np.argsort(values[sel])
            colour, marker = attractor_style(k)
            ax.errorbar(values[sel][order], fraction[sel][order], yerr=error[sel][order], color=colour,
                        marker=marker if marker != "x" else "x", ms=4, capsize=2, lw=1.2,
                        ls=":" if k == 0 else "-", label=_attractor_label(k, klass[sel][0]))
        if at is not None:
            ax.axvline(_group_value(b, param, at), color="0.6", lw=0.8, ls=":")
        ax.set_xlabel(label(param, scenario))
    ax.set_ylabel("basin stability [–]")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize="small", loc="best")
    return _finish(ax, default_title="%s: basin stability (± one standard error)" % _name(sw), **options)


def basins_figure(result, x=None, y=None, at=None, figsize=None, **options):
    """The starts of a basin sweep and, where it varies a parameter, each attractor's basin
    stability against it beside them. Returns the Figure; options apply to the starts' panel."""
    sw = _sweep(result)
    b, param = _basin_table(sw)
    fig, axes = _plt.subplots(1, 2 if param else 1, figsize=figsize or ((11, 5.2) if param else (6, 5.6)),
                              squeeze=False, layout="constrained")
    if param:
        at = _group_value(b, param, at)
        basin_stability(sw, ax=axes[0][0], at=at)
    basins(sw, ax=axes[0][-1], x=x, y=y, at=at, **options)
    return fig


# --- the class map ----------------------------------------------------------------------------
def _edges(v):
    v = _np.asarray(v, dtype=float)
    if len(v) == 1:
        return _np.array([v[0] - 0.5, v[0] + 0.5])
    mid = 0.5 * (v[1:] + v[:-1])
    return _np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def classmap(result, ax=None, x=None, y=None, curves=None, legend=True, figsize=None, **options):
    """The class map of a sweep over a grid of two parameters (x, y: pointers, default the first two
    swept): a cell per case coloured by its class, each class's count in the legend; `curves`, one
    or more continuations with a curves block over the same two parameters, drawn over it."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    sw = _sweep(result)
    cases = sw.cases
    if "class" not in cases:
        raise ValueError("the sweep did not classify its cases (observers min_max and transitions)")
    x, y = _two_swept(cases, x, y, "/", "parameter", "a class map")
    ax = _axes(ax, figsize or (7, 4.6))
    cx, cy = _np.asarray(cases[x], dtype=float), _np.asarray(cases[y], dtype=float)
    classes = _np.asarray(cases["class"]).astype(str)
    xs, ys = sorted(set(cx.tolist())), sorted(set(cy.tolist()))
    names = sorted(set(classes.tolist()), key=class_order)
    code = {n: i for i, n in enumerate(names)}
    grid = _np.full((len(ys), len(xs)), _np.nan)
    xi, yi = {v: i for i, v in enumerate(xs)}, {v: i for i, v in enumerate(ys)}
    for a, c, k in zip(cx, cy, classes):
        grid[yi[c], xi[a]] = code[k]
    if _np.isnan(grid).any():
        raise ValueError("the cases do not fill the %d × %d grid of %s and %s" % (len(xs), len(ys), x, y))
    ax.pcolormesh(_edges(xs), _edges(ys), grid, cmap=ListedColormap([class_colour(n) for n in names]),
                  vmin=-0.5, vmax=len(names) - 0.5, shading="flat", rasterized=True)
    scenario = _scenario(sw)
    handles = [Patch(color=class_colour(n), label="%s (%d)" % (n, int((classes == n).sum()))) for n in names]
    if curves is not None:
        handles += _draw_curves([_continuation(r) for r in _as_list(curves)], ax, x, y, "black")[0]
        ax.set_xlim(_edges(xs)[0], _edges(xs)[-1])
        ax.set_ylim(_edges(ys)[0], _edges(ys)[-1])
    ax.set_xlabel(label(x, scenario))
    ax.set_ylabel(label(y, scenario))
    if legend:
        ax.legend(handles=handles, fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _finish(ax, default_title="%s: %d cases" % (_name(sw), len(classes)), **options)


# --- Poincaré maps of chosen cases ------------------------------------------------------------
def nearest_cases(result, path, values):
    """The case numbers of a sweep whose swept value `path` is nearest each of `values`."""
    sw = _sweep(result)
    if path not in sw.cases:
        raise ValueError("%s is not a swept parameter (%s)" % (path, ", ".join(_swept(sw.cases))))
    v = _np.asarray(sw.cases[path], dtype=float)
    numbers = _np.asarray(sw.cases["case"]).astype(int)
    return [int(numbers[int(_np.argmin(_np.abs(v - x)))]) for x in values]


def _case_samples(sw, case, kind, coords):
    pts = sw.points
    if pts is None or not len(pts.get("case", [])):
        raise ValueError("the sweep kept no points (/output/points, or no observer that records them)")
    for c in coords:
        if c not in pts:
            raise ValueError("no column %s in the points" % c)
    if int(case) not in set(_np.asarray(sw.cases["case"]).astype(int).tolist()):
        raise ValueError("the sweep has no case %d" % case)
    sel = (_np.asarray(pts["case"]).astype(int) == int(case)) & (_np.asarray(pts["kind"]).astype(str) == kind)
    t = _np.asarray(pts["t"], dtype=float)[sel]
    order = _np.argsort(t)
    return [_np.asarray(pts[c], dtype=float)[sel][order] for c in coords]


def _case_title(sw, case):
    scenario = _scenario(sw)
    row = _positions(sw.cases["case"], [case])[0]
    values = ", ".join(_value_text(p, float(sw.cases[p][row]), scenario) for p in _swept(sw.cases))
    return "case %d: %s (%s)" % (case, str(sw.cases["class"][row]), values)


def poincare(result, case, ax=None, kind="poincare", x="q0", y="u0", figsize=None, **options):
    """One case's section samples (points of `kind`) in the plane of two coordinates."""
    sw = _sweep(result)
    xs, ys = _case_samples(sw, case, kind, (x, y))
    ax = _axes(ax, figsize or (4.5, 3.6))
    ax.plot(xs, ys, "o", ms=3)
    scenario = _scenario(sw)
    ax.set_xlabel(label(x, scenario))
    ax.set_ylabel(label(y, scenario))
    ax.grid(alpha=0.3)
    return _finish(ax, default_title=_case_title(sw, case), **options)


def return_map(result, case, ax=None, kind="poincare", coord="q0", figsize=None, **options):
    """One case's return map of a coordinate on its section: x(n) -> x(n+1), with the diagonal."""
    sw = _sweep(result)
    (xs,) = _case_samples(sw, case, kind, (coord,))
    ax = _axes(ax, figsize or (4.5, 3.6))
    ax.plot(xs[:-1], xs[1:], "o", ms=3, color="tab:red")
    if len(xs):
        ax.plot([xs.min(), xs.max()], [xs.min(), xs.max()], "k:", lw=0.8)
    name, unit = _name_unit(coord, _scenario(sw))
    suffix = " [%s]" % unit if unit else ""
    ax.set_xlabel("%s(n)%s" % (name, suffix))
    ax.set_ylabel("%s(n+1)%s" % (name, suffix))
    ax.grid(alpha=0.3)
    return _finish(ax, default_title="return map, %d samples" % len(xs), **options)


def poincare_figure(result, cases, kind="poincare", x="q0", y="u0", figsize=None, **options):
    """A row per case: its section samples (left; the options but the title apply here) and its
    return map of x (right). Returns the Figure; the title goes above them all."""
    sw = _sweep(result)
    title, options = _split_title(options)
    fig, axes = _plt.subplots(len(cases), 2, figsize=figsize or (8, 3.0 * len(cases)), squeeze=False,
                              layout="constrained")
    for row, c in zip(axes, cases):
        poincare(sw, c, ax=row[0], kind=kind, x=x, y=y, **options)
        return_map(sw, c, ax=row[1], kind=kind, coord=x)
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig
