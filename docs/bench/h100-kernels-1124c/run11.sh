#!/usr/bin/env bash
# Session 2026-11-24c, run 11: the final tree (fde26eb; the kernels' SASS as
# in run8). GPU tests, sanitizers, best's figures and its ceiling line.
set -uo pipefail
exec > >(tee "$OUT/run11.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: fde26eb (working tree files; the device copy's .git may be stale)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T tests and sanitizers
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED|runaway" /tmp/ctest.txt | head -20
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 150 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_gpu --quick" --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick
S "racecheck best 1000,4097,20000 (folded)" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 1000,4097,20000 --steps 1
S "racecheck best 1000,4097 eps 0 (plain)" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 1000,4097 --steps 1 --softening 0
T figures
timeout 100 $nb --benchmark --variant best --n 16384,262144,1048576 2>&1 | grep -E "^(variant|best|ceiling) "
timeout 100 $nb --benchmark --variant best --n 16384,262144 --softening 0 2>&1 | grep -E "^(best|ceiling) "
T done
