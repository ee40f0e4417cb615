#!/usr/bin/env bash
# gpu-tune.sh - experiments on the best kernel, for the lent GPU machine:
# builds nbody with different compile-time settings of the best rung
# (bodies per thread BEST_B, unroll factor BEST_UNROLL), times each at a few
# shapes while nvidia-smi samples the SM clock and power, and profiles one
# launch with Nsight Compute when it is installed. Output in $OUT.
#
#   source .devbundle/env.sh && scripts/gpu-tune.sh "B4U8:-DBEST_B=4" "B8U8:-DBEST_B=8" ...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 \
    > "$OUT/clocks.csv" 2>&1 &
sampler=$!
for spec in "$@"; do
    name=${spec%%:*} flags=${spec#*:}
    echo "=== $name ($flags)"
    cmake -S . -B "build-$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          "-DCMAKE_CUDA_FLAGS=$flags" >/dev/null &&
        cmake --build "build-$name" -j 16 --target nbody >/dev/null || { echo "build failed"; continue; }
    timeout 120 "build-$name/nbody" --benchmark --variant best --n ${TUNE_N:-262144,1048576} \
        --p ${TUNE_P:-64,128,256} --q ${TUNE_Q:-2,4,8} 2>/dev/null | sort -k5 -n -r | head -4
done
kill $sampler
awk -F', ' 'NR > 1 && $3+0 > 100 { c += $2; p += $3; k++ } END { if (k) printf "under load: %.0f MHz, %.0f W (mean of %d samples)\n", c / k, p / k, k }' "$OUT/clocks.csv"
if [ -n "${TUNE_NCU:-}" ] && command -v ncu >/dev/null; then
    echo "=== ncu on $TUNE_NCU"
    timeout 150 ncu --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
        -k regex:best -c 1 "build-$TUNE_NCU/nbody" --benchmark --variant best --n 262144 --steps 1 \
        > "$OUT/ncu.txt" 2>&1
    grep -E "Stall|Issue|Eligible|Active Warps|Executed Ipc|No Eligible|SM Busy|Issue Slots" "$OUT/ncu.txt" | head -40
fi
