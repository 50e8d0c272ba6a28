#!/usr/bin/env bash
# scripts/tools/device_bundle.sh — packs what a bare GPU machine needs to run fivsim's device checks
# (scripts/tools/gpu_checks.sh) from a build made here: the built programs, the shared libraries they
# load beyond the C/C++ runtime and the GPU driver, and OpenMPI's runtime (mpirun, its components
# and help texts, PMIx's components) laid out to be relocated with OPAL_PREFIX. Each program is
# reached through a small wrapper that sets the library path for it alone, so that other programs
# on that machine (its Python, say) keep their own libraries. Tested here by hiding the system's
# OpenMPI in a private mount namespace (unshare -m) and running a 2-rank sweep from the bundle.
#
# usage: scripts/tools/device_bundle.sh [BUILD_DIR]    (default build/, a build with CUDA)
# writes .devbundle/fivsim-device.tar.gz (git ignores .devbundle/); on the GPU machine:
#   mkdir -p /tmp/fv && tar xzf .devbundle/fivsim-device.tar.gz -C /tmp/fv && . /tmp/fv/env.sh
# after which fivsim, fivsim_gpu_tests, fivsim_bench_mlp and mpirun are on the PATH, with that
# machine's own CUDA libraries of the same major version (FIVSIM_CUDA_LIBS, which env.sh sets).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

programs=()
for p in fivsim fivsim_gpu_tests fivsim_bench_mlp; do
  [[ -x "$build/$p" ]] && programs+=("$build/$p")
done
if [[ ! -x "$build/fivsim_gpu_tests" ]]; then
  echo "device_bundle: $build/fivsim_gpu_tests is missing: build with CUDA first" >&2
  exit 2
fi

mkdir -p "$stage/real" "$stage/lib" "$stage/bin"
cp "${programs[@]}" "$stage/real/"

# OpenMPI, relocated: its tree under mpi/ mirrors the one under /usr. Components that need network
# fabrics (UCX, libfabric, InfiniBand, PSM) are left out: one GPU machine runs its ranks over
# shared memory
ompi_lib=/usr/lib/x86_64-linux-gnu/openmpi/lib
pmix_root=/usr/lib/x86_64-linux-gnu/pmix2
mpi_objects=()
if [[ -x /usr/bin/orterun && -d "$ompi_lib/openmpi3" ]]; then
  mkdir -p "$stage/mpi/bin" "$stage/mpi/lib/x86_64-linux-gnu/openmpi/lib/openmpi3" "$stage/mpi/share"
  cp /usr/bin/orterun "$stage/mpi/bin/"
  for c in "$ompi_lib"/libmca_common_*.so "$ompi_lib"/openmpi3/*.so; do
    case "$(basename "$c")" in *ucx* | *ofi* | *openib* | *verbs* | *psm* | *uct*) continue ;; esac
    cp "$c" "$stage/mpi/lib/x86_64-linux-gnu/openmpi/lib/${c#"$ompi_lib"/}"
  done
  cp -r /usr/share/openmpi "$stage/mpi/share/"
  mpi_objects=("$stage/mpi/bin/orterun" "$stage"/mpi/lib/x86_64-linux-gnu/openmpi/lib/*.so*
               "$stage"/mpi/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so)
  if [[ -d "$pmix_root/lib/pmix" ]]; then
    mkdir -p "$stage/pmix/lib" "$stage/pmix/share"
    cp -r "$pmix_root/lib/pmix" "$stage/pmix/lib/"
    [[ -d "$pmix_root/share/pmix" ]] && cp -r "$pmix_root/share/pmix" "$stage/pmix/share/"
    mpi_objects+=("$stage"/pmix/lib/pmix/*.so)
  fi
else
  echo "device_bundle: no OpenMPI here (scripts/setup.sh installs it); the bundle has no mpirun" >&2
fi

# every library the programs and components load, less the C/C++ runtime, the GPU driver, which
# the GPU machine has (and must use: its driver matches its kernel), and the CUDA toolkit's own
# libraries (cuBLAS, NVRTC, the runtime), which its image has in the same major version: cuBLASLt
# alone is half a gigabyte, and NVRTC loads its builtins from beside itself
ldd "$stage"/real/* "${mpi_objects[@]}" 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcuda|ld-linux[^/]*)\.so' |
  grep -v -E '/(libcublas|libcublasLt|libnvrtc|libnvrtc-builtins|libcudart|libnvJitLink)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
cuda_major=$(ldd "$stage"/real/* 2>/dev/null | grep -o -E 'lib(cublas|nvrtc)\.so\.[0-9]+' | head -1 | sed 's/.*\.so\.//')

# a wrapper per program: the bundle's libraries for it alone
for p in "$stage"/real/*; do
  name=$(basename "$p")
  cat >"$stage/bin/$name" <<EOF
#!/bin/sh
here=\$(dirname "\$(readlink -f "\$0")")/..
LD_LIBRARY_PATH="\$here/lib\${FIVSIM_CUDA_LIBS:+:\$FIVSIM_CUDA_LIBS}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/real/$name" "\$@"
EOF
  chmod +x "$stage/bin/$name"
done
if [[ -d "$stage/mpi" ]]; then
  cat >"$stage/bin/mpirun" <<'EOF'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")/..
LD_LIBRARY_PATH="$here/lib:$here/mpi/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  exec "$here/mpi/bin/orterun" "$@"
EOF
  chmod +x "$stage/bin/mpirun"
fi

# env.sh: the PATH, the machine's CUDA libraries, OpenMPI's relocation, and the settings a root
# shell on one machine needs (the same as Debian's /etc/openmpi defaults, which a relocated OpenMPI
# does not read)
echo "fv_cuda_major=${cuda_major:-13}" >"$stage/env.sh"
cat >>"$stage/env.sh" <<'EOF'
fv_root=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export PATH="$fv_root/bin:$PATH"
# the machine's own CUDA libraries of the major version the programs were built with: its toolkit's,
# else PyTorch's wheels
unset FIVSIM_CUDA_LIBS
for fv_dir in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64 \
  /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu$fv_cuda_major/lib; do
  if [ -e "$fv_dir/libcublas.so.$fv_cuda_major" ] && [ -e "$fv_dir/libnvrtc.so.$fv_cuda_major" ]; then
    export FIVSIM_CUDA_LIBS="$fv_dir"
    break
  fi
done
[ -n "${FIVSIM_CUDA_LIBS:-}" ] ||
  echo "env.sh: no libcublas.so.$fv_cuda_major beside libnvrtc.so.$fv_cuda_major here: set FIVSIM_CUDA_LIBS to their folder" >&2
export OPAL_PREFIX="$fv_root/mpi" PMIX_MCA_mca_base_component_path="$fv_root/pmix/lib/pmix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_MCA_mtl=^ofi OMPI_MCA_osc=^ucx,pt2pt
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
EOF

mkdir -p .devbundle
grep -qx '/.devbundle/' .git/info/exclude 2>/dev/null || echo '/.devbundle/' >>.git/info/exclude
# written whole or not at all: a bundle cut short would unpack on the device as a broken build
tar czf .devbundle/fivsim-device.tar.gz.part -C "$stage" .
mv .devbundle/fivsim-device.tar.gz.part .devbundle/fivsim-device.tar.gz
echo "device_bundle: .devbundle/fivsim-device.tar.gz, $(du -h .devbundle/fivsim-device.tar.gz | cut -f1)" \
  "($(ls "$stage/real" | tr '\n' ' ')+ $(ls "$stage/lib" | wc -l) libraries$([[ -d "$stage/mpi" ]] && echo ', OpenMPI'))"
