#!/usr/bin/python3
"""Draws the basins of attraction of a `fivsim sweep` over initial conditions (random or on a grid).
Each start is drawn at its two swept initial values in the colour and marker of the attractor its
case reached, so that two coexisting attractors of one class are told apart, with each
attractor's basin stability (its share of the starts and the standard error, basins.csv) in the
legend. Where the sweep also varies a parameter (initial conditions drawn at each of its values),
a second panel draws each attractor's basin stability against it, one line per attractor number
(an attractor keeps its number while it continues), and the starts are those at one value (--at,
default the value with the most attractors). The sweep is read from cases.csv, or from results.h5
where it wrote only that, with attractors.csv and basins.csv.

usage: scripts/plot/plot_basins.py SWEEP_DIR [--x /initial/q/0] [--y /initial/u/0] [--at VALUE]
                                   [--out FILE.pdf]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()


def arguments():
    ap = parser(__doc__, "The figure options act on the panel of the starts.")
    ap.add_argument("folder", help="The output folder of `fivsim sweep` over initial conditions.")
    ap.add_argument("--x", default=None, help="The initial value on the x axis (default: the first swept).")
    ap.add_argument("--y", default=None, help="The initial value on the y axis (default: the second swept).")
    ap.add_argument("--at", type=float, default=None,
                    help="The value of the other swept parameter whose starts are drawn (default: the value with "
                         "the most attractors).")
    plot.add_figure_options(ap, "SWEEP_DIR/basins.png")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        fig = plot.basins_figure(a.folder, x=a.x, y=a.y, at=a.at, **plot.figure_options(a))
        out = plot.save(fig, a, default=os.path.join(a.folder, "basins.png"))
    except (OSError, ValueError) as e:
        sys.exit("plot_basins: %s" % e)
    print("wrote", out)
    return fig


if __name__ == "__main__":
    main()
