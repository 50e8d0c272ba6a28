#!/usr/bin/env bash
# A compiler launcher that logs each compiled file's wall seconds, to see where a build's time goes:
#   cmake -S . -B B -DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/scripts/tools/compile_times.sh \
#         -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/scripts/tools/compile_times.sh
#   FIVSIM_COMPILE_LOG=/tmp/times.log cmake --build B -j2
#   sort -rn /tmp/times.log | head; awk '{s += $1} END {print s}' /tmp/times.log
# Each line: seconds, then the source file (the unity batches under B/CMakeFiles/*/Unity/ included).
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
src=""
for a in "$@"; do
  case "$a" in *.cpp | *.cu | *.cxx) src="$a" ;; esac
done
echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') $src" >>"${FIVSIM_COMPILE_LOG:-/tmp/fivsim_compile_times.log}"
exit $rc
