"""tests/python/test_continuation.py — fivsim.continuation against the files of `fivsim continue`
for the same scenario and block, value for value: summary.json (its clock left out), branches.csv
and bifurcations.csv; a missing block is refused with the pointer /continuation.
"""

import json
import math

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
