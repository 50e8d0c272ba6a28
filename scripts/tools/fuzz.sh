#!/usr/bin/env bash
# Builds the libFuzzer harness (tests/fuzz/input_fuzz.cpp: clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, docs/FUZZING.md) in build-fuzz/ and runs it for SECONDS (default 60)
# from the bundled scenarios, identification configs and past findings (tests/fuzz/regressions/).
# A finding is written to build-fuzz/artifacts/ and the script exits non-zero.
# usage: scripts/tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
FIVSIM_SETUP_FUZZ=1 scripts/setup.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DFIVSIM_FUZZ=ON -DFIVSIM_CUDA=OFF -DFIVSIM_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target fivsim_fuzz_input -j"$(nproc)"
mkdir -p build-fuzz/corpus build-fuzz/artifacts
build-fuzz/fivsim_fuzz_input -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ \
  build-fuzz/corpus scenarios scenarios/identify tests/fuzz/regressions
