"""fivsim.plot's figures of a run and of a comparison: series against time with a contact's states
shaded, the phase plot with its stick-slip events, and every run of a comparison over the
event-driven reference.
"""

import numpy as _np
from matplotlib import pyplot as _plt

from .figure import _axes, _finish, _split_title
from .labels import _name_unit, label
from .results import _compare, _name, _run, _scenario, _window

# --- a run ------------------------------------------------------------------------------------
_SHADE = {"stick": "#b3d9ff", "free": "#e0e0e0"}


def _state_names(series, contact):
    """a series' contact states as names (the API gives codes, the CSV names)"""
    from .. import contact_state_names

    states = _np.asarray(series["state%d" % contact])
    return _np.asarray(contact_state_names)[states] if states.dtype.kind in "iu" else states.astype(str)


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
