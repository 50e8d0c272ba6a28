#!/usr/bin/env bash
# Grey-box population throughput on the bundled Stribeck search (scenarios/identify/
# model1_stribeck_genetic.json: Model I's μs, δ from 40 s of its stick-slip response), each search
# with its batches of candidates as sweeps (options.evaluate "sweep": the sweep engine's
# output_error observer, residual series for Levenberg–Marquardt; CPU backend, or the GPU with
# DEVICE=cuda) against the same search with each candidate simulated on its own, side by side on
# the cores ("simulations", the earlier path):
#   genetic              POPULATION (48) candidates x 30 generations + the first, no polish
#   nelder_mead          SIMPLICES (8) simplices stepped together (every move of an iteration in
#                        one batch)
#   levenberg_marquardt  three trial steps with their forward differences per batch
# Nelder–Mead and Levenberg–Marquardt start at μs = 0.14, δ = 1.6 (the data's 0.1, 1). Prints
# candidates/s of both paths, their ratio and each search's wall time; both paths must end at the
# same parameters (to 1e-6).
# A GPU wants larger batches than the defaults: POPULATION=1024 SIMPLICES=64 (scripts/tools/gpu_checks.sh).
# usage: scripts/bench/greybox_population_bench.sh [build-dir]   (DEVICE=auto|cpu|cuda, POPULATION, SIMPLICES)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
device="${DEVICE:-auto}"
population="${POPULATION:-48}"
simplices="${SIMPLICES:-8}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$out" "$device" "$population" "$simplices" <<'PY'
import json, os, sys
out, device, population, simplices = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
base = json.load(open("scenarios/identify/model1_stribeck_genetic.json"))
# the configs live in the scratch folder: their scenarios by absolute path
for sub in ("data", "model"):
    base[sub]["scenario"] = os.path.abspath(os.path.join("scenarios/identify", base[sub]["scenario"]))
searches = {
    "genetic": {"optimizer": "genetic", "population": population, "generations": 30, "seed": 1, "polish": False},
    "nelder_mead": {"optimizer": "nelder_mead", "simplices": simplices, "seed": 1},
    "levenberg_marquardt": {"optimizer": "levenberg_marquardt"},
}
for name, options in searches.items():
    for ev in ("sweep", "simulations"):
        c = json.loads(json.dumps(base))
        c["options"] = dict(options, evaluate=ev, device=device)
        if name != "genetic":
            c["parameters"][0]["initial"], c["parameters"][1]["initial"] = 0.14, 1.6
        json.dump(c, open("%s/%s_%s.json" % (out, name, ev), "w"))
PY
for search in genetic nelder_mead levenberg_marquardt; do
  for ev in sweep simulations; do
    "$build/fivsim" identify "$out/${search}_$ev.json" --out "$out/${search}_$ev" \
      > "$out/${search}_$ev.log"
  done
done
/usr/bin/python3 - "$out" <<'PY'
import json, sys
failed = []
for search in ("genetic", "nelder_mead", "levenberg_marquardt"):
    g = {ev: json.load(open("%s/%s_%s/identified.json" % (sys.argv[1], search, ev)))["greybox"]
         for ev in ("sweep", "simulations")}
    print(search)
    for ev, r in g.items():
        print("  %-11s by %-11s %5d candidates in %4d batches, %.3f s: %8.1f candidates/s  mu_s %.8g delta %.8g"
              % (ev, r["evaluated_by"], r["evaluations"], r["batches"], r["wall_s"], r["simulations_per_s"],
                 r["parameters"]["/friction/mu_s"], r["parameters"]["/friction/delta"]))
    print("  ratio sweep / simulations: %.2f candidates/s, %.2f wall"
          % (g["sweep"]["simulations_per_s"] / g["simulations"]["simulations_per_s"],
             g["simulations"]["wall_s"] / g["sweep"]["wall_s"]))
    a, b = g["sweep"]["parameters"], g["simulations"]["parameters"]
    if any(abs(a[k] - b[k]) > 1e-6 * abs(b[k]) for k in b):
        failed.append(search)
if failed:
    sys.exit("the two paths ended at different parameters: " + ", ".join(failed))
PY
