#!/usr/bin/python3
"""The independent reference of `fivsim continue` at a smooth fold of cycles: a slider on a belt,
x'' + c x' + x = mu(v0 - x') with the Gaussian Stribeck law mu(w) = 0.5 + 0.5 exp(-w^2) + 0.1 w
(fivsim's `stribeck`: mu_s 1, mu_c 0.5, v_s 1, alpha 2, mu_v 0.1), belt speed v0 = 1.5, the viscous
damping c the parameter. Steady sliding loses stability where c equals the law's negative slope,
c_H = -mu'(1.5) = 1.5 exp(-2.25) - 0.1 = 0.0580988... (a subcritical Hopf point); the unstable
cycle born there grows with c until it meets the stable large cycle at a fold of cycles. Every cycle
on that stretch stays slower than the belt (pure slip, smooth), so the fold is a smooth one.

The fold is where the return map on the section x' = 0 (downwards) has a fixed point with slope 1.
For a planar flow that slope is the nontrivial Floquet multiplier, exp of the divergence integrated
over the period, div = -c - mu'(v0 - x') (Liouville): the fold is (x0, c) with P(x0) = x0 and
that integral zero, solved by Newton (scipy.optimize.fsolve) on SciPy's DOP853 at rtol 1e-13.
At belt speeds 1.45 and 1.55 the fold again: the ends of the fold's curve in the belt speed.
tests/cli/continue_command_test.cpp compares fivsim's branch and curves with what this prints.

usage: scripts/compare/smooth_fold_cycle.py
"""
import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq, fsolve

V0 = 1.5


def mu(w):
    return 0.5 + 0.5 * np.exp(-w * w) + 0.1 * w


def dmu(w):
    return -w * np.exp(-w * w) + 0.1


def rhs(t, y, c):
    x, u, _ = y
    return [u, -c * u - x + mu(V0 - u), -c - dmu(V0 - u)]


def section(t, y, c):
    return y[1]


section.direction = -1


def top(t, y, c):  # the largest velocity: where the acceleration falls through zero
    return rhs(t, y, c)[1]


top.direction = -1


def turn(x0, c):
    """(x on the next downward crossing of x' = 0, the integral of the divergence, the time, the
    largest velocity on the way)"""
    s = solve_ivp(rhs, [0, 20], [x0, 0.0, 0.0], args=(c,), events=[section, top], rtol=1e-13, atol=1e-14,
                  method="DOP853")
    for t, y in zip(s.t_events[0], s.y_events[0]):
        if t > 1e-6:
            return y[0], y[2], t, max(y[1] for y in s.y_events[1])
    raise RuntimeError("no return to the section from x0 = %r at c = %r" % (x0, c))


def cycle(c, guess):
    """the section point of the cycle near guess at c, and its largest velocity"""
    x0 = brentq(lambda x: turn(x, c)[0] - x, guess - 0.1, guess + 0.1, xtol=1e-15, rtol=1e-15)
    return x0, turn(x0, c)[3]


def fold_conditions(z):
    x0, c = z
    x1, div, _, _ = turn(x0, c)
    return [x1 - x0, div]


def fold_at(v0):
    """the fold of cycles at belt speed v0: (c, section point)"""
    global V0
    V0, keep = v0, V0
    x0, c = fsolve(fold_conditions, [v0 + 1.0, 0.09], xtol=1e-12)
    V0 = keep
    return c, x0


def main():
    c_hopf = -dmu(V0)
    x0, c = fsolve(fold_conditions, [1.5 + 1.0, 0.09], xtol=1e-12)
    x1, div, period, fastest = turn(x0, c)
    # the stable cycle below the fold grows until its largest velocity reaches the belt's: grazing
    grazing = brentq(lambda cc: cycle(cc, 2.36)[1] - V0, 0.078, 0.081, xtol=1e-14, rtol=1e-15)
    graze_x0, _ = cycle(grazing, 2.36)
    print("Hopf point of steady sliding: c = %.12f" % c_hopf)
    print("fold of cycles: c = %.12f, section point x = %.10f, period %.10f, largest velocity %.6f "
          "(belt %.1f), residual %.1e, divergence integral %.1e" % (c, x0, period, fastest, V0, x1 - x0, div))
    print("grazing of the stable cycle (largest velocity = belt speed): c = %.12f, section point x = %.10f"
          % (grazing, graze_x0))
    # the fold's curve in the belt speed (fivsim continue's "curves" block)
    for v0 in (1.45, 1.55):
        cf, xf = fold_at(v0)
        print("fold of cycles at belt speed %.2f: c = %.12f, section point x = %.10f" % (v0, cf, xf))


if __name__ == "__main__":
    main()
