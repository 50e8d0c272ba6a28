"""fivsim from Python: nonsmooth friction-induced vibration, one run or a sweep of many cases.

Every entry takes a scenario as a path, a JSON string or a dict, and ``set={pointer: value}``
overrides applied in order, as ``--set /pointer=value`` does on the command line::

    import fivsim
    run = fivsim.run("scenarios/model1_slow_stribeck.json", set={"/integrator/t_end": 5})
    run.timeseries["q0"], run.events["t"], run.to_pandas()
    sw = fivsim.sweep("scenarios/chain2_load_sweep.json", device="auto", progress=True)
    sw.cases["class"], sw.points["q0"], sw.to_pandas()
    fit = fivsim.identify("scenarios/identify/sdof_two_stop_extended_sindy.json")
    fit.parameters["k"], fit.intervals["k"], fit.response["x_extended_sindy"]
    st = fivsim.stability("scenarios/model2_example1.json", param="/friction/mu", linspace=(0, 1.5, 151))
    st.critical, st.table["max_real"], st.to_pandas()
    cmp = fivsim.compare("scenarios/model2_example2.json", methods=["moreau", "irk10"], dt=[1e-3, 1e-4])
    cmp.table["relerr_q0"], cmp.report["runs"][0]["transitions"], cmp.to_pandas()

Results come back as numpy arrays named like the columns of the command line's CSV files (the
same numbers; nothing goes through files), and every result has to_pandas(). Bad input raises InputError naming the JSON pointer (the
command line's exit 2); a run that fails numerically raises NumericalError carrying the result up
to the failure. Long calls release the GIL and stop on Ctrl-C (KeyboardInterrupt).

Figures: `import fivsim.plot` (matplotlib, which `import fivsim` does not load) draws these results,
or the command line's output folders (fivsim.tables reads them back), for a paper: names and units
from the scenario, PDF, SVG or PNG.
"""

import json as _json
import math as _math
import os as _os
import sys as _sys
import time as _time

import numpy as _np

__all__ = [
    "InputError",
    "NumericalError",
    "RunResult",
    "SweepResult",
    "load",
    "validate",
    "run",
    "sweep",
    "IdentifyResult",
    "identify",
    "IdentifyBatchResult",
    "identify_batch",
    "merge",
    "StabilityResult",
    "stability",
    "ContinuationResult",
    "continuation",
    "CompareResult",
    "compare",
    "contact_state_names",
    "built_with_cuda",
]


class InputError(ValueError):
    """Bad input: the message starts with the JSON pointer, which .pointer holds ("" for a whole
    file or argument)."""

    def __init__(self, message, pointer=""):
        super().__init__(message)
        self.pointer = pointer


class NumericalError(RuntimeError):
    """A run that a numerical failure ended early; .result holds what it computed up to there."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


# the compiled core raises InputError from above, so it is imported after the class exists
from . import _core  # noqa: E402

contact_state_names = tuple(_core.contact_state_names)
built_with_cuda = bool(_core.built_with_cuda)


def _source(scenario):
    """(text, is_path) of a scenario given as a path, JSON text or a dict."""
    if isinstance(scenario, dict):
        return _json.dumps(scenario), False
    if isinstance(scenario, _os.PathLike):
        return _os.fspath(scenario), True
    if isinstance(scenario, str):
        return (scenario, False) if scenario.lstrip().startswith("{") else (scenario, True)
    raise TypeError("a scenario is a path, a JSON string or a dict, not " + type(scenario).__name__)


def _overrides(set):
    """The "/pointer=value" assignments of --set, from {pointer: value}."""
    if set is None:
        return []
    if not isinstance(set, dict):
        raise TypeError("set= takes a dict {JSON pointer: value}")
    out = []
    for pointer, value in set.items():
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            raise InputError(f"{pointer}: set= keys are JSON pointers such as /integrator/dt", str(pointer))
        if isinstance(value, float) and not _math.isfinite(value):
            text = "nan" if _math.isnan(value) else ("inf" if value > 0 else "-inf")
        elif isinstance(value, _np.generic):
            text = _json.dumps(value.item())
        else:
            text = _json.dumps(value)
        out.append(f"{pointer}={text}")
    return out


class _ProgressPrinter:
    """progress=True: on a terminal one line rewritten in place (at most 10 times a second); elsewhere
    (a notebook's log, a file, a pipe) a line of its own every 10 s; with the rate and an ETA."""

    def __init__(self, what, unit):
        self.what, self.unit = what, unit
        self.start = _time.monotonic()
        self.last = None
        self.last_done = None
        self.shown = False
        self.terminal = _sys.stderr.isatty()

    def __call__(self, done, total, work):
        now = _time.monotonic()
        if done == self.last_done or (self.last is not None and now - self.last < (0.1 if self.terminal else 10.0)
                                      and done < total):
            return
        self.last, self.last_done = now, done
        elapsed = now - self.start
        frac = done / total if total else 0.0
        rate = work / elapsed if elapsed > 0 else 0.0
        eta = f", ETA {elapsed * (1 - frac) / frac:.0f} s" if 0 < frac < 1 else ""
        line = f"  {self.what} {done:.4g} / {total:.4g} ({100 * frac:3.0f}%), {rate:.3g} {self.unit}{eta}"
        _sys.stderr.write(f"\r{line}   " if self.terminal else line + "\n")
        _sys.stderr.flush()
        self.shown = True

    def done(self):
        if self.terminal and self.shown:
            _sys.stderr.write("\n")


def _progress_callback(progress, what, unit):
    """None, a printer on stderr (progress=True) or the caller's callable(done, total, work)."""
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    return _ProgressPrinter(what, unit)


def _progress_done(callback):
    if isinstance(callback, _ProgressPrinter):
        callback.done()


def load(scenario, set=None):
    """The scenario document, validated, with the overrides applied (a dict)."""
    text, is_path = _source(scenario)
    return _json.loads(_core.load(text, is_path, _overrides(set)))


def validate(scenario, set=None):
    """Raises InputError when the scenario is not valid; returns None otherwise."""
    load(scenario, set)


def _events(summary):
    """The events of a run's summary as arrays: t, contact, type, from, to."""
    ev = summary.get("events", [])
    return {
        "t": _np.array([e["t"] for e in ev], dtype=float),
        "contact": _np.array([e["contact"] for e in ev], dtype=_np.int64),
        "type": _np.array([e["type"] for e in ev], dtype=str),
        "from": _np.array([e["from"] for e in ev], dtype=str),
        "to": _np.array([e["to"] for e in ev], dtype=str),
        "q": _np.array([e["q"] for e in ev], dtype=float),
    }


class RunResult:
    """One simulation: .timeseries (t, q0.., u0.., lamN0.., lamT0.. as float arrays; state0.. as
    int8 codes into contact_state_names), .events (arrays), .summary (what summary.json holds),
    .complete."""

    def __init__(self, raw):
        self.timeseries = raw["timeseries"]
        self.summary = _json.loads(raw["summary"])
        self.events = _events(self.summary)
        self.complete = bool(raw["complete"])
        self.state_names = contact_state_names

    def states(self, contact=0):
        """The state names of one contact along the series (strings, as timeseries.csv has them)."""
        return _np.asarray(self.state_names)[self.timeseries[f"state{contact}"]]

    def to_pandas(self):
        """The time series as a pandas DataFrame, states as their names."""
        import pandas as pd

        columns = {}
        for name, values in self.timeseries.items():
            columns[name] = _np.asarray(self.state_names)[values] if name.startswith("state") else values
        return pd.DataFrame(columns)

    def __repr__(self):
        s = self.summary
        return (f"<fivsim.RunResult {s.get('name')}: {s.get('steps')} steps, {len(self.events['t'])} events, "
                f"{s.get('status')}>")


def run(scenario, set=None, progress=False):
    """Runs one simulation (fivsim run): a RunResult; NumericalError when it ended early."""
    text, is_path = _source(scenario)
    callback = _progress_callback(progress, "t =", "steps/s")
    raw = _core.run(text, is_path, _overrides(set), callback)
    _progress_done(callback)
    result = RunResult(raw)
    if not result.complete:
        raise NumericalError(f"numerical failure ({raw['failure']}); .result holds the run up to there", result)
    return result


def _table(columns):
    """A table from the core: code columns (names, index) become arrays of their texts."""
    out = {}
    for name, column in columns.items():
        if isinstance(column, tuple):
            names, index = column
            out[name] = _np.asarray(names, dtype=str)[index] if len(names) else _np.array([], dtype=str)
        else:
            out[name] = column
    return out


def _basins(summary):
    """basins.csv's columns from summary.json's "basins": per group (the values of the swept
    parameters that are not initial conditions) and attractor, its class, period, cases, fraction
    (basin stability) and standard error; attractor 0 counts the cases with none."""
    b = summary.get("basins")
    if b is None:
        return None
    paths = b["parameters"]
    cols = {p: [] for p in paths}
    keys = ("attractor", "class", "period_n", "period", "cases", "fraction", "standard_error", "first_case",
            "change")
    for key in keys:
        cols[key] = []
    for g in b["groups"]:
        rows = list(g["attractors"])
        if g["unlabelled"] > 0:
            p = g["unlabelled"] / g["cases"]
            rows.append({"attractor": 0, "class": "none", "period_n": 0, "period": 0.0, "cases": g["unlabelled"],
                         "fraction": p, "standard_error": (p * (1 - p) / g["cases"]) ** 0.5, "first_case": -1,
                         "change": ""})
        for a in rows:
            for p, v in zip(paths, g["values"]):
                cols[p].append(v)
            for key in keys:
                cols[key].append(a[key])
    return {k: _np.asarray(v, dtype=str if k in ("class", "change") else None) for k, v in cols.items()}


class SweepResult:
    """A sweep: .cases and .points (dicts of arrays named like the columns of cases.csv and
    points.csv; .points is None when the sweep keeps none), .trajectories ({case: time series} for
    /output/trajectories), .summary (what summary.json holds). A sweep over initial conditions also
    has .basins (basins.csv's columns: each attractor's basin stability at each value of the other
    swept parameters) and each case's "attractor" among .cases; else .basins is None."""

    def __init__(self, raw):
        self.summary = _json.loads(raw["summary"])
        self.cases = _table(raw["cases"])
        self.points = None if raw["points"] is None else _table(raw["points"])
        self.trajectories = {int(index): series for index, series in raw["trajectories"]}
        self.basins = _basins(self.summary)

    def to_pandas(self, table="cases"):
        """The cases (or table="points", or table="basins") as a pandas DataFrame."""
        import pandas as pd

        if table not in ("cases", "points", "basins"):
            raise ValueError('table is "cases", "points" or "basins"')
        data = {"cases": self.cases, "points": self.points, "basins": self.basins}[table]
        if data is None and table == "basins":
            raise ValueError("this sweep varies no initial condition: it has no basins")
        if data is None:
            raise ValueError("this sweep kept no points (/output/points, or no observer that records them)")
        return pd.DataFrame(data)

    def __repr__(self):
        # the case-steps run: an adaptive sweep stops each case when its class is known
        s = self.summary
        planned = s.get("cases", 0) * s.get("steps", 0)
        ran = s.get("case_steps", planned)
        share = f" ({100 * ran / planned:.3g}% of {s.get('cases')} x {s.get('steps')})" if planned and ran != planned else ""
        return (f"<fivsim.SweepResult {s.get('name')}: {s.get('cases')} cases, {ran:.4g} case-steps{share} on "
                f"{s.get('device')}>")


def sweep(scenario, set=None, device="auto", precision="double", progress=False, threads=0, chunk=0,
          kernels="specialised", kernel_cache=""):
    """Runs a sweep (fivsim sweep) in memory: a SweepResult. device: "auto", "cpu" or "cuda";
    precision: "double" or "float"; threads: CPU threads (0: all cores); chunk: cases per chunk
    (0: chosen from the device's memory or the steps); kernels: on the GPU "specialised" (the
    scenario compiled into the kernel) or "generic"; kernel_cache: the compiled kernels' folder
    ("": the default, "off": none). A diverging case is flagged in its row."""
    text, is_path = _source(scenario)
    callback = _progress_callback(progress, "cases", "case-steps/s")
    raw = _core.sweep(text, is_path, _overrides(set), str(device), str(precision), int(chunk), int(threads), callback,
                      str(kernels), str(kernel_cache))
    _progress_done(callback)
    return SweepResult(raw)


def _frame(columns):
    import pandas as pd

    return pd.DataFrame(columns)


def _ranking(candidates):
    """identified.json's candidate laws as columns, best first (None without candidates)"""
    if not candidates:
        return None
    keys = ("law", "rank", "fitted", "rmse", "aic", "bic", "delta_aic", "delta_bic", "akaike_weight", "bic_weight",
            "white")
    rows = sorted(candidates, key=lambda c: c["rank"])
    nan = _math.nan
    return {k: _np.asarray([nan if c[k] is None else c[k] for c in rows], dtype=str if k == "law" else None)
            for k in keys}


class IdentifyResult:
    """One identification (fivsim identify): .parameters ({name: value}) and .intervals ({name:
    (low, high) 95 % interval, or None where the method gives none}) whatever the method (what
    identified.json's "fit" holds; with candidate laws, the best law's), .warnings (what the fit's
    residual says of the model), .ranking (with candidate laws: their columns law, rank, fitted,
    rmse, aic, bic, delta_aic, delta_bic, akaike_weight, bic_weight, white, best first; else None),
    .identified (all of identified.json), .record, .response, .bounds and .laws (dicts of arrays
    named like the columns of record.csv, response.csv, bounds.csv and laws.csv; .bounds is None
    unless extended SINDy ran the seed's grid, .laws unless candidate laws were fitted)."""

    def __init__(self, raw):
        self.identified = _json.loads(raw["identified"])
        self.record = raw["record"]
        self.response = raw["response"]
        self.bounds = raw["bounds"]
        self.laws = raw.get("laws")
        fit = self.identified["fit"]
        self.parameters = dict(fit["parameters"])
        self.intervals = {k: (None if v is None else tuple(v)) for k, v in fit["interval_95"].items()}
        self.warnings = list(self.identified.get("warnings", []))
        self.ranking = _ranking(self.identified.get("candidates"))

    def to_pandas(self, table="parameters"):
        """table="parameters" (a row per parameter: value, low, high), "ranking", "laws", "record",
        "response" or "bounds" as a pandas DataFrame."""
        if table == "parameters":
            names = list(self.parameters)
            low = [self.intervals[n][0] if self.intervals.get(n) else _math.nan for n in names]
            high = [self.intervals[n][1] if self.intervals.get(n) else _math.nan for n in names]
            return _frame({"parameter": names, "value": [self.parameters[n] for n in names], "low": low, "high": high})
        if table not in ("ranking", "laws", "record", "response", "bounds"):
            raise ValueError('table is "parameters", "ranking", "laws", "record", "response" or "bounds"')
        data = getattr(self, table)
        if data is None:
            raise ValueError("this identification has no %s" % (
                "bounds (only extended SINDy's grid step 3 computes them)" if table == "bounds" else
                table + " (it names no candidate laws)"))
        return _frame(data)

    def __repr__(self):
        i = self.identified
        return f"<fivsim.IdentifyResult {i.get('name')} ({i.get('method')}): {i['record']['samples']} samples>"


def identify(config, set=None, base_dir=None):
    """Identifies a friction oscillator from a record (fivsim identify, one configuration without a
    sweep block): an IdentifyResult. Relative paths in the config (data.path, data.scenario) are
    read from base_dir where given, else from the config's own folder for a path, or from the
    working directory for a config given as text or a dict."""
    text, is_path = _source(config)
    folder = "" if base_dir is None else _os.fspath(base_dir)
    return IdentifyResult(_core.identify(text, is_path, _overrides(set), folder))


class IdentifyBatchResult:
    """A batch of identifications (fivsim identify on a config with a sweep block): .summary (what
    summary.json holds: name, method, cases, status counts, wall_s), .table (the columns of
    identifications.csv: case, the swept numbers, status, samples, wall_s, the identified numbers,
    message; a failed case is flagged in its row, NaN where it found nothing)."""

    def __init__(self, raw):
        self.summary = _json.loads(raw["summary"])
        self.table = raw["table"]

    def to_pandas(self):
        """The table (identifications.csv's columns) as a pandas DataFrame."""
        return _frame(self.table)

    def __repr__(self):
        s = self.summary
        return f"<fivsim.IdentifyBatchResult {s.get('name')} ({s.get('method')}): {s.get('cases')} cases, {s.get('status')}>"


def identify_batch(config, set=None, base_dir=None, progress=False):
    """One identification per case of a config's sweep block (fivsim identify on such a config),
    in memory: an IdentifyBatchResult. Every case's config is checked before the first runs; relative
    paths are read as fivsim.identify reads them."""
    text, is_path = _source(config)
    folder = "" if base_dir is None else _os.fspath(base_dir)
    callback = _progress_callback(progress, "identifications", "identifications/s")
    raw = _core.identify_batch(text, is_path, _overrides(set), folder, callback)
    _progress_done(callback)
    return IdentifyBatchResult(raw)


def merge(shards, out=None):
    """Joins the output folders of `fivsim sweep --shard i/N` (fivsim merge) into `out` (default
    runs/<name>): the files one run of the whole sweep writes. Returns the merged summary (a dict,
    what summary.json holds) with the folder written under "folder"."""
    # one folder is not a list of shards: a string would be taken letter by letter
    if isinstance(shards, (str, bytes)) or hasattr(shards, "__fspath__"):
        raise TypeError("merge: shards must be a list of the shards' folders, got the one folder %r" % (shards,))
    folders = [_os.fspath(f) for f in shards]
    if out is not None and _os.fspath(out) == "":
        raise InputError("out: is empty: name the results folder (or leave out= out for runs/<name>)", "out")
    raw, written = _core.merge(folders, "" if out is None else _os.fspath(out))
    summary = _json.loads(raw)
    summary["folder"] = written
    return summary


class StabilityResult:
    """A stability scan (fivsim stability): .report (what stability.json holds: crossings, the
    critical value, a note), .table (the columns of stability.csv: the parameter's values, max_real,
    consistent, re0, im0, ...), .critical (the first crossing, or None)."""

    def __init__(self, raw):
        self.report = _json.loads(raw["report"])
        self.table = raw["table"]
        self.critical = self.report["critical"]

    def to_pandas(self):
        """The table (stability.csv's columns) as a pandas DataFrame."""
        return _frame(self.table)

    def __repr__(self):
        r = self.report
        return f"<fivsim.StabilityResult {r.get('name')}: {r.get('parameter')} critical {self.critical}>"


def stability(scenario, param=None, linspace=(0.0, 1.5, 151), set=None):
    """Eigenvalues of the linearised steady sliding against one parameter (fivsim stability):
    param is its JSON pointer (None: the first coefficient of the friction law), linspace
    (start, stop, count). A StabilityResult."""
    text, is_path = _source(scenario)
    values = [float(v) for v in linspace]
    return StabilityResult(_core.stability(text, is_path, _overrides(set), param or "", values))


class ContinuationResult:
    """Branches of equilibria or periodic orbits followed in one parameter (fivsim continue):
    .report (what summary.json holds: the parameter, every branch and how it ended, every
    bifurcation), .branches (the columns of branches.csv: a row per point with its parameter,
    state, stability and eigenvalues or multipliers), .bifurcations (the columns of
    bifurcations.csv: a row per fold, Hopf, period-doubling, torus or grazing point),
    .orbit_points (orbit_points.csv: every section crossing of each orbit; empty for equilibria),
    .curves (curves.csv, with a "curves" block: each fold's, period doubling's and Hopf point's
    curve in the second parameter, a row per point)."""

    def __init__(self, raw):
        self.report = _json.loads(raw["report"])
        self.branches = raw["branches"]
        self.bifurcations = raw["bifurcations"]
        self.orbit_points = raw["orbit_points"]
        self.curves = raw["curves"]

    def to_pandas(self, table="branches"):
        """branches.csv ("branches"), bifurcations.csv ("bifurcations") or, for orbits,
        orbit_points.csv ("orbit_points") and curves.csv ("curves") as a pandas DataFrame."""
        if table not in ("branches", "bifurcations", "orbit_points", "curves"):
            raise ValueError("table is 'branches', 'bifurcations', 'orbit_points' or 'curves', not %r" % (table,))
        return _frame(getattr(self, table))

    def __repr__(self):
        r = self.report
        kinds = ", ".join("%s at %.10g" % (b["kind"], b["parameter"]) for b in r.get("bifurcations", []))
        return f"<fivsim.ContinuationResult {r.get('name')}: {r.get('parameter')}, {r.get('points')} points; {kinds or 'no bifurcation'}>"


def continuation(scenario, set=None, threads=0, device="cpu"):
    """The scenario's equilibria or periodic orbits followed as its continuation block says
    (fivsim continue): a ContinuationResult. `set` overrides values (a continuation block too:
    {"/continuation": {"parameter": "/model/v0", "range": [1, 2]}}); the orbits' shots, every
    branch's corrector iteration one batch, run on `device` ("cpu" on `threads` threads, 0: all
    cores; or "cuda")."""
    text, is_path = _source(scenario)
    return ContinuationResult(_core.continuation(text, is_path, _overrides(set), int(threads), str(device)))


class CompareResult:
    """Methods against the event-driven reference (fivsim compare): .report (what compare.json
    holds), .table (the columns of compare.csv, a row per run, the reference first), .markdown
    (compare.md), .series ({run: time series} with series=True; runs named "reference" and
    "<method>_dt<dt>")."""

    def __init__(self, raw):
        self.report = _json.loads(raw["report"]) if raw["report"] != "null" else {}
        self.table = raw["table"]
        self.markdown = raw["markdown"]
        self.series = dict(raw["series"])

    def to_pandas(self):
        """The table (compare.csv's columns, a row per run) as a pandas DataFrame."""
        return _frame(self.table)

    def __repr__(self):
        return f"<fivsim.CompareResult {self.report.get('name')}: {len(self.report.get('runs', []))} runs>"


def _labels(value, what):
    """A comma-separated list from a string or a sequence."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return ",".join(str(v) if what == "methods" else repr(float(v)) for v in value)


def compare(scenario, methods="moreau,rk4lcp,irk4,irk10,switching", dt=None, window=0.0, series=False, set=None):
    """Every method at every dt against the event-driven reference (fivsim compare): methods and dt
    as comma-separated strings or lists (dt None: the scenario's), window the transition pairing
    window in s (0: from the reference's event spacing), series=True keeps every run's time series.
    A CompareResult; NumericalError when the reference itself fails."""
    text, is_path = _source(scenario)
    if dt is not None and not isinstance(dt, (str, list, tuple)):
        dt = [dt]
    raw = _core.compare(text, is_path, _overrides(set), _labels(methods, "methods"), _labels(dt, "dt"), float(window),
                        bool(series))
    result = CompareResult(raw)
    if not raw["reference_ok"]:
        raise NumericalError(raw["failure"], result)
    return result
