#!/usr/bin/env bash
# scripts/gpu_checks.sh — the checks that need a GPU, in one command for a short device lease:
#   tests    every gpu test (fivsim_gpu_tests)
#   mpi      one CUDA sweep as a single process and under `mpirun -np 2` (the ranks share the GPU
#            where the machine has one, else one each): cases.csv and points.csv byte for byte,
#            and each rank's device and count of ranks on it in summary.json
#   memory   device memory: the FIVSIM_SWEEP_DEVICE_CASES hook, then a real allocation failure
#            (another process holds all but KEEP_GIB of the GPU while one chunk asks for several
#            times that): the same files, and memory_halvings > 0
#   scaling  the MPI scaling table with CUDA ranks (scripts/bench_mpi_scaling.py, 1, 2, 4 ranks)
#   bench    the sweep benchmarks of BENCHMARKS.md: the kernel against the JAX peer, lean and with
#            the full observers, with registers and the FP64 count (bench_sweep_gpu.py; the JAX
#            peer runs with $PEER_PYTHON, default /opt/torch/.venv/bin/python3 where it exists);
#            the host's cost per case up to 10^7 cases, with peak memory (bench_sweep_host.py);
#            every bundled sweep on both backends (compare_sweep_backends.py); the switching sweep
#            (bench_switching.py); the lockstep PINN sweep against the CPU backend (bench_pinn_sweep.py)
#            and the batched networks against PyTorch (bench_pinn_gpu.py)
# Prints one PASS/FAIL line per check and exits 1 if any failed.
#
# usage: scripts/gpu_checks.sh [STAGE...]            (default: tests mpi memory scaling bench)
# programs: fivsim, fivsim_gpu_tests and mpirun from FIVSIM_BIN (a build folder) or the PATH
# (scripts/device_bundle.sh's env.sh puts a bundle's there); the memory holder is Python with
# PyTorch or CuPy. Logs go to /tmp/fivsim_gpu_checks; where $OUT is set (the device tool's folder,
# which brings back at most 8 files), they go there packed as gpu_checks_logs.tgz beside
# verdicts.txt and scaling.json.
set -uo pipefail
cd "$(dirname "$0")/.."
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(tests mpi memory scaling bench)
logs=/tmp/fivsim_gpu_checks
work=$(mktemp -d /tmp/fivsim_gpu_checks.XXXX)
rm -rf "$logs"
mkdir -p "$logs"
# host cores per rank: 4, or half the machine's where it has fewer than 8
pe=$(($(nproc) / 2)); ((pe > 4)) && pe=4; ((pe < 1)) && pe=1
bin() { if [[ -n "${FIVSIM_BIN:-}" ]]; then echo "$FIVSIM_BIN/$1"; else command -v "$1"; fi; }
fivsim=$(bin fivsim) gpu_tests=$(bin fivsim_gpu_tests) mpirun=$(command -v mpirun || true)
failed=0
verdict() {  # verdict NAME OK DETAIL (OK: 1 for a pass)
  local line="PASS $1: $3"
  [[ "$2" == 1 ]] || { line="FAIL $1: $3"; failed=1; }
  echo "$line" | tee -a "$logs/verdicts.txt"
}
# summary.json fields, as one line
field() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
same_files() {  # same_files DIR_A DIR_B: cases.csv and points.csv byte for byte
  cmp -s "$1/cases.csv" "$2/cases.csv" && cmp -s "$1/points.csv" "$2/points.csv"
}

# the sweep every check runs: the benchmark chain (Moreau, double), 50 000 random cases × 2000
# steps, with points.csv on so that the comparison covers the Poincaré points too
# (CHECK_DEVICE=cpu runs the script's own logic where there is no GPU)
dev="${CHECK_DEVICE:-cuda}"
sweep=(sweep scenarios/chain2_bench_random.json -q --device "$dev" --set /sweep/samples=50000
       --set /integrator/t_end=2 --set /analysis/t_transient=1 --set /output/points=true)

nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used --format=csv 2>&1 | tee "$logs/smi.txt"
echo "fivsim: $fivsim; mpirun: ${mpirun:-none}; $(date -u +%FT%TZ)"

single="$work/single"
run_single() {
  [[ -f "$single/summary.json" ]] && return 0
  "$fivsim" "${sweep[@]}" --out "$single" >"$logs/single.log" 2>&1
}

for stage in "${stages[@]}"; do
  echo "=== $stage"
  case "$stage" in
  tests)
    timeout 300 "$gpu_tests" >"$logs/gpu_tests.log" 2>&1
    rc=$?
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\] .* ran" "$logs/gpu_tests.log"
    verdict "gpu tests" "$([[ $rc == 0 ]] && ! grep -q "^\[  SKIPPED \]" "$logs/gpu_tests.log" && echo 1)" \
      "$(grep -E '^\[  PASSED  \]' "$logs/gpu_tests.log" | head -1) (exit $rc)"
    ;;
  mpi)
    run_single || { verdict "single CUDA sweep" 0 "see single.log"; continue; }
    tail -3 "$logs/single.log"
    if [[ -z "$mpirun" ]]; then verdict "mpirun -np 2 --device $dev" 0 "no mpirun"; continue; fi
    # a chunk of 4096 cases: 13 chunks, so that both ranks take several
    timeout 300 "$mpirun" --oversubscribe -np 2 --map-by slot:PE=$pe "$fivsim" "${sweep[@]}" --chunk 4096 \
      --out "$work/ranks2" >"$logs/mpi2.log" 2>&1
    rc=$?
    tail -3 "$logs/mpi2.log"
    devices=$(field "$work/ranks2/summary.json" \
      "[(r['rank'], r['device'], r.get('device_ranks'), r['cases']) for r in s['ranks']]" 2>&1)
    verdict "mpirun -np 2 --device $dev" \
      "$([[ $rc == 0 ]] && same_files "$single" "$work/ranks2" && echo 1)" \
      "files identical to the single process: $(same_files "$single" "$work/ranks2" && echo yes || echo NO); ranks (rank, device, ranks on it, cases): $devices"
    # with one GPU both ranks are on it, and each plans on a quarter of its free memory
    if [[ "$dev" == cuda && $(nvidia-smi -L 2>/dev/null | wc -l) == 1 ]]; then
      timeout 120 "$mpirun" --oversubscribe -np 2 "$fivsim" "${sweep[@]}" --out "$work/shared" >/dev/null 2>&1
      shared=$(field "$work/shared/summary.json" "(sorted(r['device_ranks'] for r in s['ranks']), s['chunk_size'])" 2>&1)
      alone=$(field "$single/summary.json" "s['chunk_size']")
      verdict "two ranks on one GPU count each other" "$([[ "$shared" == "([2, 2], "* ]] && echo 1)" \
        "(device_ranks, default chunk) under mpirun: $shared; a single process's default chunk: $alone"
    fi
    ;;
  memory)
    run_single || { verdict "single CUDA sweep" 0 "see single.log"; continue; }
    # the hook: every call of more than 3000 cases fails as if out of memory
    FIVSIM_SWEEP_DEVICE_CASES=3000 timeout 300 "$fivsim" "${sweep[@]}" --chunk 20000 --out "$work/hook" \
      >"$logs/memory_hook.log" 2>&1
    rc=$?
    halvings=$(field "$work/hook/summary.json" "s.get('memory_halvings', 0)" 2>/dev/null || echo 0)
    verdict "FIVSIM_SWEEP_DEVICE_CASES=3000, --chunk 20000" \
      "$([[ $rc == 0 && $halvings -gt 0 ]] && same_files "$single" "$work/hook" && echo 1)" \
      "exit $rc, memory_halvings $halvings, files identical: $(same_files "$single" "$work/hook" && echo yes || echo NO)"

    # a real failure: a second process holds all but KEEP_GIB; fivsim's context takes some of the
    # rest, and one chunk asks for about 4 x KEEP_GIB. Rings of 4096 points make a case large
    # (about 0.4 MB), so that this is a few ten thousand cases
    keep_gib=${KEEP_GIB:-2}
    big=("${sweep[@]}" --set /analysis/points=4096)
    "$fivsim" "${big[@]}" --set /sweep/samples=100 --out "$work/probe" >/dev/null 2>&1
    case_bytes=$(field "$work/probe/summary.json" "int(s['case_bytes'])" 2>/dev/null)
    if [[ -z "$case_bytes" ]]; then verdict "real cudaErrorMemoryAllocation" 0 "the probe run wrote no case_bytes"; continue; fi
    chunk=$(python3 -c "print(int(4 * $keep_gib * 2**30 / $case_bytes))")
    cat >"$work/holder.py" <<'PY'
import sys
keep = int(float(sys.argv[1]) * 2**30)
try:
    import torch
    free, _ = torch.cuda.mem_get_info()
    held = torch.empty(free - keep, dtype=torch.uint8, device="cuda")
except ImportError:
    import cupy
    free, _ = cupy.cuda.runtime.memGetInfo()
    held = cupy.empty(free - keep, dtype=cupy.uint8)
print("holding %.2f GiB of %.2f GiB free" % ((free - keep) / 2**30, free / 2**30), flush=True)
sys.stdin.read()
PY
    # the holder keeps its memory until its input closes
    mkfifo "$work/hold"
    python3 "$work/holder.py" "$keep_gib" <"$work/hold" >"$logs/holder.log" 2>&1 &
    holder=$!
    exec 9>"$work/hold"
    for _ in $(seq 120); do grep -q holding "$logs/holder.log" && break; sleep 0.5; done
    cat "$logs/holder.log"
    if ! grep -q holding "$logs/holder.log"; then
      exec 9>&-
      verdict "real cudaErrorMemoryAllocation" 0 "the memory holder did not start (holder.log)"
      continue
    fi
    nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader
    # the sweep needs more cases than one chunk of this size for the test to bite
    timeout 300 "$fivsim" "${big[@]}" --set /sweep/samples=$((chunk + 1000)) --chunk "$chunk" \
      --out "$work/oom" >"$logs/memory_real.log" 2>&1
    rc=$?
    exec 9>&-
    wait "$holder" 2>/dev/null
    tail -3 "$logs/memory_real.log"
    halvings=$(field "$work/oom/summary.json" "s.get('memory_halvings', 0)" 2>/dev/null || echo 0)
    # the reference: the same cases without the holder, in chunks that fit
    timeout 300 "$fivsim" "${big[@]}" --set /sweep/samples=$((chunk + 1000)) --out "$work/oom_ref" \
      >"$logs/memory_ref.log" 2>&1
    verdict "real cudaErrorMemoryAllocation (all but ${keep_gib} GiB held, --chunk $chunk, $case_bytes B a case)" \
      "$([[ $rc == 0 && $halvings -gt 0 ]] && same_files "$work/oom_ref" "$work/oom" && echo 1)" \
      "exit $rc, memory_halvings $halvings, files identical to a run without the holder: $(same_files "$work/oom_ref" "$work/oom" && echo yes || echo NO)"
    ;;
  scaling)
    if [[ -z "$mpirun" ]]; then verdict "CUDA scaling table" 0 "no mpirun"; continue; fi
    # 10^6 cases × 10^4 steps in 62 500-case chunks
    timeout 420 python3 scripts/bench_mpi_scaling.py --fivsim "$fivsim" --mpirun "$mpirun" --device cuda \
      --ranks 1,2,4 --threads "$pe" --chunk 62500 --scenario scenarios/chain2_bench_random.json --set /output/points=false \
      --out "$work/scaling" --json "$logs/scaling.json" >"$logs/scaling.log" 2>&1
    rc=$?
    grep -v '^\$' "$logs/scaling.log"
    verdict "CUDA scaling table" "$([[ $rc == 0 ]] && echo 1)" "every run's files identical to the single process's: $([[ $rc == 0 ]] && echo yes || echo NO)"
    ;;
  bench)
    peer_python=${PEER_PYTHON:-$( [[ -x /opt/torch/.venv/bin/python3 ]] && echo /opt/torch/.venv/bin/python3 || echo python3)}
    timeout 900 "$peer_python" scripts/bench_sweep_gpu.py --fivsim "$fivsim" --ncu --out "$work/bench" \
      --json "$logs/bench_sweep_gpu.json" >"$logs/bench_sweep_gpu.log" 2>&1
    rc=$?
    grep -v '^\$' "$logs/bench_sweep_gpu.log" | tail -40
    verdict "GPU sweep benchmark against JAX" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (bench_sweep_gpu.log)"
    timeout 600 python3 scripts/bench_sweep_host.py --fivsim "$fivsim" --device cuda --cases 200000,1000000,10000000 \
      --json "$logs/bench_sweep_host.json" >"$logs/bench_sweep_host.log" 2>&1
    rc=$?
    cat "$logs/bench_sweep_host.log"
    verdict "host cost per case" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (bench_sweep_host.log)"
    timeout 600 python3 scripts/compare_sweep_backends.py --fivsim "$fivsim" >"$logs/compare_backends.log" 2>&1
    rc=$?
    cat "$logs/compare_backends.log"
    verdict "every bundled sweep on both backends" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (compare_backends.log)"
    # issue 24: the grey-box searches' batches (genetic generations, Nelder–Mead simplices,
    # Levenberg–Marquardt steps) as sweeps on the device, against the same searches with their
    # candidates simulated one by one on the host cores; the defaults, then batches a GPU fills better
    { DEVICE=cuda timeout 300 scripts/greybox_population_bench.sh "$(dirname "$fivsim")" &&
      DEVICE=cuda POPULATION=1024 SIMPLICES=64 timeout 300 scripts/greybox_population_bench.sh "$(dirname "$fivsim")"
    } >"$logs/greybox_population.log" 2>&1
    rc=$?
    cat "$logs/greybox_population.log"
    verdict "grey-box batches as device sweeps" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (greybox_population.log)"
    # issue 21: the event-driven sweep's section error and wall time against Moreau on the device
    timeout 600 python3 scripts/bench_switching.py --fivsim "$fivsim" --device cuda --cases 100000 --t-end 100 \
      >"$logs/bench_switching.log" 2>&1
    rc=$?
    cat "$logs/bench_switching.log"
    verdict "switching sweep against Moreau" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (bench_switching.log)"
    # issue 22: the lockstep PINN sweep against the CPU backend on this machine's cores, and the
    # batched networks against PyTorch's best form
    timeout 900 python3 scripts/bench_pinn_sweep.py --fivsim "$fivsim" --cases 1024,10000 --steps 50 \
      --json "$logs/bench_pinn_sweep.json" >"$logs/bench_pinn_sweep.log" 2>&1
    rc=$?
    cat "$logs/bench_pinn_sweep.log"
    verdict "PINN sweep GPU against CPU" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (bench_pinn_sweep.log)"
    # forward + backward (and, in the second table, + Adam step) in double and in float
    for precision in double float; do
      timeout 600 python3 scripts/bench_pinn_gpu.py --bench "$(bin fivsim_bench_mlp)" --networks 10000 \
        --precision "$precision" --python "$peer_python" --json "$logs/bench_pinn_gpu_$precision.json" \
        >"$logs/bench_pinn_gpu_$precision.log" 2>&1
      rc=$?
      cat "$logs/bench_pinn_gpu_$precision.log"
      verdict "batched networks against PyTorch ($precision)" "$([[ $rc == 0 ]] && echo 1)" \
        "exit $rc (bench_pinn_gpu_$precision.log)"
    done
    ;;
  *)
    echo "gpu_checks: unknown stage '$stage' (tests, mpi, memory, scaling, bench)" >&2
    exit 2
    ;;
  esac
done
rm -rf "$work"
if [[ -n "${OUT:-}" ]]; then
  tar czf "$OUT/gpu_checks_logs.tgz" -C "$logs" .
  cp "$logs/verdicts.txt" "$OUT/"
  [[ -f "$logs/scaling.json" ]] && cp "$logs/scaling.json" "$OUT/"
  for f in bench_sweep_gpu.json bench_sweep_host.json; do [[ -f "$logs/$f" ]] && cp "$logs/$f" "$OUT/"; done
fi
echo "=== verdicts"
cat "$logs/verdicts.txt"
exit $failed
