#!/usr/bin/python3
"""Writes docs/REPRODUCTION.md: fivsim beside the five source papers' tables and statements, every
figure from a `fivsim` command made here (the sections are in reproduction_sections/, one module a
seed case), with the commit it was generated at.

    scripts/studies/reproduction.py [--fivsim build/fivsim] [--sections model1,chains,...]
    scripts/studies/reproduction.py --check [--doc docs/REPRODUCTION.md]

--check is the cheap pass CI runs: every section makes, with the same commands as the full report
(so the same numbers), the figures it can in a minute or two — the long searches, the PINN
trainings and the PNGs left out — and each line it makes must stand in the document's section as
written. A line that does not (a figure the binary no longer prints) is listed with the document's
nearest line, and the exit status is 1. Wall times (columns headed "wall") are never compared.
"""
import argparse
import datetime
import difflib
import os
import subprocess
import sys
import tempfile

from reproduction_sections.chains import chains
from reproduction_sections.common import ROOT, Context, Fivsim
from reproduction_sections.identify import identify_section
from reproduction_sections.model1 import model1
from reproduction_sections.model2 import model2
from reproduction_sections.pinn import pinn
from reproduction_sections.sdof import sdof
from reproduction_sections.torsion import torsion_section

# each section: its name on the command line, the start of its "## " title, what makes it
SECTIONS = [("model1", "Seed 000 Model I:", model1), ("model2", "Seed 000 Model II:", model2),
            ("chains", "Seed 001:", chains), ("sdof", "Seed 003: base-excited", sdof),
            ("identify", "Seed 003: identification", identify_section), ("torsion", "Seed 002:", torsion_section),
            ("pinn", "PINN frameworks", pinn)]


def blocks(text):
    """the document's sections: title -> its text (from "## " to the next, the closing rule dropped)"""
    text = text.split("\n---\n")[0]
    return {b.split("\n", 1)[0]: "## " + b.rstrip("\n") + "\n" for b in text.split("\n## ")[1:]}


def masked(lines):
    """the lines of a section with every cell under a "wall" header blanked (times are never compared)"""
    out, wall = [], set()
    for line in lines:
        if line.startswith("|"):
            cells = line.strip().strip("|").split("|")
            if all(set(c.strip()) <= set("-") for c in cells):
                out.append(line)
                continue
            if any("wall" in c for c in cells):
                wall = {i for i, c in enumerate(cells) if "wall" in c}
            elif wall:
                cells = ["" if i in wall else c for i, c in enumerate(cells)]
                line = "|" + "|".join(cells) + "|"
        else:
            wall = set()
        out.append(line.strip())
    return out


def check(made, documented):
    """the made lines that the documented section does not hold, each with the document's nearest"""
    have = set(masked(documented.split("\n")))
    made_lines = masked("\n".join(made).split("\n"))
    return [(m, (difflib.get_close_matches(m, list(have), n=1, cutoff=0.0) or [""])[0])
            for m in made_lines if m and m not in have]


def commit():
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "an unknown commit"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fivsim", default=os.path.join(ROOT, "build", "fivsim"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "REPRODUCTION.md"),
                    help="the document written (the full report) and read for the sections not made")
    ap.add_argument("--doc", help="with --check: the document checked (default --out)")
    ap.add_argument("--check", action="store_true",
                    help="the cheap pass: make what a minute allows and compare it with the document")
    ap.add_argument("--sections", default=",".join(s[0] for s in SECTIONS),
                    help="sections to make; the others are kept from the existing --out file")
    a = ap.parse_args()
    wanted = a.sections.split(",")
    unknown = [w for w in wanted if w not in [s[0] for s in SECTIONS]]
    if unknown:
        sys.exit("reproduction.py: unknown section %s (known: %s)" % (", ".join(unknown),
                                                                       ", ".join(s[0] for s in SECTIONS)))
    doc = a.doc or a.out
    old = {}
    if os.path.exists(doc):
        with open(doc) as f:
            old = blocks(f.read())
    made = {}
    with tempfile.TemporaryDirectory() as work:
        fv = Fivsim(a.fivsim, work)
        ctx = Context(fv, a.check, work)
        for name, title, make in SECTIONS:
            if name in wanted:
                made[name] = []
                make(ctx, made[name])
                print("section", name, "made", flush=True)
        count = fv.count
    if a.check:
        failures = 0
        for name, title, _ in SECTIONS:
            if name not in made:
                continue
            documented = next((v for k, v in old.items() if k.startswith(title)), "")
            missing = check(made[name], documented)
            failures += len(missing)
            for line, nearest in missing:
                print("%s: the binary prints\n    %s\n  where %s has\n    %s" % (name, line, doc, nearest))
        verdict = "every line made stands in the document"
        if failures:
            verdict = "%d line%s from the document" % (failures, " differs" if failures == 1 else "s differ")
        print("%d fivsim commands; %s" % (count, verdict))
        sys.exit(1 if failures else 0)
    lines = ["# Reproduction of the seed cases",
             "",
             "Generated by `scripts/studies/reproduction.py` on %s at commit %s, from `fivsim compare`, `fivsim "
             "stability`, `fivsim sweep`, `fivsim identify` and `fivsim run` on the bundled scenarios; CI reruns its "
             "cheap part (`--check`) and fails where a figure here is no longer what the binary prints. Values the "
             "seeds leave open are **in bold** with what they were chosen or searched to reproduce. Method names: "
             "`moreau` (the seeds' conventional LCP method), `rk4lcp` (the conventional RK4 LCP method), `irkQ` "
             "(Gauss–Legendre IRK-LCP with Q stages, contact forces held over the step), `-interp` (forces "
             "interpolated over the stages, seed 000 Eqs. 30–31, the classical counterpart of the advanced PINNs). "
             "The PINN methods have their own section at the end." % (datetime.date.today(), commit()),
             ""]
    for name, title, _ in SECTIONS:
        lines += made.get(name) or [v for k, v in old.items() if k.startswith(title)]
    lines.append("---\n%d fivsim commands in the last pass (sections: %s)." % (count, a.sections))
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", a.out)


if __name__ == "__main__":
    main()
