"""What every section of docs/REPRODUCTION.md shares: the fivsim command line it calls (`Fivsim`), the
number formats of its tables, the seeds' published values that more than one section sets beside
fivsim's, and the context a section runs in (`Context`: full, or the cheap check that CI runs)."""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class Refused(Exception):
    """a command fivsim refused (exit 2), with its message"""


class Fivsim:
    def __init__(self, binary, workdir, cache=None):
        self.binary = binary
        self.workdir = workdir
        self.cache = cache
        self.count = 0

    def _call(self, verb, scenario, extra, sets, refusal_ok=False):
        """runs one command; a refusal (exit 2) comes back as its message where refusal_ok. With a cache
        folder, a command run before with the same arguments is not run again (its wall times are then
        the first run's)"""
        self.count += 1
        command = [verb, os.path.join(ROOT, "scenarios", scenario)] + list(extra)
        for s in sets:
            command += ["--set", s]
        if self.cache:
            key = hashlib.sha1("\0".join(command).encode()).hexdigest()[:16]
            out = os.path.join(self.cache, "%s-%s" % (verb, key))
            if os.path.exists(os.path.join(out, ".done")):
                return out
        else:
            out = os.path.join(self.workdir, "%s%d" % (verb, self.count))
        args = [self.binary] + command[:2] + ["--out", out] + command[2:]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode == 2 and refusal_ok:
            raise Refused(proc.stderr.strip().split(": ", 1)[-1])
        if proc.returncode != 0:
            sys.exit("fivsim failed (%d): %s\n%s" % (proc.returncode, " ".join(args), proc.stderr))
        if self.cache:
            open(os.path.join(out, ".done"), "w").close()
        return out

    def compare(self, scenario, methods, dts, sets=(), series=False):
        extra = ["-q", "--methods", ",".join(methods), "--dt", ",".join("%g" % d for d in dts)]
        if series:
            extra.append("--series")
        out = self._call("compare", scenario, extra, sets)
        with open(os.path.join(out, "compare.json")) as f:
            return json.load(f), out

    def run(self, scenario, sets=()):
        out = self._call("run", scenario, ["-q"], list(sets) + ["/output/timeseries=false"])
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)

    def friction(self, scenario, sets=()):
        out = self._call("friction", scenario, [], sets)
        return np.genfromtxt(os.path.join(out, "friction.csv"), delimiter=",", names=True)

    def series(self, scenario, sets=()):
        out = self._call("run", scenario, ["-q"], sets)
        return np.genfromtxt(os.path.join(out, "timeseries.csv"), delimiter=",", names=True, dtype=None,
                             encoding=None)

    def identify(self, config, sets=(), refusal_ok=False):
        out = self._call("identify", config, [], sets, refusal_ok)
        with open(os.path.join(out, "identified.json")) as f:
            return json.load(f), out

    def sweep(self, scenario, sets=()):
        """a sweep's cases.csv as a DataFrame, and its folder"""
        out = self._call("sweep", scenario, ["-q"], sets)
        return pd.read_csv(os.path.join(out, "cases.csv")), out

    def stability(self, scenario, param, linspace, sets=()):
        out = self._call("stability", scenario, ["--param", param, "--linspace"] + ["%g" % v for v in linspace], sets)
        with open(os.path.join(out, "stability.json")) as f:
            return json.load(f)


def fmt(x, digits=4):
    if x is None or not np.isfinite(x):
        return "–"
    return ("%." + str(digits) + "g") % x


def pct(value, ref):
    return "%s (%.2f%%)" % (fmt(value), 100 * abs(value - ref) / abs(ref))


def found(run):
    t = run["transitions"]
    return "✓" if t["all_found"] else "× %d missed" % t["missed"]


# seed 000 Tables 2-3: the root-shooting reference and the methods' RMS rows (None: the seed marks ×)
SEED2 = {
    "model2_example1.json": {
        "title": "Example 1 (μ = 0.4; seed Table 2), RMS over 0–10 s",
        "keys": ["lamN0", "q0", "q1", "u0", "u1"],
        "ref": [1790, 6.298, 9.647, 94.883, 75.042],
        "rows": [("conventional LCP", 1e-3, [1716, 6.195, 9.322, 93.640, 72.544]),
                 ("conventional LCP", 5e-4, [1780, 6.285, 9.604, 94.721, 74.709]),
                 ("conventional RK4", 1e-3, [1752, 6.245, 9.480, 94.253, 73.755]),
                 ("conventional RK4", 5e-4, [1785, 6.292, 9.625, 94.801, 74.878]),
                 ("10th-order advanced single PINN", 1e-3, [1785, 6.291, 9.626, 94.977, 74.968]),
                 ("10th-order advanced dual PINN", 1e-3, [1786, 6.296, 9.632, 94.984, 74.983])],
    },
    "model2_example2.json": {
        "title": "Example 2 (μ = 1.2; seed Table 3), RMS over 0–10 s",
        "keys": ["lamN0", "q0", "q1"],
        "ref": [224.449, 0.3997, 0.7629],
        "rows": [("conventional LCP", 1e-3, None), ("conventional LCP", 5e-4, None),
                 ("conventional LCP", 1e-4, [222.331, 0.3980, 0.7530]),
                 ("conventional RK4", 1e-3, None), ("conventional RK4", 5e-4, [224.396, 0.7603, 0.7603]),
                 ("conventional RK4", 1e-4, [224.221, 0.3996, 0.7619]),
                 ("10th-order advanced single PINN", 1e-3, [221.828, 0.3970, 0.7512]),
                 ("10th-order advanced dual PINN", 1e-3, [221.835, 0.3969, 0.7511])],
    },
}
NAMES = {"lamN0": "contact force", "q0": "x", "q1": "y", "u0": "ẋ", "u1": "ẏ"}


def distinct(values, tol):
    """the number of clusters of values, tol apart"""
    values = sorted(values)
    return 0 if not values else 1 + sum(1 for a, b in zip(values, values[1:]) if b - a > tol)


# seed 001 Table 1: the switching model's and the conventional LCP's transition RMS of m1, m2, and Fig. 5's regime
SEED1 = {11: ((1.2543, 2.3219), (1.2598, 2.3325), "chaotic (red)"),
         15: ((2.2606, 4.6629), (2.2689, 4.4804), "period-1, both sliders (blue)"),
         24: ((2.8238, 6.7292), (2.8174, 6.7425), "m1 two stick-slip transitions, m2 one (green)")}
SEED1_5 = ((2.7785, 4.4424, 6.0170, 8.0101, 6.8254), (2.7779, 4.4431, 6.0159, 8.0116, 6.8272))




class Context:
    """where a section runs: `fv` the command line, `cheap` true for the check that CI runs, which
    makes every documented figure it can in a minute or two (the same commands as the full report,
    so the same numbers) and leaves out the long searches, the trainings and the figures' PNGs"""

    def __init__(self, fv, cheap, workdir):
        self.fv = fv
        self.cheap = cheap
        self.full = not cheap
        self.workdir = workdir

    def image(self, name):
        """the path a figure is written to: docs/img/ for the report, the work folder for the check"""
        folder = os.path.join(ROOT, "docs", "img") if self.full else self.workdir
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, name)

    def plot(self, script, args):
        """runs one of scripts/plot/ (full report only)"""
        if self.full:
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot", script)] + list(args),
                           check=True, capture_output=True)
