#!/usr/bin/env bash
# The run command (README): install what the build needs, build fivsim if needed, run it.
# Without arguments it runs the README demo scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
build_dir="${FIVSIM_BUILD_DIR:-build}"
if [[ ! -x "$build_dir/fivsim" ]] || [[ -n "$(find src include kernels CMakeLists.txt -newer "$build_dir/fivsim" -print -quit)" ]]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" -j "$(nproc)" --target fivsim
fi
if [[ $# -eq 0 ]]; then
  set -- run scenarios/model1_slow_stribeck.json
fi
exec "$build_dir/fivsim" "$@"
