"""tests/python/test_compare.py — fivsim.compare against `fivsim compare`'s files for the same
scenario, value for value: compare.json and compare.csv (clocks left out), compare.md's table
rows, every run's time series (--series); bad method labels name "methods".
"""

import json

import pytest

import fivsim
from test_api import SOURCE, assert_columns_equal, cli, read_csv, without_clocks

SCENARIO = SOURCE / "scenarios" / "model2_example2.json"
SET = {"/integrator/t_end": 2.0}


def test_compare_matches_the_cli_files(tmp_path):
    out = tmp_path / "compare"
    r = cli("compare", SCENARIO, "-q", "--methods", "moreau,irk4", "--dt", "1e-3,5e-4", "--series", "--out", out,
            *[f"--set={p}={json.dumps(v)}" for p, v in SET.items()])
    assert r.returncode == 0, r.stderr
    result = fivsim.compare(SCENARIO, methods=["moreau", "irk4"], dt=[1e-3, 5e-4], series=True, set=SET)
    assert without_clocks(result.report) == without_clocks(json.loads((out / "compare.json").read_text()))
    header, rows = read_csv(out / "compare.csv")
    assert len(rows) == 5  # the reference and two methods at two steps
    assert_columns_equal(header, rows, result.table, skip={"wall_s", "steps_per_s"})
    assert list(result.table["method"]) == ["reference", "moreau", "moreau", "irk4", "irk4"]
    # compare.md: the same rows (its last two cells are clocks)
    md = (out / "compare.md").read_text().splitlines()
    ours = result.markdown.splitlines()
    assert len(md) == len(ours)
    for a, b in zip(md, ours):
        assert a.split("|")[:-3] == b.split("|")[:-3]
    assert sorted(result.series) == sorted(p.stem for p in (out / "series").iterdir())
    for run, series in result.series.items():
        header, rows = read_csv(out / "series" / f"{run}.csv")
        assert_columns_equal(header, rows, series, code_names=fivsim.contact_state_names)


def test_bad_methods_name_the_keyword():
    with pytest.raises(fivsim.InputError) as e:
        fivsim.compare(SCENARIO, methods="moreau,nothing")
    assert e.value.pointer == "methods"
    with pytest.raises(fivsim.InputError) as e:
        fivsim.compare(SCENARIO, methods="moreau", dt=-1)
    assert e.value.pointer == "dt"
