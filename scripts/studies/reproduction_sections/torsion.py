"""Seed 002 (§2.3, Eq. 9, Figs. 6–7; §4.3 Eq. 23): the friction laws on the torsion pendulum and the
friction torque identified by the PINN pair."""
import json
import os

import numpy as np



# seed 002 §2.3.2: the four friction models of Figs. 6–7 (torques in N m: Fn = 1)
TORSION_MODELS = [
    ("LuGre", '{"law": "lugre", "sigma0": 2e4, "sigma1": 1e2, "sigma2": 0.5, "Fc": 0.12, "Fs": 0.16, "vs": 1e-3, '
              '"beta": 2}', "smooth"),
    ("Coulomb-viscous", '{"law": "coulomb_viscous", "mu": 0.12, "mu_v": 0.5}', "switching"),
    ("Dahl", '{"law": "dahl", "sigma0": 2e4, "Fc": 0.12, "beta": 2}', "smooth"),
    ("Coulomb, tanh ε = 1e3", '{"law": "coulomb_tanh", "mu": 0.12, "eps": 1e3}', "smooth"),
    ("Coulomb, exact", '{"law": "coulomb", "mu": 0.12}', "switching"),
]


def torsion_section(ctx, lines):
    fv = ctx.fv
    lines.append("## Seed 002: friction models on the torsion pendulum (§2.3, Eq. 9, Figs. 6–7)\n")
    sc = "torsion_pendulum_lugre.json"
    lines.append("J2 = 2.17e-4, c2 = 0.19, k2 = 0.7, μv = 0.5, μc = 0.12, μs = 0.16, β = 2, σ0 = 2e4, σ1 = 1e2, σ2 = μv, "
                 "vs = 1e-3, ε = 1e3 (seed); input rate 0.02 sin(0.2πt). Scenario `scenarios/%s` with `/friction` "
                 "replaced per model; dynamic and tanh-smoothed laws run with the `smooth` method (Rosenbrock 4), "
                 "set-valued ones with the exact event-driven `switching` reference.\n" % sc)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Fig. 6: each law driven by v(t) = 0.02 sin(0.2πt), `fivsim friction`
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6))
    rows = []
    for label, law, _ in TORSION_MODELS:
        f = fv.friction(sc, ["/friction=" + law, "/integrator/method=\"smooth\"" if "coulomb\"" not in law and
                             "viscous" not in law else "/integrator/method=\"switching\""])
        a.plot(f["v"], f["F"], lw=1, label=label)
        b.plot(f["t"], f["F"], lw=1, label=label)
        # v = 0.01 on the way down from the peak: 0.2π t = 5π/6
        rows.append("| %s | %.4f | %.4f |" % (label, np.max(f["F"]), f["F"][np.argmin(np.abs(f["t"] - 25.0 / 6.0))]))
    a.set_xlabel("sliding velocity (rad/s)")
    a.set_ylabel("friction torque (N m)")
    b.set_xlabel("t (s)")
    a.legend(fontsize=7)
    a.set_title("seed 002 Fig. 6a: torque over velocity", fontsize=9)
    b.set_title("Fig. 6b: response to v = 0.02 sin(0.2πt)", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.image("torsion_friction_models.png"), dpi=110)
    plt.close(fig)
    lines.append("**Fig. 6** (`fivsim friction scenarios/%s --set /friction=…`): the torque of each law along "
                 "v(t) = 0.02 sin(0.2πt) from rest.\n" % sc)
    lines.append("| model | peak torque (N m) | torque at v = 0.01 rad/s, decelerating (t = 25/6 s) |")
    lines.append("|---|---|---|")
    lines += rows
    lines.append("\n![friction models](img/torsion_friction_models.png)\n")
    lines.append("- LuGre peaks at Fs + σ2·v near v = vs (the Stribeck hump) and settles to Fc + μv v; Coulomb-viscous "
                 "has the same sliding branch without the hump; Dahl rises along its pre-sliding curve to Fc; the tanh "
                 "Coulomb law reaches Fc within a few 1/ε = 1e-3 rad/s.\n")
    # Fig. 7: Eq. 9 with the seed's input, then with a lighter contact
    t_end = "20"
    seed_rows, light = [], []
    for label, law, method in TORSION_MODELS:
        base = ["/friction=" + law, "/integrator/method=\"%s\"" % method, "/integrator/t_end=" + t_end]
        d = fv.series(sc, base)
        seed_rows.append((label, np.max(np.abs(d["q0"])), np.max(np.abs(d["u0"]))))
        light.append((label, fv.series(sc, base + ["/model/Fn=1e-5"])))
    lines.append("**Fig. 7** (`fivsim run`). With the stated input the inertial torque J2·φ̈1,m is at most "
                 "J2·0.02·0.2π = %.3g N m against a break-away torque of 0.12–0.16 N m, so in Eq. 9 as printed the disk "
                 "never slips on the column:\n" % (2.17e-4 * 0.02 * 0.2 * np.pi))
    lines.append("| model | max abs φ2 (rad) | max abs φ̇2 (rad/s) |")
    lines.append("|---|---|---|")
    for label, q, u in seed_rows:
        lines.append("| %s | %.3g | %.3g |" % (label, q, u))
    lines.append("\nThe seed's Fig. 7 comes from its measured φ1,m(t), which it does not print. To compare the models in "
                 "motion, fivsim scales the contact down (**Fn = 1e-5**, fivsim's choice: every law's torque × 1e-5, so "
                 "the same input makes the disk stick and slip):\n")
    lines.append("| model | RMS φ2 (rad) | max abs φ̇2 (rad/s) | time with abs φ̇2 < 1% of its max |")
    lines.append("|---|---|---|---|")
    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 5.4), sharex=True)
    for label, d in light:
        u = d["u0"]
        lines.append("| %s | %.3g | %.3g | %.0f%% |" % (label, np.sqrt(np.mean(d["q0"] ** 2)), np.max(np.abs(u)),
                                                       100 * np.mean(np.abs(u) < 0.01 * np.max(np.abs(u)))))
        a.plot(d["t"], 1e6 * d["q0"], lw=1, label=label)
        b.plot(d["t"], 1e6 * u, lw=1, label=label)
    a.set_ylabel("φ2 (µrad)")
    b.set_ylabel("φ̇2 (µrad/s)")
    b.set_xlabel("t (s)")
    a.legend(fontsize=7, ncol=3)
    a.set_title("seed 002 Eq. 9, input rate 0.02 sin(0.2πt), contact scaled to Fn = 1e-5", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.image("torsion_pendulum_response.png"), dpi=110)
    plt.close(fig)
    lines.append("\n![torsion pendulum responses](img/torsion_pendulum_response.png)\n")
    lines.append("- The seed pairs Coulomb-viscous with LuGre and Coulomb with Dahl. In fivsim's lighter-contact run the "
                 "viscous term is scaled down with the rest (μv·v·Fn is negligible at these speeds), so Coulomb-viscous "
                 "and exact Coulomb coincide, and the dynamic laws (whose pre-sliding compliance lets the disk creep "
                 "while 'stuck') sit with the tanh-smoothed Coulomb law. The pairing cannot be checked without the "
                 "seed's measured input.\n")
    # §4.3: the torque from the motion by the PINN pair (Eq. 23), on fivsim's own LuGre record
    lugre_u = dict(light)["LuGre"]["u0"]
    lugre_slow = 100 * np.mean(np.abs(lugre_u) < 0.01 * np.max(np.abs(lugre_u)))
    if ctx.full:
        pinn_torque(ctx, lines, lugre_slow)
        nelder_mead_against_pinn(ctx, lines)


def pinn_torque(ctx, lines, lugre_slow):
    """§4.3: the PINN pair's torque on the LuGre record (a training of some seconds: full report only)"""
    cfg = "identify/torsion_pendulum_pinn.json"
    j, out = ctx.fv.identify(cfg)
    p = j["pinn"]
    ctx.plot("plot_identify.py", [out, "--out", ctx.image("torsion_pinn_identify.png"), "--dpi", "110"])
    opts = j["config"]["options"]
    lines.append("### §4.3: the friction torque by PINN identification (Eq. 23)\n")
    lines.append("`fivsim identify scenarios/%s`: the Fn = 1e-5 LuGre record above (20 s at dt = 0.01 s, %d samples; "
                 "φ2 relative to the column, so the balance is Eq. 9's: J1 = −J2, c = c2, k = k2, fixed), networks "
                 "N1(t, φ1) → φ2 and N2(t, φ1) → τ_f of %s tanh neurons, trained on every %dth sample by %s "
                 "(%d Adam steps at learning rate %g, then L-BFGS) and tested on every sample.\n"
                 % (cfg, j["record"]["samples"], "×".join(str(w) for w in opts["hidden"]), opts["train_every"],
                    opts["optimizer"], opts["adam_iter"], opts["learning_rate"]))
    lines.append("| | fivsim | seed 002 §4.4 |")
    lines.append("|---|---|---|")
    lines.append("| record | simulated LuGre, Fn = 1e-5, 2001 samples | measured, 2950 samples |")
    lines.append("| training | %d iterations, %.1f s (CPU, %s) | 10⁴ Adam epochs, 90.23 s |"
                 % (p["iterations"], p["wall_s"], "2 threads" if os.cpu_count() == 2 else "%d threads" % os.cpu_count()))
    lines.append("| final loss | %.3g (scaled: data %.3g + physics %.3g) | 0.587 (unscaled, measured data) |"
                 % (p["loss"], p["data_loss"], p["physics_loss"]))
    lines.append("| N1 against φ2, every sample | RMSE %.3g rad | shown in Fig. 17a |" % p["rmse"])
    lines.append("| N2 against the true friction torque | %.3g%% RMS error | no friction measurement |"
                 % p["torque_error_percent"])
    lines.append("\n![PINN identification of the LuGre torque](img/torsion_pinn_identify.png)\n")
    lines.append("- The seed could not check its torque (no friction was measured); on a simulated record fivsim can, and "
                 "N2 follows the LuGre torque to a few percent except at the first samples, where the difference stencil "
                 "leaves N2 free. At this load LuGre's bristles creep rather than stick (%.0f%% of the time below 1%% of "
                 "the peak rate, table above), so the torque is smooth; a record with sharp stick-slip corners asks more of "
                 "N2, and no such case is reported here. The seed's loss is not comparable: it is unscaled and on "
                 "measured data.\n" % lugre_slow)
    lines.append("- The seed trains J1 and J2 within bounds. Eq. 23 does not determine them (any pair is closed by "
                 "N2 = J1 φ̈1 − J2 φ̈2), so fivsim fixes them here; trainable coefficients are supported and tested "
                 "(docs/IDENTIFY.md).\n")




def nelder_mead_against_pinn(ctx, lines):
    """§4.2 beside §4.3 on one record: Eq. 22 fitted by Nelder–Mead on the output error, the PINN
    pair's torque, each against the record's true torque (N–M's: the fitted law's torque along the
    motion fivsim simulates with it, at the record's samples)"""
    nm, nm_out = ctx.fv.identify("identify/torsion_pendulum_asymmetric_nelder_mead.json")
    pn, _ = ctx.fv.identify("identify/torsion_pendulum_asymmetric_pinn.json")
    rec = np.genfromtxt(os.path.join(nm_out, "record.csv"), delimiter=",", names=True)
    g = nm["greybox"]
    truth = {k.split("/")[-1]: v for k, v in g["truth"].items()}
    fit = {k.split("/")[-1]: v for k, v in g["parameters"].items()}
    data = nm["config"]["data"]["set"]
    fn = data["/model/Fn"]
    # the record's friction column is F_f = −λ_T (w_T = 1), sampled every sample_dt
    every = round(nm["config"]["data"]["sample_dt"] / data["/integrator/dt"])
    sets = ["%s=%s" % (k, json.dumps(dict(v, **fit) if k == "/friction" else v)) for k, v in data.items()]
    run = ctx.fv.series(nm["config"]["data"]["scenario"].replace("../", ""),
                        sets + ["/integrator/t_end=%r" % nm["config"]["data"]["t_end"], "/output/every=%d" % every])
    tau_fit, tau_true = -run["lamT0"][:len(rec)], rec["friction"]
    torque_err = 100 * np.sqrt(np.mean((tau_fit - tau_true) ** 2) / np.mean(tau_true ** 2))
    lines.append("### §4.2 against §4.3: Nelder–Mead on Eq. 22 and the PINN on one record\n")
    lines.append("`fivsim identify scenarios/identify/torsion_pendulum_asymmetric_nelder_mead.json` and "
                 "`…_asymmetric_pinn.json`: the seed's data is not public, so the record is fivsim's pendulum with "
                 "the seed's fitted Eq. 22 values, driven at %g Hz with a rate amplitude of %g rad/s and the load "
                 "scaled to %g so that the disk's rate relative to the column reaches %.1f/α and the law's shape shows "
                 "(%g s at %g s, %d samples, 40 dB of noise). Nelder–Mead fits the six constants of Eq. 22 to the "
                 "disk's angle from a start 30%% off each (%d simulations); the PINN pair learns the torque with no law "
                 "at all.\n" % (data["/model/input/f_hz"], data["/model/input/amplitude"], fn,
                                 truth["alpha"] * np.max(np.abs(rec["v"])), nm["config"]["data"]["t_end"], nm["config"]["data"]["sample_dt"],
                                 nm["record"]["samples"], g["evaluations"]))
    lines.append("| constant | seed §4.2 (the record's truth) | Nelder–Mead | error |")
    lines.append("|---|---|---|---|")
    for k in ("Ts_l", "Ts_r", "T0_l", "T0_r", "alpha", "beta"):
        lines.append("| %s | %g | %.4g | %.1f%% |" % (k, truth[k], fit[k], 100 * abs(fit[k] - truth[k]) / truth[k]))
    lines.append("")
    lines.append("| | Nelder–Mead on Eq. 22 | PINN pair | seed |")
    lines.append("|---|---|---|---|")
    lines.append("| response against the record | RMSE %.3g rad | N1 RMSE %.3g rad | – |" % (g["rmse"], pn["pinn"]["rmse"]))
    lines.append("| torque against the true torque | %.3g%% RMS | %.3g%% RMS | no friction measured |"
                 % (torque_err, pn["pinn"]["torque_error_percent"]))
    lines.append("| wall time | %.1f s | %.1f s | 45 min (N–M), 90 s (PINN) |" % (g["wall_s"], pn["pinn"]["wall_s"]))
    sigma = 0.01 * np.sqrt(np.mean(rec["x"] ** 2))
    t0_effect = 100 * max(truth["T0_l"], truth["T0_r"]) * np.max(np.abs(rec["v"]))
    lines.append("\n- The seed finds N–M slow (45 min) and its fit poor in the slip periods, and turns to the PINN. On "
                 "one record with a known truth both fit the disk's angle to about the noise (RMSE %.3g and %.3g rad, "
                 "the noise %.3g rad); N–M, given the right law, recovers the torque to %.3g%%, its constants as the "
                 "table shows — T0 least, because 1/(1 + T0|v|) stays within %.2g%% of 1 at the rates the record "
                 "visits — and the PINN, given no law, recovers it to %.3g%% in %.2g of N–M's time.\n"
                 % (g["rmse"], pn["pinn"]["rmse"], sigma, torque_err, t0_effect, pn["pinn"]["torque_error_percent"],
                    pn["pinn"]["wall_s"] / g["wall_s"]))
