"""fivsim.plot: the figures of a sweep, a continuation, a run, a comparison and an identification,
drawn on a matplotlib Axes from a result of the Python API (fivsim.sweep, .continuation, .run,
.compare, .identify) or from the command line's output folder, with axis names and units read from
the scenario (label("/model/Fn", scenario) == "Fn [N]"). The scripts in scripts/plot/ are these
functions behind a command line that add_figure_options() and save() give every one of them.

    import fivsim, fivsim.plot
    sw = fivsim.sweep("scenarios/chain2_load_sweep.json", set={"/sweep/parameters/0/linspace": [1, 30, 200]})
    ax = fivsim.plot.bifurcation(sw, coord="q0")            # or bifurcation("runs/chain2_load_sweep")
    fivsim.plot.save(ax.figure, "diagram.pdf")              # PDF, SVG or PNG by the suffix

Each function draws on `ax` (None: a new figure) and returns it; the *_figure functions lay out
several panels and return the Figure. Every one takes xlabel, ylabel, xlim, ylim and title
(title="" for none) over what it would draw.
"""

import argparse as _argparse
import os as _os

import matplotlib as _mpl
import numpy as _np
from matplotlib import pyplot as _plt

from . import tables as _tables

__all__ = [
    "label", "class_colour", "class_order", "attractor_style",
    "bifurcation", "bifurcation_figure", "basins", "basin_stability", "basins_figure",
    "classmap", "curves", "continuation", "check_continuation",
    "poincare", "return_map", "nearest_cases", "poincare_figure",
    "timeseries", "phase", "timeseries_figure", "compare", "compare_figure",
    "identify", "identify_figure", "identify_bounds", "identify_pinn",
    "add_figure_options", "figure_options", "save",
]

# --- names and units --------------------------------------------------------------------------
# a model key's unit; {L} is the coordinate's unit (m, rad for the torsion pendulum)
_TRANSLATIONAL = {"m": "kg", "k": "N/m", "c": "N s/m", "v0": "m/s", "Fn": "N", "k1": "N/m", "k3": "N/m",
                  "kc": "N/m", "c1": "N s/m", "c2": "N s/m", "Fp": "N", "A": "m", "f_hz": "Hz", "Ff": "N",
                  "mu": "–", "n": None}
_MULTIBODY = {"M": "kg", "K": "N/m", "C": "N s/m", "f": "N", "f_sin": "N", "f_cos": "N", "omega": "rad/s",
              "contacts/Fn": "N", "contacts/k_c": "N/m", "contacts/v_surface": "m/s", "contacts/gap0": "m",
              "contacts/w_T": "–", "contacts/w_N": "–"}
_MODEL_UNITS = {
    "slider_belt": _TRANSLATIONAL,
    "slider_chain": _TRANSLATIONAL,
    "mode_coupling_2dof": _TRANSLATIONAL,
    "base_excited_sdof": _TRANSLATIONAL,
    # the law's coefficients are torques for Fn = 1, so Fn is a pure number here
    "torsion_pendulum": {"J2": "kg m²", "c2": "N m s/rad", "k2": "N m/rad", "input/amplitude": "rad/s",
                         "input/f_hz": "Hz", "Fn": "–"},
    "linear_multibody": _MULTIBODY,
}
_MODEL_NAMES = {"f_hz": "f", "input/amplitude": "A", "input/f_hz": "f", "omega": "ω", "Fp": "Fp",
                "contacts/v_surface": "v_surface", "contacts/k_c": "k_c", "contacts/gap0": "gap0"}
# a friction key's unit; {F} the unit of a coefficient that multiplies the normal force ("" for a
# pure number, N m for the torsion pendulum's torques), {L} as above
_FRICTION_UNITS = {"mu": "{F}", "mu_s": "{F}", "mu_d": "{F}", "mu_c": "{F}", "mu_k": "{F}", "Ts_l": "{F}",
                   "Ts_r": "{F}", "Fc": "{F}", "Fs": "{F}", "mu_v": "{F} s/{L}", "delta": "s/{L}",
                   "eps": "s/{L}", "T0_l": "s/{L}", "T0_r": "s/{L}", "v_s": "{L}/s", "vs": "{L}/s",
                   "sigma0": "{F}/{L}", "sigma1": "{F} s/{L}", "sigma2": "{F} s/{L}", "beta": "–",
                   "alpha": "s/{L}", "elements/K": "{F}/{L}", "elements/B": "{F} s/{L}",
                   "elements/C": "{L}/s", "elements/alpha": "–"}
# where a key means something else under another law: stribeck's alpha is an exponent
_FRICTION_LAW_UNITS = {("stribeck", "alpha"): "–"}
_GREEK = {"mu": "μ", "mu_s": "μs", "mu_d": "μd", "mu_c": "μc", "mu_k": "μk", "mu_v": "μv", "delta": "δ",
          "eps": "ε", "alpha": "α", "beta": "β", "sigma0": "σ0", "sigma1": "σ1", "sigma2": "σ2",
          "Ts_l": "Ts,l", "Ts_r": "Ts,r", "T0_l": "T0,l", "T0_r": "T0,r", "v_s": "vs",
          "elements/K": "K", "elements/B": "B", "elements/C": "C", "elements/alpha": "α"}
_RUN_KEYS = {("integrator", "dt"): ("Δt", "s"), ("integrator", "t_end"): ("t_end", "s"),
             ("analysis", "t_transient"): ("t_transient", "s")}
# the columns of the tables that are not a pointer, a coordinate or a force
_COLUMNS = {"t": ("t", "s"), "period": ("period", "s"), "orbit_period": ("period", "s"),
            "lyapunov": ("λmax", "1/s"), "fraction": ("basin stability", "–"), "max_real": ("max Re λ", "1/s"),
            "max_modulus": ("max |multiplier|", "–"), "recurrence": ("recurrence", "–"),
            "frac_stick": ("stick fraction", "–"), "frac_free": ("free fraction", "–"),
            "frac_slip_neg": ("slip− fraction", "–"), "frac_slip_pos": ("slip+ fraction", "–"),
            "arclength": ("arclength", None), "settled_at": ("settled at", "s")}
_PREFIXES = (("settled_min_", "settled min "), ("settled_max_", "settled max "), ("rms_", "RMS "),
             ("min_", "min "), ("max_", "max "))


class _Units:
    """what the units of a scenario's quantities depend on: its model type and friction law"""

    def __init__(self, scenario):
        scenario = scenario if isinstance(scenario, dict) else {}
        model = scenario.get("model", {}) if isinstance(scenario.get("model"), dict) else {}
        self.type = model.get("type")
        self.law = (scenario.get("friction") or {}).get("law") if isinstance(scenario.get("friction"), dict) else None
        rotational = self.type == "torsion_pendulum"
        self.L = "rad" if rotational else "m"
        self.F = "N m" if rotational else ""
        self.model = dict(_MODEL_UNITS.get(self.type, {**_TRANSLATIONAL, **_MULTIBODY}))
        self.force_normal = "–" if rotational else "N"
        self.force_tangential = "N m" if rotational else "N"

    def friction(self, key, law=None):
        unit = _FRICTION_LAW_UNITS.get((law or self.law, key), _FRICTION_UNITS.get(key))
        if unit is None:
            return None
        text = unit.replace("{F}", self.F).replace("{L}", self.L).strip()
        if text.startswith("/"):
            text = "1" + text
        return text or "–"


def _split(pointer):
    """a JSON pointer's segments (~1 and ~0 unescaped)"""
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer.strip("/").split("/")]


def _indexed(name, indices):
    """a name with its array indices: Fn1 for /model/Fn/1, K[0,1] for /model/K/0/1"""
    if not indices:
        return name
    if len(indices) == 1:
        return name + indices[0]
    return "%s[%s]" % (name, ",".join(indices))


def _name_unit(path, scenario=None):
    """(name, unit or None) of a JSON pointer or a table's column"""
    u = _Units(scenario)
    if not path.startswith("/"):
        return _column(path, u)
    seg = _split(path)
    words = [s for s in seg if not s.isdigit()]
    indices = [s for s in seg if s.isdigit()]
    top = seg[0]
    if top == "initial" and len(seg) == 3 and seg[1] in ("q", "u") and seg[2].isdigit():
        return seg[1] + seg[2], u.L if seg[1] == "q" else u.L + "/s"
    if (seg[0], seg[-1]) in _RUN_KEYS and len(seg) == 2:
        return _RUN_KEYS[(seg[0], seg[-1])]
    if "friction" in words:
        # /friction/mu_s, /model/contacts/0/friction/mu_s, /friction/elements/1/K
        rest = words[words.index("friction") + 1:]
        key = "/".join(rest)
        law = None
        if top == "model" and "contacts" in words and isinstance(scenario, dict):
            try:
                law = scenario["model"]["contacts"][int(indices[0])]["friction"]["law"]
            except (KeyError, IndexError, TypeError, ValueError):
                law = None
        unit = u.friction(key, law)
        name = _GREEK.get(key, rest[-1] if rest else words[-1])
        return _indexed(name, indices), unit
    if top == "model" and len(words) >= 2:
        key = "/".join(words[1:])
        if key in u.model:
            return _indexed(_MODEL_NAMES.get(key, words[-1]), indices), u.model[key]
    last = words[-1] if words else seg[-1]
    return _indexed(last, indices if words else []), None


def _column(name, u):
    """(name, unit) of a column that is not a pointer: q0, u1, lamN0, t, rms_q0, period, ..."""
    if name in _COLUMNS:
        return _COLUMNS[name]
    for prefix, words in _PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            inner, unit = _column(name[len(prefix):], u)
            return words + inner, unit
    for prefix, symbol in (("lamN", "λN"), ("lamT", "λT")):
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return symbol + name[len(prefix):], u.force_normal if prefix == "lamN" else u.force_tangential
    if len(name) > 1 and name[0] in "qu" and name[1:].isdigit():
        return name, u.L if name[0] == "q" else u.L + "/s"
    return name, None


def label(path, scenario=None):
    """The axis label of a JSON pointer or a table's column, its name and unit from the scenario (a
    dict, e.g. a result's summary["scenario"]): "/model/Fn" -> "Fn [N]", "/initial/u/1" ->
    "u1 [m/s]", "/friction/mu_s" -> "μs [–]", "q0" -> "q0 [m]" ("q0 [rad]" for the torsion
    pendulum), "t" -> "t [s]". A pointer not in the table gives its last name, never the pointer."""
    name, unit = _name_unit(str(path), scenario)
    return "%s [%s]" % (name, unit) if unit else name


def _value_text(path, value, scenario=None):
    """"Fn = 12 N": a swept value with its name and unit"""
    name, unit = _name_unit(path, scenario)
    return "%s = %.4g%s" % (name, value, "" if not unit or unit == "–" else " " + unit)


# --- colours ----------------------------------------------------------------------------------
# one colour per class, in the order a reader scans the legend
CLASS_COLOURS = {
    "periodic-1": "tab:blue", "periodic-2": "tab:orange", "periodic-3": "tab:olive", "periodic-4": "tab:green",
    "periodic-5": "tab:purple", "periodic-6": "saddlebrown", "periodic-7": "gold", "periodic-8": "navy",
    "quasi-periodic": "tab:cyan", "chaotic": "tab:red", "undetermined": "tab:pink", "no-stick-slip": "tab:gray",
    "diverged": "black",
}
_ATTRACTOR_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                      "tab:olive", "tab:cyan")
_ATTRACTOR_MARKERS = "os^Dv<>p"
# a bifurcation's marker and colour, and its name in a legend
BIFURCATION_MARKERS = {"fold": ("s", "black"), "hopf": ("*", "tab:red"), "period_doubling": ("D", "tab:purple"),
                       "torus": ("^", "tab:green"), "grazing": ("v", "tab:orange")}
_BIFURCATION_NAMES = {"fold": "fold", "hopf": "Hopf", "period_doubling": "period doubling", "torus": "torus",
                      "grazing": "grazing"}
_CURVE_STYLES = {"period_doubling": "-", "fold": "--", "hopf": "-.", "torus": ":", "grazing": ":"}


def class_colour(name):
    """The colour of a class (periodic-1, chaotic, ...) in every figure."""
    return CLASS_COLOURS.get(name, "tab:purple" if str(name).startswith("periodic-") else "tab:brown")


def class_order(name):
    """Sort key of the classes: periodic-N by N, then the others in a fixed reading order."""
    if name.startswith("periodic-") and name[9:].isdigit():
        return (0, int(name[9:]), name)
    rest = ["quasi-periodic", "chaotic", "undetermined", "no-stick-slip", "diverged", "unclassified"]
    return (1, rest.index(name) if name in rest else len(rest), name)


def attractor_style(k):
    """(colour, marker) of attractor number k, the same in every panel: two attractors of one
    class get different ones; 0 (no attractor) is a grey cross."""
    k = int(k)
    if k <= 0:
        return "0.55", "x"
    return _ATTRACTOR_COLOURS[(k - 1) % len(_ATTRACTOR_COLOURS)], _ATTRACTOR_MARKERS[(k - 1) % len(_ATTRACTOR_MARKERS)]


# --- shared pieces ----------------------------------------------------------------------------
def _axes(ax, figsize):
    if ax is not None:
        return ax
    _, ax = _plt.subplots(figsize=figsize or (6.4, 4.2), layout="constrained")
    return ax


def _finish(ax, title=None, xlabel=None, ylabel=None, xlim=None, ylim=None, default_title=None):
    """the caller's overrides over what the function drew"""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if xlim is not None:
        ax.set_xlim(*xlim)
    if ylim is not None:
        ax.set_ylim(*ylim)
    text = default_title if title is None else title
    if text is not None:
        ax.set_title(text, fontsize="medium")
    return ax


def _split_title(options):
    """(title or None, the other options) of a figure's options"""
    rest = dict(options)
    return rest.pop("title", None), rest


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _sweep(result):
    return result if hasattr(result, "cases") else _tables.read_sweep(result)


def _continuation(result):
    return result if hasattr(result, "branches") else _tables.read_continuation(result)


def _run(result):
    return result if hasattr(result, "timeseries") else _tables.read_run(result)


def _compare(result):
    return result if hasattr(result, "series") else _tables.read_compare(result)


def _identify(result):
    return result if hasattr(result, "identified") else _tables.read_identify(result)


def _scenario(result):
    for attr in ("summary", "report"):
        doc = getattr(result, attr, None)
        if isinstance(doc, dict) and isinstance(doc.get("scenario"), dict):
            return doc["scenario"]
    return None


def _name(result):
    for attr in ("summary", "report", "identified"):
        doc = getattr(result, attr, None)
        if isinstance(doc, dict) and doc.get("name"):
            return doc["name"]
    return ""


def _swept(cases, prefix="/"):
    return [k for k in cases if k.startswith(prefix)]


def _positions(case_numbers, wanted):
    """the row of each wanted case number in the cases table"""
    numbers = _np.asarray(case_numbers).astype(_np.int64)
    order = _np.argsort(numbers, kind="stable")
    return order[_np.searchsorted(numbers[order], _np.asarray(wanted).astype(_np.int64))]


def _state_names(series, contact):
    """a series' contact states as names (the API gives codes, the CSV names)"""
    from . import contact_state_names

    states = _np.asarray(series["state%d" % contact])
    return _np.asarray(contact_state_names)[states] if states.dtype.kind in "iu" else states.astype(str)


def _window(series, t_from, t_to):
    t = _np.asarray(series["t"], dtype=float)
    keep = _np.ones(len(t), dtype=bool)
    if t_from is not None:
        keep &= t >= t_from
    if t_to is not None:
        keep &= t <= t_to
    return {k: _np.asarray(v)[keep] for k, v in series.items()}


def _section_words(kind):
    if kind == "poincare":
        return "at the Poincaré section"
    words = {"stick_to_slip@": "at break-away of contact ", "slip_to_stick@": "at sticking of contact ",
             "contact_open@": "at lift-off of contact ", "contact_close@": "at touch-down of contact "}
    for prefix, text in words.items():
        if kind.startswith(prefix):
            return text + kind[len(prefix):]
    return "at " + kind.replace("_", " ")


# --- sweeps: the bifurcation diagram ----------------------------------------------------------
def _sweep_points(sw, param, kind, coord):
    """(parameter values, coordinate values, classes) of the sweep's points of one kind, a
    periodic case's from the time its samples settled (cases.csv's settled_at)"""
    cases, points = sw.cases, sw.points
    if points is None or not len(points.get("case", [])):
        raise ValueError("the sweep kept no points (/output/points, or no observer that records them)")
    if param not in cases:
        raise ValueError("%s is not a swept parameter (%s)" % (param, ", ".join(_swept(cases))))
    if coord not in points:
        raise ValueError("no column %s in the points (%s)" % (coord, ", ".join(k for k in points if k not in
                                                                              ("case", "kind", "t"))))
    sel = _np.asarray(points["kind"]).astype(str) == kind
    rows = _positions(cases["case"], _np.asarray(points["case"])[sel])
    t = _np.asarray(points["t"], dtype=float)[sel]
    if "settled_at" in cases:
        settled = _np.asarray(cases["settled_at"], dtype=float)[rows]
        keep = ~(_np.isfinite(settled) & (t < settled))
    else:
        keep = _np.ones(len(t), dtype=bool)
    return (_np.asarray(cases[param], dtype=float)[rows][keep], _np.asarray(points[coord], dtype=float)[sel][keep],
            _np.asarray(cases["class"]).astype(str)[rows][keep])


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


# --- sweeps: basins --------------------------------------------------------------------------
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
    initial = _swept(cases, "/initial/")
    if len(initial) < 2 and (x is None or y is None):
        raise ValueError("the sweep varies %d initial value(s); the picture needs two" % len(initial))
    x = x or initial[0]
    y = y or [p for p in initial if p != x][0]
    for p in (x, y):
        if p not in cases:
            raise ValueError("%s is not a swept initial value (%s)" % (p, ", ".join(initial)))
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


# --- sweeps: the class map --------------------------------------------------------------------
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
    params = _swept(cases)
    if len(params) < 2 and (x is None or y is None):
        raise ValueError("the sweep varies %d parameter(s); a class map needs two" % len(params))
    x = x or params[0]
    y = y or [p for p in params if p != x][0]
    for p in (x, y):
        if p not in cases:
            raise ValueError("%s is not a swept parameter (%s)" % (p, ", ".join(params)))
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


# --- continuation -----------------------------------------------------------------------------
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


_FAMILY_COLOURS = {0: "tab:blue", 1: "black", 2: "tab:purple", 4: "tab:green", 8: "tab:olive"}


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


# --- sweeps: Poincaré maps of chosen cases ----------------------------------------------------
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


# --- a run ------------------------------------------------------------------------------------
_SHADE = {"stick": "#b3d9ff", "free": "#e0e0e0"}


def _shared_label(columns, scenario):
    """one axis label for several series: "q0, q1 [m]" where they share a unit"""
    parts = [_name_unit(c, scenario) for c in columns]
    units = {u for _, u in parts}
    if len(units) == 1 and None not in units:
        return "%s [%s]" % (", ".join(n for n, _ in parts), units.pop())
    return ", ".join(label(c, scenario) for c in columns)


def _shade_states(ax, t, states):
    start = 0
    for k in range(1, len(states) + 1):
        if k == len(states) or states[k] != states[start]:
            colour = _SHADE.get(states[start])
            if colour:
                ax.axvspan(t[start], t[min(k, len(t) - 1)], color=colour, lw=0, alpha=0.6)
            start = k


def timeseries(result, ax=None, columns=("q0",), t_from=None, t_to=None, shade=0, legend=None, figsize=None,
               **options):
    """Series of a run (columns of timeseries.csv: q0, u1, lamN0, ...) against time, with contact
    `shade`'s stick (blue) and separated (grey) intervals shaded (None: none)."""
    run = _run(result)
    s = _window(run.timeseries, t_from, t_to)
    columns = [columns] if isinstance(columns, str) else list(columns)
    for c in columns:
        if c not in s:
            raise ValueError("no series %s (%s)" % (c, ", ".join(k for k in s if k != "t")))
    ax = _axes(ax, figsize or (7, 3.2))
    scenario = _scenario(run)
    if shade is not None and "state%d" % shade in s and len(s["t"]):
        _shade_states(ax, s["t"], _state_names(s, shade))
    for c in columns:
        ax.plot(s["t"], s[c], lw=0.8, ls="--" if c.startswith("lamT") else "-", label=_name_unit(c, scenario)[0])
    ax.set_xlabel(label("t"))
    ax.set_ylabel(_shared_label(columns, scenario))
    if legend or (legend is None and len(columns) > 1):
        ax.legend(fontsize="small", loc="upper right")
    return _finish(ax, default_title=_name(run), **options)


def phase(result, ax=None, x="q0", y="u0", contact=0, t_from=None, t_to=None, figsize=None, **options):
    """A run's phase plot (y against x), contact `contact`'s stick-slip events marked (red: stick
    to slip, blue: slip to stick; None: no marks)."""
    run = _run(result)
    s = _window(run.timeseries, t_from, t_to)
    ax = _axes(ax, figsize or (4.5, 4.0))
    ax.plot(s[x], s[y], lw=0.6, color="k")
    if contact is not None and len(s["t"]):
        ev = run.events
        for kind, colour, words in (("stick_to_slip", "tab:red", "stick → slip"),
                                    ("slip_to_stick", "tab:blue", "slip → stick")):
            te = _np.asarray(ev["t"], dtype=float)
            sel = (_np.asarray(ev["contact"]).astype(int) == contact) & (_np.asarray(ev["type"]).astype(str) == kind)
            sel &= (te >= s["t"][0]) & (te <= s["t"][-1])
            if sel.any():
                ax.plot(_np.interp(te[sel], s["t"], s[x]), _np.interp(te[sel], s["t"], s[y]), "o", ms=3, color=colour,
                        label=words)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small", loc="best")
    scenario = _scenario(run)
    ax.set_xlabel(label(x, scenario))
    ax.set_ylabel(label(y, scenario))
    return _finish(ax, default_title="phase plot", **options)


def timeseries_figure(result, t_from=None, t_to=None, figsize=None, **options):
    """A run in four panels: the displacements and the velocities of every DoF against time with
    contact 0's states shaded, the contact forces, and the phase plot of DoF 0 with its stick-slip
    events. Returns the Figure; the title goes above the panels, the other options to the
    displacements' panel."""
    run = _run(result)
    title, options = _split_title(options)
    names = list(run.timeseries)
    dof = [n for n in names if n[0] == "q" and n[1:].isdigit()]
    forces = [n for n in names if n[:4] in ("lamN", "lamT") and n[4:].isdigit()]
    fig, ax = _plt.subplots(2, 2, figsize=figsize or (11, 6.4), layout="constrained")
    timeseries(run, ax=ax[0, 0], columns=dof, t_from=t_from, t_to=t_to, title="", **options)
    timeseries(run, ax=ax[1, 0], columns=["u" + n[1:] for n in dof], t_from=t_from, t_to=t_to, title="")
    if forces:
        timeseries(run, ax=ax[0, 1], columns=sorted(forces, key=lambda n: (n[4:], n)), t_from=t_from, t_to=t_to,
                   shade=None, title="", legend=True)
    phase(run, ax=ax[1, 1], t_from=t_from, t_to=t_to)
    ax[0, 0].set_xlabel("")
    title = "%s (shaded: contact 0 sticking, blue, or separated, grey)" % _name(run) if title is None else title
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig


# --- a comparison -----------------------------------------------------------------------------
def compare(result, ax=None, y="q0", x="t", runs=None, t_from=None, t_to=None, scenario=None, figsize=None,
            **options):
    """A `fivsim compare --series` result: column y against x (time, or another column for a phase
    plot) of every run (`runs`: their names, default all) over the event-driven reference. Its
    scenario is not in compare.json: pass it for units other than the translational models'."""
    cmp = _compare(result)
    if "reference" not in cmp.series:
        raise ValueError("no reference series (run fivsim compare with --series, or series=True)")
    names = runs or sorted(n for n in cmp.series if n != "reference")
    for n in names:
        if n not in cmp.series:
            raise ValueError("no series %s (%s)" % (n, ", ".join(sorted(cmp.series))))
    ref = _window(cmp.series["reference"], t_from, t_to)
    for c in (x, y):
        if c not in ref:
            raise ValueError("no column %s in the series (%s)" % (c, ", ".join(ref)))
    ax = _axes(ax, figsize or (6.4, 3.6))
    ax.plot(ref[x], ref[y], "k-", lw=2.0, alpha=0.8, label="reference (event-driven)")
    for n in names:
        s = _window(cmp.series[n], t_from, t_to)
        ax.plot(s[x], s[y], lw=1.0, label=n)
    ax.set_xlabel(label(x, scenario))
    ax.set_ylabel(label(y, scenario))
    return _finish(ax, default_title=_name(cmp), **options)


def compare_figure(result, dof=0, contact=0, runs=None, t_from=None, t_to=None, scenario=None, figsize=None,
                   **options):
    """A comparison in four panels (seed 000 Figs. 10-16): a displacement, a velocity and a
    contact force against time, and the phase plot, every run over the reference. Returns the
    Figure; the title goes above the panels, the other options to the displacement's panel."""
    cmp = _compare(result)
    title, options = _split_title(options)
    if "reference" not in cmp.series:
        raise ValueError("no reference series (run fivsim compare with --series, or series=True)")
    q, u = "q%d" % dof, "u%d" % dof
    lam_n, lam_t = "lamN%d" % contact, "lamT%d" % contact
    ref = cmp.series["reference"]
    for c in (q, u, lam_n, lam_t):
        if c not in ref:
            raise ValueError("no column %s in the reference series" % c)
    force = lam_n if _np.ptp(_np.asarray(ref[lam_n], dtype=float)) > 0 else lam_t
    fig, axes = _plt.subplots(2, 2, figsize=figsize or (11, 7), layout="constrained")
    common = dict(runs=runs, t_from=t_from, t_to=t_to, scenario=scenario)
    compare(cmp, ax=axes[0, 0], y=q, title="", **common, **options)
    compare(cmp, ax=axes[0, 1], y=u, title="", **common)
    compare(cmp, ax=axes[1, 0], y=force, title="", **common)
    compare(cmp, ax=axes[1, 1], x=q, y=u, title="phase plot", **common)
    axes[0, 0].legend(fontsize="small")
    title = _name(cmp) if title is None else title
    if title:
        fig.suptitle(title, fontsize="medium")
    return fig


# --- identification ---------------------------------------------------------------------------
_IDENTIFY_LABELS = {"x_sindy": ("sindy", "SINDy"), "x_extended_sindy": ("extended_sindy", "extended SINDy"),
                    "x_greybox": ("greybox", "grey-box"), "x_joint_terms": ("joint_terms", "known + identified terms")}


def _intervals_text(meta):
    """every identified number with its 95 % interval, a block per method (None without any)"""
    names = {"k": "k", "c": "c", "F": "Ff"}
    titles = {"sindy": "SINDy", "extended_sindy": "extended SINDy", "greybox": "grey-box",
              "joint_terms": "identified terms"}
    blocks = []
    for key, title in titles.items():
        b = meta.get(key, {})
        # joint terms identify the unknown row's coefficients (per term: [dx1, dx2])
        by_term = key == "joint_terms"
        iv = b.get("coefficient_interval_95" if by_term else "interval_95")
        if not iv:
            continue
        p = {t: c[1] for t, c in b["coefficients"].items()} if by_term else b["parameters"]
        # sdof reports by (k, c, F), a grey-box search by JSON pointer (null: no interval)
        order = [n for n in ("k", "c", "F") if n in iv] or list(iv)
        lines = ["%s = %.5g  [%.5g, %.5g]" % (names.get(n, n), p[n], *iv[n]) for n in order if iv[n]]
        if lines:
            blocks.append("%s, 95 %% intervals\n%s" % (title, "\n".join(lines)))
    return "\n\n".join(blocks) or None


def _record_scale(x):
    """(factor, unit) the record's displacement is drawn in: mm below 0.1 m, else m"""
    big = _np.nanmax(_np.abs(x)) if len(x) else 0.0
    return (1e3, "mm") if big < 0.1 else (1.0, "m")


def identify(result, ax=None, window=None, text_ax=None, intervals=True, figsize=None, **options):
    """An identification's record x(t) beside the response of every identified equation, each
    one's RMSE in the legend in the axis' unit; every estimate with its 95 % interval in a text
    beside the axes (or on `text_ax`, which it turns off), never over the data. window=(t0, t1)."""
    fit = _identify(result)
    meta = fit.identified
    if meta.get("method") == "pinn":
        raise ValueError("a pinn identification is drawn by identify_pinn")
    s = fit.response
    if window is not None:
        s = _window(s, window[0], window[1])
    ax = _axes(ax, figsize or (7, 3.2))
    factor, unit = _record_scale(_np.asarray(s["x"], dtype=float))
    ax.plot(s["t"], factor * _np.asarray(s["x"], dtype=float), "k-", lw=2.2, alpha=0.35, label="record")
    for col, (key, words) in _IDENTIFY_LABELS.items():
        if col not in s:
            continue
        rmse = meta.get(key, {}).get("rmse")
        ax.plot(s["t"], factor * _np.asarray(s[col], dtype=float), "--" if key == "sindy" else "-", lw=1.0,
                label="%s (RMSE %s)" % (words, "%.2g %s" % (factor * rmse, unit) if rmse is not None else "diverged"))
    ax.set_xlabel(label("t"))
    ax.set_ylabel("x [%s]" % unit)
    # below the axes and beside them: nothing covers the data
    handles = ax.get_legend_handles_labels()[0]
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(3, len(handles)))
    text = _intervals_text(meta) if intervals else None
    if text_ax is not None:
        text_ax.axis("off")
        if text:
            text_ax.text(0.0, 1.0, text, transform=text_ax.transAxes, fontsize="x-small", va="top")
    elif text:
        ax.text(1.02, 1.0, text, transform=ax.transAxes, fontsize="x-small", va="top", ha="left")
    return _finish(ax, default_title=meta.get("name", ""), **options)


def identify_figure(results, window=None, figsize=None, **options):
    """One or more identifications, a row each: the record beside the identified responses, and a
    text panel beside it with the estimates and their 95 % intervals. A pinn identification gets
    identify_pinn's panels (on its own). Returns the Figure; the title goes to the first response,
    the other options to every one."""
    fits = [_identify(r) for r in _as_list(results)]
    if any(f.identified.get("method") == "pinn" for f in fits):
        if len(fits) > 1:
            raise ValueError("a pinn identification is drawn on its own")
        return identify_pinn(fits[0], window=window, figsize=figsize, **options)
    fig, axes = _plt.subplots(len(fits), 2, figsize=figsize or (10, 3.2 * len(fits) + 0.4), squeeze=False,
                              layout="constrained",
                              gridspec_kw={"width_ratios": [3, 1.0]})
    title, options = _split_title(options)
    for i, (row, fit) in enumerate(zip(axes, fits)):
        identify(fit, ax=row[0], window=window, text_ax=row[1], title=title if i == 0 else None, **options)
    return fig


def identify_pinn(result, window=None, figsize=None, **options):
    """A pinn identification (seed 002 Fig. 17): the record beside N1's response, N2's friction
    torque beside the record's friction where known, and the torque's error. Returns the Figure;
    options apply to the response's panel."""
    fit = _identify(result)
    meta = fit.identified
    s = fit.response if window is None else _window(fit.response, window[0], window[1])
    p = meta["pinn"]
    known = "friction" in s
    fig, axes = _plt.subplots(3 if known else 2, 1, figsize=figsize or (8, 7), sharex=True, layout="constrained")
    axes[0].plot(s["t"], s["x"], "k-", lw=2.2, alpha=0.35, label="record")
    axes[0].plot(s["t"], s["x_pinn"], "-", lw=1.0, label="N1 (RMSE %.2g rad)" % p["rmse"])
    axes[0].set_ylabel("φ2 [rad]")
    axes[1].plot(s["t"], s["tau_pinn"], "-", lw=1.0, label="N2: τf")
    if known:
        err = p.get("torque_error_percent")
        axes[1].plot(s["t"], s["friction"], "k-", lw=2.2, alpha=0.35,
                     label="record's friction" + (" (N2 RMS error %.3g %%)" % err if err is not None else ""))
        axes[2].plot(s["t"], _np.asarray(s["tau_pinn"], dtype=float) - _np.asarray(s["friction"], dtype=float), "r-",
                     lw=0.8)
        axes[2].set_ylabel("τf − friction [N m]")
    axes[1].set_ylabel("τf [N m]")
    for ax in axes[:2]:
        ax.legend(fontsize="small", loc="upper right")
    axes[-1].set_xlabel(label("t"))
    _finish(axes[0], default_title="%s: balance %s" % (meta.get("name", ""), p.get("balance")), **options)
    return fig


def identify_bounds(result, figsize=None, **options):
    """Extended SINDy's bound surfaces (seed 003 Fig. 3, bounds.csv of the grid step 3): the distance
    D = |Φ2 − Φ1| over the (k̂, ĉ) grid with its minimum (and the truth, when known), and Φ1, Φ2
    along k̂ at the chosen ĉ*. Returns the Figure; options apply to the grid's panel."""
    fit = _identify(result)
    meta, b = fit.identified, fit.bounds
    if b is None:
        raise ValueError("no bounds (extended_sindy writes bounds.csv with the grid step 3)")
    ks, cs = _np.unique(b["k"]), _np.unique(b["c"])
    shape = (len(ks), len(cs))  # bounds.csv lists k-major rows
    D = _np.asarray(b["D"], dtype=float).reshape(shape)
    star = meta["extended_sindy"]["bounds"]
    fig, (a, r) = _plt.subplots(1, 2, figsize=figsize or (10, 3.8), layout="constrained")
    m = a.pcolormesh(cs, ks, _np.log10(_np.maximum(D, 1e-12)), shading="auto", cmap="viridis", rasterized=True)
    fig.colorbar(m, ax=a, label="log10 D = log10 |Φ2 − Φ1|")
    a.plot(star["c_star"], star["k_star"], "r*", ms=12, label="min D: (k̂*, ĉ*)")
    truth = meta.get("truth")
    if truth:
        a.plot(truth["c"], truth["k"], "wo", mfc="none", ms=9, label="truth")
    a.set_xlabel("ĉ")
    a.set_ylabel("k̂")
    a.legend(fontsize="small", loc="upper right")
    j = int(_np.argmin(_np.abs(cs - star["c_star"])))
    r.plot(ks, _np.asarray(b["phi1"], dtype=float).reshape(shape)[:, j], label="Φ1 (stop samples, Eq. 16)")
    r.plot(ks, _np.asarray(b["phi2"], dtype=float).reshape(shape)[:, j], label="Φ2 (slip samples, Eq. 17)")
    r.axvline(star["k_star"], color="r", lw=0.8)
    r.set_xlabel("k̂ (at ĉ* = %.4g)" % star["c_star"])
    r.set_ylabel("F̂f bound")
    r.legend(fontsize="small")
    _finish(a, default_title="%s: D over the grid" % meta.get("name", ""), **options)
    return fig


# --- the scripts' command line ----------------------------------------------------------------
def _pair(text):
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise _argparse.ArgumentTypeError("%r is not two numbers LO,HI" % text)
    return lo, hi


def _dpi(text):
    value = int(text)
    if value <= 0:
        raise _argparse.ArgumentTypeError("the DPI must be positive, not %s" % text)
    return value


FORMATS = (".png", ".pdf", ".svg")


def add_figure_options(parser, default_out):
    """The options every plot script takes: --out (PNG, PDF or SVG by its suffix), --xlabel,
    --ylabel, --xlim, --ylim, --title (of the main panel), --size and --dpi."""
    g = parser.add_argument_group("figure options")
    g.add_argument("--out", default=None, metavar="FILE",
                   help="The file to write, its format (PNG, PDF or SVG) chosen by its suffix (default: %s)."
                   % default_out)
    g.add_argument("--xlabel", default=None, metavar="TEXT",
                   help="The main panel's x axis label, in place of the name and unit the scenario gives.")
    g.add_argument("--ylabel", default=None, metavar="TEXT",
                   help="The main panel's y axis label, in place of the name and unit the scenario gives.")
    g.add_argument("--xlim", type=_pair, default=None, metavar="LO,HI",
                   help="The main panel's x range (write --xlim=-1,2 where LO is negative).")
    g.add_argument("--ylim", type=_pair, default=None, metavar="LO,HI",
                   help="The main panel's y range (write --ylim=-1,2 where LO is negative).")
    g.add_argument("--title", default=None, metavar="TEXT",
                   help="The main panel's title, in place of the scenario's name (--title '' for none).")
    g.add_argument("--size", type=_pair, default=None, metavar="W,H",
                   help="The figure's width and height in inches (3.5,2.6 fits one journal column).")
    g.add_argument("--dpi", type=_dpi, default=300,
                   help="Dots per inch of a PNG and of the rasterised scatter in a PDF or SVG (default: 300).")
    return g


def figure_options(args):
    """The labels, limits and title of the scripts' parsed options (add_figure_options) that were
    given, as keywords for a plot function."""
    return {k: getattr(args, k) for k in ("xlabel", "ylabel", "xlim", "ylim", "title") if getattr(args, k) is not None}


def save(fig, target, default=None, dpi=300):
    """Writes the figure, its format by the suffix (.png, .pdf, .svg; fonts embedded as TrueType
    in a PDF). target: a path, or the scripts' parsed options (add_figure_options), whose --size,
    --dpi and --out (else `default`) are used. Returns the path written."""
    if isinstance(target, _argparse.Namespace):
        a = target
        if a.size is not None:
            fig.set_size_inches(*a.size)
        path, dpi = a.out or default, a.dpi
    else:
        path = target
    path = _os.fspath(path)
    suffix = _os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise ValueError("%s: the suffix chooses the format: .png, .pdf or .svg" % path)
    metadata = {".pdf": {"CreationDate": None}, ".svg": {"Date": None}, ".png": {}}[suffix]
    with _mpl.rc_context({"pdf.fonttype": 42, "ps.fonttype": 42}):
        fig.savefig(path, dpi=dpi, metadata=metadata)
    return path
