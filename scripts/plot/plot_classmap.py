#!/usr/bin/python3
"""Draws the class map of a two-parameter `fivsim sweep` (a grid over two swept values): one cell per
case, coloured by its class (periodic-1, periodic-2, …, quasi-periodic, chaotic, undetermined,
no-stick-slip, diverged), with the count of each class in the legend. With --curves, the
two-parameter curves of `fivsim continue` folders (curves.csv of a continuation with a "curves"
block over the same two parameters) are drawn over it, a line style per kind. The sweep is read
from cases.csv, or from results.h5 where it wrote only that.

usage: scripts/plot/plot_classmap.py SWEEP_DIR [--x /model/Fn] [--y /model/v0] [--out FILE.pdf]
                                     [--curves CONTINUATION_DIR ...]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()


def arguments():
    ap = parser(__doc__)
    ap.add_argument("folder", help="The output folder of `fivsim sweep` over two parameters.")
    ap.add_argument("--x", default=None, help="The parameter on the x axis (default: the first swept).")
    ap.add_argument("--y", default=None, help="The parameter on the y axis (default: the second swept).")
    ap.add_argument("--curves", nargs="*", default=[],
                    help="The folders of `fivsim continue` whose curves.csv is drawn over the map.")
    plot.add_figure_options(ap, "SWEEP_DIR/classmap.png")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        ax = plot.classmap(a.folder, x=a.x, y=a.y, curves=a.curves or None, **plot.figure_options(a))
        out = plot.save(ax.figure, a, default=os.path.join(a.folder, "classmap.png"))
    except (OSError, ValueError) as e:
        sys.exit("plot_classmap: %s" % e)
    print("wrote", out)
    return ax.figure


if __name__ == "__main__":
    main()
