#!/usr/bin/env bash
# Issue 13: best without its per-step memset (the kick clears acc as it reads it). A/B against
# 049dd48 (same force kernel, with the memset), tests, memcheck.
set -uo pipefail
exec > >(tee "$OUT/k1.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
mkdir -p /tmp/old && tar xzf gpu-in/old.tar.gz -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/old/build -j8 --target nbody > /tmp/old/b.log 2>&1) & po=$!
nb=build-gpu/nbody old=/tmp/old/build/nbody
T ctest gpu
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j2 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL" /tmp/ctest.txt | head -30
T memcheck
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
timeout 150 "$cs" --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick > /tmp/cs.txt 2>&1
echo "memcheck test_gpu --quick: exit $?; $(grep -E 'ERROR SUMMARY' /tmp/cs.txt)"
timeout 100 "$cs" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 1000,4097 --steps 2 > /tmp/cs.txt 2>&1
echo "racecheck best 1000,4097: exit $?; $(grep -E 'RACECHECK SUMMARY' /tmp/cs.txt)"
wait $po; echo "old build exit $?"
T benchmark A/B
for r in 1 2 3; do
  echo "new: $(timeout 60 $nb --benchmark --variant best --n 16384,65536 2>&1 | grep -E '^best ' | tr -s ' ' | tr '\n' '|')"
  echo "old: $(timeout 60 $old --benchmark --variant best --n 16384,65536 2>&1 | grep -E '^best ' | tr -s ' ' | tr '\n' '|')"
done
for r in 1 2; do
  echo "new: $(timeout 100 $nb --benchmark --variant best --n 262144,1048576 2>&1 | grep -E '^best ' | tr -s ' ' | tr '\n' '|')"
  echo "old: $(timeout 100 $old --benchmark --variant best --n 262144,1048576 2>&1 | grep -E '^best ' | tr -s ' ' | tr '\n' '|')"
done
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot' | sed 's/.*in \([0-9.]* s\)/\1/' | tr '\n' ' ')"; }
for r in 1 2; do
  F "16K new" $nb --headless --no-hud --n 16384 --frames 1500
  F "16K old" $old --headless --no-hud --n 16384 --frames 1500
done
T done
