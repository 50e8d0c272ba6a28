#!/usr/bin/env python3
"""The tree's comments and docs against the tree: no comment or doc names an issue of the tracker
(which is not part of the repository), and every repository path a comment names exists.

    tests/tree/check_comments.py [ROOT]

Reads the sources (C++, CUDA, Python, shell, CMake) and the Markdown docs; a path is a word that
starts with one of the top folders (src/, include/, kernels/, tests/, scripts/, docs/, scenarios/,
cmake/, examples/) or with fivsim/<part>/ (a header under include/) and ends in a file suffix.
Prints each finding as FILE:LINE: what, and exits 1 if there is one.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
TOPS = ("src", "include", "kernels", "tests", "scripts", "docs", "scenarios", "cmake", "examples")
SOURCE = (".cpp", ".hpp", ".cu", ".cuh", ".py", ".sh", ".cmake")
ISSUE = re.compile(r"\bissues? #?[0-9]+\b|\bissue's\b", re.IGNORECASE)
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w\.(?:hpp|cpp|cuh|cu|py|sh|md|json|cmake|txt))" % "|".join(TOPS))
HEADER = re.compile(r"(?<![\w./-])(fivsim/[a-z_]+/[\w]+\.hpp)")
# a comment: from // or # to the end of the line (strings may hold either; they are read as well)
COMMENT = re.compile(r"(//|#)(.*)$")


def files():
    for top in TOPS + (".ci",):
        for base, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "broken", "fixture")]
            for n in names:
                yield os.path.join(base, n)
    for n in ("CMakeLists.txt", "README.md", "BENCHMARKS.md"):
        if os.path.exists(os.path.join(ROOT, n)):
            yield os.path.join(ROOT, n)


def main():
    findings = []
    for path in files():
        rel = os.path.relpath(path, ROOT)
        is_doc = path.endswith(".md")
        if not (is_doc or path.endswith(SOURCE) or os.path.basename(path) in ("CMakeLists.txt", "run")):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for number, line in enumerate(lines, 1):
            text = line if is_doc or path.endswith(".py") else (COMMENT.search(line).group(2) if COMMENT.search(line) else "")
            if rel == "tests/tree/check_comments.py":
                continue
            if ISSUE.search(text):
                findings.append("%s:%d: names an issue: %s" % (rel, number, line.strip()))
            if is_doc:
                continue
            for p in PATH.findall(text):
                if not os.path.exists(os.path.join(ROOT, p)):
                    findings.append("%s:%d: names %s, which does not exist" % (rel, number, p))
            for h in HEADER.findall(text):
                if not os.path.exists(os.path.join(ROOT, "include", h)):
                    findings.append("%s:%d: names %s, which does not exist" % (rel, number, h))
    for f in findings:
        print(f)
    print("%d finding(s)" % len(findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
