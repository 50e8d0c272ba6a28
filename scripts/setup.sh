#!/usr/bin/env bash
# Installs every Debian package fivsim needs to build, test, benchmark and plot.
# Idempotent: packages already present are skipped; uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang-format
  libeigen3-dev nlohmann-json3-dev libcli11-dev libboost-dev libfftw3-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev libomp-dev
  libhdf5-dev zlib1g-dev
  pybind11-dev python3-dev python3-venv python3-setuptools python3-wheel python3-pip
  python3-numpy python3-scipy python3-matplotlib python3-h5py python3-pandas python3-pytest
  libopenmpi-dev openmpi-bin
)
# the Siconos peer is only needed by the benchmark (FIVSIM_SETUP_PEERS=1)
if [[ "${FIVSIM_SETUP_PEERS:-0}" == "1" ]]; then
  packages+=(libsiconos-numerics-dev python3-siconos)
fi
# clang with libFuzzer and the sanitizer runtimes, for scripts/tools/fuzz.sh (FIVSIM_SETUP_FUZZ=1)
if [[ "${FIVSIM_SETUP_FUZZ:-0}" == "1" ]]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
