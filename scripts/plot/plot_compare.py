#!/usr/bin/python3
"""Draws a `fivsim compare --series` folder like seed 000 Figs. 10–16: the time histories of a
displacement, a velocity and a contact force, and the phase plot (displacement against velocity),
every run over the event-driven reference. compare.json does not hold the scenario: the units are
those of --scenario, else of the translational models (m, m/s, N).

usage: scripts/plot/plot_compare.py COMPARE_DIR [--dof 0] [--contact 0] [--from T0] [--to T1]
                               [--runs moreau_dt0.01,irk10-interp_dt0.01] [--scenario FILE] [--out FILE.pdf]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()
import fivsim  # noqa: E402


def arguments():
    ap = parser(__doc__, "The figure options act on the displacement's panel; the title goes "
                    "above the panels.")
    ap.add_argument("folder", help="The output folder of `fivsim compare ... --series`.")
    ap.add_argument("--dof", type=int, default=0, help="The DoF whose q and u are drawn (default: 0).")
    ap.add_argument("--contact", type=int, default=0, help="The contact whose force is drawn (default: 0).")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="The start of the time window in s.")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="The end of the time window in s.")
    ap.add_argument("--runs", default="",
                    help="The series to draw, comma-separated file names of series/ without .csv (default: all).")
    ap.add_argument("--scenario", default=None,
                    help="The scenario compared, whose model gives the units (default: m, m/s and N).")
    plot.add_figure_options(ap, "COMPARE_DIR/compare.png")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        scenario = fivsim.load(a.scenario) if a.scenario else None
        fig = plot.compare_figure(a.folder, dof=a.dof, contact=a.contact, runs=[r for r in a.runs.split(",") if r],
                                  t_from=a.t0, t_to=a.t1, scenario=scenario, **plot.figure_options(a))
        out = plot.save(fig, a, default=os.path.join(a.folder, "compare.png"))
    except (OSError, ValueError) as e:
        # fivsim.InputError is a ValueError: a bad --scenario names its pointer
        sys.exit("plot_compare: %s" % e)
    print("wrote", out)
    return fig


if __name__ == "__main__":
    main()
