#!/usr/bin/env python3
"""The tree's comments and docs against the tree: no comment or doc names an issue of the tracker
(which is not part of the repository), and every repository path a comment names exists.

    tests/tree/check_comments.py [ROOT]
    tests/tree/check_comments.py --self-test     (it refuses a tree that breaks both rules)

Reads the sources (C++, CUDA, Python, shell, CMake) and the Markdown docs; a path is a word that
starts with one of the top folders (src/, include/, kernels/, tests/, scripts/, docs/, scenarios/,
cmake/, examples/) or with fivsim/<part>/ (a header under include/) and ends in a file suffix.
Prints each finding as FILE:LINE: what, and exits 1 if there is one.
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] == "--self-test" else os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
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
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "broken")]
            for n in names:
                yield os.path.join(base, n)
    for n in ("CMakeLists.txt", "README.md", "BENCHMARKS.md"):
        if os.path.exists(os.path.join(ROOT, n)):
            yield os.path.join(ROOT, n)


def self_test():
    """the check refuses a tree whose one comment breaks both rules (written here, so that no file
    of the repository breaks them)"""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "src"))
        with open(os.path.join(tmp, "src", "a.cpp"), "w") as f:
            f.write("// src/a.cpp — kernels/absent.cu; " + "iss" + "ue 12\nint a = 0;\n")
        out = subprocess.run([sys.executable, os.path.abspath(__file__), tmp], capture_output=True, text=True)
    expected = ["src/a.cpp:1: names an issue", "src/a.cpp:1: names kernels/absent.cu, which does not exist"]
    missing = [e for e in expected if e not in out.stdout]
    print(out.stdout, end="")
    if out.returncode != 1 or missing:
        print("the check let through: %s (exit %d)" % (missing, out.returncode))
        return 1
    print("refused as it should be")
    return 0


def main():
    if ROOT.endswith("--self-test"):
        return self_test()
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
