#!/usr/bin/python3
"""Extended SINDy at measured sampling rates: the seed 003 oscillator (k̂ = 358.706, ĉ = 0.0658,
F̂f = 0.0856, A = 1.5 mm) in its two-stop (0.95 Hz) and four-stop (0.47 Hz) regimes, simulated by
the event-driven reference over 20 s, sampled at 200 Hz – 10 kHz, clean and with the seed's noise
levels (Table 6 σ on x, and on v scaled by rms(v)/rms(x)), identified by SINDy, extended SINDy with
the seed's grid step 3 and with the held step 3 (docs/IDENTIFY.md). The derivative window is the
default window_s, the same 7 ms at every rate (35 samples at 5 kHz, at least 5). Prints the errors
of k̂, ĉ, F̂f and the held step 3's 95 % intervals,
writes the table between the rate-study markers of docs/IDENTIFY.md and the figure
docs/img/identify_rate_study.png.

usage: scripts/studies/identify_rate_study.py [--quick] [--no-write]
       (PYTHONPATH=build/python: runs through the Python module)
"""
import argparse
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.append(os.path.join(ROOT, "build", "python"))  # after PYTHONPATH
import fivsim  # noqa: E402

REGIMES = [("two-stop", 0.95), ("four-stop", 0.47)]
RATES = [200, 500, 1000, 2000, 5000, 10000]
NOISE_MM = [0.0, 1.4e-7, 1.4e-6]  # seed 003 Table 6: 70 and 60 dB; 0: clean
METHODS = [("SINDy", "sindy", None), ("extended, grid", "extended_sindy", "grid"),
           ("extended, held", "extended_sindy", "held")]
BEGIN, END = "<!-- rate-study:begin -->", "<!-- rate-study:end -->"


def identify(f_hz, rate, sigma_mm, method, step3):
    options = {"optimizer": "sr3" if method == "extended_sindy" else "stlsq",
               "threshold": 0.05 if method == "extended_sindy" else 0.03}
    config = {"name": "rate_study", "method": method,
              "data": {"scenario": os.path.join(ROOT, "scenarios", "sdof_base_two_stop.json"),
                       "set": {"/model/f_hz": f_hz}, "t_end": 20.0, "sample_dt": 1.0 / rate},
              "library": {"polynomial_degree": 1, "input": True, "sign": True},
              "options": options}
    if step3:
        options.update({"step3": step3, "device": "cpu"})
    if sigma_mm > 0:
        config["noise"] = {"std": 1e-3 * sigma_mm, "seed": 1}
    fit = fivsim.identify(config)
    if sigma_mm > 0 and method == "extended_sindy":
        # the seed's rule: the thresholds follow the noise on v (v_stop = 3σ_v, v_slip = max(1e-3, 30σ_v))
        rec = fit.record
        sv = 1e-3 * sigma_mm * np.sqrt(np.mean(rec["v"] ** 2) / np.mean(rec["x"] ** 2))
        options.update({"v_stop": 3 * sv, "v_slip": max(1e-3, 30 * sv)})
        fit = fivsim.identify(config)
    key = "sindy" if method == "sindy" else "extended_sindy"
    out = fit.identified[key]
    held = out.get("held", {})
    if "interval_95" in held:
        # the 95 % interval's half-width in percent of the truth, and whether it holds the truth
        truth = fit.identified["truth"]
        iv = held["interval_95"]
        out["interval"] = {n: (50.0 * (iv[n][1] - iv[n][0]) / abs(truth[n]), iv[n][0] <= truth[n] <= iv[n][1])
                           for n in ("k", "c", "F")}
    return fit.identified["record"]["derivative_window"], out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 Hz, 1 kHz and 5 kHz, clean and 60 dB")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/ as they are")
    args = ap.parse_args()
    rates = [200, 1000, 5000] if args.quick else RATES
    noise = [0.0, 1.4e-6] if args.quick else NOISE_MM

    rows = []
    errors = {}  # (regime, sigma, label) -> [(rate, {k, c, F})]
    for regime, f_hz in REGIMES:
        for sigma in noise:
            for rate in rates:
                cells = []
                for label, method, step3 in METHODS:
                    window, out = identify(f_hz, rate, sigma, method, step3)
                    e = out["errors_percent"]
                    errors.setdefault((regime, sigma, label), []).append((rate, e))
                    cells.append("%.3g, %.3g, %.3g" % (e["k"], e["c"], e["F"]))
                    if "interval" in out:
                        iv = out["interval"]
                        cells.append(", ".join("%.2g%s" % (iv[n][0], "" if iv[n][1] else " ✗") for n in ("k", "c", "F")))
                row = "| %s | %s | %g | %d | %s |" % (regime, "clean" if sigma == 0 else "%g" % sigma, rate,
                                                      window, " | ".join(cells))
                print(row, flush=True)
                rows.append(row)

    table = ["Errors of k̂, ĉ, F̂f (%%) by `scripts/studies/identify_rate_study.py%s`, with the held step 3's 95 %% "
             "interval half-widths (%% of the truth; ✗ marks an interval that misses the truth):\n"
             % (" --quick" if args.quick else ""),
             "| regime | σ mm | rate Hz | window | SINDy | extended, grid | extended, held | held: ± interval |",
             "|---|---|---|---|---|---|---|---|"] + rows + ["", "![k̂ and F̂f errors against the sampling rate](img/identify_rate_study.png)"]

    fig, axes = plt.subplots(len(REGIMES), len(noise), figsize=(4 * len(noise), 3.2 * len(REGIMES)), squeeze=False)
    for i, (regime, _) in enumerate(REGIMES):
        for j, sigma in enumerate(noise):
            ax = axes[i][j]
            for label, _, _ in METHODS:
                pts = errors[(regime, sigma, label)]
                for key, style in (("k", "o-"), ("F", "s--")):
                    ax.loglog([p[0] for p in pts], [max(p[1][key], 1e-6) for p in pts], style,
                              label="%s %s" % (label, "k̂" if key == "k" else "F̂f"))
            ax.set_title("%s, %s" % (regime, "clean" if sigma == 0 else "σ = %g mm" % sigma), fontsize=10)
            ax.set_xlabel("sampling rate (Hz)")
            ax.set_ylabel("error (%)")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    if args.no_write:
        return
    fig.savefig(os.path.join(ROOT, "docs", "img", "identify_rate_study.png"), dpi=110)
    path = os.path.join(ROOT, "docs", "IDENTIFY.md")
    text = open(path).read()
    block = BEGIN + "\n" + "\n".join(table) + "\n" + END
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda m: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n## Sampling rate and noise\n\n" + block + "\n"
    open(path, "w").write(text)
    print("-> docs/IDENTIFY.md, docs/img/identify_rate_study.png")


if __name__ == "__main__":
    main()
