#!/usr/bin/env bash
# Session 2026-11-25, run 7: the committed tree (after run 6: the splat view
# shared with the test, the lens kept for the pan, one expect in
# test_headless, auto's watch of its choice). GPU tests, memcheck, frames
# (auto with --profile: its trials and re-trials), screenshots.
set -uo pipefail
exec > >(tee "$OUT/run7.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
git log --oneline 2>/dev/null | head -1
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T tests
timeout 300 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -30
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
echo "--- test_splat cpu on NVIDIA's EGL"; timeout 60 build-gpu/tests/test_splat cpu 2>&1 | tail -1
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 200 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck headless 4097, CUDA's sprites, HUD" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5 --sprites cuda
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2 3; do
  F "16K no HUD, auto" $nb --headless --no-hud --n 16384 --frames 3000
  F "16K HUD, auto" $nb --headless --n 16384 --frames 3000
  F "16K HUD, gl" $nb --headless --n 16384 --frames 3000 --sprites gl
done
for r in 1 2; do
  echo "--- 16K HUD auto --profile, 6000 frames"; timeout 60 $nb --headless --n 16384 --frames 6000 --profile 2>&1 | grep -E "sprites:|frames of"
  echo "--- 16K no HUD auto --profile, 6000 frames"; timeout 60 $nb --headless --no-hud --n 16384 --frames 6000 --profile 2>&1 | grep -E "sprites:|frames of"
done
F "131K (tree) no HUD, auto" $nb --headless --no-hud --n 131072 --frames 600
F "1M tree no HUD, auto" $nb --headless --no-hud --n 1048576 --frames 120
echo "--- benchmark --frame"; timeout 150 $nb --benchmark --variant best --n 16384,131072 --frame 2>&1 | grep -E "^(variant|best)"
T screenshots
timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/plummer-16k.png 2>&1 | grep -E "frames of|wrote"
echo "0 W" > /tmp/w.txt
timeout 60 $nb --headless --n 131072 --frames 100 --script /tmp/w.txt --sprites cuda --screenshot $OUT/tree-cells.png 2>&1 | grep -E "frames of|wrote"
T done
