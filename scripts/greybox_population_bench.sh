#!/usr/bin/env bash
# Grey-box population throughput: the bundled genetic search (scenarios/identify/
# model1_stribeck_genetic.json, 48 candidates x 30 generations, no polish) with each generation as
# one sweep (options.evaluate "sweep": the sweep engine's output_error observer, CPU backend or the
# GPU with DEVICE=cuda) against the same search with each candidate simulated on its own, side by
# side on the cores ("simulations", the earlier path). Prints candidates/s of both and their ratio;
# both searches must end at the same parameters.
# usage: scripts/greybox_population_bench.sh [build-dir]   (DEVICE=auto|cpu|cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
device="${DEVICE:-auto}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for ev in sweep simulations; do
  "$build/fivsim" identify scenarios/identify/model1_stribeck_genetic.json --set "/options/evaluate=\"$ev\"" \
    --set /options/polish=false --set "/options/device=\"$device\"" --out "$out/$ev" > "$out/$ev.log"
done
/usr/bin/python3 - "$out" <<'PY'
import json, sys
g = {ev: json.load(open("%s/%s/identified.json" % (sys.argv[1], ev)))["greybox"] for ev in ("sweep", "simulations")}
for ev, r in g.items():
    print("%-11s evaluated by %-11s %5d candidates in %.3f s: %8.1f candidates/s  %s"
          % (ev, r["evaluated_by"], r["evaluations"], r["wall_s"], r["simulations_per_s"], r["parameters"]))
print("ratio sweep / simulations: %.2f" % (g["sweep"]["simulations_per_s"] / g["simulations"]["simulations_per_s"]))
if g["sweep"]["parameters"] != g["simulations"]["parameters"]:
    sys.exit("the two searches ended at different parameters")
PY
