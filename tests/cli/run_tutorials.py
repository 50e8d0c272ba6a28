#!/usr/bin/env python3
"""The tutorials' commands, run as a reader would run them: every line of every ```bash block of
docs/tutorials/*.md, in order, page by page, each page in a fresh temporary folder laid out like the
source tree (links scenarios/, scripts/, examples/ and docs/ to the tree's own, and build/fivsim and
build/python to the build given), so that a page's commands run unchanged and write only under that
folder's runs/.

A line is skipped, not run, when it ends with one of the markers the tutorials put on what CI cannot
run in its time or on its machine:
  - `# gpu`            needs a GPU;
  - `# long` or `# long: <time>`   takes more than about 30 s on two cores (the time as measured);
  - `# cluster`        mpirun, srun, sbatch or a Slurm script;
and so are blank lines and comment lines (`#!/bin/bash`, `#SBATCH …`). Every other line must be
cheap: each runs with bash under a limit of 120 s, with PYTHONPATH the given package, MPLBACKEND=Agg,
no bytecode written and `python3` the interpreter running this script. A nonzero exit or a timeout
fails its page (the page's later commands, which may need its outputs, are not run); so does a file
of the linked source folders that changed while the page ran. Prints each command with its seconds,
a line per page (ran, skipped, seconds), and exits 1 if any page failed.

  python3 tests/cli/run_tutorials.py --fivsim build/fivsim --python-path build/python [--list] [PAGE...]

PAGE: a page's name (`basins`, `basins.md` or its path); default every page. --list prints what would
run and what would be skipped, and why, without running anything.
"""

import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TUTORIALS = os.path.join(SOURCE, "docs", "tutorials")
LINKED = ("scenarios", "scripts", "examples", "docs")
TIMEOUT = 120
# the marker ends the line: `# gpu`, `# cluster`, `# long` or `# long: 57 s on two cores`
MARKER = re.compile(r"#\s*(gpu|cluster|long)\b(:[^#]*)?\s*$")


def commands(page):
    """(line number, command, None or the marker that skips it) for every line of the page's bash
    blocks; blank and comment-only lines left out"""
    found = []
    inside = False
    with open(page, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not inside:
                inside = text == "```bash"
                continue
            if text.startswith("```"):
                inside = False
                continue
            if not text or text.startswith("#"):
                continue
            marker = MARKER.search(text)
            found.append((number, text, marker.group(1) if marker else None))
    if inside:
        raise SystemExit("%s: a ```bash block is not closed" % os.path.relpath(page, SOURCE))
    return found


def tree_state():
    """every file of the linked source folders with its size and modification time"""
    state = {}
    for top in LINKED:
        for base, dirs, names in os.walk(os.path.join(SOURCE, top)):
            for n in names:
                p = os.path.join(base, n)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                state[os.path.relpath(p, SOURCE)] = (st.st_size, st.st_mtime_ns)
    return state


def make_folder(fivsim, python_path):
    """a temporary folder laid out like the source tree, with a python3 that is this interpreter"""
    root = tempfile.mkdtemp(prefix="fivsim-tutorial-")
    for top in LINKED:
        os.symlink(os.path.join(SOURCE, top), os.path.join(root, top))
    os.mkdir(os.path.join(root, "build"))
    os.symlink(fivsim, os.path.join(root, "build", "fivsim"))
    os.symlink(python_path, os.path.join(root, "build", "python"))
    bin_dir = os.path.join(root, ".bin")
    os.mkdir(bin_dir)
    # a wrapper, not a link: a virtual environment's interpreter finds its environment by its path
    with open(os.path.join(bin_dir, "python3"), "w") as f:
        f.write('#!/bin/sh\nexec "%s" "$@"\n' % sys.executable)
    os.chmod(os.path.join(bin_dir, "python3"), 0o755)
    env = dict(os.environ, PYTHONPATH=python_path, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1",
               PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    return root, env


def run_command(command, cwd, env):
    """exit code (124 for the timeout), seconds, the output's last lines"""
    start = time.monotonic()
    p = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=TIMEOUT)
        code = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        code = 124
    tail = out.decode(errors="replace").rstrip().split("\n")[-12:]
    return code, time.monotonic() - start, tail


def run_page(name, lines, fivsim, python_path, keep):
    """True if every command of the page ran and exited 0"""
    root, env = make_folder(fivsim, python_path)
    before = tree_state()
    ran = 0
    skipped = {}
    ok = True
    start = time.monotonic()
    try:
        for number, command, marker in lines:
            if marker:
                skipped[marker] = skipped.get(marker, 0) + 1
                print("  skip %-7s  %s:%d  %s" % (marker, name, number, command))
                continue
            if not ok:
                print("  not run           %s:%d  %s" % (name, number, command))
                continue
            code, seconds, tail = run_command(command, root, env)
            ran += 1
            print("  %s %6.1f s  %s:%d  %s" % ("ran " if code == 0 else "FAIL", seconds, name, number, command))
            if code != 0:
                ok = False
                why = "timed out after %d s" % TIMEOUT if code == 124 else "exit %d" % code
                print("      %s; its output ended:" % why)
                for line in tail:
                    print("      | " + line)
        changed = sorted(set(before.items()) ^ set(tree_state().items()))
        if changed:
            ok = False
            print("  FAIL: the page changed the source tree: %s" % ", ".join(sorted({p for p, _ in changed})))
    finally:
        if keep:
            print("  kept %s" % root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    seconds = time.monotonic() - start
    skip_text = ", ".join("%d %s" % (n, m) for m, n in sorted(skipped.items())) or "none"
    print("%s: %s, ran %d, skipped %d (%s), %.1f s" % (name, "ok" if ok else "FAILED", ran,
                                                      sum(skipped.values()), skip_text, seconds))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fivsim", required=True, help="the built binary (build/fivsim)")
    ap.add_argument("--python-path", required=True, help="the built package's folder (build/python)")
    ap.add_argument("--list", action="store_true", help="print what would run and what is skipped; run nothing")
    ap.add_argument("--keep", action="store_true", help="keep each page's temporary folder")
    ap.add_argument("pages", nargs="*", help="page names (default: every page of docs/tutorials/)")
    args = ap.parse_args()

    every = sorted(glob.glob(os.path.join(TUTORIALS, "*.md")))
    names = {os.path.splitext(os.path.basename(p))[0]: p for p in every}
    chosen = []
    for page in args.pages or list(names):
        name = os.path.splitext(os.path.basename(page))[0]
        if name not in names:
            ap.error("no tutorial page %r (pages: %s)" % (page, ", ".join(names)))
        chosen.append(name)
    fivsim = os.path.abspath(args.fivsim)
    python_path = os.path.abspath(args.python_path)
    if not args.list:
        if not os.access(fivsim, os.X_OK):
            ap.error("--fivsim %s is not an executable file" % args.fivsim)
        if not os.path.isdir(python_path):
            ap.error("--python-path %s is not a folder" % args.python_path)

    failed = []
    for name in chosen:
        lines = commands(names[name])
        print("== %s (docs/tutorials/%s.md)" % (name, name))
        if args.list:
            for number, command, marker in lines:
                print("  %-9s %s:%d  %s" % ("skip " + marker if marker else "run", name, number, command))
            continue
        if not run_page(name, lines, fivsim, python_path, args.keep):
            failed.append(name)
    if failed:
        print("failed: %s" % ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
