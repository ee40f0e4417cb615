#!/usr/bin/env bash
# Session 2026-11-24d, run 8: the final tree (host-only and text changes
# since run 5/7: best_b_of, best's p help line): GPU tests, memcheck, a
# benchmark sanity check, a screenshot with the help panel open.
set -uo pipefail
exec > >(tee "$OUT/run8.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T tests
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -20
cp /tmp/ctest.txt $OUT/ctest-gpu-run8.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
timeout 200 $cs --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick > /tmp/s.txt 2>&1; echo "memcheck test_gpu --quick: exit $?; $(grep 'ERROR SUMMARY' /tmp/s.txt)"
timeout 100 $cs --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 1000,20000 --steps 1 > /tmp/r.txt 2>&1; echo "racecheck best 1000,20000: exit $?; $(grep 'RACECHECK SUMMARY' /tmp/r.txt)"
T bench
for r in 1 2; do timeout 100 $nb --benchmark --variant best --n 8192,16384,262144,1048576 2>&1 | grep -E "^best " | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|'; echo; done
T screenshot
printf '1 H\n' > /tmp/help.txt
timeout 60 $nb --headless --n 16384 --variant best --frames 120 --script /tmp/help.txt --screenshot $OUT/help-best.png 2>&1 | grep -E "frames of|wrote|rror"
T done
