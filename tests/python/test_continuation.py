"""tests/python/test_continuation.py — fivsim.continuation against the files of `fivsim continue`
for the same scenario and block, value for value: summary.json (its clock left out), branches.csv,
bifurcations.csv, orbit_points.csv and results.h5 (read by h5py); a missing block is refused with
the pointer /continuation.
"""

import json
import math

import numpy as np
import pytest

import fivsim
from test_api import SOURCE, assert_columns_equal, cli, read_csv, without_clocks

SCENARIO = SOURCE / "scenarios" / "bstab_friction.json"
BLOCK = {"parameter": "/model/v0", "range": [1.0, 2.0]}


def test_continuation_matches_the_cli_files(tmp_path):
    out = tmp_path / "continue"
    r = cli("continue", SCENARIO, "--out", out, "--set=/continuation=" + json.dumps(BLOCK))
    assert r.returncode == 0, r.stderr
    c = fivsim.continuation(SCENARIO, set={"/continuation": BLOCK})
    assert without_clocks(c.report) == without_clocks(json.loads((out / "summary.json").read_text()))
    for name, table in (("branches", c.branches), ("bifurcations", c.bifurcations)):
        header, rows = read_csv(out / (name + ".csv"))
        assert_columns_equal(header, rows, table)
    # the Hopf point of steady sliding: damping 0.1 = e^{-2 v0}
    hopf = c.to_pandas("bifurcations")
    assert list(hopf["kind"]) == ["hopf"]
    assert abs(hopf["/model/v0"][0] - math.log(10.0) / 2.0) < 1e-8
    assert len(c.to_pandas()) == c.report["points"]


def test_a_scenario_without_a_block_is_refused():
    with pytest.raises(fivsim.InputError) as e:
        fivsim.continuation(SCENARIO)
    assert e.value.pointer == "/continuation"


def test_a_device_other_than_cpu_or_cuda_is_refused():
    with pytest.raises(ValueError) as e:
        fivsim.continuation(SCENARIO, device="gpu")
    assert "cpu" in str(e.value) and "cuda" in str(e.value)


def test_orbit_points_match_the_cli_file(tmp_path):
    # bSTAB's stick-slip cycle on the section u = 0, its grazing point and the unstable slip cycle:
    # every crossing of each orbit (orbit_points.csv) as the CLI writes it, one per point of a
    # periodic-1 branch
    block = {"parameter": "/model/v0", "range": [1.0, 2.0], "start": "orbit"}
    section = {"section": "velocity", "dof": 0, "value": 0, "direction": "down"}
    out = tmp_path / "orbit"
    r = cli("continue", SCENARIO, "--out", out, "--set=/continuation=" + json.dumps(block),
            "--set=/analysis/poincare=" + json.dumps(section))
    assert r.returncode == 0, r.stderr
    c = fivsim.continuation(SCENARIO, set={"/continuation": block, "/analysis/poincare": section})
    header, rows = read_csv(out / "orbit_points.csv")
    assert_columns_equal(header, rows, c.orbit_points)
    # results.h5 holds the three tables value for value, a pointer column under its dotted name
    import h5py

    with h5py.File(out / "results.h5", "r") as f:
        assert f.attrs["format"] == "fivsim continuation results 1"
        assert json.loads(f.attrs["summary"])["points"] == c.report["points"]
        for name, table in (("branches", c.branches), ("bifurcations", c.bifurcations),
                            ("orbit_points", c.orbit_points)):
            group = f[name]
            assert list(group.attrs["columns"]) == [k.lstrip("/").replace("/", ".") for k in table]
            for k, values in table.items():
                stored = group[k.lstrip("/").replace("/", ".")]
                if values.dtype.kind in "fi":
                    np.testing.assert_array_equal(stored[()], values, err_msg=name + " " + k)
                else:
                    assert [v.decode() for v in stored[()]] == list(values), name + " " + k
        assert f["branches/model.v0"].attrs["pointer"] == "/model/v0"
        assert f["branches/branch"].dtype.kind == "i"
    points = c.to_pandas("orbit_points")
    assert len(points) == c.report["points"]
    assert list(points["crossing"].unique()) == [0]
    assert [b["kind"] for b in c.report["bifurcations"]] == ["grazing"]
    with pytest.raises(ValueError):
        c.to_pandas("orbits")


def test_curves_match_the_cli_files(tmp_path):
    # the smooth fold of cycles of the slider with the Gaussian Stribeck law (its closed-form and
    # SciPy checks are tests/cli/continue_command_test.cpp's), followed in the belt speed: the
    # module's curves are curves.csv and results.h5's group, value for value
    sets = {"/friction": {"law": "stribeck", "mu_s": 1, "mu_c": 0.5, "v_s": 1, "alpha": 2, "mu_v": 0.1},
            "/initial/q/0": 2.1,
            "/analysis/poincare": {"section": "velocity", "dof": 0, "value": 0, "direction": "down"},
            "/continuation": {"parameter": "/model/c", "range": [0.05, 0.1], "start": "orbit",
                              "curves": {"parameter": "/model/v0", "range": [1.45, 1.55]}}}
    out = tmp_path / "curves"
    r = cli("continue", SCENARIO, "--out", out, *["--set=%s=%s" % (k, json.dumps(v)) for k, v in sets.items()])
    assert r.returncode == 0, r.stderr
    c = fivsim.continuation(SCENARIO, set=sets)
    header, rows = read_csv(out / "curves.csv")
    assert_columns_equal(header, rows, c.curves)
    curves = c.to_pandas("curves")
    assert set(curves["kind"]) == {"fold"}
    assert [x["stop"] for x in c.report["curves"]["curves"]] == ["p_min reached", "p_max reached"]
    import h5py

    with h5py.File(out / "results.h5", "r") as f:
        np.testing.assert_array_equal(f["curves/model.c"][()], curves["/model/c"].to_numpy())
        np.testing.assert_array_equal(f["curves/model.v0"][()], curves["/model/v0"].to_numpy())
