#!/usr/bin/env python3
"""The tree against docs/DESIGN.md §1, the table of what each folder holds: every top folder of the
repository, every folder under tests/ and scripts/, and every part of the layer table
(cmake/fivsim_layers.cmake) with its folder include/fivsim/<part>/ must be named there, so that the
table a new maintainer reads first says what the tree really holds.

    tests/tree/check_layout.py [ROOT]
    tests/tree/check_layout.py --self-test     (it refuses a tree with an unnamed folder)

A top folder is named as `name/` in the table's first column; a folder under tests/ as `tests/name/`
(a part's folder may instead be covered by `tests/<part>/`), a folder under scripts/ as `name/` in
the scripts row; a part as `part` in the include row. Prints each finding and exits 1 if there is one.
"""
import os
import re
import subprocess
import sys


def folders(root, sub=""):
    """the folders directly under root/sub that hold tracked files (every folder when git is absent)"""
    base = os.path.join(root, sub)
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--", sub or "."], capture_output=True, text=True,
                             check=True).stdout.split()
        names = {p[len(sub) + 1 if sub else 0:].split("/")[0] for p in out if "/" in p[len(sub) + 1 if sub else 0:]}
    except (OSError, subprocess.CalledProcessError):
        names = {n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n))}
    return sorted(n for n in names if not n.startswith(".") and n != "__pycache__")


def table(root):
    """DESIGN §1's rows: first column -> the row's text"""
    with open(os.path.join(root, "docs", "DESIGN.md")) as f:
        text = f.read()
    section = text.split("## 1.", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and not set(cells[0]) <= set("- "):
            rows[cells[0]] = " ".join(cells[1:])
    return rows


def check(root):
    rows = table(root)
    first = " ".join(rows)
    found = []
    with open(os.path.join(root, "cmake", "fivsim_layers.cmake")) as f:
        parts = re.search(r"set\(FIVSIM_PARTS ([^)]*)\)", f.read()).group(1).split()
    for top in folders(root):
        if "`%s/" % top not in first:
            found.append("top folder %s/ is not in DESIGN.md §1" % top)
    tests = next((v for k, v in rows.items() if k.startswith("`tests/")), "")
    for d in folders(root, "tests"):
        if "`tests/%s/`" % d not in tests and not (d in parts + ["cli"] and "`tests/<part>/`" in tests):
            found.append("tests/%s/ is not in DESIGN.md §1's tests row" % d)
    scripts = next((v for k, v in rows.items() if k.startswith("`scripts/")), "")
    for d in folders(root, "scripts"):
        if "`%s/`" % d not in scripts:
            found.append("scripts/%s/ is not in DESIGN.md §1's scripts row" % d)
    include = next((v for k, v in rows.items() if k.startswith("`include/")), "")
    have = folders(root, os.path.join("include", "fivsim"))
    for p in parts:
        if "`%s`" % p not in include:
            found.append("part %s is not in DESIGN.md §1's include row" % p)
        if p not in have:
            found.append("part %s has no include/fivsim/%s/" % (p, p))
    for d in have:
        if d not in parts:
            found.append("include/fivsim/%s/ is no part of cmake/fivsim_layers.cmake" % d)
    for f in found:
        print(f)
    return 1 if found else 0


def self_test():
    """the check refuses a copy of the table's folders plus one it does not name"""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        os.makedirs(os.path.join(tmp, "cmake"))
        for d in ("include/fivsim/core", "tests/core", "scripts/bench", "scripts/unnamed"):
            os.makedirs(os.path.join(tmp, d))
        with open(os.path.join(tmp, "cmake", "fivsim_layers.cmake"), "w") as f:
            f.write("set(FIVSIM_PARTS core)\n")
        with open(os.path.join(tmp, "docs", "DESIGN.md"), "w") as f:
            f.write("# d\n\n## 1. Layout\n\n| folder | what |\n| --- | --- |\n"
                    "| `include/fivsim/<part>/` | `core` |\n| `tests/` | `tests/<part>/` |\n"
                    "| `scripts/` | `bench/` |\n| `cmake/` | the layers |\n| `docs/` | docs |\n\n## 2. Next\n")
        out = subprocess.run([sys.executable, os.path.abspath(__file__), tmp], capture_output=True, text=True)
    print(out.stdout, end="")
    if out.returncode != 1 or out.stdout.strip() != "scripts/unnamed/ is not in DESIGN.md §1's scripts row":
        print("the check let through an unnamed folder (exit %d)" % out.returncode)
        return 1
    print("refused as it should be")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))))
