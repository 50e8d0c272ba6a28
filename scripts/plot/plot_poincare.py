#!/usr/bin/python3
"""Draws the Poincaré maps of chosen cases of a `fivsim sweep` folder, like the inset of seed 001
Fig. 5. Per case it draws the section samples in the plane of two coordinates (left) and the
return map x(n) → x(n+1) of the first (right); each case's title gives its class and swept values
with their units. The cases are given by number (--cases) or as those nearest some values of a
swept parameter (--param-values). The sweep is read from cases.csv and points.csv, or from
results.h5 where it wrote only that.

usage: scripts/plot/plot_poincare.py SWEEP_DIR --cases 12,345 [--kind poincare] [--x q0] [--y u0]
                                [--out FILE.pdf]
       scripts/plot/plot_poincare.py SWEEP_DIR --param-values /model/Fn=11,15,24
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()


def arguments():
    ap = parser(__doc__, "The figure options act on every section plane; the title goes above them.")
    ap.add_argument("folder", help="The output folder of `fivsim sweep`.")
    ap.add_argument("--cases", default="", help="The case numbers to draw, comma-separated.")
    ap.add_argument("--param-values", default="",
                    help="PATH=v1,v2,...: draws the cases whose swept value PATH is nearest these values.")
    ap.add_argument("--kind", default="poincare",
                    help="The points to draw: poincare or a transition kind such as stick_to_slip@0 (default: "
                         "poincare).")
    ap.add_argument("--x", default="q0", help="The horizontal coordinate of the section plane (default: q0).")
    ap.add_argument("--y", default="u0", help="The vertical coordinate of the section plane (default: u0).")
    plot.add_figure_options(ap, "SWEEP_DIR/poincare.png")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        cases = [int(c) for c in a.cases.split(",") if c]
        if a.param_values:
            path, _, values = a.param_values.partition("=")
            cases += plot.nearest_cases(a.folder, path, [float(v) for v in values.split(",")])
        if not cases:
            sys.exit("plot_poincare: give --cases or --param-values")
        fig = plot.poincare_figure(a.folder, cases, kind=a.kind, x=a.x, y=a.y, **plot.figure_options(a))
        out = plot.save(fig, a, default=os.path.join(a.folder, "poincare.png"))
    except (OSError, ValueError) as e:
        sys.exit("plot_poincare: %s" % e)
    print("wrote", out)
    return fig


if __name__ == "__main__":
    main()
