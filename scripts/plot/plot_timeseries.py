#!/usr/bin/python3
"""Draws a `fivsim run` folder in four panels: the displacement and the velocity of each DoF against
time with the states of contact 0 shaded (stick blue, separated grey), the contact forces, and the
phase plot of DoF 0 with its stick-slip events marked. Names and units come from the scenario
(rad for the torsion pendulum).

usage: scripts/plot/plot_timeseries.py RUN_DIR [--from T0] [--to T1] [--out FILE.pdf]
"""
import os
import sys

from find_fivsim import fivsim_plot, parser

plot = fivsim_plot()


def arguments():
    ap = parser(__doc__, "The figure options act on the displacements' panel; the title goes "
                    "above the panels.")
    ap.add_argument("run", help="The output folder of `fivsim run`.")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="The start of the time window in s.")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="The end of the time window in s.")
    plot.add_figure_options(ap, "RUN_DIR/timeseries.png")
    return ap


def main(argv=None):
    a = arguments().parse_args(argv)
    try:
        fig = plot.timeseries_figure(a.run, t_from=a.t0, t_to=a.t1, **plot.figure_options(a))
        out = plot.save(fig, a, default=os.path.join(a.run, "timeseries.png"))
    except (OSError, ValueError) as e:
        sys.exit("plot_timeseries: %s" % e)
    print("wrote", out)
    return fig


if __name__ == "__main__":
    main()
