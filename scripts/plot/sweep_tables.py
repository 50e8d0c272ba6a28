"""The tables of a `fivsim sweep` folder for the plot scripts: cases and points, read from
cases.csv / points.csv when they are there, else from results.h5 (a sweep run with --format h5),
as rows keyed by the CSV's column names with the CSV's words for a case's class, a status and a
point's kind.

    from sweep_tables import table_rows
    for r in table_rows("runs/chain2_load_sweep", "cases"): r["/model/Fn"], r["class"]
"""
import csv
import os
import sys


def table_rows(folder, table):
    """rows (dicts) of table "cases" or "points" of a sweep folder"""
    path = os.path.join(folder, table + ".csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    h5 = os.path.join(folder, "results.h5")
    if not os.path.exists(h5):
        sys.exit("%s: neither %s.csv nor results.h5 (a sweep without output.points has no points)" % (folder, table))
    import h5py  # Debian's python3-h5py, which scripts/setup.sh installs

    with h5py.File(h5, "r") as f:
        if table not in f:
            sys.exit("%s: results.h5 has no %s table" % (folder, table))
        g = f[table]
        columns = {}
        for name in g.attrs["columns"]:
            name = name.decode() if isinstance(name, bytes) else name
            ds = g[name]
            key = ds.attrs.get("pointer", name)
            key = key.decode() if isinstance(key, bytes) else key
            values = ds[:]
            names = h5py.check_enum_dtype(ds.dtype)
            if names:
                by_code = {code: word for word, code in names.items()}
                values = [by_code[int(v)] for v in values]
            columns[key] = values
    if "class" in columns:
        columns["class"] = [("periodic-%d" % p if c == "periodic" else c)
                            for c, p in zip(columns["class"], columns["period_n"])]
    n = len(next(iter(columns.values()))) if columns else 0
    keys = list(columns)
    return [{k: columns[k][i] for k in keys} for i in range(n)]


def two_axes_cli(doc, what, prefix, default_out, extra=()):
    """the command line of a plot over two swept values (plot_classmap.py, plot_basins.py): the
    folder, --x and --y (default: the first two swept paths under `prefix`), --out and the `extra`
    options ((flag, argparse keywords) pairs); returns the arguments, the classified case rows and
    the two axes, or exits with what is missing"""
    import argparse

    tool = os.path.basename(sys.argv[0]).rsplit(".", 1)[0]
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("folder", help="output folder of `fivsim sweep` over two %ss" % what)
    ap.add_argument("--x", default=None, help="%s on the x axis (default: the first swept)" % what)
    ap.add_argument("--y", default=None, help="%s on the y axis (default: the second swept)" % what)
    ap.add_argument("--out", default=None, help="PNG file (default FOLDER/%s)" % default_out)
    for flag, kwargs in extra:
        ap.add_argument(flag, **kwargs)
    a = ap.parse_args()
    rows = table_rows(a.folder, "cases")
    if not rows:
        sys.exit("%s: the sweep has no cases" % tool)
    if "class" not in rows[0]:
        sys.exit("%s: the sweep did not classify its cases (observers min_max and transitions)" % tool)
    params = [k for k in rows[0] if k.startswith(prefix)]
    if len(params) < 2 and (a.x is None or a.y is None):
        sys.exit("%s: the sweep varies %d %s(s); the picture needs two" % (tool, len(params), what))
    x = a.x or params[0]
    y = a.y or [p for p in params if p != x][0]
    for p in (x, y):
        if p not in rows[0]:
            sys.exit("%s: %s is not a swept %s (%s)" % (tool, p, what, ", ".join(params)))
    a.out = a.out or os.path.join(a.folder, default_out)
    return a, rows, x, y
