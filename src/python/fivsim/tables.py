"""fivsim.tables: the output folders of the command line read back in the shapes of the Python API's
results, so that fivsim.plot (and any script) takes a folder where it takes a result.

    from fivsim import tables
    sw = tables.read_sweep("runs/chain2_bifurcation")    # .cases, .points, .basins, .summary
    br = tables.read_continuation("runs/bstab_orbits")   # .report, .branches, .bifurcations, ...
    for r in tables.table_rows("runs/chain2_bifurcation", "cases"): r["/model/Fn"], r["class"]

A table is a dict of numpy arrays named like the CSV's columns (numbers as floats, words as
strings), read from the CSV when it is there, else from results.h5 (a sweep run with --format h5).
Missing files raise FileNotFoundError naming the folder and what writes the file.
"""

import csv as _csv
import json as _json
import os as _os

import numpy as _np

__all__ = ["read_table", "table_rows", "read_sweep", "read_continuation", "read_run", "read_compare",
           "read_identify", "SweepFolder", "ContinuationFolder", "RunFolder", "CompareFolder", "IdentifyFolder"]


def _columns(header, rows):
    """{name: array} from CSV text: a column of numbers as floats, any other as strings"""
    out = {}
    for i, name in enumerate(header):
        text = [r[i] for r in rows]
        try:
            out[name] = _np.array(text, dtype=float)
        except ValueError:
            out[name] = _np.array(text, dtype=str)
    return out


def _read_csv(path):
    with open(path, newline="") as f:
        reader = _csv.reader(f)
        header = next(reader, [])
        return _columns(header, list(reader))


def _h5_columns(folder, table):
    """the columns of one table of results.h5, keyed like the CSV (a swept value by its pointer, a
    code by its word, a class "periodic" with its period as periodic-N), or None without the file
    or the table"""
    path = _os.path.join(folder, "results.h5")
    if not _os.path.exists(path):
        return None
    import h5py  # Debian's python3-h5py, which scripts/setup.sh installs

    def text(v):
        return v.decode() if isinstance(v, bytes) else str(v)

    with h5py.File(path, "r") as f:
        if table not in f:
            return None
        g = f[table]
        columns = {}
        for name in g.attrs["columns"]:
            ds = g[text(name)]
            values = ds[:]
            words = h5py.check_enum_dtype(ds.dtype)
            if words:
                by_code = {code: word for word, code in words.items()}
                values = _np.array([by_code[int(v)] for v in values], dtype=str)
            elif values.dtype.kind in "OS":
                values = _np.array([text(v) for v in values], dtype=str)
            else:
                values = values.astype(float)
            columns[text(ds.attrs.get("pointer", text(name)))] = values
    if "class" in columns and "period_n" in columns:
        columns["class"] = _np.array([("periodic-%d" % p if c == "periodic" else c)
                                      for c, p in zip(columns["class"], columns["period_n"])], dtype=str)
    return columns


def read_table(folder, table, required=True):
    """A table of an output folder ("cases", "points", "branches", ...) as {column: array}: the CSV,
    else results.h5's table; None when neither holds it and required is False."""
    folder = _os.fspath(folder)
    path = _os.path.join(folder, table + ".csv")
    if _os.path.exists(path):
        return _read_csv(path)
    columns = _h5_columns(folder, table)
    if columns is None and required:
        why = "a sweep without output.points has none" if table == "points" else "is it the right output folder?"
        raise FileNotFoundError("%s: neither %s.csv nor a %s table in results.h5 (%s)" % (folder, table, table, why))
    return columns


def table_rows(folder, table):
    """The rows (dicts of the CSV's texts) of table "cases" or "points" of a sweep folder."""
    folder = _os.fspath(folder)
    path = _os.path.join(folder, table + ".csv")
    if _os.path.exists(path):
        with open(path, newline="") as f:
            return list(_csv.DictReader(f))
    columns = read_table(folder, table)
    keys = list(columns)
    n = len(columns[keys[0]]) if keys else 0

    def word(v):
        # a whole number as the CSV writes it ("12", not "12.0"), so that int(row["case"]) reads it
        return str(int(v)) if _np.isfinite(v) and v == int(v) and abs(v) < 2 ** 53 else repr(v)

    return [{k: (columns[k][i] if columns[k].dtype.kind == "U" else word(float(columns[k][i]))) for k in keys}
            for i in range(n)]


def _summary(folder, name="summary.json", what="fivsim", key=None):
    """the folder's summary; FileNotFoundError where it is missing or lacks `key` (another command's)"""
    path = _os.path.join(folder, name)
    if not _os.path.exists(path):
        raise FileNotFoundError("%s has no %s (is it an output folder of `%s`?)" % (folder, name, what))
    with open(path) as f:
        doc = _json.load(f)
    if key is not None and key not in doc:
        raise FileNotFoundError("%s is not an output folder of `%s` (its %s has no \"%s\")" % (folder, what, name, key))
    return doc


class SweepFolder:
    """A `fivsim sweep` folder with a SweepResult's attributes: .summary, .cases (with the column
    "attractor" from attractors.csv where the sweep measured basins), .points (read on first use;
    None when the sweep kept none), .basins (basins.csv, None without), .folder."""

    def __init__(self, folder):
        from . import _basins

        self.folder = _os.fspath(folder)
        self.summary = _summary(self.folder, what="fivsim sweep", key="cases")
        self.cases = read_table(self.folder, "cases")
        path = _os.path.join(self.folder, "attractors.csv")
        if "attractor" not in self.cases and _os.path.exists(path):
            labels = _read_csv(path)
            by_case = dict(zip(labels["case"].astype(int), labels["attractor"].astype(int)))
            self.cases["attractor"] = _np.array([by_case.get(int(c), 0) for c in self.cases["case"]], dtype=int)
        path = _os.path.join(self.folder, "basins.csv")
        self.basins = _read_csv(path) if _os.path.exists(path) else _basins(self.summary)
        if self.basins is not None and "change" in self.basins:
            self.basins["change"] = _np.array(["" if c == "nan" else c for c in self.basins["change"].astype(str)])
        self._points = False

    @property
    def points(self):
        if self._points is False:
            self._points = read_table(self.folder, "points", required=False)
        return self._points

    def __repr__(self):
        return "<fivsim.tables.SweepFolder %s: %d cases>" % (self.folder, len(self.cases.get("case", [])))


class ContinuationFolder:
    """A `fivsim continue` folder with a ContinuationResult's attributes: .report (summary.json),
    .branches, .bifurcations, .orbit_points and .curves ({} where the folder has none), .folder."""

    def __init__(self, folder):
        self.folder = _os.fspath(folder)
        self.report = _summary(self.folder, what="fivsim continue", key="branches")
        for name in ("branches", "bifurcations"):
            if not (_os.path.exists(_os.path.join(self.folder, name + ".csv"))
                    or _os.path.exists(_os.path.join(self.folder, "results.h5"))):
                raise FileNotFoundError("%s has no %s.csv (is it an output folder of `fivsim continue`?)"
                                        % (self.folder, name))
        self.branches = read_table(self.folder, "branches")
        self.bifurcations = read_table(self.folder, "bifurcations")
        self.orbit_points = read_table(self.folder, "orbit_points", required=False) or {}
        self.curves = read_table(self.folder, "curves", required=False) or {}


class RunFolder:
    """A `fivsim run` folder with a RunResult's attributes: .timeseries (states as their names),
    .events, .summary, .folder."""

    def __init__(self, folder):
        from . import _events

        self.folder = _os.fspath(folder)
        self.summary = _summary(self.folder, what="fivsim run", key="events")
        path = _os.path.join(self.folder, "timeseries.csv")
        if not _os.path.exists(path):
            raise FileNotFoundError("%s has no timeseries.csv (the scenario's output.timeseries is off)" % self.folder)
        self.timeseries = _read_csv(path)
        self.events = _events(self.summary)


class CompareFolder:
    """A `fivsim compare` folder with a CompareResult's attributes: .report (compare.json), .table
    (compare.csv), .series ({run: time series} of series/, with --series), .folder."""

    def __init__(self, folder):
        self.folder = _os.fspath(folder)
        self.report = _summary(self.folder, "compare.json", "fivsim compare")
        path = _os.path.join(self.folder, "compare.csv")
        self.table = _read_csv(path) if _os.path.exists(path) else {}
        series = _os.path.join(self.folder, "series")
        names = sorted(n[:-4] for n in _os.listdir(series) if n.endswith(".csv")) if _os.path.isdir(series) else []
        self.series = {n: _read_csv(_os.path.join(series, n + ".csv")) for n in names}


class IdentifyFolder:
    """A `fivsim identify` folder with an IdentifyResult's attributes: .identified, .record,
    .response, .bounds and .laws (None without bounds.csv, laws.csv), .folder."""

    def __init__(self, folder):
        self.folder = _os.fspath(folder)
        self.identified = _summary(self.folder, "identified.json", "fivsim identify")
        tables = {}
        for name in ("record", "response", "bounds", "laws"):
            path = _os.path.join(self.folder, name + ".csv")
            tables[name] = _read_csv(path) if _os.path.exists(path) else None
        if tables["response"] is None:
            raise FileNotFoundError("%s has no response.csv (is it an output folder of `fivsim identify`?)"
                                    % self.folder)
        self.record, self.response, self.bounds = tables["record"], tables["response"], tables["bounds"]
        self.laws = tables["laws"]


def read_sweep(folder):
    """A sweep folder as a SweepFolder (cases, points, basins, summary)."""
    return SweepFolder(folder)


def read_continuation(folder):
    """A continuation folder as a ContinuationFolder (report, branches, bifurcations, ...)."""
    return ContinuationFolder(folder)


def read_run(folder):
    """A run folder as a RunFolder (timeseries, events, summary)."""
    return RunFolder(folder)


def read_compare(folder):
    """A compare folder as a CompareFolder (report, table, series)."""
    return CompareFolder(folder)


def read_identify(folder):
    """An identification folder as an IdentifyFolder (identified, record, response, bounds, laws)."""
    return IdentifyFolder(folder)
