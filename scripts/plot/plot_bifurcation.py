#!/usr/bin/python3
"""Draws the bifurcation diagram of a `fivsim sweep` folder, like seed 001 Fig. 5. For every case it
draws its Poincaré samples (or its transition points) of one coordinate against the swept
parameter, a periodic case's from the time its samples settled, coloured by the case's class.
Several panels, one above the other, come from --panels KIND:COORD,... The axes are named with
the scenario's names and units; the sweep is read from cases.csv and points.csv, or from
results.h5 where it wrote only that.

usage: scripts/plot/plot_bifurcation.py SWEEP_DIR [--param /model/Fn]
                                   [--panels poincare:q0,stick_to_slip@0:q0,...] [--out FILE.pdf]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()


def arguments():
    ap = parser(__doc__, "The figure options act on the bottom panel; the title is the top one's.")
    ap.add_argument("folder", help="The output folder of `fivsim sweep`.")
    ap.add_argument("--param", default=None, help="The swept parameter on the x axis (default: the first).")
    ap.add_argument("--panels", default="poincare:q0",
                    help="The panels, comma-separated KIND:COORD, one each: KIND is poincare or a transition kind "
                         "such as stick_to_slip@0, COORD a column of points.csv such as q0 or u1 (default: "
                         "poincare:q0).")
    plot.add_figure_options(ap, "SWEEP_DIR/bifurcation.png")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        fig = plot.bifurcation_figure(a.folder, panels=a.panels.split(","), param=a.param, **plot.figure_options(a))
        out = plot.save(fig, a, default=os.path.join(a.folder, "bifurcation.png"))
    except (OSError, ValueError) as e:
        sys.exit("plot_bifurcation: %s" % e)
    print("wrote", out)
    return fig


if __name__ == "__main__":
    main()
