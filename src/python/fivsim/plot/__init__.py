"""fivsim.plot: the figures of a sweep, a continuation, a run, a comparison and an identification,
drawn on a matplotlib Axes from a result of the Python API (fivsim.sweep, .continuation, .run,
.compare, .identify) or from the command line's output folder, with axis names and units read from
the scenario (label("/model/Fn", scenario) == "Fn [N]"). The scripts in scripts/plot/ are these
functions behind a command line that add_figure_options() and save() give every one of them.

    import fivsim, fivsim.plot
    sw = fivsim.sweep("scenarios/chain2_load_sweep.json", set={"/sweep/parameters/0/linspace": [1, 30, 200]})
    ax = fivsim.plot.bifurcation(sw, coord="q0")            # or bifurcation("runs/chain2_load_sweep")
    fivsim.plot.save(ax.figure, "diagram.pdf")              # PDF, SVG or PNG by the suffix

Each function draws on `ax` (None: a new figure) and returns it; the *_figure functions lay out
several panels and return the Figure. Every one takes xlabel, ylabel, xlim, ylim and title
(title="" for none) over what it would draw.

The package's modules, each one job: labels (names, units, colours), results (a result or a folder
read alike), figure (the Axes, the scripts' options, save), sweep, branches (a continuation), runs
(a run, a comparison) and identification. Import the functions from fivsim.plot itself.
"""

from .branches import check_continuation, continuation, curves
from .figure import add_figure_options, figure_options, save
from .identification import identify, identify_bounds, identify_figure, identify_laws, identify_pinn
from .labels import attractor_style, class_colour, class_order, label
from .runs import compare, compare_figure, phase, timeseries, timeseries_figure
from .sweep import (basin_stability, basins, basins_figure, bifurcation, bifurcation_figure, classmap, nearest_cases,
                    poincare, poincare_figure, return_map)
# the tables of colours, markers and file formats: public, though not in __all__
from .branches import BIFURCATION_MARKERS  # noqa: F401
from .figure import FORMATS  # noqa: F401
from .labels import CLASS_COLOURS  # noqa: F401

__all__ = [
    "label", "class_colour", "class_order", "attractor_style",
    "bifurcation", "bifurcation_figure", "basins", "basin_stability", "basins_figure",
    "classmap", "curves", "continuation", "check_continuation",
    "poincare", "return_map", "nearest_cases", "poincare_figure",
    "timeseries", "phase", "timeseries_figure", "compare", "compare_figure",
    "identify", "identify_figure", "identify_bounds", "identify_pinn", "identify_laws",
    "add_figure_options", "figure_options", "save",
]
