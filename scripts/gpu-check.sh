#!/usr/bin/env bash
# gpu-check.sh - everything that needs the GPU, in one go, for the lent GPU
# machine (see ../shared/device/README.md): build for sm_90, run the whole
# test suite, compute-sanitizer memcheck + racecheck on the kernel test and
# memcheck on a headless interop run, the benchmark tables, headless frame
# rates and screenshots. Results land in $OUT (default: ./gpu-out).
#
#   source .devbundle/env.sh && scripts/gpu-check.sh [test|bench|all]
#
# "test" builds, runs the tests, the sanitizers and the headless renders;
# "bench" builds (a no-op when already built) and runs the benchmarks.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
log=$OUT/gpu-check.log
exec > >(tee "$log") 2>&1
stage() { echo; echo "=== $* ($(date +%T))"; }

stage build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,temperature.gpu --format=csv
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNBODY_WERROR=ON >/dev/null && cmake --build build-gpu -j 16 2>&1 | grep -E "error|warning|Built target nbody$" || exit 1
nb=build-gpu/nbody

what=${1:-all}
if [ "$what" != bench ]; then
stage test_gpu
timeout 300 build-gpu/tests/test_gpu > "$OUT/test_gpu.txt" 2>&1
echo "test_gpu: exit $?"
grep -E "shapes|FAIL|refusal|passed|failed" "$OUT/test_gpu.txt" | tail -70
stage ctest
timeout 200 ctest --test-dir build-gpu --output-on-failure -E '^test_gpu$' 2>&1 | tail -25

stage compute-sanitizer
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
if [ -n "$cs" ]; then
    timeout 240 "$cs" --tool memcheck --leak-check full --error-exitcode 9 build-gpu/tests/test_gpu --quick 2>&1 | tail -4
    echo "memcheck test_gpu --quick: exit ${PIPESTATUS[0]}"
    timeout 240 "$cs" --tool racecheck --error-exitcode 9 build-gpu/tests/test_gpu --quick 2>&1 | tail -4
    echo "racecheck test_gpu --quick: exit ${PIPESTATUS[0]}"
    timeout 120 "$cs" --tool memcheck --error-exitcode 9 $nb --headless --n 4096 --frames 5 2>&1 | tail -3
    echo "memcheck headless interop: exit ${PIPESTATUS[0]}"
else
    echo "compute-sanitizer not found"
fi

stage headless frame rates and screenshots
for n in 16384 131072; do
    $nb --headless --n $n --frames 600 --screenshot "$OUT/plummer-$n.png" 2>&1 | grep -E "frames|interop|wrote"
done
$nb --headless --n 16384 --frames 600 --host-copy 2>&1 | grep -E "frames of"
$nb --headless --ic shell --n 16384 --frames 400 --screenshot "$OUT/shell-16384.png" 2>&1 | grep -E "frames of"

fi
if [ "$what" != test ]; then
stage benchmark: the ladder
timeout 300 $nb --benchmark --variant all --n 16384,262144 --json "$OUT/ladder.json" 2>/dev/null
stage benchmark: best and fp64 at auto shapes
timeout 200 $nb --benchmark --variant best,fp64 --n 16384,65536,262144,1048576 --json "$OUT/auto.json" 2>/dev/null
stage benchmark: whole frames
timeout 100 $nb --benchmark --variant best --n 16384,131072 --frame 2>/dev/null
stage benchmark: best shape sweep
timeout 200 $nb --benchmark --variant best --n 16384,65536,262144 --p 16,32,64,128,256 --q 1,2,4,8,16,32 --json "$OUT/sweep.json" 2>/dev/null | sort -k5 -n -r | head -40
timeout 100 $nb --benchmark --variant best --n 1048576 --p 32,64,128,256 --q 1,2,4 2>/dev/null
stage experiment: BEST_B=8
cmake -S . -B build-b8 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_FLAGS=-DBEST_B=8 >/dev/null && cmake --build build-b8 -j 16 --target nbody >/dev/null &&
    timeout 150 build-b8/nbody --benchmark --variant best --n 16384,262144,1048576 --p 32,64,128 --q 1,2,4,8 2>/dev/null
fi
stage done
