#!/usr/bin/env bash
# gpu-check.sh - everything that needs the GPU, for the lent GPU machine
# (../shared/device/README.md). Results land in $OUT (default ./gpu-out).
#
#   source .devbundle/env.sh && scripts/gpu-check.sh test|bench|gallery
#
# SKIP_RACECHECK=1 and SKIP_SWEEP=1 leave out the two slowest parts.
#
#   test     build for sm_90, the whole test suite (test_gpu's summary in
#            test_gpu.txt), compute-sanitizer memcheck and racecheck on the
#            kernel test, memcheck on a headless interop run, headless frame
#            rates at 16K and 128K bodies.
#   bench    the kernel ladder, best and fp64 at the target sizes, a shape
#            sweep of best, whole-frame timing (tables and JSON).
#   gallery  scripts/gallery.sh: every galaxy scene at three moments, the HUD
#            and the help overlay, and each scene's frame rate; one tar file.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
what=${1:-test}
exec > >(tee "$OUT/gpu-check-$what.log") 2>&1
stage() { echo; echo "=== $* ($(date +%T))"; }

stage build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,temperature.gpu --format=csv
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNBODY_WERROR=ON >/dev/null && cmake --build build-gpu -j 16 2>&1 | grep -E "error|warning|Built target nbody$" || exit 1
nb=build-gpu/nbody

case $what in
test)
    stage test_gpu
    timeout 300 build-gpu/tests/test_gpu > "$OUT/test_gpu.txt" 2>&1
    echo "test_gpu: exit $?"
    grep -E "shapes|FAIL|refusal|passed|failed" "$OUT/test_gpu.txt" | grep -v " 0 failed" | tail -30
    stage ctest
    timeout 400 ctest --test-dir build-gpu --output-on-failure -E '^test_gpu$' > "$OUT/ctest.txt" 2>&1
    grep -E "Test +#|tests passed|first pericenter|FAIL" "$OUT/ctest.txt"
    stage compute-sanitizer
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
    for tool in memcheck ${SKIP_RACECHECK:+}${SKIP_RACECHECK:-racecheck}; do
        timeout 240 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/test_gpu --quick \
            > "$OUT/$tool.txt" 2>&1
        echo "$tool test_gpu --quick: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.txt")"
    done
    timeout 120 "$cs" --tool memcheck --error-exitcode 9 $nb --headless --n 4096 --frames 5 2>&1 | tail -1
    echo "memcheck headless interop: exit ${PIPESTATUS[0]}"
    stage headless frame rates
    for n in 16384 131072; do
        $nb --headless --n $n --frames 600 2>&1 | grep -E "frames of|interop"
    done
    $nb --headless --n 16384 --frames 600 --host-copy 2>&1 | grep -E "frames of"
    ;;
bench)
    stage benchmark: the ladder
    timeout 240 $nb --benchmark --variant all --n 16384,262144 --json "$OUT/ladder.json" 2>/dev/null
    stage benchmark: best and fp64 at the target sizes
    timeout 200 $nb --benchmark --variant fast,best,fp64 --n 16384,65536,262144,1048576 \
        --json "$OUT/auto.json" 2>/dev/null
    stage benchmark: best shapes
    [ -n "${SKIP_SWEEP:-}" ] || timeout 120 $nb --benchmark --variant best --n 16384,262144 --p 128,256,512,1024 --q 1,2,4,8 \
        --json "$OUT/sweep.json" 2>/dev/null | sort -k5 -n -r | head -12
    stage benchmark: whole frames
    timeout 100 $nb --benchmark --variant best --n 16384,131072 --frame 2>/dev/null
    ;;
gallery)
    stage gallery
    rm -rf gallery && timeout 560 scripts/gallery.sh build-gpu gallery && tar cf "$OUT/gallery.tar" gallery
    ;;
esac
stage done
