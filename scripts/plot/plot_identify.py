#!/usr/bin/python3
"""Draws the measured against the identified response of one or more `fivsim identify` folders
(seed 003 Fig. 2). Per folder it draws the record's x(t) with the response of every identified
equation, each one's RMSE in the legend in the axis' unit, and beside it, not over the data, every
estimate with its 95 % interval (docs/IDENTIFY.md); --window T0 T1 draws only that time span. With
--bounds it draws the extended-SINDy bound surfaces of one folder instead (seed 003 Fig. 3): the
distance D = |Φ2 − Φ1| over the (k̂, ĉ) grid with its minimum (and the truth, when known), and Φ1,
Φ2 along k̂ at the chosen ĉ*. With --laws it draws the candidate laws of one folder (an
identification with a candidates list): each fitted μ against the sliding speed, ranked by BIC,
over the record's own friction. A `pinn` folder (seed 002 Fig. 17) gets three panels: the record
beside N1's response, N2's torque beside the record's friction when known, and the torque's error.

usage: scripts/plot/plot_identify.py DIR [DIR ...] [--window 10 14] [--out FILE.pdf]
       scripts/plot/plot_identify.py DIR --bounds [--out FILE.pdf]
       scripts/plot/plot_identify.py DIR --laws [--out FILE.pdf]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()


def arguments():
    ap = parser(__doc__, "The figure options act on every response panel (the title on the first), "
                    "or on the grid's panel with --bounds.")
    ap.add_argument("folders", nargs="+", help="The output folders of `fivsim identify`.")
    ap.add_argument("--window", nargs=2, type=float, default=None, metavar=("T0", "T1"),
                    help="Draws only the time span from T0 to T1 in s.")
    ap.add_argument("--bounds", action="store_true",
                    help="Draws bounds.csv of the first folder (extended SINDy's grid step 3) instead.")
    ap.add_argument("--laws", action="store_true",
                    help="Draws laws.csv of the first folder (its candidate laws against the record) instead.")
    plot.add_figure_options(ap, "FIRST_DIR/response.png, or FIRST_DIR/bounds.png with --bounds, "
                                "FIRST_DIR/laws.png with --laws")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        if a.bounds:
            fig = plot.identify_bounds(a.folders[0], **plot.figure_options(a))
        elif a.laws:
            fig = plot.identify_laws(a.folders[0], **plot.figure_options(a)).figure
        else:
            fig = plot.identify_figure(a.folders, window=a.window, **plot.figure_options(a))
        name = "bounds.png" if a.bounds else "laws.png" if a.laws else "response.png"
        out = plot.save(fig, a, default=os.path.join(a.folders[0], name))
    except (OSError, ValueError) as e:
        sys.exit("plot_identify: %s" % e)
    print("wrote", out)
    return fig


if __name__ == "__main__":
    main()
