#!/usr/bin/env bash
# The test command (README): install what the build needs, configure, build, run every test.
# GPU tests (ctest label gpu) skip themselves where no device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir="${FIVSIM_BUILD_DIR:-build}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DFIVSIM_BUILD_TESTS=ON ${FIVSIM_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
