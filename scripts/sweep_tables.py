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
