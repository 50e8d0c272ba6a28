"""fivsim.plot's inputs: a result of the Python API or the command line's output folder (read by
fivsim.tables) taken alike, its scenario and name, and the rows of a sweep's cases and points or a
series' time window that the figures draw.
"""

import numpy as _np

from .. import tables as _tables


def _as_list(value):
    """one result or several, as a list"""
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


def _window(series, t_from, t_to):
    t = _np.asarray(series["t"], dtype=float)
    keep = _np.ones(len(t), dtype=bool)
    if t_from is not None:
        keep &= t >= t_from
    if t_to is not None:
        keep &= t <= t_to
    return {k: _np.asarray(v)[keep] for k, v in series.items()}


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
