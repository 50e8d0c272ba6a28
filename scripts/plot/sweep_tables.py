"""The tables of a `fivsim sweep` folder for the scripts that read them as rows (scripts/compare/):
cases and points as dicts keyed by the CSV's column names, read by fivsim.tables (cases.csv /
points.csv, else results.h5). The plot scripts themselves call fivsim.plot.

    from sweep_tables import table_rows
    for r in table_rows("runs/chain2_load_sweep", "cases"): r["/model/Fn"], r["class"]
"""
import sys

from find_fivsim import require

require()
from fivsim import tables  # noqa: E402


def table_rows(folder, table):
    """rows (dicts) of table "cases" or "points" of a sweep folder; exits naming what is missing"""
    try:
        return tables.table_rows(folder, table)
    except (OSError, ValueError) as e:
        sys.exit(str(e))
