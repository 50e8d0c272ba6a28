"""tests/python/test_identify_stability.py — fivsim.identify and fivsim.stability against the files
of `fivsim identify` and `fivsim stability` for the same configuration, value for value:
identified.json (clocks left out), record.csv, response.csv and bounds.csv; stability.json and
stability.csv; a config with a sweep block is refused with the pointer /sweep, and the stability
arguments are named as the keywords they are here ("param", not "--param"); fivsim.identify_batch
against identifications.csv and summary.json of `fivsim identify` on a config with a sweep block.
"""

import json

import pytest

import fivsim
from test_api import BINARY, SOURCE, assert_columns_equal, cli, read_csv, without_clocks

CONFIG = SOURCE / "scenarios" / "identify" / "sdof_two_stop_extended_sindy_grid.json"
# a shorter record and a coarser bound grid: the same code paths in a second
SET = {"/data/t_end": 6.0, "/options/k_grid": [300, 420, 41], "/options/c_grid": [0, 0.3, 31],
       "/options/device": "cpu"}


def test_identify_matches_the_cli_files(tmp_path):
    out = tmp_path / "identify"
    r = cli("identify", CONFIG, "--out", out, *[f"--set={p}={json.dumps(v)}" for p, v in SET.items()])
    assert r.returncode == 0, r.stderr
    fit = fivsim.identify(CONFIG, set=SET)
    identified = json.loads((out / "identified.json").read_text())
    assert without_clocks(fit.identified) == without_clocks(identified)
    assert fit.identified["extended_sindy"]["bounds"]["k_grid"] == [300, 420, 41]
    for name, table in (("record", fit.record), ("response", fit.response), ("bounds", fit.bounds)):
        header, rows = read_csv(out / f"{name}.csv")
        assert len(rows) > 30, name
        assert_columns_equal(header, rows, table)


def test_a_sweep_block_is_refused_naming_it():
    doc = json.loads((SOURCE / "scenarios" / "identify" / "sdof_regimes_batch.json").read_text())
    with pytest.raises(fivsim.InputError) as e:
        fivsim.identify(doc)
    assert e.value.pointer == "/sweep"


BATCH = SOURCE / "scenarios" / "identify" / "sdof_regimes_batch.json"
# three regimes, short records: a failing case (6 samples, fewer than the derivative window) among them
BATCH_SET = {"/sweep": {"mode": "grid", "parameters": [{"path": "/data/set/~1model~1f_hz", "values": [2.013, 0.95]},
                                                       {"path": "/data/t_end", "values": [4.0, 0.0012]}]}}


def test_identify_batch_matches_the_cli_files(tmp_path):
    out = tmp_path / "batch"
    r = cli("identify", BATCH, "--out", out, *[f"--set={p}={json.dumps(v)}" for p, v in BATCH_SET.items()])
    assert r.returncode == 0, r.stderr
    seen = []
    batch = fivsim.identify_batch(BATCH, set=BATCH_SET, progress=lambda done, total, work: seen.append((done, total)))
    header, rows = read_csv(out / "identifications.csv")
    assert len(rows) == 4 and seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert_columns_equal(header, rows, batch.table, skip=("wall_s",))
    assert list(batch.table["status"]) == ["ok", "failed", "ok", "failed"]
    assert "/options/window" in batch.table["message"][1]
    summary = json.loads((out / "summary.json").read_text())
    assert without_clocks(batch.summary) == without_clocks(summary)
    assert batch.summary["status"] == {"failed": 2, "ok": 2}
    assert len(batch.to_pandas()) == 4


def test_identify_batch_refuses_a_config_without_a_sweep_block():
    with pytest.raises(fivsim.InputError) as e:
        fivsim.identify_batch(CONFIG, set=SET)
    assert e.value.pointer == "/sweep"


STABILITY = SOURCE / "scenarios" / "model2_example1.json"


def test_stability_matches_the_cli_files(tmp_path):
    out = tmp_path / "stability"
    r = cli("stability", STABILITY, "--param", "/friction/mu", "--linspace", "0", "1.5", "31", "--out", out)
    assert r.returncode == 0, r.stderr
    scan = fivsim.stability(STABILITY, param="/friction/mu", linspace=(0, 1.5, 31))
    assert scan.report == json.loads((out / "stability.json").read_text())
    header, rows = read_csv(out / "stability.csv")
    assert len(rows) == 31
    assert_columns_equal(header, rows, scan.table)
    assert scan.critical is not None and 0 < scan.critical < 1.5


def test_stability_arguments_are_named_as_keywords(tmp_path):
    r = cli("stability", STABILITY, "--param", "/friction/nothing", "--out", tmp_path / "bad")
    assert r.returncode == 2 and "--param: '/friction/nothing' is not a number" in r.stderr
    with pytest.raises(fivsim.InputError) as e:
        fivsim.stability(STABILITY, param="/friction/nothing")
    assert e.value.pointer == "param"
    assert str(e.value).startswith("param: '/friction/nothing' is not a number")
    with pytest.raises(fivsim.InputError) as e:
        fivsim.stability(STABILITY, linspace=(1, 0, 5))
    assert e.value.pointer == "linspace"


IDENTIFY = SOURCE / "scenarios" / "identify"


@pytest.mark.parametrize("config, names, held", [
    ("sdof_continuous_sindy.json", {"k", "c", "F"}, True),
    ("sdof_two_stop_extended_sindy.json", {"k", "c", "F"}, True),
    ("sdof_two_stop_extended_sindy_grid.json", {"k", "c", "F"}, False),
    ("sdof_two_stop_least_squares.json", {"k", "c", "F"}, True),
    ("sdof_joint_terms.json", {"sgn(x2)"}, True),
])
def test_parameters_and_intervals_are_in_one_place_for_every_method(config, names, held):
    """fit.parameters and fit.intervals (identified.json's "fit") wherever the method keeps them; the
    bundled extended SINDy config gives intervals, its grid twin (the seed's step 3) none"""
    fit = fivsim.identify(IDENTIFY / config, set={"/options/device": "cpu"} if "grid" in config else None)
    assert set(fit.parameters) == names and set(fit.intervals) == names
    for name in names:
        if held:
            low, high = fit.intervals[name]
            assert low <= fit.parameters[name] <= high, (name, fit.intervals[name])
        else:
            assert fit.intervals[name] is None
    frame = fit.to_pandas()
    assert list(frame["parameter"]) == list(fit.parameters) and list(frame["value"]) == list(fit.parameters.values())
    # the truth of the two-stop record, where the fit is made for it
    if config == "sdof_two_stop_extended_sindy.json":
        truth = fit.identified["truth"]
        for name in names:
            assert fit.intervals[name][0] <= truth[name] <= fit.intervals[name][1]


def test_a_dict_config_reads_its_paths_from_base_dir():
    doc = json.loads((IDENTIFY / "sdof_continuous_sindy.json").read_text())
    with pytest.raises(fivsim.InputError) as e:
        fivsim.identify(doc)  # "../sdof_base_two_stop.json" from the working directory
    assert e.value.pointer == "/data/scenario" and "cannot be opened" in str(e.value)
    fit = fivsim.identify(doc, base_dir=IDENTIFY)
    assert fit.parameters == fivsim.identify(IDENTIFY / "sdof_continuous_sindy.json").parameters


def test_candidate_laws_come_back_ranked_as_a_dataframe(tmp_path):
    """the bundled candidate-law case over a 20 s record and three laws: the ranking best first, as
    identified.json's candidates say, and the CLI's files the same"""
    config = SOURCE / "scenarios" / "identify" / "belt_law_candidates.json"
    laws = ["coulomb", "stribeck_rational", "stribeck_exp"]
    sets = {"/data/t_end": 20.0, "/candidates": laws}
    fit = fivsim.identify(config, set=sets)
    ranking = fit.to_pandas("ranking")
    assert list(ranking["law"]) == ["stribeck_exp", "stribeck_rational", "coulomb"]
    assert list(ranking["rank"]) == [1, 2, 3]
    assert ranking["delta_bic"].iloc[0] == 0.0 and (ranking["delta_bic"].iloc[1:] > 10).all()
    assert abs(ranking["akaike_weight"].sum() - 1.0) < 1e-12
    assert fit.warnings == []
    assert set(fit.parameters) == {"/friction/mu_s", "/friction/mu_d", "/friction/alpha"}
    out = tmp_path / "laws"
    r = cli("identify", config, "--out", out, *[f"--set={p}={json.dumps(v)}" for p, v in sets.items()])
    assert r.returncode == 0, r.stderr
    assert without_clocks(fit.identified) == without_clocks(json.loads((out / "identified.json").read_text()))
    # a config without candidates has no ranking
    with pytest.raises(ValueError, match="no ranking"):
        fivsim.identify(CONFIG, set=SET).to_pandas("ranking")
