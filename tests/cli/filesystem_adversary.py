#!/usr/bin/env python3
"""The filesystem adversary: seeded arrangements of temporary trees in which every fivsim command
that writes a folder is pointed at an --out chosen to hurt (equal to, inside or above an input; a
name fivsim keeps beside a results folder; `.` and `..` spellings; links at every level; a user's
folder and lock file; a read-only folder; a mount point inside a result; a full file system), with
planted links in a resumed sweep's staging folder and damaged, linked or special files in merged
shards.

After each command it asserts the README's rules ("What --out may name", "What fivsim reads"):
  - no input changed, and nothing outside the output's domain (the folder and the names fivsim keeps
    beside it) changed, whatever the exit code;
  - an --out the rules refuse (a model of them written here, independently of the C++) ends with
    exit 2 and nothing changed at all; any other ends with exit 0, or 1 on a full disk;
  - never a crash, a signal or a hang; no staging folder or lock left by an ended command.

The first arrangements are fixed: the data losses an --out alone once caused; the rest
are drawn from --seed. With FIVSIM_TEST_DISABLE_SAFETY set to one of the defences (inputs, links,
strict) the same run must find violations: --expect-violations says so.

  python3 tests/cli/filesystem_adversary.py --fivsim build/fivsim --arrangements 2000 --seed 1
"""

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = os.path.join(SOURCE, "scenarios")
MARKER = ".fivsim-output"
SIGNATURE = b"fivsim lock: "
SHORT_RUN = ["-q", "--set", "/integrator/t_end=0.05", "--set", "/analysis/t_transient=0"]
SWEEP_SETS = ["--device", "cpu", "-q", "--set", "/integrator/t_end=2", "--set", "/analysis/t_transient=1",
              "--set", "/sweep/parameters/0/linspace=[1,30,40]"]
IS_ROOT = os.geteuid() == 0


def fivsim(binary, args, cwd, env=None, timeout=60):
    """exit code, stderr; 124 for a hang"""
    try:
        p = subprocess.run([binary] + args, cwd=cwd, env=env, capture_output=True, timeout=timeout)
        return p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "timed out"


# --- the fixtures, made once ----------------------------------------------------------------------

def make_fixtures(binary, root):
    """small results every arrangement copies: a run's folder, a sweep's two shards, a sweep for
    continue to start from, an unfinished sweep's staging folder"""
    fx = os.path.join(root, "fixtures")
    os.makedirs(fx)
    shutil.copy(os.path.join(SCENARIOS, "model1_slow_stribeck.json"), os.path.join(fx, "s.json"))
    load = json.load(open(os.path.join(SCENARIOS, "chain2_load_sweep.json")))
    json.dump(load, open(os.path.join(fx, "sweep.json"), "w"))
    def ok(args, code=0, env=None):
        rc, err = fivsim(binary, args, fx, env)
        if rc != code:
            raise SystemExit("fixture %s: exit %d: %s" % (" ".join(args), rc, err))
    ok(["run", "s.json", "--out", "R"] + SHORT_RUN)
    for i in range(2):
        ok(["sweep", "sweep.json", "--shard", "%d/2" % i, "--out", "shard%d" % i,
            "--set", "/output/trajectories=[0,39]"] + SWEEP_SETS)
    ok(["sweep", os.path.join(SCENARIOS, "chain2_bifurcation.json"), "-q", "--device", "cpu", "--out", "S",
        "--set", "/sweep/parameters/0/linspace=[10,12,4]", "--set", "/integrator/t_end=300"])
    env = dict(os.environ, FIVSIM_SWEEP_EXIT_AFTER_CHUNKS="1")
    ok(["sweep", "sweep.json", "--out", "K", "--chunk", "8"] + SWEEP_SETS, code=137, env=env)
    os.remove(os.path.join(fx, "K.lock"))
    shutil.copy(os.path.join(SCENARIOS, "sdof_base_two_stop.json"), os.path.join(fx, "sdof.json"))
    return fx


# --- the tree as it is: entries with what they hold ------------------------------------------------

def snapshot(top, skip_mounts=()):
    """every entry under `top` by its path relative to it: ("file", sha1), ("link", target),
    ("folder",) or ("special",); mounted file systems are looked at too (they are someone else's)"""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, top)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("folder",)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[rel] = ("file", hashlib.sha1(f.read()).hexdigest())
            else:
                out[rel] = ("special",)
        # never walk through a link
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
    return out


# --- the rules, modelled independently of the C++ ----------------------------------------------

DERIVED_SUFFIXES = (".partial", ".lock")
DERIVED_INFIXES = (".partial-", ".lock-", ".old-")


def owner_of_derived(name):
    for s in DERIVED_SUFFIXES:
        if name.endswith(s) and len(name) > len(s):
            return name[: -len(s)]
    for s in DERIVED_INFIXES:
        at = name.rfind(s)
        if at > 0:
            return name[:at]
    return None


def canonical(path, cwd):
    p = path if os.path.isabs(path) else os.path.join(cwd, path)
    # trailing "/" and "/." name the folder itself
    while p.endswith("/.") or (p.endswith("/") and len(p) > 1):
        p = p[:-2] if p.endswith("/.") else p[:-1]
    name = os.path.basename(p)
    if name in ("", ".."):
        return os.path.realpath(p)
    return os.path.join(os.path.realpath(os.path.dirname(p)), name)


def within(inner, outer):
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def in_domain(path, out):
    if within(path, out):
        return True
    parent, name = os.path.split(out)
    if not within(path, parent) or path == parent:
        return False
    first = os.path.relpath(path, parent).split("/")[0]
    return owner_of_derived(first) == name


def has_mount_inside(folder):
    try:
        dev = os.lstat(folder).st_dev
    except OSError:
        return False
    for dirpath, dirnames, _ in os.walk(folder):
        for d in dirnames:
            p = os.path.join(dirpath, d)
            if os.path.islink(p):
                continue
            if os.lstat(p).st_dev != dev or os.path.ismount(p):
                return True
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
    return False


def out_refused(out, cwd, inputs, folder_inputs):
    """why the rules refuse `out`, or None"""
    if out == "":
        return "empty"
    at = canonical(out, cwd)
    if at == "/":
        return "root"
    if owner_of_derived(os.path.basename(at)):
        return "derived name"
    here = os.path.realpath(cwd)
    if within(here, at):
        return "holds the current folder"
    for i in inputs + folder_inputs:
        forms = {canonical(i, cwd), os.path.realpath(i if os.path.isabs(i) else os.path.join(cwd, i))}
        for f in forms:
            if in_domain(f, at):
                return "holds an input"
            if i in folder_inputs and within(at, f):
                return "inside an input folder"
    if os.path.lexists(at):
        st = os.lstat(at)
        if stat.S_ISLNK(st.st_mode):
            return "a link"
        if not stat.S_ISDIR(st.st_mode):
            return "not a folder"
        if not os.path.isfile(os.path.join(at, MARKER)) or os.path.islink(os.path.join(at, MARKER)):
            if os.listdir(at):
                return "a user's folder"
        elif has_mount_inside(at):
            return "holds a mount point"
    else:
        # where it would be made: the nearest existing path above must be a folder
        up = os.path.dirname(at)
        while not os.path.lexists(up):
            up = os.path.dirname(up)
        if not os.path.isdir(up):
            return "cannot be made"
    lock = at + ".lock"
    if os.path.lexists(lock):
        if os.path.islink(lock) or not os.path.isfile(lock):
            return "lock is not a file"
        with open(lock, "rb") as f:
            if not f.read(len(SIGNATURE)) == SIGNATURE:
                return "a user's lock file"
    return None


# --- one arrangement ----------------------------------------------------------------------------

COMMANDS = ["run", "sweep", "merge", "continue", "identify", "friction", "resume", "compare"]


class Arrangement:
    def __init__(self, seed, fixed=None):
        self.seed = seed
        self.rng = random.Random(seed)
        self.fixed = fixed
        self.mounts = []

    def place(self, work, fx):
        """the tree: copies of the fixtures, a user's folder, victims, links"""
        r = self.rng
        for name in ("R", "S", "shard0", "shard1", "K.partial"):
            shutil.copytree(os.path.join(fx, name), os.path.join(work, name), symlinks=True)
        os.makedirs(os.path.join(work, "in"))
        os.makedirs(os.path.join(work, "U", "data"))
        open(os.path.join(work, "U", "notes.txt"), "w").write("my notes")
        open(os.path.join(work, "victim.txt"), "w").write("victim")
        os.makedirs(os.path.join(work, "victims"))
        open(os.path.join(work, "victims", "v.txt"), "w").write("victim")
        # links a careless removal would follow out of a result
        os.symlink("../victim.txt", os.path.join(work, "R", "link"))
        os.symlink("../victims", os.path.join(work, "R", "dlink"))
        os.symlink("R", os.path.join(work, "Rlink"))
        os.symlink("in", os.path.join(work, "inlink"))
        os.makedirs(os.path.join(work, "D"))
        # a folder its owner may not write (root writes it all the same)
        os.makedirs(os.path.join(work, "ro"))
        os.chmod(os.path.join(work, "ro"), 0o555)
        # the scenario: beside the inputs, or inside a result or a user's folder
        where = r.choice(["in", "in", "R", "U", "R/sub"])
        os.makedirs(os.path.join(work, where), exist_ok=True)
        self.scenario = os.path.join(where, "s.json")
        shutil.copy(os.path.join(fx, "s.json"), os.path.join(work, self.scenario))
        shutil.copy(os.path.join(fx, "sweep.json"), os.path.join(work, "in", "sweep.json"))
        model_where = r.choice(["in", "R", "U"])
        self.model = os.path.join(model_where, "sdof.json")
        shutil.copy(os.path.join(fx, "sdof.json"), os.path.join(work, self.model))
        json.dump({"name": "idt", "method": "sindy",
                   "data": {"scenario": os.path.relpath(os.path.join(work, self.model), os.path.join(work, "in")),
                            "t_end": 2, "sample_dt": 2e-3}},
                  open(os.path.join(work, "in", "id.json"), "w"))
        # a user's lock file or fivsim's stale one beside R, now and then
        lock = r.random()
        if lock < 0.08:
            open(os.path.join(work, "R.lock"), "w").write(r.choice(["", "pid 12 on x", "mine"]))
        elif lock < 0.12:
            open(os.path.join(work, "R.lock"), "w").write("fivsim lock: pid 1 on gone")
        # a mount point inside the result, or a full file system to write on
        self.full = False
        if IS_ROOT and r.random() < 0.06:
            self.mount(os.path.join(work, "R", "mnt"), "1m")
            open(os.path.join(work, "R", "mnt", "data.txt"), "w").write("precious")
        if IS_ROOT and r.random() < 0.06:
            self.mount(os.path.join(work, "full"), r.choice(["16k", "64k", "256k"]))
            self.full = True

    def mount(self, at, size):
        os.makedirs(at, exist_ok=True)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at]).returncode == 0:
            self.mounts.append(at)

    def unmount(self):
        for at in reversed(self.mounts):
            subprocess.run(["umount", "-l", at])

    def choose(self, work):
        """the command line, the cwd, the inputs it reads and the --out"""
        r = self.rng
        verb = self.fixed["verb"] if self.fixed else r.choice(COMMANDS)
        cwd = work if r.random() < 0.8 else os.path.join(work, "in")
        scen = os.path.join(work, self.scenario)
        inputs, folders = [], []
        extra = []
        if verb == "run":
            args, inputs = ["run", scen] + SHORT_RUN, [scen]
        elif verb == "compare":
            args, inputs = ["compare", scen, "--methods", "moreau", "-q"] + SHORT_RUN[1:], [scen]
        elif verb == "friction":
            args, inputs = ["friction", scen, "--amplitude", "0.1", "--f-hz", "1"], [scen]
        elif verb == "sweep":
            sw = os.path.join(work, "in", "sweep.json")
            args, inputs = ["sweep", sw] + SWEEP_SETS, [sw]
        elif verb == "identify":
            cfg = os.path.join(work, "in", "id.json")
            args, inputs = ["identify", cfg], [cfg, os.path.join(work, self.model)]
        elif verb == "continue":
            block = {"parameter": "/model/Fn", "range": [10, 12], "start": "sweep",
                     "from": os.path.join(work, "S"), "max_points": 3}
            args = ["continue", os.path.join(SCENARIOS, "chain2_bifurcation.json"), "-q",
                    "--set", "/continuation=" + json.dumps(block)]
            folders = [os.path.join(work, "S")]
        elif verb == "merge":
            args = ["merge", os.path.join(work, "shard0"), os.path.join(work, "shard1")]
            folders = [os.path.join(work, "shard0"), os.path.join(work, "shard1")]
            self.damage_shard(work)
        else:  # resume
            sw = os.path.join(work, "in", "sweep.json")
            args, inputs = ["sweep", sw, "--resume", "--chunk", "8"] + SWEEP_SETS, [sw]
            self.plant_in_staging(work)
        out = self.fixed["out"] if self.fixed else self.pick_out(verb, work, cwd)
        if verb == "resume" and not self.fixed and r.random() < 0.7:
            out = "K" if cwd == work else "../K"
        if out is not None:
            args += ["--out", out]
        return verb, args, cwd, inputs, folders, out

    def pick_out(self, verb, work, cwd):
        r = self.rng
        rel = lambda p: os.path.relpath(os.path.join(work, p), cwd)
        choices = ["new", "new/deeper", "R", "R/", "R/.", "R/sub", "U", "U/new", "Rlink", "Rlink/.",
                   "inlink/out", "in", "in/..", ".", "..", "D/.", "D/x/..", "R.partial", "R.lock",
                   "R.partial-99", "K.partial", "S", "S/x", "shard0", "shard1", "in/s.json",
                   self.scenario, os.path.dirname(self.scenario) or ".", "victim.txt", "R/link", "R/dlink",
                   "ro/out"]
        if self.full:
            choices += ["full/out"] * 10
        pick = r.choice(choices)
        spelled = rel(pick) if r.random() < 0.6 else os.path.join(work, pick)
        if pick.endswith("/") or pick.endswith("/."):
            spelled = spelled + ("/" if pick.endswith("/") else "/.")
        return spelled

    def damage_shard(self, work):
        """now and then a shard's file damaged, its checksums gone, a file a link or a pipe"""
        r = self.rng
        kind = r.choice(["none", "none", "no-checksums", "cut", "fifo", "link", "trajectory-link", "name"])
        self.shard_damage = kind
        s1 = os.path.join(work, "shard1")
        if kind in ("no-checksums", "cut", "name"):
            summary = json.load(open(os.path.join(s1, "summary.json")))
            if kind == "name":
                summary["name"] = os.path.join(work, "elsewhere")
                s0 = json.load(open(os.path.join(work, "shard0", "summary.json")))
                s0["name"] = summary["name"]
                json.dump(s0, open(os.path.join(work, "shard0", "summary.json"), "w"))
            else:
                del summary["checksums"]
            json.dump(summary, open(os.path.join(s1, "summary.json"), "w"))
            if kind == "cut":
                text = open(os.path.join(s1, "points.csv")).read()
                open(os.path.join(s1, "points.csv"), "w").write(text[: text.rfind("\n", 0, len(text) - 1) + 1])
        elif kind == "fifo":
            os.remove(os.path.join(s1, "summary.json"))
            os.mkfifo(os.path.join(s1, "summary.json"))
        elif kind == "link":
            os.remove(os.path.join(s1, "cases.csv"))
            os.symlink(os.path.join(work, "victim.txt"), os.path.join(s1, "cases.csv"))
        elif kind == "trajectory-link":
            t = os.path.join(s1, "trajectories", "case_39.csv")
            os.remove(t)
            os.symlink(os.path.join(work, "victim.txt"), t)

    def plant_in_staging(self, work):
        """a link (or a file of another name) planted where the resumed sweep writes"""
        r = self.rng
        kind = r.choice(["none", "link", "link", "dlink", "hardlink", "stranger"])
        name = r.choice(["manifest.json.tmp", "summary.json", "results.h5", "basins.csv", "cases.csv",
                         "points.csv", "trajectories"])
        p = os.path.join(work, "K.partial", name)
        self.planted = kind
        if kind == "none":
            return
        if os.path.lexists(p):
            os.remove(p) if not os.path.isdir(p) or os.path.islink(p) else shutil.rmtree(p)
        if kind == "link":
            os.symlink(os.path.join(work, "victim.txt"), p)
        elif kind == "dlink":
            os.symlink(os.path.join(work, "victims"), p)
        elif kind == "hardlink":
            os.link(os.path.join(work, "victim.txt"), p)
        else:
            open(os.path.join(work, "K.partial", "notes.txt"), "w").write("mine")

    def expected_refusal(self, verb, work, cwd, inputs, folders, out):
        if out is not None:
            why = out_refused(out, cwd, inputs, folders)
            if why:
                return why
        if verb == "merge":
            # a shard whose "name" is a path is damaged, whether or not --out names the folder
            if self.shard_damage in ("no-checksums", "cut", "fifo", "link", "trajectory-link", "name"):
                return "shard " + self.shard_damage
        if verb == "resume" and out is not None and canonical(out, cwd) == os.path.join(work, "K"):
            if self.planted != "none":
                return "planted " + self.planted
        return None


def inputs_of(work, verb, inputs, folders):
    """the bytes every input holds (files, and the folders' files)"""
    held = {}
    for i in inputs:
        held[i] = snapshot(os.path.dirname(i)).get(os.path.basename(i))
    for f in folders:
        held[f] = snapshot(f)
    return held


def run_arrangement(job):
    binary, fx, seed, fixed, env_extra = job
    a = Arrangement(seed, fixed)
    work = tempfile.mkdtemp(prefix="fivsim_adversary_")
    violations = []
    try:
        a.place(work, fx)
        verb, args, cwd, inputs, folders, out = a.choose(work)
        expected = a.expected_refusal(verb, work, cwd, inputs, folders, out)
        before = snapshot(work)
        held = inputs_of(work, verb, inputs, folders)
        victims = {p: snapshot(os.path.join(work, p)) for p in ("victims",)}
        victim = open(os.path.join(work, "victim.txt")).read()
        mounted = {m: snapshot(m) for m in a.mounts if not m.endswith("full")}
        env = dict(os.environ, **env_extra)
        rc, err = fivsim(binary, args, cwd, env, timeout=10)
        after = snapshot(work)
        domain = canonical(out, cwd) if out else None
        what = "seed %d: %s (cwd %s): exit %d" % (seed, " ".join(a_ if " " not in a_ else repr(a_) for a_ in args),
                                                  os.path.relpath(cwd, work), rc)
        # never a crash or a hang
        if rc not in (0, 1, 2):
            violations.append(what + ": ended by a signal or a hang: " + err.strip()[-200:])
        # inputs and victims as they were
        if inputs_of(work, verb, inputs, folders) != held:
            violations.append(what + ": an input changed")
        if open(os.path.join(work, "victim.txt")).read() != victim or \
                {p: snapshot(os.path.join(work, p)) for p in ("victims",)} != victims:
            violations.append(what + ": a file outside the results (a link's target) changed")
        for m, s in mounted.items():
            if snapshot(m) != s:
                violations.append(what + ": a mounted file system inside a result changed")
        # nothing outside the output's domain changed
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        # (the folders above a new output are made for it)
        outside = [k for k in changed if not (domain and (in_domain(os.path.join(work, k), domain) or
                                                          (within(domain, os.path.join(work, k)) and
                                                           k not in before and after[k] == ("folder",))))]
        if outside:
            violations.append(what + ": changed outside the output: " + ", ".join(outside[:5]))
        # the documented exit codes
        if expected and rc != 2:
            violations.append(what + ": expected exit 2 (%s), got %d: %s" % (expected, rc, err.strip()[-200:]))
        if expected and changed:
            violations.append(what + ": refused, yet changed: " + ", ".join(changed[:5]))
        if not expected and rc == 2:
            violations.append(what + ": refused what the rules allow: " + err.strip()[-200:])
        read_only = domain and within(domain, os.path.join(work, "ro")) and not IS_ROOT
        if not expected and rc == 1 and not (a.full and "No space left on device" in err) and \
                not (read_only and "Permission denied" in err):
            violations.append(what + ": failed: " + err.strip()[-200:])
        if rc in (1, 2) and err.count("\n") != 1:
            violations.append(what + ": not one line: " + err.strip()[-300:])
        if rc == 0 and domain and not os.path.isfile(os.path.join(domain, MARKER)):
            violations.append(what + ": exit 0 without a results folder at " + domain)
        # no staging folder or lock left by an ended command (a sweep's .partial is for --resume)
        if domain:
            parent, name = os.path.split(domain)
            if os.path.isdir(parent):
                for e in os.listdir(parent):
                    left = e.startswith(name + ".partial-") or (e == name + ".lock" and
                                                                 os.path.join(parent, e) not in
                                                                 [os.path.join(work, "R.lock")])
                    if left and not (before.get(os.path.relpath(os.path.join(parent, e), work))):
                        violations.append(what + ": left " + e)
    except Exception as e:  # the harness's own failure is a finding too
        violations.append("seed %d: the harness failed: %r" % (seed, e))
    finally:
        a.unmount()
        if os.path.isdir(os.path.join(work, "ro")):
            os.chmod(os.path.join(work, "ro"), 0o755)
        shutil.rmtree(work, ignore_errors=True)
    return seed, violations


# fixed arrangements first: the data losses an --out alone once caused (the others are tests/cli/inputs_never_outputs_test.cpp)
FIXED = [
    {"verb": "continue", "out": "S"},
    {"verb": "continue", "out": "S/x"},
    {"verb": "identify", "out": "R"},
    {"verb": "resume", "out": "K"},
    {"verb": "run", "out": "K.partial"},
    {"verb": "run", "out": "R.lock"},
    {"verb": "run", "out": "D/."},
    {"verb": "run", "out": "D/x/.."},
    {"verb": "run", "out": "Rlink/."},
    {"verb": "merge", "out": None},
    {"verb": "merge", "out": "shard0"},
    {"verb": "run", "out": "R"},
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fivsim", required=True, help="the fivsim binary")
    ap.add_argument("--arrangements", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--disable", choices=["inputs", "links", "strict"],
                    help="turn one defence off (FIVSIM_TEST_DISABLE_SAFETY) and expect violations")
    args = ap.parse_args()
    binary = os.path.abspath(args.fivsim)
    root = tempfile.mkdtemp(prefix="fivsim_adversary_fixtures_")
    started = time.time()
    try:
        fx = make_fixtures(binary, root)
        env = {"FIVSIM_TEST_DISABLE_SAFETY": args.disable} if args.disable else {}
        jobs = [(binary, fx, 1000 + k, f, env) for k, f in enumerate(FIXED)]
        jobs += [(binary, fx, args.seed * 1000003 + k, None, env) for k in range(args.arrangements - len(FIXED))]
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(run_arrangement, jobs, chunksize=8)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    found = [v for _, vs in results for v in vs]
    print("filesystem adversary: %d arrangements (%d fixed) in %.1f s%s: %d violations" %
          (len(results), len(FIXED), time.time() - started,
           ", defence '%s' off" % args.disable if args.disable else "", len(found)))
    # how many of each kind (the text after the exit code, up to its first colon)
    kinds = {}
    for v in found:
        tail = v.split(": exit ", 1)[-1].split(": ", 2)
        kind = tail[1] if len(tail) > 1 else v
        kinds[kind] = kinds.get(kind, 0) + 1
    for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print("  %5d  %s" % (n, kind[:100]))
    for v in found[:12]:
        print("  " + v[:400])
    if args.disable:
        return 0 if found else 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
