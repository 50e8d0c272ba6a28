#!/usr/bin/env bash
# The test command (README): install what the build needs, configure, build, run every test; GPU
# tests (ctest label gpu) skip themselves where no device is present. With FIVSIM_TEST_SANITIZE=1
# (CI's .ci/run sets it) the sanitizer stage follows: a clang build with AddressSanitizer and
# UndefinedBehaviorSanitizer runs the unit tests again (all but the long trainings below, which the
# first build runs), the libFuzzer harness of the input path for FIVSIM_FUZZ_SECONDS (60) and that of
# the files read back from results (merge, --resume) for FIVSIM_FUZZ_RESULTS_SECONDS (60).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize="${FIVSIM_TEST_SANITIZE:-0}"
FIVSIM_SETUP_FUZZ="$sanitize" scripts/setup.sh
jobs="$(nproc)"
# the tree's style (.clang-format): every tracked C++ and CUDA source as clang-format writes it
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs -0 clang-format --dry-run --Werror
fi
# ctest runs tests side by side, each with a thread per core: threads that spin while they wait
# would take each other's cores
export OMP_WAIT_POLICY=passive

build_dir="${FIVSIM_BUILD_DIR:-build}"
# where no GPU is visible the kernels are compiled to check them, as PTX alone (no device here
# would run machine code for the release architectures) and without cicc's optimiser (-G: the
# same checks of every CUDA source, a tenth of its compile time)
arch_args=""
if ! nvidia-smi -L 2>/dev/null | grep -q GPU && [[ "${FIVSIM_CMAKE_ARGS:-}" != *CMAKE_CUDA_ARCHITECTURES* ]]; then
  arch_args="-DCMAKE_CUDA_ARCHITECTURES=90-virtual -DCMAKE_CUDA_FLAGS=-G"
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DFIVSIM_BUILD_TESTS=ON $arch_args ${FIVSIM_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"

[[ "$sanitize" == "1" ]] || exit 0
# -O1 without debug information: a tenth less compile time than with line tables (reports name
# the functions; FIVSIM_SANITIZE_FLAGS="-O1 -gline-tables-only" adds file:line to rerun a finding);
# without CUDA the device tests could only skip, so they are not built; the Python module is
# checked by the first build (under ASan the interpreter would need the runtime preloaded)
san_dir="${FIVSIM_SANITIZE_DIR:-build-san}"
# the test files themselves at -O0 (a third of their compile time; the engine they call stays at -O1)
CC=clang CXX=clang++ cmake -S . -B "$san_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${FIVSIM_SANITIZE_FLAGS:--O1}" -DFIVSIM_CUDA=OFF -DFIVSIM_FUZZ=ON -DFIVSIM_PYTHON=OFF \
  -DFIVSIM_BUILD_TESTS=ON -DFIVSIM_GPU_TESTS=OFF -DFIVSIM_TEST_OPTIMIZE=-O0 >/dev/null
cmake --build "$san_dir" -j "$jobs"
# ten to a hundred times slower under the sanitizers (minutes each; the interval studies' records
# half a minute each, the joint-term fits and the batched simplices 20 to 35 s each, their code
# paths taken by the shorter identification tests), two more MPI
# runs of the rank exchange that MpiRanksWriteTheSingleRunsFiles already takes through it, or long
# runs of code the short tests take too (4000 bSTAB starts, 3600 at nine belt speeds; 12 000 s of Benettin's
# exponents; continued branches of hundreds of orbits; the belt runner's narrower CPU copies, the
# same source as the copy the other belt tests take; the filesystem adversary's thousands of
# commands, whose code the InputsNeverOutputs tests take): run by the first build only
slow='^(JointTerms\.FindOnlyTheFrictionTermOnSlipSamples|JointTerms\.StickSamplesPullInSpuriousTerms|GreyboxSweeps\.NelderMeadSimplicesBySweepsAreTheSearchBySimulations|Greybox\.OutputErrorIntervalsHoldTheTruthOnNoisyRecords|Identification\.HeldIntervalsHoldTheTruthAtMeasuredRates|Identification\.SindyIntervalsHoldTheTruthWhereTheEquationFits|SweepCommand\.PinnSweepMatchesIrkSweep|SweepCommand\.PinnCaseEqualsRun|Identification\.ExtendedSindyBeatsSindyOnTheTwoStopCase|Identification\.NoisyRecordsStayWithinTheRateStudysBounds|Identification\.HeldStepThreeKeepsTheSlipPrecisionWhereTheGridLosesIt|Greybox\.NelderMeadRecoversTheGeneratingParametersFromASimulatedRecord|IdentifyCommand\.PinnFindsTheLuGreTorqueOfTheTorsionPendulum|PinnStep\.SingleAndAdvancedSingleConvergeToTheirIrkLcpCounterparts|PinnStep\.DualMatchesSingleThroughTheLcpPinn|PinnIdentification\.RecoversTheTorqueOfAClosedFormMotion|PinnIdentification\.TrainableCoefficientsStayInTheirBoundsAndCloseTheBalance|MlpBatch\.FitGradientsMatchFiniteDifferences|CaseRunner\.AdaptiveRunsStopWithTheClassOfALongFixedRun|CaseRunner\.SwitchingAdaptiveRunsStopWithTheClassOfALongFixedRun|SweepCommand\.MpiSweepResumesAndReportsARanksFailureOnce|SweepCommand\.MpiSlowRankHoldsUpNobody|SweepCommand\.BasinStabilityOfBstabsFrictionOscillator|SweepCommand\.BasinStabilityAtEachBeltSpeed|SwitchingOrbit\.LyapunovExponentsAgreeWithTheMultipliers|OrbitObserver\.ClassesAreWhatLongRunsSettleOn|OrbitObserver\.SamplesByAnUnstableOrbitHaveNotSettled|ContinueCommand\.TheDemoChainsPeriodDoublings|ContinueReport\..*|IdentifyLaws\.(TheRecordsLawRanksFirstAndAloneCarriesTheTruth|ARecordNoCandidateExplainsIsFlagged|ExtendedSindyWarnsWhereItsEquationDoesNotFit)|SweepCommand\.TheChainsCoexistingOrbitsAreAttractorsOfTheirOwn|ContinueCommand\.MultipleShootingFindsSingleShootingsOrbitsAndDoubling|ContinueCommand\.BstabsStickSlipCycleEndsWhereItMeetsTheUnstableCycleThatBoundsTheBasin|ContinueCommand\.SmoothFoldOfCyclesIsSciPys|ContinueCommand\.PeriodDoublingCurveMeetsTheBranchesAtFixedBeltSpeeds|ContinueCommand\.SweepStartsABranchEachWayFromEveryFamilyOfOrbits|ContinueCommand\.GrazingOnTheBreakAwaySectionIsTheVelocitySectionsGrazing|ContinueCommand\.ADoublingShortOfAGrazingInOneStepIsLocatedOnTheGrazingsNearSide|ContinueCommand\.DoublingCurveNextToAGrazingPointIsTheBranchesDoubling|ContinueCommand\.TorusPointIsWherePlainRunsTurnFromDecayToGrowth|CaseRunner\.SwitchingExponentIsThatOfTheVariationalEquations|BeltRunner\.EveryCpuCopyKeepsTheGeneralRunnersNumbers|Adversary\..*)$'
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan_suppressions.txt:print_suppressions=0"
ctest --test-dir "$san_dir" --output-on-failure -j "$jobs" -L cpu -E "$slow"

# a short fuzz run from the bundled inputs and past findings; a finding fails the stage
seconds="${FIVSIM_FUZZ_SECONDS:-60}"
corpus="$san_dir/corpus"
mkdir -p "$corpus" "$san_dir/artifacts"
"$san_dir/fivsim_fuzz_input" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$san_dir/artifacts/" \
  "$corpus" scenarios scenarios/identify tests/fuzz/regressions
# the files fivsim reads back from its results (a merged shard's, a resumed sweep's manifest), from
# seeds the harness writes as it starts
results_seconds="${FIVSIM_FUZZ_RESULTS_SECONDS:-60}"
mkdir -p "$san_dir/corpus_results"
"$san_dir/fivsim_fuzz_results" -max_total_time="$results_seconds" -print_final_stats=1 \
  -artifact_prefix="$san_dir/artifacts/" "$san_dir/corpus_results" tests/fuzz/results_regressions
