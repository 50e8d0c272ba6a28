"""fivsim.plot's figures of an identification: the record beside every identified equation's
response with the estimates and their 95 % intervals, the candidate laws' μ against the sliding
speed over the record's own friction, extended SINDy's bound surfaces, and a PINN's response and
friction torque.
"""

import numpy as _np
from matplotlib import pyplot as _plt

from .figure import _axes, _finish, _split_title
from .labels import label
from .results import _as_list, _identify, _window

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


def identify_laws(result, ax=None, markersize=2, legend=True, figsize=None, **options):
    """The candidate laws of an identification with `candidates` (laws.csv): each fitted law's
    coefficient μ against the sliding speed |v − v_belt|, best first by BIC with its ΔBIC and
    Akaike weight in the legend (the best solid, the others dashed), over the record's own samples
    of μ = |F_f| / Fn where it slips and holds a friction column."""
    fit = _identify(result)
    meta, laws = fit.identified, fit.laws
    if laws is None or "candidates" not in meta:
        raise ValueError("no candidate laws (an identification with a candidates list writes laws.csv)")
    ax = _axes(ax, figsize or (6.4, 4.2))
    rec = fit.record or {}
    if "mu" in rec:
        ax.plot(_np.asarray(rec["slip_speed"], dtype=float), _np.asarray(rec["mu"], dtype=float), ".", color="0.6",
                ms=markersize, alpha=0.5, label="record: |F_f| / Fn", rasterized=True)
    speed = _np.asarray(laws["speed"], dtype=float)
    for c in sorted(meta["candidates"], key=lambda c: c["rank"]):
        column = "mu_" + c["law"]
        if column not in laws:
            continue
        ax.plot(speed, _np.asarray(laws[column], dtype=float), "-" if c["rank"] == 1 else "--",
                lw=1.8 if c["rank"] == 1 else 1.0,
                label="%d. %s (ΔBIC %.3g, w %.2g)" % (c["rank"], c["law"], c["delta_bic"] or 0.0,
                                                      c["akaike_weight"]))
    ax.set_xlabel("sliding speed |v − v_belt| [m/s]")
    ax.set_ylabel("μ [–]")
    if legend:
        ax.legend(fontsize="small", loc="upper right")
    return _finish(ax, default_title="%s: candidate laws" % meta.get("name", ""), **options)
