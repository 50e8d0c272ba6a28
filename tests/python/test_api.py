"""tests/python/test_api.py — the Python module (import fivsim) against the command line's files
for the same scenario, value for value: a run's time series, events and summary; a sweep's cases,
points, trajectories and summary; a basin sweep's attractors and basins (also merged from shards);
loading; bad input (InputError naming the pointer, as the CLI's exit 2 does); merge joining shards into one run's files; a numerical failure (NumericalError with the partial run, as exit 3); Ctrl-C stopping
a run, a sweep and an identification.

Run by ctest (Python.test_api) with PYTHONPATH=<build>/python, FIVSIM_BINARY and FIVSIM_SOURCE_DIR.
"""

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import fivsim

SOURCE = Path(os.environ.get("FIVSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY = os.environ.get("FIVSIM_BINARY", str(SOURCE / "build" / "fivsim"))
SCENARIOS = SOURCE / "scenarios"

# what differs between two runs of the same scenario: the clocks
CLOCK_KEYS = {"wall_s", "steps_per_s", "compute_s", "setup_s", "case_steps_per_s", "end_to_end_case_steps_per_s",
              "host", "files", "ranks", "threads", "chunk_size", "case_bytes", "stepping_s", "write_s",
              "point_samples_per_s", "simulations_per_s", "stages"}


def cli(*args):
    return subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def without_clocks(value):
    """A summary with the clocks (and whatever depends on the machine) left out, at every depth."""
    if isinstance(value, dict):
        return {k: without_clocks(v) for k, v in value.items() if k not in CLOCK_KEYS}
    if isinstance(value, list):
        return [without_clocks(v) for v in value]
    return value


def assert_columns_equal(header, rows, columns, code_names=None, skip=()):
    """Each CSV column equals the array of the same name: numbers exactly (the CSV holds the
    shortest text that reads back as the same double), texts as they are; `skip` names clock columns."""
    assert list(columns) == header
    for c, name in enumerate(header):
        if name in skip:
            continue
        text = [r[c] for r in rows]
        values = columns[name]
        assert len(values) == len(text), name
        if code_names is not None and name.startswith("state"):
            np.testing.assert_array_equal(np.asarray(code_names)[values], text, err_msg=name)
        elif values.dtype.kind in "fi":
            np.testing.assert_array_equal(values, np.array(text, dtype=float), err_msg=name)
        else:
            np.testing.assert_array_equal(values, np.array(text, dtype=str), err_msg=name)


RUN_SCENARIO = SCENARIOS / "model2_example1.json"
RUN_SET = {"/integrator/t_end": 6, "/output/every": 3}


def test_run_matches_the_cli_files(tmp_path):
    out = tmp_path / "run"
    r = cli("run", RUN_SCENARIO, "-q", "--out", out, *[f"--set={p}={json.dumps(v)}" for p, v in RUN_SET.items()])
    assert r.returncode == 0, r.stderr
    result = fivsim.run(RUN_SCENARIO, set=RUN_SET)
    header, rows = read_csv(out / "timeseries.csv")
    assert len(rows) > 100
    assert_columns_equal(header, rows, result.timeseries, code_names=result.state_names)
    summary = json.loads((out / "summary.json").read_text())
    assert without_clocks(result.summary) == without_clocks(summary)
    assert result.summary["wall_s"] > 0
    # the events as arrays, one per event of summary.json
    assert len(summary["events"]) > 0
    np.testing.assert_array_equal(result.events["t"], [e["t"] for e in summary["events"]])
    np.testing.assert_array_equal(result.events["type"], [e["type"] for e in summary["events"]])
    assert list(result.states(0)[:3]) == [row[header.index("state0")] for row in rows[:3]]


def test_scenario_as_path_text_or_dict_loads_the_same_document():
    doc = json.loads(RUN_SCENARIO.read_text())
    from_path = fivsim.load(str(RUN_SCENARIO), set={"/integrator/dt": 2e-4})
    from_text = fivsim.load(json.dumps(doc), set={"/integrator/dt": 2e-4})
    from_dict = fivsim.load(doc, set={"/integrator/dt": 2e-4})
    assert from_path == from_text == from_dict
    assert from_dict["integrator"]["dt"] == 2e-4
    assert fivsim.validate(RUN_SCENARIO) is None


def test_the_python_tutorial_names_every_public_name_and_the_models_page_every_law():
    page = (SOURCE / "docs" / "tutorials" / "python.md").read_text()
    missing = [name for name in fivsim.__all__ if name[0].islower() and f"fivsim.{name}" not in page]
    assert missing == [], f"docs/tutorials/python.md does not name {missing}"
    models = (SOURCE / "docs" / "MODELS.md").read_text()
    laws = fivsim._core.friction_law_names
    assert "coulomb_static" in laws and "lugre" in laws
    assert [law for law in laws if f"`{law}`" not in models] == []


def test_none_in_set_removes_the_key_as_null_does_on_the_command_line():
    two_stop = SCENARIOS / "sdof_base_two_stop.json"
    with pytest.raises(fivsim.InputError):
        fivsim.load(two_stop, set={"/model/Fn": 1, "/model/mu": 0.0856})
    doc = fivsim.load(two_stop, set={"/model/Ff": None, "/model/Fn": 1, "/model/mu": 0.0856})
    assert "Ff" not in doc["model"] and doc["model"]["mu"] == 0.0856


def test_validate_refuses_what_the_cli_refuses():
    r = cli("validate", RUN_SCENARIO, "--set", "/friction/mu=-0.5")
    assert r.returncode == 2
    with pytest.raises(fivsim.InputError) as e:
        fivsim.validate(RUN_SCENARIO, set={"/friction/mu": -0.5})
    assert e.value.pointer == "/friction/mu"
    assert str(e.value) in r.stderr


SWEEP_SCENARIO = SCENARIOS / "chain2_load_sweep.json"
SWEEP_SET = {"/sweep/parameters/0/linspace": [2, 20, 12], "/integrator/t_end": 30, "/analysis/t_transient": 15,
             "/output/trajectories": [0, 7]}


def test_sweep_matches_the_cli_files(tmp_path):
    out = tmp_path / "sweep"
    r = cli("sweep", SWEEP_SCENARIO, "-q", "--device", "cpu", "--threads", "2", "--chunk", "4", "--format", "csv",
            "--out", out,
            *[f"--set={p}={json.dumps(v)}" for p, v in SWEEP_SET.items()])
    assert r.returncode == 0, r.stderr
    seen = []
    result = fivsim.sweep(SWEEP_SCENARIO, set=SWEEP_SET, device="cpu", threads=2, chunk=4,
                          progress=lambda done, total, work: seen.append((done, total)))
    header, rows = read_csv(out / "cases.csv")
    assert len(rows) == 12
    assert_columns_equal(header, rows, result.cases)
    header, rows = read_csv(out / "points.csv")
    assert len(rows) > 12
    assert_columns_equal(header, rows, result.points)
    for case in (0, 7):
        header, rows = read_csv(out / "trajectories" / f"case_{case}.csv")
        assert_columns_equal(header, rows, result.trajectories[case], code_names=fivsim.contact_state_names)
    summary = json.loads((out / "summary.json").read_text())
    # the files' checksums are the folder's alone (the module keeps its tables in memory)
    assert set(summary.pop("checksums")) == {"cases.csv", "points.csv"}
    assert without_clocks(result.summary) == without_clocks(summary)
    # progress after each chunk of 4 cases, up to all of them
    assert seen == [(4, 12), (8, 12), (12, 12)]
    frame = result.to_pandas()
    assert list(frame.columns) == list(result.cases) and len(frame) == 12


def run_shards(tmp_path, scenario, sets, count=3):
    """the scenario's sweep as `count` shards by the command line (CSV files): their folders"""
    shards = []
    for i in range(count):
        shards.append(tmp_path / f"shard{i}")
        r = cli("sweep", scenario, "-q", "--device", "cpu", "--format", "csv", "--shard", f"{i}/{count}",
                "--out", shards[-1], *sets)
        assert r.returncode == 0, r.stderr
    return shards


BASIN_SET = {"/sweep/samples": 60, "/sweep/parameters/0/values": [1.0, 1.5, 2.0]}


def test_basins_match_the_cli_files_and_a_merge_of_shards(tmp_path):
    """bSTAB's oscillator at three belt speeds, 60 starts each: fivsim.sweep's .basins and each case's
    "attractor" are the folder's basins.csv and attractors.csv, and merging three shards (which do
    not label their cases alone) labels them alike."""
    scenario = SCENARIOS / "bstab_friction_belt.json"
    sets = [f"--set={p}={json.dumps(v)}" for p, v in BASIN_SET.items()]
    out = tmp_path / "basins"
    r = cli("sweep", scenario, "-q", "--device", "cpu", "--format", "csv", "--out", out, *sets)
    assert r.returncode == 0, r.stderr
    result = fivsim.sweep(scenario, set=BASIN_SET, device="cpu")
    header, rows = read_csv(out / "basins.csv")
    assert len(rows) >= 3 and header[0] == "/model/v0"
    for k, name in enumerate(header):
        column = result.basins[name]
        for row, value in zip(rows, column):
            if name in ("class", "change"):
                assert row[k] == value
            else:
                assert float(row[k] or -1) == pytest.approx(float(value), rel=1e-12, abs=1e-15), name
    # every speed's shares, the cases with none included, add up to one
    for v in (1.0, 1.5, 2.0):
        assert sum(f for s, f in zip(result.basins["/model/v0"], result.basins["fraction"]) if s == v) == \
            pytest.approx(1.0)
    header, rows = read_csv(out / "attractors.csv")
    assert [int(r[1]) for r in rows] == list(result.cases["attractor"])
    assert result.to_pandas("basins").shape[0] == len(result.basins["class"])
    # a load sweep has none
    assert fivsim.sweep(SWEEP_SCENARIO, set=SWEEP_SET, device="cpu").basins is None
    shards = run_shards(tmp_path, scenario, sets)
    assert not any((s / "basins.csv").exists() for s in shards)
    merged = fivsim.merge(shards, out=tmp_path / "merged")
    assert "basins.csv" in merged["files"]
    for name in ("basins.csv", "attractors.csv"):
        assert (tmp_path / "merged" / name).read_bytes() == (out / name).read_bytes(), name


def test_merge_joins_shards_into_the_files_of_one_run(tmp_path):
    sets = [f"--set={p}={json.dumps(v)}" for p, v in SWEEP_SET.items()]
    whole = tmp_path / "whole"
    assert cli("sweep", SWEEP_SCENARIO, "-q", "--device", "cpu", "--format", "csv", "--out", whole, *sets).returncode == 0
    shards = run_shards(tmp_path, SWEEP_SCENARIO, sets)
    merged = fivsim.merge(reversed(shards), out=tmp_path / "merged")
    assert merged["folder"] == str(tmp_path / "merged") and merged["cases"] == 12
    for name in ("cases.csv", "points.csv"):
        assert (tmp_path / "merged" / name).read_bytes() == (whole / name).read_bytes(), name
    assert merged["classes"] == json.loads((whole / "summary.json").read_text())["classes"]
    with pytest.raises(fivsim.InputError, match="shard 1 of 3 is missing"):
        fivsim.merge([shards[0], shards[2]], out=tmp_path / "refused")
    assert not (tmp_path / "refused").exists()
    # one folder is not a list of shards (a string would be taken letter by letter), and an empty
    # out is not runs/<name>
    for one in (str(shards[0]), shards[0]):
        with pytest.raises(TypeError, match="shards must be a list"):
            fivsim.merge(one, out=tmp_path / "refused")
    with pytest.raises(fivsim.InputError, match="out: is empty"):
        fivsim.merge(shards, out="")
    assert not (tmp_path / "refused").exists()


def test_validate_refuses_the_sweep_and_continuation_blocks_the_commands_refuse():
    r = cli("validate", SWEEP_SCENARIO, "--set", "/sweep/samples=2000000000")
    assert r.returncode == 2 and "/sweep/samples: must be <= 1e8" in r.stderr
    with pytest.raises(fivsim.InputError) as e:
        fivsim.validate(SWEEP_SCENARIO, set={"/sweep/samples": 2000000000})
    assert e.value.pointer == "/sweep/samples"
    with pytest.raises(fivsim.InputError) as e:
        fivsim.validate(SCENARIOS / "chain2_bifurcation.json",
                        set={"/continuation": {"parameter": "/model/Fn", "range": [10, 12], "max_points": 2000000000}})
    assert e.value.pointer == "/continuation/max_points"


def test_progress_moves_within_a_chunk_and_prints_lines_off_a_terminal(capsys):
    """one chunk of 40 cases (about 1.5 s on two cores): the callback hears of cases finished before
    the chunk ends; progress=True writes whole lines with an ETA (stderr is not a terminal here)"""
    setting = {"/sweep/parameters/0/linspace": [1, 8, 40]}
    seen = []
    result = fivsim.sweep(SCENARIOS / "chain2_bifurcation.json", set=setting, device="cpu", chunk=40,
                          progress=lambda done, total, work: seen.append((done, total)))
    assert any(0 < done < 40 for done, _ in seen), seen
    assert seen[-1] == (40, 40)
    # the case-steps run, not the planned ones: the sweep is adaptive
    s = result.summary
    assert f"{s['case_steps']:.4g} case-steps" in repr(result) and s["case_steps"] < s["cases"] * s["steps"]
    capsys.readouterr()
    fivsim.sweep(SCENARIOS / "chain2_bifurcation.json", set=setting, device="cpu", chunk=40, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and err.endswith("\n")
    assert "ETA" in err.splitlines()[0] and err.splitlines()[-1].startswith("  cases 40 / 40 (100%)")


def test_the_docs_name_only_scenarios_that_exist():
    """every scenarios/… file the module's docstring, the README and the docs name is there"""
    import re

    texts = {"fivsim.__doc__": fivsim.__doc__, "README.md": (SOURCE / "README.md").read_text()}
    for doc in sorted((SOURCE / "docs").glob("*.md")):
        texts[doc.name] = doc.read_text()
    for name, text in texts.items():
        for path in set(re.findall(r"scenarios/[\w/.-]+?\.json", text)):
            assert (SOURCE / path).is_file(), f"{name} names {path}"


def test_every_result_has_to_pandas():
    run = fivsim.run(SCENARIOS / "model1_slow_stribeck.json", set={"/integrator/t_end": 1, "/analysis/t_transient": 0})
    assert len(run.to_pandas()) == 101
    scan = fivsim.stability(SCENARIOS / "model2_example1.json", param="/friction/mu", linspace=(0, 1.5, 7))
    assert list(scan.to_pandas().columns) == list(scan.table) and len(scan.to_pandas()) == 7
    cmp = fivsim.compare(SCENARIOS / "model2_example2.json", methods="moreau", dt=1e-3,
                         set={"/integrator/t_end": 0.5})
    assert list(cmp.to_pandas().columns) == list(cmp.table) and len(cmp.to_pandas()) == 2


def test_every_output_writes_the_class_alike(tmp_path):
    """cases.csv, results.h5 (its enumeration's words, as h5py reads them) and the module's table
    say "periodic-2", not "periodic" beside a period_n; a row that is not periodic has a NaN period"""
    import h5py

    setting = {"/sweep/parameters/0/linspace": [1, 8, 8]}
    out = tmp_path / "sweep"
    r = cli("sweep", SCENARIOS / "chain2_bifurcation.json", "-q", "--device", "cpu", "--format", "both", "--out", out,
            *[f"--set={p}={json.dumps(v)}" for p, v in setting.items()])
    assert r.returncode == 0, r.stderr
    header, rows = read_csv(out / "cases.csv")
    csv_class = [row[header.index("class")] for row in rows]
    with h5py.File(out / "results.h5", "r") as f:
        ds = f["cases"]["class"]
        word_of = {code: word for word, code in h5py.check_enum_dtype(ds.dtype).items()}
        h5_class = [word_of[int(code)] for code in ds[:]]
        h5_period = f["cases"]["period"][:]
    result = fivsim.sweep(SCENARIOS / "chain2_bifurcation.json", set=setting, device="cpu")
    assert h5_class == csv_class == list(result.cases["class"])
    assert any(c.startswith("periodic-") for c in csv_class) and any(not c.startswith("periodic-") for c in csv_class)
    for word, period in zip(h5_class, h5_period):
        assert np.isnan(period) != word.startswith("periodic-")


def test_bad_input_raises_input_error_naming_the_pointer_as_the_cli_exits_2(tmp_path):
    r = cli("run", RUN_SCENARIO, "-q", "--out", tmp_path / "bad", "--set", "/integrator/dt=-1")
    assert r.returncode == 2
    with pytest.raises(fivsim.InputError) as e:
        fivsim.run(RUN_SCENARIO, set={"/integrator/dt": -1})
    assert e.value.pointer == "/integrator/dt"
    assert str(e.value) in r.stderr
    assert not (tmp_path / "bad").exists()
    with pytest.raises(fivsim.InputError) as e:
        fivsim.sweep(SWEEP_SCENARIO, set={"/sweep/parameters/0/path": "/model/nothing"}, device="cpu")
    assert e.value.pointer.startswith("/sweep/parameters/0")
    with pytest.raises(fivsim.InputError):
        fivsim.load('{"name": ')
    with pytest.raises(fivsim.InputError):
        fivsim.load(str(tmp_path / "missing.json"))
    with pytest.raises(fivsim.InputError) as e:
        fivsim.sweep(SWEEP_SCENARIO, device="tpu")
    assert e.value.pointer == "device"
    with pytest.raises(fivsim.InputError) as e:
        fivsim.sweep(SWEEP_SCENARIO, device="cpu", kernels="fast")
    assert e.value.pointer == "kernels"
    r = cli("sweep", SWEEP_SCENARIO, "-q", "--kernels", "fast", "--out", tmp_path / "bad_kernels")
    assert r.returncode == 2 and "--kernels" in r.stderr
    with pytest.raises(fivsim.InputError):
        fivsim.load(RUN_SCENARIO, set={"integrator/dt": 1})


BLOWUP = {"name": "blowup", "model": {"type": "linear_multibody", "M": [[1]], "K": [[-1e6]], "contacts": []},
          "initial": {"q": [1e-3]}, "integrator": {"dt": 0.1, "t_end": 100}}


def test_numerical_failure_raises_numerical_error_with_the_partial_run(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(BLOWUP))
    r = cli("run", tmp_path / "s.json", "-q", "--out", tmp_path / "out")
    assert r.returncode == 3
    with pytest.raises(fivsim.NumericalError) as e:
        fivsim.run(BLOWUP)
    partial = e.value.result
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert partial.summary["status"] == "incomplete" == summary["status"]
    assert partial.summary["failure"] == summary["failure"]
    header, rows = read_csv(tmp_path / "out" / "timeseries.csv")
    assert_columns_equal(header, rows, partial.timeseries, code_names=partial.state_names)


INTERRUPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import fivsim
    what = sys.argv[1]
    threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    try:
        if what == "run":
            fivsim.run(sys.argv[2], set={"/integrator/t_end": 1e5, "/output/timeseries": False})
        elif what == "identify":
            fivsim.identify(sys.argv[2], set={"/options/adam_iter": 10**6})
        else:
            fivsim.sweep(sys.argv[2], set={"/sweep/parameters/0/linspace": [1, 30, 100000]}, device="cpu",
                         threads=1, chunk=8)
    except KeyboardInterrupt:
        print(f"interrupted after {time.monotonic() - start:.1f} s")
        sys.exit(0)
    print("not interrupted")
    sys.exit(1)
""")


@pytest.mark.parametrize("what,scenario", [("run", RUN_SCENARIO), ("sweep", SWEEP_SCENARIO),
                                           ("identify", SCENARIOS / "identify" / "torsion_pendulum_pinn.json")])
def test_ctrl_c_stops_a_long_call(what, scenario):
    p = subprocess.run([sys.executable, "-c", INTERRUPT, what, str(scenario)], capture_output=True, text=True,
                       timeout=120, env=os.environ)
    assert p.returncode == 0, p.stdout + p.stderr
    seconds = float(p.stdout.split()[2])
    # the call had hours of work; it stops within seconds of the signal
    assert seconds < 30, p.stdout
