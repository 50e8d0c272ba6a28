#!/usr/bin/env bash
# The run command (README): install what the build needs, build fivsim if needed, run it.
# Without arguments it runs the README demo: the 2-DoF chain load sweep and its bifurcation diagram.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
build_dir="${FIVSIM_BUILD_DIR:-build}"
if [[ ! -x "$build_dir/fivsim" ]] || [[ -n "$(find src include kernels cmake CMakeLists.txt -newer "$build_dir/fivsim" -print -quit)" ]]; then
  # kernels only where a GPU can run them (or FIVSIM_CUDA=ON): without one, nvcc would take most
  # of a fresh build's time for code nothing here runs
  cuda="${FIVSIM_CUDA:-}"
  if [[ -z "$cuda" ]]; then
    if nvidia-smi -L 2>/dev/null | grep -q GPU; then cuda=AUTO; else cuda=OFF; fi
  fi
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DFIVSIM_CUDA="$cuda" >/dev/null
  # the command line and the Python package (PYTHONPATH=build/python python3 -c "import fivsim")
  cmake --build "$build_dir" -j "$(nproc)" --target fivsim_apps
fi
if [[ $# -eq 0 ]]; then
  "$build_dir/fivsim" sweep scenarios/chain2_bifurcation.json --out runs/chain2_bifurcation
  exec scripts/plot/plot_bifurcation.py runs/chain2_bifurcation --panels poincare:q1,stick_to_slip@0:q0
fi
exec "$build_dir/fivsim" "$@"
