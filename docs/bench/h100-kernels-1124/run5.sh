#!/usr/bin/env bash
# Session 2026-11-24b, run 5: the tree after review (one launcher for best
# and fp64; bloom's bright pass reads level 0). GPU tests, sanitizers,
# figures of best and fp64, bloom on and off, screenshots.
set -uo pipefail
exec > >(tee "$OUT/run5.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T tests and sanitizers
timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure -j2 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL" /tmp/ctest.txt | head -20
grep -E "bloom" /tmp/ctest.txt | grep -E "mean|FAIL" | head -4
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 150 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_gpu --quick" --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick
S "racecheck best,fp64 1000,4097" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best,fp64 --n 1000,4097 --steps 2
S "memcheck headless interop, bloom" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5 --script gpu-in/bloom.txt
T figures
timeout 150 $nb --benchmark --variant best,fp64 --n 16384,262144,1048576 2>&1 | grep -E "^(best|fp64) "
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|drawing' | sed 's/.*in \([0-9.]* s\)/\1/' | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2; do F "16K" $nb --headless --no-hud --n 16384 --frames 1500 --profile; done
for r in 1 2; do F "16K bloom" $nb --headless --no-hud --n 16384 --frames 1500 --profile --script gpu-in/bloom.txt; done
T screenshots
$nb --headless --no-hud --n 16384 --frames 200 --screenshot $OUT/plummer.png > /dev/null 2>&1; echo "plummer $?"
$nb --headless --no-hud --n 16384 --frames 200 --script gpu-in/bloom.txt --screenshot $OUT/plummer-bloom.png > /dev/null 2>&1; echo "bloom $?"
$nb --headless --no-hud --preset antennae-like --frames 120 --script gpu-in/bloom.txt --screenshot $OUT/antennae-bloom.png > /dev/null 2>&1; echo "antennae bloom $?"
$nb --headless --n 16384 --variant fp64 --frames 60 --screenshot $OUT/fp64-hud.png > /dev/null 2>&1; echo "fp64 hud $?"
T done
