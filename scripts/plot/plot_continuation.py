#!/usr/bin/python3
"""Draws the branches of `fivsim continue` folders against the continued parameter: stable points
solid, unstable dashed, a colour per family (equilibria, period-N orbits), each located
bifurcation marked (fold, Hopf, period doubling, torus, grazing), with a legend. An orbit's branch
is drawn through every section crossing of its orbit (orbit_points.csv), an equilibrium's through
its state (branches.csv). Several folders (continuations of the same parameter from different
starts) are drawn together. With --sweep the branches lie over that sweep's bifurcation diagram
(its Poincaré samples coloured by class; the sweep must sample the same section). With --curves
the two-parameter curves (curves.csv of a continuation with a "curves" block: folds, Hopf points,
period doublings followed in a second parameter) are drawn in the plane of the two parameters
instead.

With --check, every periodic-N case of the sweep inside the branches' range must lie on a stable
period-N branch: where its exact orbit decided its class (cases.csv's orbit columns), that orbit's
period within --period-tol (relative) of the branch's at the case's parameter; otherwise its last N
samples within --tol times each coordinate's range over the case's trajectory (the sweep's
periodic_tol) of the branch's orbit there (interpolated between the two branch points around it,
a branch stable up to the bifurcation located between them). The cases that do not are listed and
the exit status is 1.

usage: scripts/plot/plot_continuation.py CONT_DIR [CONT_DIR ...] [--sweep SWEEP_DIR] [--coord q0]
                                         [--out FILE.pdf] [--check] [--tol 1e-3] [--curves]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()
from fivsim import tables  # noqa: E402


def arguments():
    ap = parser(__doc__, "With --check, every periodic-N case of the sweep inside the branches' "
                    "range must lie on a stable period-N branch (its orbit's period within "
                    "--period-tol, or its last samples within --tol of the branch's orbit); "
                    "the cases that do not are listed and the exit status is 1.")
    ap.add_argument("folders", nargs="+", help="The output folders of `fivsim continue` (of the same parameter).")
    ap.add_argument("--sweep", default=None, help="A `fivsim sweep` folder over the same parameter to draw beneath.")
    ap.add_argument("--coord", default="q0",
                    help="The state coordinate on the y axis: q0, q1, u0, ... (default: q0).")
    ap.add_argument("--curves", action="store_true",
                    help="Draws the folders' two-parameter curves (curves.csv) instead of the branches.")
    ap.add_argument("--check", action="store_true",
                    help="With --sweep, checks that every periodic-N case lies on a stable period-N branch (exit 1 "
                         "where one does not).")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="The distance --check allows: this times each coordinate's range over the case's "
                         "trajectory, as the sweep's periodic_tol (default: 1e-3).")
    ap.add_argument("--period-tol", type=float, default=1e-4,
                    help="The relative distance --check allows between an orbit's period and the branch's, for "
                         "cases whose exact orbit decided their class (default: 1e-4).")
    plot.add_figure_options(ap, "FIRST_DIR/continuation.png, or FIRST_DIR/curves.png with --curves")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    if a.check and not a.sweep:
        sys.exit("plot_continuation: --check needs --sweep")
    try:
        if a.curves:
            ax = plot.curves(a.folders, **plot.figure_options(a))
        else:
            ax = plot.continuation(a.folders, coord=a.coord, sweep=a.sweep, **plot.figure_options(a))
        out = plot.save(ax.figure, a,
                        default=os.path.join(a.folders[0], "curves.png" if a.curves else "continuation.png"))
        print("wrote", out)
        if a.check:
            param = tables.read_continuation(a.folders[0]).report["parameter"]
            checked, failures = plot.check_continuation(a.folders, a.sweep, tol=a.tol, period_tol=a.period_tol)
    except (OSError, ValueError) as e:
        sys.exit("plot_continuation: %s" % e)
    if a.check:
        for case, x, name, d, what in failures:
            print("case %d (%s = %.6g, %s): %s from the nearest stable branch" %
                  (case, param, x, name, "no stable branch there" if d == float("inf") else
                   "%s %.3g tolerances" % (what, d)))
        print("check: %d of %d periodic cases on a stable branch of their period within %g of their ranges" %
              (checked - len(failures), checked, a.tol))
        if failures:
            sys.exit(1)
    return ax.figure


if __name__ == "__main__":
    main()
