"""Seed 003 (Tables 3–6, Figs. 2–4): SINDy and extended SINDy on the Coulomb oscillator's records,
noise-free and with the seed's noise levels."""
import json
import os

import numpy as np
from scipy.signal import savgol_coeffs

from .common import Refused, fmt


SEED003_TABLE5 = {"continuous": ((0, 23.07, 0), None), "two-stop": ((6.19, 623.07, 82.35), (0.84, 23.07, 5.88)),
                  "four-stop": ((9.82, 530.7, 70.58), (1.15, 38.46, 2.35))}
SEED003_RMSE = {"continuous": (0.014, None), "two-stop": (1.06, 0.01), "four-stop": (5.4, 0.05)}  # 1e-4 m


def identify_section(ctx, lines):
    fv = ctx.fv
    lines.append("## Seed 003: identification of the Coulomb oscillator (Tables 3, 5, 6, Figs. 2, 4)\n")
    cfg = "identify/sdof_two_stop_extended_sindy_grid.json"
    # the seed's 0.47 Hz stops 2.9 times a cycle here (section above): the four-stop record is 0.45 Hz
    regimes = [("continuous", 2.013), ("two-stop", 0.95), ("four-stop", 0.45)]
    sample = "2e-4"
    lines.append("Records from fivsim's event-driven `base_excited_sdof` (seed 003 Table 1: k̂ = 358.706, ĉ = 0.0658, "
                 "F̂f = 0.0856, A = 0.0015 m, from rest) over 0–20 s, **sampled at %s s** (the seed does not give its "
                 "rate), identified by `fivsim identify` with the Table 4 hyperparameters (SR3 threshold 0.05 with "
                 "ẋ1 = x2 fixed, Savitzky–Golay window 35, v_stop = 1e-7, v_slip = 1e-3; the seed's grid step 3, `step3: grid`, where the default is the held regression of docs/IDENTIFY.md; the (k̂, ĉ) grid is 201 × 201 "
                 "over 0.8–1.2 × and 0–3 × the slip-sample SINDy estimate). `config`: `scenarios/%s` with "
                 "`--set /data/set/~1model~1f_hz=F`. The four-stop record is at 0.45 Hz, where this oscillator "
                 "stops four times a cycle; at the seed's 0.47 Hz it stops 2.9 times (above).\n" % (sample, cfg))
    lines.append("| regime (Hz) | algorithm | identified ẋ2 (fivsim) | RMSE 1e-4 m fivsim (seed) | errors k̂, ĉ, F̂f % fivsim | seed |")
    lines.append("|---|---|---|---|---|---|")
    folders = []
    for name, f in regimes:
        j, out = fv.identify(cfg, ["/data/set/~1model~1f_hz=%g" % f, "/data/sample_dt=%s" % sample])
        folders.append(out)
        seed_err, seed_rmse = SEED003_TABLE5[name], SEED003_RMSE[name]
        for key, label, k in (("sindy", "SINDy", 0), ("extended_sindy", "extended SINDy", 1)):
            r = j[key]
            e = r["errors_percent"]
            eq = r["equations"][1].replace("dx2 = ", "")
            seed_e = seed_err[k]
            note = ""
            if key == "extended_sindy" and j[key]["converges_to_sindy"]:
                note = " (no stop samples: converges to SINDy)"
            lines.append("| %s (%g) | %s%s | %s | %s (%s) | %.3g, %.3g, %.3g | %s |" % (
                name, f, label, note, eq, fmt(1e4 * r["rmse"] if r["rmse"] is not None else None, 3),
                "–" if seed_rmse[k] is None else seed_rmse[k], e["k"], e["c"], e["F"],
                "converges to SINDy" if seed_e is None else "%g, %g, %g" % seed_e))
        ext = j["extended_sindy"]
        lines.append("| | *slip-sample SINDy (step 2)* | %s | %s | %.3g, %.3g, %.3g | |" % (
            ext["slip_sindy"]["equations"][1].replace("dx2 = ", ""), fmt(1e4 * ext["slip_sindy"]["rmse"], 3),
            ext["slip_sindy"]["errors_percent"]["k"], ext["slip_sindy"]["errors_percent"]["c"],
            ext["slip_sindy"]["errors_percent"]["F"]))
    ctx.plot("plot_identify.py", folders + ["--window", "10", "14", "--out",
                                            ctx.image("identify_seed003_responses.png"), "--dpi", "110"])
    lines.append("\n![records and identified responses](img/identify_seed003_responses.png)\n")
    ctx.plot("plot_identify.py", [folders[1], "--bounds", "--out", ctx.image("identify_seed003_bounds.png"),
                                  "--dpi", "110"])
    lines.append("Seed 003 Fig. 3 for the two-stop record (`scripts/plot/plot_identify.py DIR --bounds`): D = |Φ2 − Φ1| "
                 "over the grid, and Φ1, Φ2 along k̂ at ĉ*.\n")
    lines.append("![bound surfaces, two-stop](img/identify_seed003_bounds.png)\n")
    lines.append("- Plain SINDy over stick and slip samples is biased in the stick-slip regimes, as in the seed (k̂ off by "
                 "several %, ĉ by hundreds of %, F̂f by tens of %), and its response misses the stop positions.\n"
                 "- Step 2 alone — SINDy on the slip samples — already identifies the noise-free records almost exactly "
                 "at this sampling rate (the slip rows). Step 3's grid argmin of D = |Φ2 − Φ1| then gives k̂ and F̂f "
                 "within about 1% but moves ĉ: at the right k̂, D is nearly flat along ĉ (the valley in the figure "
                 "above; seed 003 Fig. 3 shows the same non-unique intersection), so ĉ* moves with the grid and with the segregation thresholds (compare "
                 "the noise rows below). The seed reports ĉ errors of 23–38% for the extended method.\n"
                 "- In the continuous regime the record starts from rest, so it holds a few stop samples before the "
                 "first break-away: step 3 runs on them and is not better than SINDy there; the seed reports "
                 "'converges to SINDy' (no stops).\n"
                 "- The seed's experimental Tables 7–8 are not reproduced: its measured records are not published.\n")
    # noise study: seed Table 6 standard deviations (mm) against extended SINDy's errors
    table6 = [(20, 1.4e-2), (30, 1.4e-3), (60, 1.4e-6), (70, 1.4e-7), (90, 1.4e-9), (105, 1.4e-10), (120, 1.4e-12)]
    lines.append("**Noise (Table 6, Fig. 4).** Gaussian noise of the seed's standard deviation σ on x and on v (scaled "
                 "by rms(v)/rms(x)), seed 1. The seed's σ column is not 20·log10 of one amplitude ratio (20 → 30 dB "
                 "divides σ by 10, 30 → 60 dB by 1000), so fivsim uses its σ values and lists both. With noise, "
                 "**v_stop = 3σ_v and v_slip = max(1e-3, 30σ_v)** (the seed: 'v_stop will strongly depend on the noise "
                 "level'; with v_stop = 1e-7 a noisy record has no stop samples at all).\n")
    lines.append("| SNR dB (seed) | σ mm | two-stop: SINDy k̂, ĉ, F̂f % | two-stop: extended | four-stop: SINDy | four-stop: extended |")
    lines.append("|---|---|---|---|---|---|")
    ratio = {}
    for name, f in regimes[1:]:
        with open(os.path.join(folders[regimes.index((name, f))], "record.csv")) as fh:
            rec = np.genfromtxt(fh, delimiter=",", names=True)
        ratio[name] = np.sqrt(np.mean(rec["v"] ** 2) / np.mean(rec["x"] ** 2))
    noise_errs = {name: [] for name, _ in regimes[1:]}
    for snr, sigma_mm in table6:
        cells = []
        for name, f in regimes[1:]:
            sv = 1e-3 * sigma_mm * ratio[name]
            j, _ = fv.identify(cfg, ["/data/set/~1model~1f_hz=%g" % f, "/data/sample_dt=%s" % sample,
                                     "/noise/std=%g" % (1e-3 * sigma_mm), "/options/v_stop=%g" % (3 * sv),
                                     "/options/v_slip=%g" % max(1e-3, 30 * sv)])
            for key in ("sindy", "extended_sindy"):
                e = j[key]["errors_percent"]
                cells.append("%.3g, %.3g, %.3g%s" % (e["k"], e["c"], e["F"],
                             " (no stops)" if key == "extended_sindy" and j[key]["converges_to_sindy"] else ""))
            noise_errs[name].append((snr, j["extended_sindy"]["errors_percent"]))
        lines.append("| %d | %g | %s |" % (snr, sigma_mm, " | ".join(cells)))
    if ctx.full:
        noise_figure(noise_errs, ctx.image("identify_seed003_noise.png"))
    lines.append("\n![extended SINDy errors versus noise](img/identify_seed003_noise.png)\n")
    lines.append("- A measured velocity is never exactly zero: with any noise the sgn(x2) column of a sticking sample "
                 "is random, and plain SINDy loses the friction term (F̂f error 100%) even at 120 dB, where the "
                 "noise-free record's exact zeros gave the errors of the first table. Extended SINDy, which fits only "
                 "slip samples and bounds F̂f from the stops, keeps k̂ and F̂f within 1% down to 60 dB; at 20–30 dB "
                 "σ_v exceeds v_slip's margin and the segregation fails, where the seed's method holds above 20 dB.\n")
    seed_differentiation(ctx, lines, {name: folders[regimes.index((name, f))] for name, f in regimes[1:]},
                         table6[:3])


def seed_differentiation(ctx, lines, records, levels):
    """the noise rows again as the seed measures: noise on x alone, the velocity the Savitzky–Golay
    derivative of the noisy x (window 35, order 3), the thresholds from that derivative's noise"""
    lines.append("**Which difference moves the noise threshold.** fivsim's rows above put noise on x and on a "
                 "measured v alike. The seed measures x alone and differentiates it with a Savitzky–Golay filter "
                 "(window 35, order 3), which averages the noise over 7 ms: the same rows with noise on x only, the "
                 "velocity the filter's derivative of the noisy x and v_stop = 3σ_v, v_slip = max(1e-3, 30σ_v) with "
                 "σ_v that derivative's noise (the filter's gain times σ; a CSV record through `fivsim identify`, "
                 "`data.path`):\n")
    lines.append("| SNR dB (seed) | σ mm | σ_v m/s, noisy v (above) | σ_v m/s, filtered x | two-stop: extended, x only "
                 "| four-stop: extended, x only |")
    lines.append("|---|---|---|---|---|---|")
    rows = []
    for snr, sigma_mm in levels:
        cells, sv_rows = [], None
        for name, folder in records.items():
            rec = np.genfromtxt(os.path.join(folder, "record.csv"), delimiter=",", names=True)
            dt = rec["t"][1] - rec["t"][0]
            sigma = 1e-3 * sigma_mm
            gain = np.sqrt(np.sum(savgol_coeffs(35, 3, deriv=1, delta=dt) ** 2))
            sv = sigma * gain
            if sv_rows is None:
                sv_rows = (sigma * np.sqrt(np.mean(rec["v"] ** 2) / np.mean(rec["x"] ** 2)), sv)
            x = rec["x"] + sigma * np.random.default_rng(1).standard_normal(len(rec))
            path = os.path.join(ctx.workdir, "seed_%s_%d.csv" % (name, snr))
            np.savetxt(path, np.column_stack([rec["t"], x, rec["u"], rec["du"]]), delimiter=",",
                       header="t,x,u,du", comments="")
            cfg = {"name": "seed003_x_only", "method": "extended_sindy",
                   "data": {"path": path, "u": "u", "du": "du"},
                   "library": {"polynomial_degree": 1, "input": True, "sign": True},
                   "options": {"optimizer": "sr3", "threshold": 0.05, "window": 35, "v_stop": 3 * sv,
                               "v_slip": max(1e-3, 30 * sv), "step3": "grid"}}
            cfg_path = os.path.join(ctx.workdir, "seed_%s_%d.json" % (name, snr))
            with open(cfg_path, "w") as f:
                json.dump(cfg, f)
            try:
                j, _ = ctx.fv.identify(cfg_path, refusal_ok=True)
            except Refused as e:
                cells.append((name, "refused: %s" % str(e).split(": ", 1)[-1]))
                continue
            p = j["extended_sindy"]["parameters"]
            err = [100 * abs(p[key] - truth) / truth for key, truth in (("k", 358.706), ("c", 0.0658), ("F", 0.0856))]
            cells.append((name, "%.3g, %.3g, %.3g" % tuple(err)))
        rows.append((snr, sv_rows[0], sv_rows[1], cells))
        lines.append("| %d | %g | %.3g | %.3g | %s |" % ((snr, sigma_mm) + sv_rows + (" | ".join(c for _, c in cells),)))
    first = rows[0]
    lines.append("\n- The filter's derivative of the noisy x is %.0f times noisier than the measured velocity of the rows "
                 "above (σ_v %.3g against %.3g m/s at %d dB): measured as the seed measures, extended SINDy at %s gives "
                 "%s. The seed's differentiation makes its noise rows harder, not easier, so it does not explain the "
                 "seed's statement that the method holds above 20 dB; at the σ of its Table 6 and a 5 kHz record "
                 "neither noise model reproduces it.\n" % (
                     first[2] / first[1], first[2], first[1], first[0], " and ".join("%d dB" % r[0] for r in rows[:2]),
                     "; ".join("%s %s" % (name, cell if cell.startswith("refused") else "errors " + cell + " %") for r in rows[:2] for name, cell in r[3])))

def noise_figure(noise_errs, png):
    """seed 003 Fig. 4: extended SINDy's errors against the noise level"""
    fig, axes = plt_subplots(len(noise_errs))
    for ax, (name, rows) in zip(axes, noise_errs.items()):
        for key, label in (("k", "k̂"), ("c", "ĉ"), ("F", "F̂f")):
            ax.semilogy([r[0] for r in rows], [max(r[1][key], 1e-6) for r in rows], "o-", label=label)
        ax.set_title("extended SINDy, %s" % name, fontsize=10)
        ax.set_xlabel("SNR (dB, seed Table 6 σ)")
        ax.set_ylabel("relative error (%)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def plt_subplots(n):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, n, figsize=(5 * n, 3.4), squeeze=False)
    return fig, list(axes[0])
