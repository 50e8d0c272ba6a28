#!/usr/bin/python3
"""A new user's first hour with fivsim from Python, end to end, printing what each step found:
a load sweep of the 2-DoF chain and its classes; a basin-stability sweep (does a bistable slider
squeal from every start, or only from some?) with its standard error; pandas filtering of a sweep's
Poincaré samples; a comparison of two methods against the event-driven reference; an
identification with 95 % intervals; and two bad inputs, each refused with the JSON pointer.
What it found goes to FOLDER/first_hour.json as well.

usage: examples/first_hour.py [--small] [--out FOLDER]   (PYTHONPATH=build/python, after the README's build)
"""
import argparse
import json
import os

import fivsim

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "..", "scenarios")


def load_sweep(loads):
    """the chain's classes over the normal load (each case until its class is known)"""
    sweep = fivsim.sweep(os.path.join(SCENARIOS, "chain2_bifurcation.json"),
                         set={"/sweep/parameters/0/linspace": [1, 30, loads]}, progress=True)
    print(sweep)
    counts = {}
    for name in sweep.cases["class"]:
        counts[str(name)] = counts.get(str(name), 0) + 1
    for name, count in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {name:16s} {count}")
    return sweep, counts


def basin_stability(samples):
    """Model I with a damper (c = 0.2) on a belt at 1.5 m/s: steady sliding is stable, and so is a
    stick-slip cycle; random starts in q0 ∈ [-4, 4] m, u0 ∈ [-3, 3] m/s tell how much of that box
    each attracts (the basin stability, with its binomial standard error)"""
    with open(os.path.join(SCENARIOS, "model1_slow_stribeck.json")) as f:
        scenario = json.load(f)
    scenario["model"].update({"c": 0.2, "v0": 1.5})
    scenario["integrator"]["t_end"] = 300.0
    scenario["analysis"] = {"t_transient": 200.0}
    scenario["output"] = {"timeseries": False}
    scenario["sweep"] = {"mode": "random", "samples": samples, "seed": 3,
                         "parameters": [{"path": "/initial/q/0", "range": [-4, 4]},
                                        {"path": "/initial/u/0", "range": [-3, 3]}]}
    # a sweep over initial conditions labels each start with the attractor it reached (the
    # "attractor" column) and gives each attractor's share: .basins, basins.csv's columns
    basins = fivsim.sweep(scenario).basins
    shares = {}
    print(f"basin stability of {samples} random starts (each attractor's share ± standard error):")
    for k in range(len(basins["attractor"])):
        name = f"{basins['class'][k]} #{basins['attractor'][k]}"
        shares[name] = (float(basins["fraction"][k]), float(basins["standard_error"][k]))
        print(f"  {name:20s} {shares[name][0]:.3f} ± {shares[name][1]:.3f}")
    return shares


def poincare_in_a_band(sweep, low, high):
    """the outer slider's break-away positions for loads in [low, high] N, by class (pandas)"""
    cases = sweep.to_pandas()
    points = sweep.to_pandas("points")
    samples = points[points["kind"] == "poincare"].merge(cases[["case", "/model/Fn", "class"]], on="case")
    band = samples[(samples["/model/Fn"] >= low) & (samples["/model/Fn"] <= high)]
    table = band.groupby("class")["q0"].agg(["count", "min", "max"])
    print(f"Poincaré samples (q0 at the break-away) for Fn in [{low}, {high}] N:")
    print(table.to_string())
    return {str(k): int(v) for k, v in table["count"].items()}


def comparison():
    """Moreau and a 4-stage Gauss IRK-LCP at dt = 1e-3 against the event-driven reference"""
    result = fivsim.compare(os.path.join(SCENARIOS, "model2_example2.json"), methods="moreau,irk4", dt=1e-3,
                            set={"/integrator/t_end": 2.0})
    frame = result.to_pandas()
    columns = [c for c in frame.columns if c in ("run", "method", "dt") or c.startswith("relerr_")]
    print(frame[columns].to_string(index=False))
    return frame[columns].to_dict(orient="list")


def identification(small):
    """extended SINDy on a simulated two-stop record: the parameters with their 95 % intervals"""
    fit = fivsim.identify(os.path.join(SCENARIOS, "identify", "sdof_two_stop_extended_sindy.json"),
                          set={"/data/t_end": 8.0} if small else None)
    truth = fit.identified.get("truth", {})
    print(f"{fit}:")
    for name, value in fit.parameters.items():
        low, high = fit.intervals[name]
        held = "holds" if low <= truth.get(name, value) <= high else "misses"
        print(f"  {name} = {value:.6g}, 95% [{low:.6g}, {high:.6g}] ({held} the truth {truth.get(name, '–')})")
    return {"parameters": fit.parameters, "intervals": fit.intervals}


def bad_inputs():
    """two mistakes a new user makes: a misspelled key, and a step longer than the run"""
    scenario = os.path.join(SCENARIOS, "model1_slow_stribeck.json")
    found = []
    with open(scenario) as f:
        typo = json.load(f)
    typo["friction"]["mu_S"] = typo["friction"].pop("mu_s")
    for what, call in (("a misspelled key", lambda: fivsim.validate(typo)),
                       ("dt > t_end", lambda: fivsim.run(scenario, set={"/integrator/dt": 50.0}))):
        try:
            call()
            raise SystemExit(f"{what} was accepted")
        except fivsim.InputError as e:
            print(f"  {what}: InputError at {e.pointer}: {e}")
            found.append({"input": what, "pointer": e.pointer, "message": str(e)})
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="small sizes (a check, as CI runs it)")
    ap.add_argument("--out", default="runs/first_hour", help="folder of first_hour.json")
    args = ap.parse_args()

    print("1. a load sweep")
    sweep, counts = load_sweep(24 if args.small else 400)
    print("2. basin stability")
    shares = basin_stability(200 if args.small else 2000)
    print("3. pandas on a sweep's points")
    band = poincare_in_a_band(sweep, 5.0, 10.0)
    print("4. a comparison")
    errors = comparison()
    print("5. an identification with intervals")
    fit = identification(args.small)
    print("6. bad input")
    refused = bad_inputs()

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "first_hour.json")
    with open(path, "w") as f:
        json.dump({"load_sweep_classes": counts, "basin_stability": shares, "poincare_5_10N": band,
                   "comparison": errors, "identification": fit, "bad_inputs": refused}, f, indent=2)
    print("->", path)


if __name__ == "__main__":
    main()
