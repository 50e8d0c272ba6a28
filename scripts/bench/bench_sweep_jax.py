#!/usr/bin/env python3
"""JAX peer of fivsim's GPU sweep benchmark: Moreau time stepping of many independent cases.

Model (every case): a 2-DoF slider chain on a belt, m = (1, 1), springs k = (1, 1) (wall-slider 1,
slider 1-slider 2), no damping, belt speed v0 = 0.8, friction law stribeck_exp
mu(v) = mu_d + (mu_s - mu_d) exp(-alpha |v|) with mu_s = 0.12, mu_d = 0.045, alpha = 6. Per case:
the normal force Fn (the same on both sliders) and the initial positions q0; u0 = (0, 0).

One Moreau step of size dt, in fivsim's arithmetic order (integrate/moreau.hpp):
    h = -K q;  u_free = u + dt M^-1 h
    mu_i = mu(|u_i - v0|)                         (start-of-step slip velocity)
    bound_i = mu_i (Fn dt)
    P_i = clip(-m_i (u_free_i - v0), -bound_i, bound_i)   (the friction LCP's exact solution;
                                                           the two contacts are decoupled)
    u = u_free + M^-1 P;  q = q + dt u;  t_k = k dt
Statistics: RMS of q0, q1, u0, u1 over the states after steps k = 1..steps with k dt >= t_transient,
sqrt(sum of squares / count), the sum taken step by step as fivsim's RunningStats does.

The JAX side tries several formulations and keeps the fastest:
    tuple    the state as a tuple of (N,) arrays, lax.scan over steps (unroll U)
    stacked  the state as one (4, N) array, lax.scan over steps (unroll U)
    vmap     one case written with scalars and lax.scan, jax.vmap over the cases (unroll U)
    pallas   a Pallas (Triton) kernel: a block of cases per program, the whole time loop inside
             the kernel (U steps written out per loop trip); GPU only, skipped if it fails
All in float64 (jax_enable_x64). The transient is split off into its own loop, so the loop
bodies carry no mask. Compile and warm-up are excluded: each variant runs once, then `repeat`
timed runs (block_until_ready), and the median is kept.

--observers full keeps, besides the RMS, what fivsim's bifurcation observers keep of this model:
the contact state of each slider after each step (stick, or slip either way: fivsim's rule on
the end-of-step slip velocity), the number of state changes (transitions), the minimum and
maximum of q0, q1, u0, u1 and of the friction forces, and a ring of the last RING Poincare
samples (t, q, u) at the break-away of slider 0 after a stick of two steps or more (fivsim's
stick_to_slip section); the tuple, vmap and pallas formulations carry them (the ring as RING
masked slots per component, the way array code writes a ring without scatters). --check
compares them with a cases.csv of fivsim's default observers.

usage:
  bench_sweep_jax.py --cases N --steps S --dt 1e-3 [--t-transient T] [--repeat 3] [--json FILE]
                     [--formulations tuple,stacked,vmap,pallas] [--unrolls 1,4,8,16]
                     [--pallas-unrolls 1,4,8,16] [--blocks 128,256] [--seed 0] [--observers lean|full]
  bench_sweep_jax.py --check cases.csv --steps S --dt D --t-transient T [--formulation tuple]
  bench_sweep_jax.py --selftest
  any of them with --backend numpy: the same step function with numpy (vectorised over cases, a
  Python loop over steps) -- no JAX needed.
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys
import time

import numpy as np

MODEL = {"m": (1.0, 1.0), "k": (1.0, 1.0), "v0": 0.8, "mu_s": 0.12, "mu_d": 0.045, "alpha": 6.0}
XLA_FORMULATIONS = ("tuple", "stacked", "vmap")
ALL_FORMULATIONS = XLA_FORMULATIONS + ("pallas",)
FULL_FORMULATIONS = ("tuple", "vmap", "pallas")
CHECK_TOL = 1e-9


# --------------------------------------------------------------------------------------------
# the scheme, shared by numpy and jax.numpy

def make_step(xp, dt, model=MODEL):
    """One Moreau step for arrays of cases (any shape, numpy or jax.numpy): returns
    step(q0, q1, u0, u1, pn) -> (q0, q1, u0, u1), pn = Fn*dt the normal impulse of a step; the
    state part of make_full_step's step (XLA and Pallas drop what it leaves unused)."""
    full = make_full_step(xp, dt, model)

    def step(q0, q1, u0, u1, pn):
        return full(q0, q1, u0, u1, pn)[0]

    return step


STICK, SLIP_NEG, SLIP_POS = 1, 2, 3  # fivsim's contact states (free = 0 never occurs here)
STICK_TOL = 1e-9                      # fivsim's stick_tol: |slip velocity| below it is stick
RING = 8                              # Poincare samples kept per case (chain2_bench_random's points)
FULL_SERIES = ("q0", "q1", "u0", "u1", "lamT0", "lamT1")


def make_full_step(xp, dt, model=MODEL):
    """One Moreau step in fivsim's arithmetic order (integrate/moreau.hpp) for arrays of cases,
    returning also each slider's contact state after the step and the friction forces p/dt:
    step(q0, q1, u0, u1, pn) -> ((q0, q1, u0, u1), (s0, s1), (l0, l1))."""
    m0, m1 = model["m"]
    k1, k2 = model["k"]
    K00, K01, K10, K11 = k1 + k2, -k2, -k2, k2
    minv0, minv1 = 1.0 / m0, 1.0 / m1
    v0 = model["v0"]
    mu_d = model["mu_d"]
    dmu = model["mu_s"] - model["mu_d"]
    nalpha = -model["alpha"]

    def state(gamma_end):
        return xp.where(gamma_end > STICK_TOL, SLIP_POS, xp.where(gamma_end < -STICK_TOL, SLIP_NEG, STICK))

    def step(q0, q1, u0, u1, pn):
        h0 = -(K00 * q0) - K01 * q1
        h1 = -(K10 * q0) - K11 * q1
        uf0 = u0 + dt * (minv0 * h0)
        uf1 = u1 + dt * (minv1 * h1)
        mu0 = mu_d + dmu * xp.exp(nalpha * xp.abs(u0 - v0))
        mu1 = mu_d + dmu * xp.exp(nalpha * xp.abs(u1 - v0))
        b0 = mu0 * pn
        b1 = mu1 * pn
        g0, g1 = uf0 - v0, uf1 - v0
        p0 = xp.minimum(xp.maximum(-(m0 * g0), -b0), b0)
        p1 = xp.minimum(xp.maximum(-(m1 * g1), -b1), b1)
        u0 = uf0 + minv0 * p0
        u1 = uf1 + minv1 * p1
        q0 = q0 + dt * u0
        q1 = q1 + dt * u1
        return (q0, q1, u0, u1), (state(g0 + minv0 * p0), state(g1 + minv1 * p1)), (p0 / dt, p1 / dt)

    return step


def kinematic_states(xp, u0, u1, model=MODEL):
    """the sliders' states before the first step, from their slip velocities (fivsim's start)"""
    def state(v):
        return xp.where(v > STICK_TOL, SLIP_POS, xp.where(v < -STICK_TOL, SLIP_NEG, STICK))
    return state(u0 - model["v0"]), state(u1 - model["v0"])


def observers_start(xp, q0, states):
    """the full observers' carry for arrays of cases shaped like q0"""
    zero, izero = xp.zeros_like(q0), xp.zeros(q0.shape, dtype=xp.int32)
    inf = xp.full(q0.shape, np.inf)
    return {"c": tuple(states), "stick_from": izero, "transitions": izero, "seen": izero,
            "sum_sq": (zero,) * 6, "lo": (inf,) * 6, "hi": (-inf,) * 6,
            "ring": tuple((zero,) * RING for _ in range(5))}


def observe(xp, obs, k, dt, t_transient, values, states, settled):
    """one step's observations: `values` the six series after step k, `states` the sliders' new
    states; settled (a Python bool: the phase) keeps statistics, transitions and samples"""
    c0, c1 = obs["c"]
    s0, s1 = states
    out = dict(obs)
    out["c"] = (s0, s1)
    # slider 0's stick, and its break-away after a stick of two steps or more (the section)
    began = (s0 == STICK) & (c0 != STICK)
    out["stick_from"] = xp.where(began, k, obs["stick_from"])
    if not settled:
        return out
    out["transitions"] = obs["transitions"] + (s0 != c0).astype(xp.int32) + (s1 != c1).astype(xp.int32)
    out["sum_sq"] = tuple(a + v * v for a, v in zip(obs["sum_sq"], values))
    out["lo"] = tuple(xp.minimum(a, v) for a, v in zip(obs["lo"], values))
    out["hi"] = tuple(xp.maximum(a, v) for a, v in zip(obs["hi"], values))
    kf = xp.asarray(k, dtype=xp.float64)
    t, t_prev = kf * dt, (kf - 1.0) * dt
    brk = (c0 == STICK) & (s0 != STICK) & (k - obs["stick_from"] > 1) & (t_prev >= t_transient)
    slot = obs["seen"] % RING
    sample = (xp.zeros_like(values[0]) + t,) + tuple(values[:4])
    out["ring"] = tuple(tuple(xp.where(brk & (slot == j), x, r[j]) for j in range(RING))
                        for r, x in zip(obs["ring"], sample))
    out["seen"] = obs["seen"] + brk.astype(xp.int32)
    return out


def observers_result(xp, obs, n2):
    """rms, min, max of the six series, transitions, section samples seen, and the ring's samples
    oldest first (rows of (t, q0, q1, u0, u1), NaN where fewer than RING were seen)"""
    rms = tuple(xp.sqrt(a / n2) if n2 > 0 else xp.zeros_like(a) for a in obs["sum_sq"])
    return {"rms": rms, "lo": obs["lo"], "hi": obs["hi"], "transitions": obs["transitions"],
            "seen": obs["seen"], "ring": obs["ring"]}


def transient_start(steps, dt, t_transient):
    """The first step k in 1..steps whose time k*dt (fivsim: double(k)*dt) is >= t_transient,
    or steps + 1 when there is none."""
    k = max(1, int(math.floor(t_transient / dt)) - 2) if t_transient > 0 else 1
    while k > 1 and float(k - 1) * dt >= t_transient:
        k -= 1
    while k <= steps and float(k) * dt < t_transient:
        k += 1
    return min(k, steps + 1)


def phases(steps, dt, t_transient):
    """(steps before the statistics window, steps inside it)"""
    k0 = transient_start(steps, dt, t_transient)
    return k0 - 1, steps - (k0 - 1)


def run_numpy(q0, q1, u0, u1, fn, steps, dt, t_transient, return_state=False):
    """The scheme with numpy arrays of cases; returns the four RMS arrays (and the final state)."""
    step = make_step(np, dt)
    n1, n2 = phases(steps, dt, t_transient)
    st = tuple(np.array(x, dtype=np.float64) for x in (q0, q1, u0, u1))
    pn = np.asarray(fn, dtype=np.float64) * dt
    for _ in range(n1):
        st = step(*st, pn)
    sums = [np.zeros_like(st[0]) for _ in range(4)]
    for _ in range(n2):
        st = step(*st, pn)
        for i in range(4):
            sums[i] += st[i] * st[i]
    rms = tuple(np.sqrt(s / n2) if n2 > 0 else np.zeros_like(s) for s in sums)
    return (rms, st) if return_state else rms


def run_numpy_full(q0, q1, u0, u1, fn, steps, dt, t_transient):
    """the scheme with the full observers, numpy arrays of cases"""
    step = make_full_step(np, dt)
    n1, n2 = phases(steps, dt, t_transient)
    st = tuple(np.array(x, dtype=np.float64) for x in (q0, q1, u0, u1))
    pn = np.asarray(fn, dtype=np.float64) * dt
    obs = observers_start(np, st[0], kinematic_states(np, st[2], st[3]))
    for k in range(1, steps + 1):
        st, states, lam = step(*st, pn)
        obs = observe(np, obs, k, dt, t_transient, st + lam, states, k > n1)
    return observers_result(np, obs, n2)


# --------------------------------------------------------------------------------------------
# JAX

def import_jax():
    os.environ.setdefault("JAX_ENABLE_X64", "1")
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    if jnp.zeros(1).dtype != jnp.float64:
        sys.exit("bench_sweep_jax: float64 is not enabled in JAX (jax_enable_x64)")
    return jax, jnp


def build_jax(jax, jnp, formulation, unroll, n, steps, dt, t_transient, block=128):
    """A function (q0, q1, u0, u1, fn) -> (rms_q0, rms_q1, rms_u0, rms_u1), not yet jitted."""
    from jax import lax
    step = make_step(jnp, dt)
    n1, n2 = phases(steps, dt, t_transient)
    unroll = max(1, int(unroll))

    def scan(body, carry, length):
        if length == 0:
            return carry
        carry, _ = lax.scan(body, carry, None, length=length, unroll=min(unroll, length))
        return carry

    def finish(sums):
        if n2 == 0:
            return tuple(jnp.zeros_like(s) for s in sums)
        return tuple(jnp.sqrt(s / n2) for s in sums)

    if formulation in ("tuple", "vmap"):
        def run_tuple(q0, q1, u0, u1, fn):
            pn = fn * dt
            st = scan(lambda c, _: (step(*c, pn), None), (q0, q1, u0, u1), n1)

            def body(c, _):
                s, acc = c
                s = step(*s, pn)
                return (s, tuple(a + x * x for a, x in zip(acc, s))), None

            zero = jnp.zeros_like(q0)
            _, acc = scan(body, (st, (zero, zero, zero, zero)), n2)
            return finish(acc)

        return jax.vmap(run_tuple) if formulation == "vmap" else run_tuple

    if formulation == "stacked":
        def step_stacked(x, pn):
            return jnp.stack(step(x[0], x[1], x[2], x[3], pn))

        def run_stacked(q0, q1, u0, u1, fn):
            pn = fn * dt
            x = scan(lambda c, _: (step_stacked(c, pn), None), jnp.stack((q0, q1, u0, u1)), n1)

            def body(c, _):
                x, acc = c
                x = step_stacked(x, pn)
                return (x, acc + x * x), None

            _, acc = scan(body, (x, jnp.zeros_like(x)), n2)
            return finish((acc[0], acc[1], acc[2], acc[3]))

        return run_stacked

    if formulation == "pallas":
        return build_pallas(jax, jnp, step, unroll, n, n1, n2, dt, block)

    raise ValueError("unknown formulation %r" % formulation)


def build_jax_full(jax, jnp, formulation, unroll, n, steps, dt, t_transient, block=128):
    """A function (q0, q1, u0, u1, fn) -> the full observers' results (tuple, vmap or pallas)."""
    from jax import lax
    step = make_full_step(jnp, dt)
    n1, n2 = phases(steps, dt, t_transient)
    unroll = max(1, int(unroll))

    def phase(carry, first_k, length, settled):
        if length == 0:
            return carry

        def body(c, i):
            st, obs, pn = c
            k = first_k + i
            st, states, lam = step(*st, pn)
            return (st, observe(jnp, obs, k, dt, t_transient, st + lam, states, settled), pn), None

        carry, _ = lax.scan(body, carry, jnp.arange(length, dtype=jnp.int32), unroll=min(unroll, length))
        return carry

    def run_one(q0, q1, u0, u1, fn):
        st = (q0, q1, u0, u1)
        obs = observers_start(jnp, q0, kinematic_states(jnp, u0, u1))
        c = phase((st, obs, fn * dt), 1, n1, False)
        c = phase(c, 1 + n1, n2, True)
        return observers_result(jnp, c[1], n2)

    if formulation == "tuple":
        return run_one
    if formulation == "vmap":
        return jax.vmap(run_one)
    if formulation == "pallas":
        return build_pallas_full(jax, jnp, step, unroll, n, n1, n2, dt, t_transient, block)
    raise ValueError("the full observers run in the tuple, vmap and pallas formulations, not %r" % formulation)


def build_pallas_full(jax, jnp, step, unroll, n, n1, n2, dt, t_transient, block):
    """the Pallas kernel with the full observers in registers: the carry of observe(), the time
    loop in the kernel, `unroll` steps written out per trip"""
    from jax import lax
    from jax.experimental import pallas as pl

    def steps_written_out(c, k0, count, settled):
        st, obs, pn = c
        for i in range(count):
            k = k0 + i
            st, states, lam = step(*st, pn)
            obs = observe(jnp, obs, k, dt, t_transient, st + lam, states, settled)
        return st, obs, pn

    def run_phase(c, first_k, length, settled):
        trips, rem = divmod(length, unroll)
        if trips > 0:
            c = lax.fori_loop(0, trips, lambda t, cc: steps_written_out(cc, first_k + t * unroll, unroll, settled), c)
        return steps_written_out(c, first_k + trips * unroll, rem, settled)

    names = ["rms%d" % i for i in range(6)] + ["lo%d" % i for i in range(6)] + ["hi%d" % i for i in range(6)] + \
        ["transitions", "seen"] + ["ring%d_%d" % (c, j) for c in range(5) for j in range(RING)]

    def kernel(q0_ref, q1_ref, u0_ref, u1_ref, fn_ref, *outs):
        st = (q0_ref[...], q1_ref[...], u0_ref[...], u1_ref[...])
        obs = observers_start(jnp, st[0], kinematic_states(jnp, st[2], st[3]))
        c = run_phase((st, obs, fn_ref[...] * dt), 1, n1, False)
        c = run_phase(c, 1 + n1, n2, True)
        r = observers_result(jnp, c[1], n2)
        flat = list(r["rms"]) + list(r["lo"]) + list(r["hi"]) + [r["transitions"], r["seen"]] + \
            [x for ring in r["ring"] for x in ring]
        for o, v in zip(outs, flat):
            o[...] = v

    padded = -(-n // block) * block
    spec = pl.BlockSpec((block,), lambda i: (i,))
    shapes = [jax.ShapeDtypeStruct((padded,), jnp.int32 if nm in ("transitions", "seen") else jnp.float64)
              for nm in names]
    call = pl.pallas_call(kernel, out_shape=shapes, grid=(padded // block,), in_specs=[spec] * 5,
                          out_specs=[spec] * len(names))

    def run_pallas(q0, q1, u0, u1, fn):
        pad = padded - n
        args = [jnp.pad(x, (0, pad)) if pad else x for x in (q0, q1, u0, u1, fn)]
        out = [o[:n] for o in call(*args)]
        return {"rms": tuple(out[0:6]), "lo": tuple(out[6:12]), "hi": tuple(out[12:18]), "transitions": out[18],
                "seen": out[19], "ring": tuple(tuple(out[20 + c * RING:20 + (c + 1) * RING]) for c in range(5))}

    return run_pallas


def build_pallas(jax, jnp, step, unroll, n, n1, n2, dt, block):
    """Pallas (Triton) kernel: each program steps `block` cases through the whole run in
    registers, `unroll` steps written out per trip of an in-kernel fori_loop."""
    from jax import lax
    from jax.experimental import pallas as pl

    def steps_written_out(st, pn, count, acc=None):
        for _ in range(count):
            st = step(*st, pn)
            if acc is not None:
                acc = tuple(a + x * x for a, x in zip(acc, st))
        return st, acc

    def run_phase(st, pn, length, acc=None):
        trips, rem = divmod(length, unroll)
        if trips > 0:
            if acc is None:
                st = lax.fori_loop(0, trips, lambda i, s: steps_written_out(s, pn, unroll)[0], st)
            else:
                st, acc = lax.fori_loop(0, trips, lambda i, c: steps_written_out(c[0], pn, unroll, c[1]),
                                        (st, acc))
        return steps_written_out(st, pn, rem, acc)

    def kernel(q0_ref, q1_ref, u0_ref, u1_ref, fn_ref, o0, o1, o2, o3):
        pn = fn_ref[...] * dt
        st = (q0_ref[...], q1_ref[...], u0_ref[...], u1_ref[...])
        st, _ = run_phase(st, pn, n1)
        zero = jnp.zeros_like(st[0])
        st, acc = run_phase(st, pn, n2, (zero, zero, zero, zero))
        for o, a in zip((o0, o1, o2, o3), acc):
            o[...] = jnp.sqrt(a / n2) if n2 > 0 else jnp.zeros_like(a)

    padded = -(-n // block) * block
    spec = pl.BlockSpec((block,), lambda i: (i,))
    kwargs = dict(out_shape=[jax.ShapeDtypeStruct((padded,), jnp.float64)] * 4, grid=(padded // block,),
                  in_specs=[spec] * 5, out_specs=[spec] * 4)
    call = pl.pallas_call(kernel, **kwargs)

    def run_pallas(q0, q1, u0, u1, fn):
        pad = padded - n
        args = [jnp.pad(x, (0, pad)) if pad else x for x in (q0, q1, u0, u1, fn)]
        out = call(*args)
        return tuple(o[:n] for o in out)

    return run_pallas


def hlo_loop_ops(text):
    """Kernel-like instructions (fusions, custom calls, other non-trivial ops) in each while-loop
    body of an optimised HLO module's text, calls into other computations followed."""
    comps, cur = {}, None
    for line in text.splitlines():
        if cur is None:
            s = line.strip()
            if s.endswith("{") and "=" not in s.split("(")[0]:
                name = s.split()[1] if s.startswith("ENTRY") else s.split()[0]
                cur = name.lstrip("%")
                comps[cur] = []
        elif line.strip() == "}":
            cur = None
        else:
            comps[cur].append(line)

    def opcode(line):
        if " = " not in line:
            return None, ""
        rest = line.split(" = ", 1)[1].lstrip()
        if rest.startswith("("):
            depth = 0
            for i, ch in enumerate(rest):
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    rest = rest[i + 1:]
                    break
        else:
            rest = rest.split(" ", 1)[1] if " " in rest else ""
        return rest.lstrip().split("(", 1)[0], rest

    def attr(rest, key):
        i = rest.find(key + "=")
        if i < 0:
            return None
        v = rest[i + len(key) + 1:]
        for sep in (",", " ", ")"):
            v = v.split(sep, 1)[0]
        return v.lstrip("%")

    trivial = {"parameter", "get-tuple-element", "tuple", "constant", "bitcast", "copy-start",
               "copy-done", "after-all", None}

    def count(comp, depth=0):
        total = 0
        for line in comps.get(comp, []):
            op, rest = opcode(line)
            if op in trivial:
                continue
            if op in ("call", "async-start") and depth < 4:
                total += count(attr(rest, "to_apply") or attr(rest, "calls"), depth + 1)
            elif op == "while":
                total += 1
            else:
                total += 1
        return total

    bodies = []
    for comp in comps:
        for line in comps[comp]:
            op, rest = opcode(line)
            if op == "while":
                b = attr(rest, "body")
                if b:
                    bodies.append(count(b))
    return bodies


def jax_device(jax):
    d = jax.devices()[0]
    kind = getattr(d, "device_kind", "")
    return "%s:%d" % (d.platform, d.id), kind


# --------------------------------------------------------------------------------------------
# benchmark

def random_cases(n, seed):
    rng = np.random.default_rng(seed)
    fn = rng.uniform(1.0, 30.0, n)
    q = rng.uniform(0.0, 1.0, (2, n))
    zero = np.zeros(n)
    return q[0].copy(), q[1].copy(), zero, zero.copy(), fn


def bench_numpy(a, cases):
    run = run_numpy_full if a.observers == "full" else run_numpy
    run(*[x[:16] for x in cases], min(a.steps, 10), a.dt, a.t_transient)  # warm-up
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        run(*cases, a.steps, a.dt, a.t_transient)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    rate = a.cases * a.steps / med
    print("%-8s %6s %10.4f s  %10.3e case-steps/s" % ("numpy", "-", med, rate))
    best = {"formulation": "numpy", "unroll": 1, "median_s": med, "rate": rate}
    print("numpy best: %.3g case-steps/s (numpy, Python loop over steps), float64, device cpu" % rate)
    return {"backend": "numpy", "results": [best], "best": best}


def bench_jax(a, cases):
    jax, jnp = import_jax()
    dev, kind = jax_device(jax)
    print("jax %s, device %s (%s), float64, %d cases x %d steps, dt %g, t_transient %g, %d timed runs, %s observers"
          % (jax.__version__, dev, kind, a.cases, a.steps, a.dt, a.t_transient, a.repeat, a.observers))
    args = [jax.device_put(jnp.asarray(x, dtype=jnp.float64)) for x in cases]
    jax.block_until_ready(args)
    forms = [f for f in a.formulations.split(",") if f]
    unrolls = [int(u) for u in a.unrolls.split(",") if u]
    pallas_unrolls = [int(u) for u in a.pallas_unrolls.split(",") if u]
    blocks = [int(b) for b in a.blocks.split(",") if b]
    if "pallas" in forms and jax.devices()[0].platform != "gpu":
        print("pallas: skipped (no GPU)")
        forms = [f for f in forms if f != "pallas"]
    if a.observers == "full":
        forms = [f for f in forms if f in FULL_FORMULATIONS]

    print("%-8s %6s %6s %10s %10s %16s %s" % ("form", "unroll", "block", "compile_s", "median_s",
                                             "case-steps/s", "kernel ops per loop trip (x steps)"))
    results, ref = [], None
    for form in forms:
        for unroll in (pallas_unrolls if form == "pallas" else unrolls):
            for block in (blocks if form == "pallas" else [None]):
                label = "%-8s %6d %6s" % (form, unroll, block if block else "-")
                try:
                    build = build_jax_full if a.observers == "full" else build_jax
                    fn = build(jax, jnp, form, unroll, a.cases, a.steps, a.dt, a.t_transient, block=block or 128)
                    t0 = time.perf_counter()
                    compiled = jax.jit(fn).lower(*args).compile()
                    out = compiled(*args)
                    jax.block_until_ready(out)
                    t_compile = time.perf_counter() - t0
                    try:
                        loops = hlo_loop_ops(compiled.as_text())
                    except Exception:  # noqa: BLE001 -- the count is informative only
                        loops = []
                    times = []
                    for _ in range(a.repeat):
                        t0 = time.perf_counter()
                        out = compiled(*args)
                        jax.block_until_ready(out)
                        times.append(time.perf_counter() - t0)
                except Exception as e:  # noqa: BLE001 -- report and go on with the other variants
                    msg = str(e).strip().splitlines()
                    print("%s  failed: %s: %s" % (label, type(e).__name__, msg[0][:160] if msg else ""))
                    continue
                med = statistics.median(times)
                rate = a.cases * a.steps / med
                res = np.stack([np.asarray(o) for o in (out["rms"] if isinstance(out, dict) else out)])
                if ref is None:
                    ref, dev_note = res, "reference"
                else:
                    dev_note = "max rel diff vs first %.1e" % max_rel_diff(res, ref)
                if form == "pallas":
                    loop_note = "whole run in one kernel"
                else:
                    loop_note = "%s (x%d)" % ("/".join(str(c) for c in loops) or "?", unroll)
                print("%s %10.2f %10.4f %16.3e %s; %s" % (label, t_compile, med, rate, loop_note, dev_note))
                sys.stdout.flush()
                results.append({"formulation": form, "unroll": unroll, "block": block, "compile_s": t_compile,
                                "median_s": med, "times_s": times, "rate": rate, "loop_body_ops": loops})
    if not results:
        sys.exit("bench_sweep_jax: every variant failed")
    best = max(results, key=lambda r: r["rate"])
    xla = [r for r in results if r["formulation"] != "pallas"]
    best_xla = max(xla, key=lambda r: r["rate"]) if xla else None

    def describe(r):
        s = "%s, unroll=%d" % (r["formulation"], r["unroll"])
        return s + (", block=%d" % r["block"] if r["block"] else "")

    if best_xla is not None and best_xla is not best:
        print("jax (XLA, no Pallas) best: %.3g case-steps/s (%s)" % (best_xla["rate"], describe(best_xla)))
    print("jax best: %.3g case-steps/s (%s), float64, device %s (%s)" % (best["rate"], describe(best), dev, kind))
    return {"backend": "jax", "jax_version": jax.__version__, "device": dev, "device_kind": kind,
            "results": results, "best": best, "best_xla": best_xla}


def max_rel_diff(x, ref):
    x = np.asarray(x, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    return float(np.max(rel_diff(x, ref))) if x.size else 0.0


def rel_diff(x, ref):
    """|x - ref| / |ref|, and |x - ref| where ref == 0"""
    d = np.abs(x - ref)
    den = np.abs(ref)
    return np.where(den > 0, d / np.where(den > 0, den, 1.0), d)


# --------------------------------------------------------------------------------------------
# check against fivsim's cases.csv

RMS_COLS = ("rms_q0", "rms_q1", "rms_u0", "rms_u1")
OK_STATUS = ("", "ok", "complete", "completed")
KNOWN_INPUTS = ("/model/Fn", "/initial/q/0", "/initial/q/1", "/initial/u/0", "/initial/u/1")


def read_cases(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("bench_sweep_jax: %s has no cases" % path)
    cols = rows[0].keys()
    missing = [c for c in ("/model/Fn", "/initial/q/0", "/initial/q/1") + RMS_COLS if c not in cols]
    if missing:
        sys.exit("bench_sweep_jax: %s lacks the columns %s" % (path, ", ".join(missing)))
    other = [c for c in cols if c.startswith("/") and c not in KNOWN_INPUTS]
    if other:
        print("warning: %s sets %s per case; this script models only %s (the rest of the model is fixed "
              "in MODEL)" % (path, ", ".join(other), ", ".join(KNOWN_INPUTS)))
    kept, skipped = [], {}
    for r in rows:
        st = (r.get("status") or "").strip()
        if st.lower() in OK_STATUS:
            kept.append(r)
        else:
            skipped[st] = skipped.get(st, 0) + 1
    return kept, skipped


def check(a):
    rows, skipped = read_cases(a.check)
    if not rows:
        print("check: no case of %s has a usable status (%s)" % (a.check, skipped))
        return 1

    def col(name, default=0.0):
        vals = []
        for r in rows:
            v = (r.get(name) or "").strip()
            try:
                vals.append(float(v) if v != "" else default)
            except ValueError:
                sys.exit("bench_sweep_jax: %s, case %s: column %s is not a number: %r"
                         % (a.check, r.get("case", "?"), name, v))
        return np.array(vals)

    cases = (col("/initial/q/0"), col("/initial/q/1"), col("/initial/u/0"), col("/initial/u/1"), col("/model/Fn"))
    n = len(rows)
    if a.observers == "full":
        return check_full(a, rows, skipped, cases, col)
    ref = np.stack([col(c) for c in RMS_COLS])
    out, how = run_for_check(a, cases, n, full=False)
    got = np.stack([np.asarray(o) for o in out])
    print("check: %d cases of %s%s, steps %d, dt %g, t_transient %g; %s, float64"
          % (n, a.check, " (skipped by status: %s)" % skipped if skipped else "", a.steps, a.dt,
             a.t_transient, how))
    rd = rel_diff(got, ref)
    print("%-8s %14s %14s %12s" % ("column", "max rel diff", "median rel", "within %.0e" % CHECK_TOL))
    medians = []
    for i, c in enumerate(RMS_COLS):
        med = float(np.median(rd[i]))
        medians.append(med)
        print("%-8s %14.3e %14.3e %12.4f" % (c, float(np.max(rd[i])), med, float(np.mean(rd[i] <= CHECK_TOL))))
    within = float(np.mean(np.all(rd <= CHECK_TOL, axis=0)))
    worst = int(np.argmax(np.max(rd, axis=0)))
    print("worst case: %s (Fn %.6g, q0 (%.6g, %.6g)): fivsim %s, here %s"
          % (rows[worst].get("case", worst), cases[4][worst], cases[0][worst], cases[1][worst],
             " ".join("%.12g" % v for v in ref[:, worst]), " ".join("%.12g" % v for v in got[:, worst])))
    ok = max(medians) <= CHECK_TOL
    print("check %s: max rel diff %.3e, median rel diff %.3e (limit %.0e), %.4f of the cases within %.0e "
          "in all four columns" % ("PASS" if ok else "FAIL", float(np.max(rd)), max(medians), CHECK_TOL,
                                   within, CHECK_TOL))
    return 0 if ok else 1


def run_for_check(a, cases, n, full):
    """the check's cases on the chosen backend (lean or full observers), and how they ran"""
    if a.backend == "numpy":
        return (run_numpy_full if full else run_numpy)(*cases, a.steps, a.dt, a.t_transient), "numpy"
    jax, jnp = import_jax()
    dev, kind = jax_device(jax)
    build = build_jax_full if full else build_jax
    fn = build(jax, jnp, a.formulation, a.unroll, n, a.steps, a.dt, a.t_transient, block=a.block)
    out = jax.jit(fn)(*[jnp.asarray(x, dtype=jnp.float64) for x in cases])
    return out, "jax %s, %s unroll=%d, device %s (%s)" % (jax.__version__, a.formulation, a.unroll, dev, kind)


def check_full(a, rows, skipped, cases, col):
    """the full observers against fivsim's bifurcation columns: statistics within CHECK_TOL,
    transitions and section samples counted alike"""
    n = len(rows)
    r, how = run_for_check(a, cases, n, full=True)
    print("check (full observers): %d cases of %s%s, steps %d, dt %g, t_transient %g; %s, float64"
          % (n, a.check, " (skipped by status: %s)" % skipped if skipped else "", a.steps, a.dt, a.t_transient, how))
    ok = True
    print("%-12s %14s %14s %12s" % ("column", "max rel diff", "median rel", "within %.0e" % CHECK_TOL))
    for stat, key in (("rms_", "rms"), ("min_", "lo"), ("max_", "hi")):
        for i, name in enumerate(FULL_SERIES):
            rd = rel_diff(np.asarray(r[key][i]), col(stat + name))
            med = float(np.median(rd))
            ok = ok and med <= CHECK_TOL
            print("%-12s %14.3e %14.3e %12.4f" % (stat + name, float(np.max(rd)), med, float(np.mean(rd <= CHECK_TOL))))
    for name, key in (("n_transitions", "transitions"), ("n_section", "seen")):
        same = float(np.mean(np.asarray(r[key]) == col(name)))
        ok = ok and same >= 0.99
        print("%-12s %s of the cases count alike" % (name, "%.4f" % same))
    print("check %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


# --------------------------------------------------------------------------------------------
# self-test

def scalar_reference(q, u, fn, steps, dt, t_transient, model=MODEL):
    """The scheme for one case, written out with Python floats, the statistics window tested
    step by step as fivsim's run loop does (t = double(k)*dt, t >= t_transient)."""
    m, (k1, k2), v0 = model["m"], model["k"], model["v0"]
    q, u = list(q), list(u)
    sums, count = [0.0] * 4, 0
    for k in range(1, steps + 1):
        h = [-((k1 + k2) * q[0]) - (-k2) * q[1], -((-k2) * q[0]) - k2 * q[1]]
        uf = [u[i] + dt * ((1.0 / m[i]) * h[i]) for i in range(2)]
        for i in range(2):
            v = u[i] - v0
            mu = model["mu_d"] + (model["mu_s"] - model["mu_d"]) * math.exp(-model["alpha"] * abs(v))
            bound = mu * (fn * dt)
            p = -(m[i] * (uf[i] - v0))
            p = bound if p > bound else (-bound if p < -bound else p)
            u[i] = uf[i] + (1.0 / m[i]) * p
            q[i] = q[i] + dt * u[i]
        if float(k) * dt >= t_transient:
            for i, x in enumerate((q[0], q[1], u[0], u[1])):
                sums[i] += x * x
            count += 1
    return [math.sqrt(s / count) if count else 0.0 for s in sums], (q[0], q[1], u[0], u[1])


def selftest(a):
    passed, failed = 0, 0

    def report(ok, what):
        nonlocal passed, failed
        print("%s  %s" % ("ok  " if ok else "FAIL", what))
        if ok:
            passed += 1
        else:
            failed += 1

    # 1. the statistics window: transient_start against a brute-force scan of k*dt >= T
    bad = []
    for steps, dt, T in [(100, 0.1, 0.3), (100, 0.1, 0.0), (100, 0.1, 10.0), (100, 0.1, 10.05),
                         (100, 0.1, 99.0), (1000, 1e-3, 0.7), (1000, 1e-3, 0.001), (3000, 1e-3, 1.0),
                         (10, 0.3, 0.9), (10, 0.3, 0.6), (10000, 1e-4, 0.3), (50, 0.01, -1.0)]:
        brute = next((k for k in range(1, steps + 1) if float(k) * dt >= T), steps + 1)
        if transient_start(steps, dt, T) != brute:
            bad.append((steps, dt, T, transient_start(steps, dt, T), brute))
    report(not bad, "transient_start matches the step-by-step test k*dt >= t_transient on 12 windows%s"
           % (": %s" % bad if bad else ""))

    # 2. numpy backend against the hand-written scalar loop
    rng = np.random.default_rng(1)
    fn = np.concatenate([rng.uniform(1, 30, 6), [0.0, 1e-9, 1.0, 1e4]])
    q0 = np.concatenate([rng.uniform(0, 1, 6), [0.5, 0.3, 0.0, 0.1]])
    q1 = np.concatenate([rng.uniform(0, 1, 6), [0.2, 0.9, 0.0, 0.2]])
    u0 = np.zeros(fn.size)
    u1 = np.concatenate([np.zeros(8), [0.8, -0.3]])
    steps, dt, T = 3000, 1e-3, 1.0
    cases = (q0, q1, u0, u1, fn)
    ref_rms, ref_state = [], []
    for c in range(fn.size):
        r, s = scalar_reference((q0[c], q1[c]), (u0[c], u1[c]), fn[c], steps, dt, T)
        ref_rms.append(r)
        ref_state.append(s)
    ref_rms, ref_state = np.array(ref_rms).T, np.array(ref_state).T
    rms, state = run_numpy(*cases, steps, dt, T, return_state=True)
    rms, state = np.stack(rms), np.stack(state)
    d_rms, d_state = max_rel_diff(rms, ref_rms), max_rel_diff(state, ref_state)
    same = int(np.sum(rms == ref_rms))
    report(d_rms <= 1e-12 and d_state <= 1e-10,
           "numpy backend = scalar loop on %d cases x %d steps (dt %g, t_transient %g): RMS max rel diff %.1e "
           "(%d of %d bitwise equal), final state %.1e" % (fn.size, steps, dt, T, d_rms, same, rms.size, d_state))

    # 3. physics: a huge normal force (mu_d Fn dt > v0 m) sticks both sliders to the belt from
    #    the first step on
    (r, s) = run_numpy(np.array([0.1]), np.array([0.2]), np.zeros(1), np.zeros(1), np.array([1e5]), 500, 1e-3, 0.0,
                       return_state=True)
    report(abs(r[2][0] - 0.8) < 1e-12 and abs(r[3][0] - 0.8) < 1e-12 and abs(s[0][0] - (0.1 + 0.5 * 0.8)) < 1e-9,
           "Fn = 1e5: both sliders stick to the belt (rms u = %.15g, %.15g; q0(0.5) = %.15g, expected 0.5)"
           % (r[2][0], r[3][0], s[0][0]))

    # 4. physics: Fn = 0 is the frictionless chain; the scheme is symplectic Euler, whose modified
    #    energy stays within O(dt) of the start over a long run
    steps0, dt0 = 20000, 1e-2
    _, s = run_numpy(np.array([0.5]), np.array([-0.2]), np.zeros(1), np.zeros(1), np.zeros(1), steps0, dt0, 0.0,
                     return_state=True)
    e0 = 0.5 * (0.5 ** 2 + (-0.2 - 0.5) ** 2)
    e1 = 0.5 * (s[2][0] ** 2 + s[3][0] ** 2) + 0.5 * (s[0][0] ** 2 + (s[1][0] - s[0][0]) ** 2)
    report(abs(e1 - e0) < 2 * dt0 * e0, "Fn = 0: energy after %d steps of %g: %.6f, start %.6f" % (steps0, dt0, e1, e0))

    # 5. physics: Fn = 20 from rest gives stick-slip (steps at the belt speed, and steps off it)
    st = (np.array([0.0]), np.array([0.0]), np.zeros(1), np.zeros(1))
    step = make_step(np, 1e-3)
    stick = slip = 0
    for _ in range(20000):
        st = step(*st, np.array([20.0 * 1e-3]))
        if abs(st[2][0] - 0.8) < 1e-12:
            stick += 1
        else:
            slip += 1
    report(stick > 1000 and slip > 1000, "Fn = 20: stick-slip, slider 1 at the belt speed in %d of 20000 steps, "
           "off it in %d" % (stick, slip))

    # 6. the full observers keep the lean RMS, and see the stick-slip of item 5
    full = run_numpy_full(*cases, steps, dt, T)
    d_full = max_rel_diff(np.stack(full["rms"][:4]), ref_rms)
    slipping = run_numpy_full(np.array([0.0]), np.array([0.0]), np.zeros(1), np.zeros(1), np.array([20.0]), 20000,
                              1e-3, 5.0)
    report(d_full == 0.0 and slipping["transitions"][0] > 4 and slipping["seen"][0] > 1
           and slipping["lo"][2][0] < 0.8 <= slipping["hi"][2][0] + 1e-12,
           "full observers: RMS as the lean run's (max rel diff %.1e); Fn = 20: %d transitions, %d section samples, "
           "u0 in [%.4g, %.4g]" % (d_full, slipping["transitions"][0], slipping["seen"][0], slipping["lo"][2][0],
                                   slipping["hi"][2][0]))

    # 7. JAX formulations against the numpy backend, where JAX is installed
    if a.backend == "numpy":
        print("skip  JAX formulations (--backend numpy)")
    else:
        try:
            jax, jnp = import_jax()
        except ImportError as e:
            jax = None
            print("skip  JAX formulations (JAX not importable: %s)" % e)
        if jax is not None:
            dev, kind = jax_device(jax)
            args = [jnp.asarray(x, dtype=jnp.float64) for x in cases]
            forms = [f for f in ALL_FORMULATIONS if f != "pallas" or jax.devices()[0].platform == "gpu"]
            for form in forms:
                for unroll in (1, 7, 32):
                    try:
                        out = jax.jit(build_jax(jax, jnp, form, unroll, fn.size, steps, dt, T, block=16))(*args)
                        got = np.stack([np.asarray(o) for o in out])
                    except Exception as e:  # noqa: BLE001
                        msg = str(e).strip().splitlines()
                        ok = form == "pallas"  # Pallas is optional: its failure is reported, not fatal
                        print("%s  jax %s unroll=%d failed: %s: %s%s" % ("warn" if ok else "FAIL", form, unroll,
                              type(e).__name__, msg[0][:160] if msg else "", " (optional)" if ok else ""))
                        if not ok:
                            failed += 1
                        break
                    d = max_rel_diff(got, ref_rms)
                    report(got.dtype == np.float64 and d <= 1e-9,
                           "jax %s unroll=%d on %s = scalar loop: RMS max rel diff %.1e, %d of %d bitwise equal"
                           % (form, unroll, dev, d, int(np.sum(got == ref_rms)), got.size))
    print("selftest: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


# --------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--backend", choices=("jax", "numpy"), default="jax")
    ap.add_argument("--cases", type=int, default=100000)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--t-transient", type=float, default=0.0,
                    help="statistics over steps with k*dt >= this (default 0: every step)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per variant; the median is kept")
    ap.add_argument("--seed", type=int, default=0, help="numpy seed of the random cases")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--formulations", default=",".join(ALL_FORMULATIONS),
                    help="benchmark: comma-separated subset of %s" % ",".join(ALL_FORMULATIONS))
    ap.add_argument("--unrolls", default="1,4,8,16", help="benchmark: lax.scan unroll values of the XLA "
                    "formulations (XLA's compile time grows steeply: 32 took 15 s on an H100 host, 100 did not "
                    "finish in 8 minutes)")
    ap.add_argument("--pallas-unrolls", default="1,4,8,16", help="benchmark: steps written out per trip of the "
                    "Pallas kernel's time loop")
    ap.add_argument("--blocks", default="128,256", help="benchmark: cases per Pallas program")
    ap.add_argument("--check", metavar="CASES_CSV", help="compare with fivsim's sweep cases.csv")
    ap.add_argument("--formulation", default="tuple", choices=ALL_FORMULATIONS, help="--check: the JAX variant")
    ap.add_argument("--unroll", type=int, default=8, help="--check: its unroll")
    ap.add_argument("--block", type=int, default=128, help="--check: its Pallas block")
    ap.add_argument("--observers", choices=("lean", "full"), default="lean",
                    help="lean: the RMS of q and u; full: also states, transitions, min/max and the section's ring")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()

    if a.selftest:
        return selftest(a)
    if a.check:
        return check(a)
    if a.cases < 1 or a.steps < 1 or a.repeat < 1 or not a.dt > 0:
        ap.error("--cases, --steps, --repeat must be >= 1 and --dt > 0")
    cases = random_cases(a.cases, a.seed)
    n1, n2 = phases(a.steps, a.dt, a.t_transient)
    print("bench_sweep_jax: 2-DoF slider chain, stribeck_exp, Moreau; %d cases x %d steps (%d before the "
          "statistics window, %d in it)" % (a.cases, a.steps, n1, n2))
    out = bench_numpy(a, cases) if a.backend == "numpy" else bench_jax(a, cases)
    if a.json:
        out.update({"cases": a.cases, "steps": a.steps, "dt": a.dt, "t_transient": a.t_transient,
                    "repeat": a.repeat, "seed": a.seed, "model": MODEL})
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
