"""tests/python/test_plot.py — fivsim.plot and the scripts in scripts/plot/: every plot function on
in-memory results of fivsim.sweep / continuation / run / compare / identify (tiny sizes) and on the
command line's folders, every script run as a reader runs it, and what a journal needs of them:
axis names and units from the scenario read back from the figure ("Fn [N]", "q0 [rad]"), the file
in the format its suffix asks for (PDF, SVG, PNG), one colour per attractor (two coexisting
periodic-1 attractors apart), the scripts' shared figure options and --help in whole sentences.

Run by ctest (Python.test_plot) with PYTHONPATH=<build>/python, FIVSIM_BINARY and FIVSIM_SOURCE_DIR.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import fivsim  # noqa: E402
import fivsim.plot as fp  # noqa: E402
from fivsim import tables  # noqa: E402

SOURCE = Path(os.environ.get("FIVSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY = os.environ.get("FIVSIM_BINARY", str(SOURCE / "build" / "fivsim"))
SCENARIOS = SOURCE / "scenarios"
SCRIPTS = SOURCE / "scripts" / "plot"
CHAIN = SCENARIOS / "chain2_bifurcation.json"

# two belt speeds, 16 starts each: at 0.3 m/s two periodic-1 attractors coexist
BASINS = {"/model/Fn": 20, "/sweep": {"mode": "grid", "samples": 16, "parameters": [
    {"path": "/model/v0", "values": [0.2, 0.3]}, {"path": "/initial/q/0", "range": [-2, 8]},
    {"path": "/initial/q/1", "range": [-2, 12]}]}}
# six loads around the first period doubling
LOADS = {"/sweep/parameters/0/linspace": [7, 9, 6]}
# a grid of three loads and two belt speeds
GRID = {"/sweep": {"mode": "grid", "parameters": [{"path": "/model/Fn", "linspace": [7, 9, 3]},
                                                  {"path": "/model/v0", "values": [0.29, 0.3]}]}}
# the period-1 orbit in the load, its period doubling followed in the belt speed
DOUBLING = {"/continuation": {"parameter": "/model/Fn", "range": [7, 8.3], "start": "orbit", "direction": "down",
                              "doublings": 0, "curves": {"parameter": "/model/v0", "range": [0.29, 0.3]}}}
# bSTAB's steady sliding in the belt speed: a Hopf point
SLIDING = {"/continuation": {"parameter": "/model/v0", "range": [1, 2]}}
RUN = {"/integrator/t_end": 20}
EXTENDED = SCENARIOS / "identify" / "sdof_two_stop_extended_sindy.json"
GRID_SINDY = SCENARIOS / "identify" / "sdof_two_stop_extended_sindy_grid.json"
SHORT_RECORD = {"/data/t_end": 8}
LAWS = SCENARIOS / "identify" / "belt_law_candidates.json"
THREE_LAWS = {"/data/t_end": 10, "/candidates": ["coulomb", "stribeck_rational", "stribeck_exp"]}

MAGIC = {".pdf": b"%PDF", ".png": b"\x89PNG\r\n\x1a\n", ".svg": b"<svg"}


def cli(*args):
    r = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def sets(overrides):
    return [f"--set={p}={json.dumps(v)}" for p, v in overrides.items()]


def assert_format(path):
    """the file holds what its suffix names"""
    data = Path(path).read_bytes()
    suffix = Path(path).suffix
    assert (MAGIC[suffix] in data[:4096]) if suffix == ".svg" else data.startswith(MAGIC[suffix]), path


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# --- the data: in memory, and the same as the command line's folders -------------------------
@pytest.fixture(scope="module")
def memory():
    return {
        "basins": fivsim.sweep(CHAIN, set=BASINS, threads=2),
        "loads": fivsim.sweep(CHAIN, set=LOADS, threads=2),
        "grid": fivsim.sweep(CHAIN, set=GRID, threads=2),
        "doubling": fivsim.continuation(CHAIN, set=DOUBLING, threads=2),
        "sliding": fivsim.continuation(SCENARIOS / "bstab_friction.json", set=SLIDING),
        "run": fivsim.run(SCENARIOS / "model1_slow_stribeck.json", set=RUN),
        "torsion": fivsim.run(SCENARIOS / "torsion_pendulum_lugre.json", set={"/integrator/t_end": 1}),
        "compare": fivsim.compare(SCENARIOS / "model2_example2.json", methods=["moreau"], dt=[1e-3], series=True),
        "identify": fivsim.identify(EXTENDED, set=SHORT_RECORD),
        "pinn": fivsim.identify(SCENARIOS / "identify" / "torsion_pendulum_pinn.json",
                                set={"/options/adam_iter": 10, "/options/max_iter": 5, "/data/t_end": 4}),
        "laws": fivsim.identify(LAWS, set=THREE_LAWS),
    }


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("folders")
    f = {name: root / name for name in ("basins", "basins_h5", "loads", "grid", "doubling", "sliding", "run",
                                        "compare", "identify", "bounds", "laws")}
    cli("sweep", CHAIN, "-q", "--threads", "2", "--out", f["basins"], *sets(BASINS))
    cli("sweep", CHAIN, "-q", "--threads", "2", "--format", "h5", "--out", f["basins_h5"], *sets(BASINS))
    cli("sweep", CHAIN, "-q", "--threads", "2", "--out", f["loads"], *sets(LOADS))
    cli("sweep", CHAIN, "-q", "--threads", "2", "--out", f["grid"], *sets(GRID))
    cli("continue", CHAIN, "-q", "--threads", "2", "--out", f["doubling"], *sets(DOUBLING))
    cli("continue", SCENARIOS / "bstab_friction.json", "-q", "--out", f["sliding"], *sets(SLIDING))
    cli("run", SCENARIOS / "model1_slow_stribeck.json", "-q", "--out", f["run"], *sets(RUN))
    cli("compare", SCENARIOS / "model2_example2.json", "--methods", "moreau", "--dt", "1e-3", "--series", "--out",
        f["compare"])
    cli("identify", EXTENDED, "--out", f["identify"], *sets(SHORT_RECORD))
    cli("identify", GRID_SINDY, "--out", f["bounds"], *sets(SHORT_RECORD))
    cli("identify", LAWS, "--out", f["laws"], *sets(THREE_LAWS))
    return f


# --- names and units --------------------------------------------------------------------------
def test_labels_name_and_unit_from_the_scenario():
    assert fp.label("/model/Fn") == "Fn [N]"
    assert fp.label("/model/v0") == "v0 [m/s]"
    assert fp.label("/initial/q/0") == "q0 [m]"
    assert fp.label("/initial/u/1") == "u1 [m/s]"
    assert fp.label("/friction/mu_s") == "μs [–]"
    assert fp.label("/friction/delta") == "δ [s/m]"
    assert fp.label("/model/Fn/1") == "Fn1 [N]"
    assert fp.label("t") == "t [s]"
    assert fp.label("lamN0") == "λN0 [N]"
    torsion = fivsim.load(SCENARIOS / "torsion_pendulum_lugre.json")
    assert fp.label("q0", torsion) == "q0 [rad]"
    assert fp.label("u0", torsion) == "u0 [rad/s]"
    assert fp.label("/friction/sigma0", torsion) == "σ0 [N m/rad]"
    assert fp.label("/model/input/amplitude", torsion) == "A [rad/s]"
    assert fp.label("/friction/alpha", {"friction": {"law": "stribeck"}}) == "α [–]"
    assert fp.label("/friction/alpha", {"friction": {"law": "stribeck_exp"}}) == "α [s/m]"
    # a pointer the table does not know: its last name, never the pointer
    assert fp.label("/model/unknown_key") == "unknown_key"
    assert "/" not in fp.label("/model/contacts/0/friction/unheard_of")


# --- sweeps: basins per attractor ---------------------------------------------------------------
def test_basins_one_colour_per_attractor(memory):
    sw = memory["basins"]
    ax = fp.basins(sw)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("q0 [m]", "q1 [m]")
    assert ax.get_title() == "chain2_bifurcation: 16 starts at v0 = 0.3 m/s"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [t.split(":")[0] for t in labels] == ["#2 periodic-1", "#3 periodic-1"]
    # the two periodic-1 attractors in colours and markers of their own
    colours = [tuple(c.get_facecolor()[0]) for c in ax.collections]
    assert len(set(colours)) == 2
    assert fp.attractor_style(2) != fp.attractor_style(3)
    # at the other speed: the periodic-2 attractor alone
    ax = fp.basins(sw, at=0.2)
    assert [t.get_text().split(":")[0] for t in ax.get_legend().get_texts()] == ["#1 periodic-2"]


def test_basin_stability_a_line_per_attractor(memory):
    ax = fp.basin_stability(memory["basins"], at=0.3)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("v0 [m/s]", "basin stability [–]")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["#1 periodic-2", "#2 periodic-1",
                                                                   "#3 periodic-1"]
    lines = [c.lines[0] for c in ax.containers]
    assert len({ln.get_color() for ln in lines}) == 3
    # each attractor's fractions where it lives: #2 and #3 only at 0.3, their shares adding to 1
    by_label = {c.get_label(): c.lines[0].get_data() for c in ax.containers}
    assert list(by_label["#2 periodic-1"][0]) == [0.3]
    assert by_label["#2 periodic-1"][1][0] + by_label["#3 periodic-1"][1][0] == pytest.approx(1.0)


def test_basins_from_the_folders_as_from_memory(memory, folders):
    fig = fp.basins_figure(folders["basins"])
    stability, starts = fig.axes[0], fig.axes[1]
    assert stability.get_xlabel() == "v0 [m/s]"
    assert starts.get_xlabel() == "q0 [m]"
    mem = fp.basins(memory["basins"])
    assert [t.get_text() for t in starts.get_legend().get_texts()] == \
        [t.get_text() for t in mem.get_legend().get_texts()]
    # results.h5 alone: the same picture
    h5 = fp.basins(folders["basins_h5"])
    assert [t.get_text() for t in h5.get_legend().get_texts()] == [t.get_text() for t in mem.get_legend().get_texts()]
    rows = tables.table_rows(folders["basins_h5"], "cases")
    csv_rows = tables.table_rows(folders["basins"], "cases")
    assert [r["class"] for r in rows] == [r["class"] for r in csv_rows]
    assert [int(r["case"]) for r in rows] == [int(r["case"]) for r in csv_rows]


# --- sweeps: diagram, Poincaré maps, class map ----------------------------------------------------
def test_bifurcation_and_poincare(memory, folders):
    sw = memory["loads"]
    ax = fp.bifurcation(sw, coord="q1")
    assert ax.get_xlabel() == "Fn [N]"
    assert ax.get_ylabel() == "q1 [m] at the Poincaré section"
    assert ax.get_title() == "chain2_bifurcation: 6 cases"
    fig = fp.bifurcation_figure(folders["loads"], panels=["poincare:q1", "stick_to_slip@0:q0"], xlabel="load")
    assert fig.axes[1].get_ylabel() == "q0 [m] at break-away of contact 0"
    assert (fig.axes[0].get_xlabel(), fig.axes[1].get_xlabel()) == ("", "load")
    cases = fp.nearest_cases(sw, "/model/Fn", [7, 9])
    assert cases == [0, 5]
    ax = fp.poincare(sw, cases[1], x="q0", y="q1")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("q0 [m]", "q1 [m]")
    assert ax.get_title().startswith("case 5: periodic-1 (Fn = 9 N")
    ax = fp.return_map(sw, cases[1])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("q0(n) [m]", "q0(n+1) [m]")
    fig = fp.poincare_figure(sw, cases, title="two loads")
    assert len(fig.axes) == 4 and fig._suptitle.get_text() == "two loads"


def test_classmap_with_curves(memory, folders):
    ax = fp.classmap(memory["grid"], curves=memory["doubling"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Fn [N]", "v0 [m/s]")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "period doubling" in labels and any(t.startswith("periodic-1 (") for t in labels)
    ax = fp.classmap(folders["grid"], curves=[folders["doubling"]], ylim=(0.28, 0.31), title="")
    assert ax.get_ylim() == (0.28, 0.31) and ax.get_title() == ""
    with pytest.raises(ValueError, match="two"):
        fp.classmap(memory["loads"])


# --- continuation -----------------------------------------------------------------------------
def test_continuation_branches_and_curves(memory, folders):
    ax = fp.continuation(memory["doubling"], sweep=memory["loads"])
    assert ax.get_xlabel() == "Fn [N]"
    assert ax.get_ylabel() == "q0 [m] at the section"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    for word in ("period-1 orbits", "stable", "unstable", "period doubling", "sweep: periodic-1"):
        assert word in labels
    styles = {ln.get_linestyle() for ln in ax.lines if len(ln.get_xdata()) > 1}
    assert {"-", "--"} <= styles
    ax = fp.continuation(folders["sliding"])
    assert ax.get_ylabel() == "q0 [m] at equilibrium"
    assert "Hopf" in [t.get_text() for t in ax.get_legend().get_texts()]
    ax = fp.curves(memory["doubling"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Fn [N]", "v0 [m/s]")
    checked, failures = fp.check_continuation(memory["doubling"], memory["loads"])
    assert checked >= 1 and failures == []
    with pytest.raises(ValueError, match="no curves"):
        fp.curves(folders["sliding"])


# --- a run, a comparison, an identification -----------------------------------------------------
def test_run_panels_in_the_models_units(memory, folders):
    ax = fp.timeseries(memory["run"], columns=["q0"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("t [s]", "q0 [m]")
    ax = fp.phase(memory["run"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("q0 [m]", "u0 [m/s]")
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"stick → slip", "slip → stick"}
    fig = fp.timeseries_figure(folders["run"], t_from=5, t_to=15)
    assert [a.get_ylabel() for a in fig.axes] == ["q0 [m]", "λN0, λT0 [N]", "u0 [m/s]", "u0 [m/s]"]
    fig = fp.timeseries_figure(memory["torsion"])
    assert fig.axes[0].get_ylabel() == "q0 [rad]" and fig.axes[2].get_ylabel() == "u0 [rad/s]"


def test_compare_panels(memory, folders):
    ax = fp.compare(memory["compare"], y="u0")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("t [s]", "u0 [m/s]")
    assert len(ax.lines) == 2
    # compare.json holds no scenario: the caller's gives the units
    ax = fp.compare(memory["compare"], y="q0", scenario={"model": {"type": "torsion_pendulum"}})
    assert ax.get_ylabel() == "q0 [rad]"
    fig = fp.compare_figure(folders["compare"], t_from=1, t_to=2)
    assert fig.axes[3].get_xlabel() == "q0 [m]" and fig.axes[2].get_ylabel() == "λN0 [N]"


def test_identify_keeps_the_intervals_off_the_data(memory, folders):
    fig = fp.identify_figure(memory["identify"], window=(4, 6))
    data, text = fig.axes
    assert data.get_ylabel() == "x [mm]" and data.get_xlabel() == "t [s]"
    # the RMSE in the axis' unit, the intervals on their own panel
    assert all("mm)" in t.get_text() for t in data.get_legend().get_texts() if "RMSE" in t.get_text())
    assert len(data.texts) == 0 and "95 % intervals" in text.texts[0].get_text() and not text.axison
    fig = fp.identify_bounds(folders["bounds"])
    assert fig.axes[0].get_xlabel() == "ĉ"
    fig = fp.identify_pinn(memory["pinn"])
    assert [a.get_ylabel() for a in fig.axes] == ["φ2 [rad]", "τf [N m]", "τf − friction [N m]"]


def test_candidate_laws_are_drawn_best_first_over_the_records_friction(memory, folders):
    for source in (memory["laws"], folders["laws"]):
        ax = fp.identify_laws(source)
        assert ax.get_xlabel() == "sliding speed |v − v_belt| [m/s]" and ax.get_ylabel() == "μ [–]"
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert texts[0] == "record: |F_f| / Fn"
        assert texts[1].startswith("1. stribeck_exp (ΔBIC 0,") and texts[2].startswith("2. stribeck_rational")
        assert len(texts) == 4
    with pytest.raises(ValueError, match="no candidate laws"):
        fp.identify_laws(memory["identify"])


# --- files --------------------------------------------------------------------------------------
def test_save_writes_the_format_of_the_suffix(memory, tmp_path):
    ax = fp.bifurcation(memory["loads"])
    for suffix in (".pdf", ".svg", ".png"):
        path = fp.save(ax.figure, tmp_path / ("diagram" + suffix), dpi=72)
        assert_format(path)
    with pytest.raises(ValueError, match="suffix"):
        fp.save(ax.figure, tmp_path / "diagram.jpg")


# --- the scripts --------------------------------------------------------------------------------
def script(name):
    """a script of scripts/plot/ as a module, to call its main() in this process"""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_script(name, *args):
    return subprocess.run([sys.executable, str(SCRIPTS / (name + ".py")), *map(str, args)], capture_output=True,
                          text=True, env={**os.environ, "MPLBACKEND": "Agg"})


def script_runs(folders):
    """every script, with the arguments of one run on the folders"""
    return {
        "plot_bifurcation": [folders["loads"], "--panels", "poincare:q1,stick_to_slip@0:q0"],
        "plot_basins": [folders["basins"], "--at", "0.3"],
        "plot_classmap": [folders["grid"], "--curves", folders["doubling"]],
        "plot_continuation": [folders["doubling"], "--sweep", folders["loads"], "--check"],
        "plot_poincare": [folders["loads"], "--param-values", "/model/Fn=7,9"],
        "plot_timeseries": [folders["run"], "--from", "5", "--to", "15"],
        "plot_compare": [folders["compare"], "--from", "1", "--to", "2", "--scenario",
                         SCENARIOS / "model2_example2.json"],
        "plot_identify": [folders["identify"], "--window", "4", "6"],
    }


def test_every_script_writes_its_figure(folders, tmp_path):
    runs = script_runs(folders)
    assert sorted(runs) == sorted(p.stem for p in SCRIPTS.glob("plot_*.py"))
    suffixes = [".pdf", ".svg", ".png"]
    for i, (name, args) in enumerate(sorted(runs.items())):
        out = tmp_path / (name + suffixes[i % 3])
        r = run_script(name, *args, "--out", out, "--dpi", "60", "--size", "6,4")
        assert r.returncode == 0, (name, r.stderr)
        assert r.stdout.startswith("wrote ") and str(out) in r.stdout
        assert_format(out)
    r = run_script("plot_identify", folders["bounds"], "--bounds", "--out", tmp_path / "bounds.png", "--dpi", "60")
    assert r.returncode == 0, r.stderr
    assert_format(tmp_path / "bounds.png")
    r = run_script("plot_identify", folders["laws"], "--laws", "--out", tmp_path / "laws.pdf", "--dpi", "60")
    assert r.returncode == 0, r.stderr
    assert_format(tmp_path / "laws.pdf")
    r = run_script("plot_continuation", folders["doubling"], "--curves", "--out", tmp_path / "curves.svg")
    assert r.returncode == 0, r.stderr
    assert_format(tmp_path / "curves.svg")


def test_scripts_label_axes_and_take_the_figure_options(folders, tmp_path):
    fig = script("plot_bifurcation").main([str(folders["loads"]), "--out", str(tmp_path / "a.png"), "--dpi", "50"])
    assert fig.axes[-1].get_xlabel() == "Fn [N]"
    assert fig.axes[-1].get_ylabel() == "q0 [m] at the Poincaré section"
    fig = script("plot_basins").main([str(folders["basins"]), "--out", str(tmp_path / "b.pdf"), "--xlabel", "x",
                                      "--ylabel", "y", "--xlim=-3,9", "--ylim=-3,13", "--title", "",
                                      "--size", "7,3"])
    starts = fig.axes[1]
    assert (starts.get_xlabel(), starts.get_ylabel(), starts.get_title()) == ("x", "y", "")
    assert starts.get_xlim() == (-3, 9) and starts.get_ylim() == (-3, 13)
    assert tuple(fig.get_size_inches()) == (7, 3)
    assert fig.axes[0].get_xlabel() == "v0 [m/s]"
    fig = script("plot_timeseries").main([str(folders["run"]), "--out", str(tmp_path / "c.svg")])
    assert fig.axes[0].get_ylabel() == "q0 [m]" and fig.axes[2].get_xlabel() == "t [s]"
    fig = script("plot_continuation").main([str(folders["sliding"]), "--out", str(tmp_path / "d.png"), "--dpi", "50"])
    assert fig.axes[0].get_xlabel() == "v0 [m/s]"
    assert_format(tmp_path / "b.pdf")
    assert_format(tmp_path / "c.svg")


def test_scripts_check_and_fail_clearly(folders, tmp_path):
    r = run_script("plot_continuation", folders["doubling"], "--sweep", folders["loads"], "--check", "--tol",
                   "1e-16", "--period-tol", "1e-16", "--out", tmp_path / "c.png", "--dpi", "50")
    assert r.returncode == 1 and "from the nearest stable branch" in r.stdout
    r = run_script("plot_basins", folders["run"], "--out", tmp_path / "b.png")
    assert r.returncode == 1 and r.stderr.startswith("plot_basins: ")
    r = run_script("plot_timeseries", folders["run"], "--out", tmp_path / "t.jpg")
    assert r.returncode == 1 and ".png, .pdf or .svg" in r.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, str(SCRIPTS / "plot_classmap.py"), str(folders["grid"])], capture_output=True,
                       text=True, env={**env, "FIVSIM_BUILD_DIR": str(tmp_path / "no_build")})
    assert r.returncode == 1 and "build it" in r.stderr and "scripts/run.sh" in r.stderr


def test_script_help_is_whole_sentences():
    for path in sorted(SCRIPTS.glob("plot_*.py")):
        ap = script(path.stem).arguments()
        assert ap.description.endswith(".") and ap.description[0].isupper(), path.name
        assert not ap.epilog or ap.epilog.endswith("."), path.name
        for action in ap._actions:
            assert action.help and action.help[0].isupper() and action.help.endswith("."), (path.name, action.dest)
        for flag in ("--out", "--xlabel", "--ylabel", "--xlim", "--ylim", "--title", "--size", "--dpi"):
            assert flag in ap._option_string_actions, (path.name, flag)
