#!/usr/bin/env bash
# Session 2026-11-24d, run 1: best's per-task bookkeeping in 32 bits (the
# walk names its last task; indices unsigned; the j fetch clamped) against
# HEAD (317d739), A/B at 65K, 262K and 1M; and ncu's stall reasons for the
# new build at 262K (where does the 19 % of no eligible warp go?).
set -uo pipefail
exec > >(tee "$OUT/run1.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
mkdir -p /tmp/head && tar xzf gpu-in/head.tar.gz -C /tmp/head
(cmake -S /tmp/head -B /tmp/head/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/head/build -j8 --target nbody > /tmp/head/b.log 2>&1; echo "head build exit $?") & ph=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j8 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
wait $ph
T tests
timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -20
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64|fast) ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T A/B
for r in 1 2 3 4; do
  B head /tmp/head/build/nbody --benchmark --variant best --n 65536,262144,1048576
  B new build-gpu/nbody --benchmark --variant best --n 65536,262144,1048576
done
B head16 /tmp/head/build/nbody --benchmark --variant best --n 16384
B new16 build-gpu/nbody --benchmark --variant best --n 16384
T ncu
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
timeout 240 $NCU -k regex:forces_best --launch-count 1 --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section InstructionStats --section ComputeWorkloadAnalysis \
  --import-source no -o /tmp/prof build-gpu/nbody --benchmark --variant best --n 262144 --steps 1 > /tmp/ncu1.txt 2>&1
echo "ncu exit $?"; tail -3 /tmp/ncu1.txt
$NCU --import /tmp/prof.ncu-rep --page details --print-details all > $OUT/ncu-details.txt 2>&1; echo "details exit $?"
$NCU --import /tmp/prof.ncu-rep --page source --csv --print-source sass > $OUT/ncu-source.csv 2>&1; echo "source exit $? $(wc -l < $OUT/ncu-source.csv) lines"
$NCU --import /tmp/prof.ncu-rep --page raw --csv > $OUT/ncu-raw.csv 2>&1; echo "raw exit $?"
grep -iE "stall|eligible|issued|Busy" $OUT/ncu-details.txt | head -60
T done
