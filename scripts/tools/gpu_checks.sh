#!/usr/bin/env bash
# scripts/tools/gpu_checks.sh — the checks that need a GPU, in stages that each fit one command of a
# device lease (at most 8 minutes on an H100 with 16 cores, and 9.5 for the whole command: every
# program a stage runs gets what is left of both):
#   build     configure and build fivsim, fivsim_gpu_tests and fivsim_bench_mlp for this machine's
#             GPU on all its cores (build-device/); later stages of the same command use them. Only
#             where fivsim's dependencies are installed: the lent GPU machines lack them, so there
#             the programs come from scripts/tools/device_bundle.sh (BENCHMARKS.md has the commands)
#   tests     every gpu test (fivsim_gpu_tests)
#   mpi       one CUDA sweep as a single process and under `mpirun -np 2` (the ranks share the GPU
#             where the machine has one, else one each): cases.csv and points.csv byte for byte,
#             and each rank's device and count of ranks on it in summary.json
#   memory    device memory: the FIVSIM_SWEEP_DEVICE_CASES and FIVSIM_SWEEP_FAIL hooks, then a real
#             allocation failure (another process holds all but KEEP_GIB of the GPU while one chunk
#             asks for several times that): the same files, and memory_halvings > 0
#   scaling   the MPI scaling table with CUDA ranks (scripts/bench/bench_mpi_scaling.py, 1, 2, 4 ranks)
#   sweep     the kernel against the JAX peers, lean and with the full observers, with registers and
#             the FP64 count (bench_sweep_gpu.py; JAX from $PEER_PYTHON, default
#             /opt/torch/.venv/bin/python3 where it exists)
#   profile   the sweep kernel beside the JAX Pallas peer's in Nsight Compute: FP64 operations and
#             instructions a case-step, registers, occupancy, FP64 pipe and DRAM shares
#             (profile_sweep_kernels.py)
#   host      the host's cost per case up to 10^7 cases, with peak memory (bench_sweep_host.py)
#   backends  every bundled sweep on both backends (compare_sweep_backends.py)
#   kernels   every bundled sweep on the device with its specialised kernels against the generic
#             ones (compare_sweep_backends.py --devices cuda/generic,cuda/specialised), and a belt
#             sweep's kernel and an adaptive switching sweep's compiled into an empty cache, then
#             loaded from it: both times printed
#   greybox   grey-box candidates as device sweeps against simulations one by one
#   switching the event-driven sweep against Moreau on the device, and the adaptive switching sweep
#             on the device against all host cores (bench_switching.py --against-host)
#   pinn      the lockstep PINN sweep against the CPU backend (bench_pinn_sweep.py)
#   mlp       the batched networks against PyTorch, double and float (bench_pinn_gpu.py)
#   continuation  branches of a sweep's starts, their corrector's shots batched: one branch at a time
#             and all at once, on CPU threads and on the GPU (bench_continuation.py --cuda)
# Prints one PASS/FAIL/SKIP line per check and exits 1 if any failed.
#
# usage: scripts/tools/gpu_checks.sh [--dry] [STAGE...]   (default: every stage but build)
#   STAGE_SECONDS (480) caps every stage, STAGE_SECONDS_<stage> one of them, COMMAND_SECONDS (570)
#   the whole command; SIZE_pinn, SIZE_switching, SIZE_host and SIZE_continuation replace those
#   benchmarks' sizes (and SIZE_host its --repeat), for a short lease;
#   PRECISIONS_mlp ("double float") the networks' precisions; MIN_BLOCKS_sweep ("2,3,4") the
#   specialised kernels' minimum resident blocks the sweep stage tries
#   --dry   the whole driver on the CPU (--device cpu, small sizes), so that CI keeps it from
#           rotting (ctest GpuChecks.DryRun); what needs a GPU or a peer this machine lacks (the
#           memory holder, JAX, PyTorch, Nsight Compute, mpirun) is a SKIP line
# programs: fivsim, fivsim_gpu_tests, fivsim_bench_mlp and mpirun from FIVSIM_BIN (a build folder) or
# the PATH (scripts/tools/device_bundle.sh's env.sh puts a bundle's there). Each stage writes RESULTS/<stage>.json
# (RESULTS: $OUT where the device tool sets it, else gpu_checks_results/): its verdicts, seconds,
# device and command, and the figures its benchmark printed as JSON; scripts/tools/gpu_tables.py turns
# those files into the tables of BENCHMARKS.md. Logs go to /tmp/fivsim_gpu_checks (packed into
# RESULTS/gpu_checks_logs.tgz).
set -uo pipefail
cd "$(dirname "$0")/../.."
dry=0
if [[ "${1:-}" == --dry ]]; then
  dry=1
  shift
fi
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(tests kernels mpi memory scaling sweep profile host backends greybox switching pinn mlp continuation)
logs=/tmp/fivsim_gpu_checks
work=$(mktemp -d /tmp/fivsim_gpu_checks.XXXX)
results="${RESULTS:-${OUT:-gpu_checks_results}}"
rm -rf "$logs"
mkdir -p "$logs" "$results"
command_line="scripts/tools/gpu_checks.sh $([[ $dry == 1 ]] && echo "--dry ")${stages[*]}"
# host cores per rank: 4, or half the machine's where it has fewer than 8
pe=$(($(nproc) / 2)); ((pe > 4)) && pe=4; ((pe < 1)) && pe=1
bin() { if [[ -n "${FIVSIM_BIN:-}" ]]; then echo "$FIVSIM_BIN/$1"; else command -v "$1"; fi; }
find_programs() { fivsim=$(bin fivsim) gpu_tests=$(bin fivsim_gpu_tests) bench_mlp=$(bin fivsim_bench_mlp); }
find_programs
mpirun=$(command -v mpirun || true)
# the device tests read the scenarios of this tree, wherever they were built
export FIVSIM_SOURCE_DIR="$PWD"
# the lent machines run commands as root, which mpirun refuses unless told
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
failed=0
verdict() {  # verdict NAME OK DETAIL (OK: 1 for a pass, skip for a check this machine cannot make)
  local state=PASS
  if [[ "$2" == skip ]]; then state=SKIP; elif [[ "$2" != 1 ]]; then state=FAIL; failed=1; fi
  echo "$state $1: $3" | tee -a "$logs/verdicts.txt"
  printf '%s\t%s\t%s\n' "$state" "$1" "$3" >>"$logs/stage_verdicts.tsv"
}
skip() { verdict "$1" skip "${2:-not on this machine (--dry)}"; }
# summary.json fields, as one line
field() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
same_files() {  # same_files DIR_A DIR_B: cases.csv and points.csv byte for byte
  cmp -s "$1/cases.csv" "$2/cases.csv" && cmp -s "$1/points.csv" "$2/points.csv"
}
# seconds left of the running stage (at least 1), for `timeout`: a stage has 8 minutes, the whole
# command 9.5 (the device tool's limit is 10), so that a stage cut short still writes its results
stage_seconds=${STAGE_SECONDS:-480}
command_end=$(($(date +%s) + ${COMMAND_SECONDS:-570}))
left() {
  local end=$((stage_end < command_end ? stage_end : command_end))
  local s=$((end - $(date +%s)))
  echo $((s > 1 ? s : 1))
}
# a stage's results file: its verdicts, seconds, device and command, and the figures of the JSON
# files its benchmarks wrote (listed in $logs/stage_figures)
write_results() {  # write_results STAGE SECONDS
  python3 - "$1" "$2" "$dry" "$logs" "$results" "$command_line" <<'PY'
import json, os, sys, datetime
stage, seconds, dry, logs, results, command = sys.argv[1:7]
verdicts = []
path = os.path.join(logs, "stage_verdicts.tsv")
if os.path.exists(path):
    for line in open(path):
        state, name, detail = line.rstrip("\n").split("\t", 2)
        verdicts.append({"check": name, "state": state, "detail": detail})
figures = {}
path = os.path.join(logs, "stage_figures")
if os.path.exists(path):
    for f in open(path).read().split():
        if os.path.exists(f):
            with open(f) as fh:
                figures[os.path.splitext(os.path.basename(f))[0]] = json.load(fh)
device = "cpu (--dry)" if dry == "1" else "no GPU"
smi = os.path.join(logs, "smi.txt")
if dry != "1" and os.path.exists(smi):
    rows = [l for l in open(smi).read().splitlines()[1:] if l.strip()]
    if rows:
        device = rows[0].split(",")[1].strip()
json.dump({"stage": stage, "dry": dry == "1", "device": device,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "command": command, "seconds": float(seconds), "verdicts": verdicts, "figures": figures},
          open(os.path.join(results, stage + ".json"), "w"), indent=1)
PY
  rm -f "$logs/stage_verdicts.tsv" "$logs/stage_figures"
}
figures() { echo "$@" >>"$logs/stage_figures"; }  # JSON files the stage's benchmarks wrote
# bench LOG CHECK PROGRAM ARGS...: a benchmark under what is left of the stage, its output shown,
# the JSON it wrote ($logs/LOG.json, where it takes --json) kept as the stage's figures
bench() {
  local log=$1 check=$2
  shift 2
  timeout "$(left)" "$@" >"$logs/$log.log" 2>&1
  local rc=$?
  grep -v '^\$' "$logs/$log.log" | tail -40
  [[ -f "$logs/$log.json" ]] && figures "$logs/$log.json"
  verdict "$check" "$([[ $rc == 0 ]] && echo 1)" "exit $rc ($log.log)"
}

# the sweep every check runs: the benchmark chain (Moreau, double), 50 000 random cases × 2000
# steps (2000 with --dry), with points.csv on so that the comparison covers the Poincaré points too
if [[ $dry == 1 ]]; then dev=cpu samples=2000; else dev=cuda samples=50000; fi
sweep=(sweep scenarios/chain2_bench_random.json -q --device "$dev" --set /sweep/samples=$samples
       --set /integrator/t_end=2 --set /analysis/t_transient=1 --set /output/points=true)

if [[ $dry == 1 ]]; then echo "dry run: cpu" >"$logs/smi.txt"; else
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,memory.used --format=csv 2>&1 | tee "$logs/smi.txt"
fi
echo "fivsim: $fivsim; mpirun: ${mpirun:-none}; $(date -u +%FT%TZ)"

single="$work/single"
run_single() {
  [[ -f "$single/summary.json" ]] && return 0
  timeout "$(left)" "$fivsim" "${sweep[@]}" --out "$single" >"$logs/single.log" 2>&1
}
peer_python=${PEER_PYTHON:-$( [[ -x /opt/torch/.venv/bin/python3 ]] && echo /opt/torch/.venv/bin/python3 || echo python3)}

# one stage's checks (STAGE in $stage), under what is left of its time
run_stage() {
    case "$stage" in
    build)
      if [[ $dry == 1 ]]; then skip "build on the device" "the CPU build is CI's own"; else
        # this machine's GPU (CMake takes nvidia-smi's capability), no Python module or sanitizers
        { cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DFIVSIM_BUILD_TESTS=ON -DFIVSIM_PYTHON=OFF &&
          timeout "$(left)" cmake --build build-device -j "$(nproc)" --target fivsim fivsim_gpu_tests fivsim_bench_mlp
        } >"$logs/build.log" 2>&1
        rc=$?
        tail -3 "$logs/build.log"
        verdict "build on the device" "$([[ $rc == 0 ]] && echo 1)" \
          "exit $rc in $(($(date +%s) - stage_start)) s on $(nproc) cores (build.log)"
        [[ $rc == 0 ]] && export FIVSIM_BIN="$PWD/build-device" && find_programs
      fi
      ;;
    tests)
      if [[ $dry == 1 ]]; then
        # built and run without a device: every test must skip, none fail
        timeout "$(left)" "$gpu_tests" >"$logs/gpu_tests.log" 2>&1
        rc=$?
        verdict "gpu tests without a device" "$([[ $rc == 0 ]] && echo 1)" \
          "$(grep -cE '^\[  SKIPPED \] [A-Za-z]' "$logs/gpu_tests.log") skipped (exit $rc)"
      else
        timeout "$(left)" "$gpu_tests" >"$logs/gpu_tests.log" 2>&1
        rc=$?
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\] .* ran" "$logs/gpu_tests.log"
        verdict "gpu tests" "$([[ $rc == 0 ]] && ! grep -q "^\[  SKIPPED \]" "$logs/gpu_tests.log" && echo 1)" \
          "$(grep -E '^\[  PASSED  \]' "$logs/gpu_tests.log" | head -1) (exit $rc)"
      fi
      ;;
    mpi)
      run_single || { verdict "single $dev sweep" 0 "see single.log"; return 0; }
      tail -3 "$logs/single.log"
      if [[ -z "$mpirun" ]]; then skip "mpirun -np 2 --device $dev" "no mpirun"; return 0; fi
      # a chunk of 4096 cases (256 with --dry): 13 chunks, so that both ranks take several
      chunk=$([[ $dry == 1 ]] && echo 256 || echo 4096)
      timeout "$(left)" "$mpirun" --oversubscribe -np 2 --map-by slot:PE=$pe "$fivsim" "${sweep[@]}" --chunk $chunk \
        --out "$work/ranks2" >"$logs/mpi2.log" 2>&1
      rc=$?
      tail -3 "$logs/mpi2.log"
      devices=$(field "$work/ranks2/summary.json" \
        "[(r['rank'], r['device'], r.get('device_ranks'), r['cases']) for r in s['ranks']]" 2>&1)
      verdict "mpirun -np 2 --device $dev" \
        "$([[ $rc == 0 ]] && same_files "$single" "$work/ranks2" && echo 1)" \
        "files identical to the single process: $(same_files "$single" "$work/ranks2" && echo yes || echo NO); ranks (rank, device, ranks on it, cases): $devices"
      # with one GPU both ranks are on it, and each plans on its share of the free memory
      if [[ "$dev" == cuda && $(nvidia-smi -L 2>/dev/null | wc -l) == 1 ]]; then
        timeout "$(left)" "$mpirun" --oversubscribe -np 2 "$fivsim" "${sweep[@]}" --out "$work/shared" >/dev/null 2>&1
        shared=$(field "$work/shared/summary.json" "(sorted(r['device_ranks'] for r in s['ranks']), s['chunk_size'])" 2>&1)
        alone=$(field "$single/summary.json" "s['chunk_size']")
        verdict "two ranks on one GPU count each other" "$([[ "$shared" == "([2, 2], "* ]] && echo 1)" \
          "(device_ranks, default chunk) under mpirun: $shared; a single process's default chunk: $alone"
      fi
      ;;
    memory)
      run_single || { verdict "single $dev sweep" 0 "see single.log"; return 0; }
      # the hooks: every call of more than a tenth of the cases fails as if out of memory; then
      # failures injected at each point a launch meets (slot buffers, pinned buffers, the launch)
      cap=$((samples / 16))
      FIVSIM_SWEEP_DEVICE_CASES=$cap timeout "$(left)" "$fivsim" "${sweep[@]}" --chunk $((samples / 3)) \
        --out "$work/hook" >"$logs/memory_hook.log" 2>&1
      rc=$?
      halvings=$(field "$work/hook/summary.json" "s.get('memory_halvings', 0)" 2>/dev/null || echo 0)
      verdict "FIVSIM_SWEEP_DEVICE_CASES=$cap, --chunk $((samples / 3))" \
        "$([[ $rc == 0 && $halvings -gt 0 ]] && same_files "$single" "$work/hook" && echo 1)" \
        "exit $rc, memory_halvings $halvings, files identical: $(same_files "$single" "$work/hook" && echo yes || echo NO)"
      FIVSIM_SWEEP_FAIL=slot0:1,slot1:1,pinned:3,launch:5,launch:6,slot1:4 timeout "$(left)" "$fivsim" "${sweep[@]}" \
        --chunk $((samples / 8)) --out "$work/inject" >"$logs/memory_inject.log" 2>&1
      rc=$?
      halvings=$(field "$work/inject/summary.json" "s.get('memory_halvings', 0)" 2>/dev/null || echo 0)
      verdict "FIVSIM_SWEEP_FAIL at every point, --chunk $((samples / 8))" \
        "$([[ $rc == 0 ]] && same_files "$single" "$work/inject" && echo 1)" \
        "exit $rc, memory_halvings $halvings, files identical: $(same_files "$single" "$work/inject" && echo yes || echo NO)"
      if [[ $dry == 1 ]]; then skip "real cudaErrorMemoryAllocation"; return 0; fi

      # a real failure: a second process holds all but KEEP_GIB; fivsim's context takes some of the
      # rest, and one chunk asks for about 4 x KEEP_GIB. Rings of 4096 points make a case large
      # (about 0.4 MB), so that this is a few ten thousand cases
      keep_gib=${KEEP_GIB:-2}
      big=("${sweep[@]}" --set /analysis/points=4096)
      "$fivsim" "${big[@]}" --set /sweep/samples=100 --out "$work/probe" >/dev/null 2>&1
      case_bytes=$(field "$work/probe/summary.json" "int(s['case_bytes'])" 2>/dev/null)
      if [[ -z "$case_bytes" ]]; then verdict "real cudaErrorMemoryAllocation" 0 "the probe run wrote no case_bytes"; return 0; fi
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
      "$peer_python" "$work/holder.py" "$keep_gib" <"$work/hold" >"$logs/holder.log" 2>&1 &
      holder=$!
      exec 9>"$work/hold"
      for _ in $(seq 120); do grep -q holding "$logs/holder.log" && break; sleep 0.5; done
      cat "$logs/holder.log"
      if ! grep -q holding "$logs/holder.log"; then
        exec 9>&-
        verdict "real cudaErrorMemoryAllocation" 0 "the memory holder did not start (holder.log)"
        return 0
      fi
      nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader
      # the sweep needs more cases than one chunk of this size for the test to bite
      timeout "$(left)" "$fivsim" "${big[@]}" --set /sweep/samples=$((chunk + 1000)) --chunk "$chunk" \
        --out "$work/oom" >"$logs/memory_real.log" 2>&1
      rc=$?
      exec 9>&-
      wait "$holder" 2>/dev/null
      tail -3 "$logs/memory_real.log"
      halvings=$(field "$work/oom/summary.json" "s.get('memory_halvings', 0)" 2>/dev/null || echo 0)
      # the reference: the same cases without the holder, in chunks that fit
      timeout "$(left)" "$fivsim" "${big[@]}" --set /sweep/samples=$((chunk + 1000)) --out "$work/oom_ref" \
        >"$logs/memory_ref.log" 2>&1
      verdict "real cudaErrorMemoryAllocation (all but ${keep_gib} GiB held, --chunk $chunk, $case_bytes B a case)" \
        "$([[ $rc == 0 && $halvings -gt 0 ]] && same_files "$work/oom_ref" "$work/oom" && echo 1)" \
        "exit $rc, memory_halvings $halvings, files identical to a run without the holder: $(same_files "$work/oom_ref" "$work/oom" && echo yes || echo NO)"
      ;;
    scaling)
      if [[ -z "$mpirun" ]]; then skip "$dev scaling table" "no mpirun"; return 0; fi
      # 10^6 cases × 10^4 steps in 62 500-case chunks (4000 × 2000 in 500 with --dry)
      if [[ $dry == 1 ]]; then size=(--ranks 1,2 --threads 1 --chunk 500 --set /sweep/samples=4000 --set /integrator/t_end=2 --set /analysis/t_transient=1)
      else size=(--ranks 1,2,4 --threads "$pe" --chunk 62500); fi
      timeout "$(left)" python3 scripts/bench/bench_mpi_scaling.py --fivsim "$fivsim" --mpirun "$mpirun" --device "$dev" \
        "${size[@]}" --scenario scenarios/chain2_bench_random.json --set /output/points=false \
        --out "$work/scaling" --json "$logs/scaling.json" >"$logs/scaling.log" 2>&1
      rc=$?
      grep -v '^\$' "$logs/scaling.log"
      figures "$logs/scaling.json"
      verdict "$dev scaling table" "$([[ $rc == 0 ]] && echo 1)" "every run's files identical to the single process's: $([[ $rc == 0 ]] && echo yes || echo NO)"
      ;;
    sweep)
      # the kernel against the JAX peers (Pallas and XLA), lean and with the bifurcation observers
      # and the specialised kernels held to MIN_BLOCKS_sweep resident blocks (registers against occupancy)
      if [[ $dry == 1 ]]; then size=(--device cpu --cases 4000 --cpu-cases 2000 --no-jax --min-blocks 2)
      else size=(--ncu --min-blocks "${MIN_BLOCKS_sweep:-2,3,4}"); fi
      bench bench_sweep_gpu "GPU sweep benchmark against JAX" "$peer_python" scripts/bench/bench_sweep_gpu.py \
        --fivsim "$fivsim" "${size[@]}" --out "$work/bench" --json "$logs/bench_sweep_gpu.json"
      ;;
    profile)
      if [[ $dry == 1 ]] || ! command -v ncu >/dev/null; then
        skip "kernels in Nsight Compute" "$([[ $dry == 1 ]] && echo "not on this machine (--dry)" || echo "no ncu here")"
      else
        bench profile_sweep_kernels "kernels in Nsight Compute" python3 scripts/bench/profile_sweep_kernels.py \
          --fivsim "$fivsim" --peer-python "$peer_python" --seconds 45 --out "$work/profile" --json "$logs/profile_sweep_kernels.json"
      fi
      ;;
    host)
      size=${SIZE_host:-$([[ $dry == 1 ]] && echo "--cases 20000" || echo "--cases 200000,1000000,10000000")}
      # shellcheck disable=SC2086
      bench bench_sweep_host "host cost per case" python3 scripts/bench/bench_sweep_host.py --fivsim "$fivsim" \
        --device "$dev" $size --json "$logs/bench_sweep_host.json"
      ;;
    backends)
      # every bundled sweep (with --dry the chain load sweep alone, on the CPU twice)
      if [[ $dry == 1 ]]; then
      size=(--devices cpu,cpu --only chain2_load_sweep --set /integrator/t_end=2 --set /analysis/t_transient=1)
    else size=(); fi
      bench compare_backends "every bundled sweep on both backends" python3 scripts/compare/compare_sweep_backends.py \
        --fivsim "$fivsim" "${size[@]}"
      ;;
    kernels)
      if [[ $dry == 1 ]]; then
        devices=cpu/generic,cpu/specialised
        size=(--only chain2_load_sweep --set /integrator/t_end=2 --set /analysis/t_transient=1)
      else devices=cuda/generic,cuda/specialised size=(); fi
      bench compare_kernels "specialised against generic kernels" python3 scripts/compare/compare_sweep_backends.py \
        --fivsim "$fivsim" --devices "$devices" "${size[@]}"
      if [[ $dry == 1 ]]; then skip "a kernel compiled, then cached"; else
        cache="$work/kernel_cache"
        # a belt sweep's kernel, and the general one of an adaptive switching sweep (chain2's
        # bifurcation diagram, 200 loads over 300 s)
        general=(sweep scenarios/chain2_bifurcation.json -q --device "$dev" --set '/sweep/parameters/0/linspace=[1,30,200]'
                 --set /integrator/t_end=300 --set /output/points=true)
        for which in belt general; do
          if [[ $which == belt ]]; then run=("${sweep[@]}"); else run=("${general[@]}"); fi
          for pass in compiled cached; do
            timeout "$(left)" "$fivsim" "${run[@]}" --kernel-cache "$cache" --out "$work/kernels_${which}_$pass" \
              >"$logs/kernels_${which}_$pass.log" 2>&1
            how=$(field "$work/kernels_${which}_$pass/summary.json" "s.get('kernel', {})" 2>/dev/null)
            echo "kernel ($which), $pass pass: $how"
            verdict "a $which kernel $pass" "$([[ "$how" == *"'$pass'"* ]] && echo 1)" "$how"
          done
          same_files "$work/kernels_${which}_compiled" "$work/kernels_${which}_cached"
          verdict "the cached $which kernel's files are the compiled one's" "$([[ $? == 0 ]] && echo 1)" "cases.csv, points.csv"
        done
      fi
      ;;
    greybox)
      # the grey-box searches' batches (genetic generations, Nelder–Mead simplices, Levenberg–
      # Marquardt steps) as sweeps on the device, against the same searches with their candidates
      # simulated one by one on the host cores; the defaults, then batches a GPU fills better
      if [[ $dry == 1 ]]; then
        DEVICE=cpu POPULATION=16 SIMPLICES=2 timeout "$(left)" scripts/bench/greybox_population_bench.sh "$(dirname "$fivsim")" \
          >"$logs/greybox_population.log" 2>&1
      else
        { DEVICE=cuda timeout "$(left)" scripts/bench/greybox_population_bench.sh "$(dirname "$fivsim")" &&
          DEVICE=cuda POPULATION=1024 SIMPLICES=64 timeout "$(left)" scripts/bench/greybox_population_bench.sh "$(dirname "$fivsim")"
        } >"$logs/greybox_population.log" 2>&1
      fi
      rc=$?
      cat "$logs/greybox_population.log"
      verdict "grey-box batches as $dev sweeps" "$([[ $rc == 0 ]] && echo 1)" "exit $rc (greybox_population.log)"
      ;;
    switching)
      size=${SIZE_switching:-$([[ $dry == 1 ]] && echo "--cases 64 --t-end 20" || echo "--cases 100000 --t-end 100")}
      # shellcheck disable=SC2086
      bench bench_switching "switching sweep against Moreau, and adaptive against the host's cores" python3 \
        scripts/bench/bench_switching.py --fivsim "$fivsim" --device "$dev" $size --against-host
      ;;
    pinn)
      # the lockstep PINN sweep against the CPU backend on this machine's cores
      size=${SIZE_pinn:-$([[ $dry == 1 ]] && echo "--cases 8 --steps 5 --devices cpu" || echo "--cases 1024,10000 --steps 50")}
      # shellcheck disable=SC2086
      bench bench_pinn_sweep "PINN sweep GPU against CPU" python3 scripts/bench/bench_pinn_sweep.py --fivsim "$fivsim" $size \
        --json "$logs/bench_pinn_sweep.json"
      ;;
    mlp)
      # forward + backward (and, in the second table, + Adam step) in double and in float, against
      # PyTorch's best form
      if [[ $dry == 1 ]] && ! "$peer_python" -c "import torch" 2>/dev/null; then
        skip "batched networks against PyTorch" "no PyTorch here (--dry)"
      else
        for precision in ${PRECISIONS_mlp:-double float}; do
          bench "bench_pinn_gpu_$precision" "batched networks against PyTorch ($precision)" python3 \
            scripts/bench/bench_pinn_gpu.py --bench "$bench_mlp" --networks 10000 --precision "$precision" \
            --python "$peer_python" --json "$logs/bench_pinn_gpu_$precision.json"
        done
      fi
      ;;
    continuation)
      # a sweep's starts over the demo's load range; the shots on the GPU too where there is one
      size=${SIZE_continuation:-$([[ $dry == 1 ]] && echo "--loads 4 --range 7.8,8.0" || echo "--loads 24 --range 7,9 --cuda")}
      # shellcheck disable=SC2086
      bench bench_continuation "continuation's shots batched" python3 scripts/bench/bench_continuation.py \
        --fivsim "$fivsim" --threads "$(nproc)" $size --json "$logs/bench_continuation.json"
      ;;
    *)
      echo "gpu_checks: unknown stage '$stage' (build, tests, kernels, mpi, memory, scaling, sweep, profile, host, backends, greybox, switching, pinn, mlp, continuation)" >&2
      exit 2
      ;;
    esac
}

for stage in "${stages[@]}"; do
  echo "=== $stage"
  stage_start=$(date +%s)
  limit="STAGE_SECONDS_$stage"
  stage_end=$((stage_start + ${!limit:-$stage_seconds}))
  run_stage
  write_results "$stage" $(($(date +%s) - stage_start))
done
rm -rf "$work"
tar czf "$results/gpu_checks_logs.tgz" -C "$logs" .
echo "=== verdicts"
cat "$logs/verdicts.txt"
exit $failed
