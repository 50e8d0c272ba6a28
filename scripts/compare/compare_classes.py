#!/usr/bin/python3
"""Case-by-case classes of two `fivsim sweep` folders over the same cases (say an adaptive sweep
against a long fixed-length one): the agreement, a confusion table, each sweep's case-steps and
the median `recurrence` of each class (how tightly its samples repeat, relative to the range).

usage: scripts/compare/compare_classes.py REFERENCE_DIR OTHER_DIR
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plot"))
from sweep_tables import table_rows  # noqa: E402


def classes(folder):
    rows = table_rows(folder, "cases")
    if not rows or "class" not in rows[0]:
        sys.exit("compare_classes: %s has no classified cases" % folder)
    return {int(r["case"]): r["class"] for r in rows}


def median_recurrence(folder):
    """{class: median of its cases' recurrence (their samples' spread relative to the range)}"""
    by = collections.defaultdict(list)
    for r in table_rows(folder, "cases"):
        x = float(r.get("recurrence", "nan"))
        if x == x:
            by[r["class"]].append(x)
    return {k: sorted(v)[len(v) // 2] for k, v in by.items()}


def case_steps(folder):
    with open(os.path.join(folder, "summary.json")) as f:
        s = json.load(f)
    return s["case_steps"], s["cases"] * s["steps"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reference")
    ap.add_argument("other")
    a = ap.parse_args()
    ref, other = classes(a.reference), classes(a.other)
    if set(ref) != set(other):
        sys.exit("compare_classes: the two sweeps hold different cases")
    pairs = collections.Counter((ref[c], other[c]) for c in ref)
    same = sum(n for (x, y), n in pairs.items() if x == y)
    print("%d of %d cases in the same class (%.1f %%)" % (same, len(ref), 100.0 * same / len(ref)))
    print("%-16s %-16s %6s" % ("reference", "other", "cases"))
    for (x, y), n in sorted(pairs.items(), key=lambda p: (-p[1], p[0])):
        print("%-16s %-16s %6d%s" % (x, y, n, "" if x == y else "   *"))
    for name, folder in (("reference", a.reference), ("other", a.other)):
        done, fixed = case_steps(folder)
        print("%s: %.4g case-steps (%.1f %% of its cases x steps); median recurrence %s" % (
            name, done, 100.0 * done / fixed,
            ", ".join("%s %.2g" % kv for kv in sorted(median_recurrence(folder).items()))))


if __name__ == "__main__":
    main()
