#!/usr/bin/env bash
# Session 2026-11-25, run 10: the final tree (c4ef6e7: one wait fewer, the
# 30-frame trial). GPU tests, frames, a screenshot.
set -uo pipefail
exec > >(tee "$OUT/run10.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T tests
timeout 300 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -30
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ' | sed 's/.*s: //')"; }
for r in 1 2 3; do
  F "16K no HUD, auto" $nb --headless --no-hud --n 16384 --frames 3000
  F "16K no HUD, cuda" $nb --headless --no-hud --n 16384 --frames 3000 --sprites cuda
  F "16K HUD, auto" $nb --headless --n 16384 --frames 3000
done
F "131K (tree), auto" $nb --headless --no-hud --n 131072 --frames 600
echo "--- benchmark --frame"; timeout 150 $nb --benchmark --variant best --n 16384,131072 --frame 2>&1 | grep -E "^(variant|best)"
T screenshot
timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/plummer-16k.png 2>&1 | grep -E "frames of|wrote"
T done
