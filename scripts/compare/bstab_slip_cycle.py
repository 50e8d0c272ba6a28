#!/usr/bin/python3
"""The independent reference of `fivsim continue` on bSTAB's friction oscillator: its pure-slip
cycle, x'' + 0.1 x' + x = 0.5 + 0.5 exp(-2 (v0 - x')) (the block slower than the belt throughout:
smooth, no stick), by SciPy's DOP853 at rtol 1e-13, shooting on the section x' = 0 (downwards) with
Brent's method, its multiplier by central differences of the return map, and the belt speed where
its largest velocity reaches the belt's (the grazing point, Brent again). The unstable cycle that
bounds the basin of steady sliding; at the grazing point it meets the stick-slip cycle and both end.
tests/cli/continue_command_test.cpp compares fivsim's branch with what this prints.

usage: scripts/compare/bstab_slip_cycle.py
"""
import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq


def rhs(t, y, v0):
    x, u = y
    return [u, -0.1 * u - x + 0.5 + 0.5 * np.exp(-2.0 * (v0 - u))]


def section(t, y, v0):
    return y[1]


section.direction = -1


def top(t, y, v0):  # the largest velocity: where the acceleration falls through zero
    return rhs(t, y, v0)[1]


top.direction = -1


def return_map(x0, v0):
    """(x after one turn, the turn's time, the largest velocity on it) from (x0, 0)"""
    s = solve_ivp(rhs, [0, 8], [x0, 0.0], args=(v0,), events=[section, top], rtol=1e-13, atol=1e-14,
                  method="DOP853")
    back = [(t, y) for t, y in zip(s.t_events[0], s.y_events[0]) if t > 1e-6]
    if not back:
        return np.nan, np.nan, np.nan
    return back[0][1][0], back[0][0], max([y[1] for y in s.y_events[1]] or [np.nan])


def cycle(v0, lo, hi):
    """the cycle's section point, period, largest velocity and multiplier, its point in [lo, hi]"""
    x = brentq(lambda z: return_map(z, v0)[0] - z, lo, hi, xtol=1e-14)
    _, period, top_speed = return_map(x, v0)
    h = 1e-6
    multiplier = (return_map(x + h, v0)[0] - return_map(x - h, v0)[0]) / (2 * h)
    return x, period, top_speed, multiplier


def bracket(v0):
    rest = 0.5 + 0.5 * np.exp(-2.0 * v0)
    xs = np.linspace(rest + 0.05, rest + 1.3 * v0, 60)
    g = [return_map(x, v0)[0] - x for x in xs]
    k = next(k for k in range(len(xs) - 1) if np.isfinite(g[k]) and np.isfinite(g[k + 1]) and g[k] * g[k + 1] < 0)
    return xs[k], xs[k + 1]


def main():
    for v0 in (1.5, 1.7):
        x, period, _, multiplier = cycle(v0, *bracket(v0))
        print("v0 %.1f: section point %.10f, period %.10f, multiplier %.6f" % (v0, x, period, multiplier))
    lo, hi = bracket(1.8366)
    grazing = brentq(lambda v0: cycle(v0, lo, hi)[2] - v0, 1.8364, 1.8368, xtol=1e-12)
    x, period, _, multiplier = cycle(grazing, lo, hi)
    print("grazing at v0 %.10f: section point %.10f, period %.10f, multiplier %.6f" % (grazing, x, period, multiplier))


if __name__ == "__main__":
    main()
