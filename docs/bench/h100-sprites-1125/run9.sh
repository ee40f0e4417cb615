#!/usr/bin/env bash
# Session 2026-11-25, run 9: one wait fewer a frame with CUDA's sprites (the
# vertices queued, sim_queue_vertices, and the sprites on the legacy stream
# after them: one CPU wait for both) against head = 95088fe. GPU tests,
# memcheck, frames A/B, a screenshot.
set -uo pipefail
exec > >(tee "$OUT/run9.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
rm -rf /tmp/head; mkdir -p /tmp/head && tar xzf gpu-in/head.tar.gz -C /tmp/head
(cmake -S /tmp/head -B /tmp/head/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/head/build -j5 --target nbody > /tmp/head/b.log 2>&1; echo "head build exit $?") & hp=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j11 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
wait $hp
nb=build-gpu/nbody; head=/tmp/head/build/nbody
T tests
timeout 300 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -30
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 200 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_splat gpu" --tool memcheck --error-exitcode 9 build-gpu/tests/test_splat gpu
S "memcheck headless 4097, CUDA's sprites" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5 --sprites cuda
S "synccheck headless 4097, CUDA's sprites" --tool synccheck --error-exitcode 9 $nb --headless --n 4097 --frames 5 --sprites cuda
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ' | sed 's/.*s: //')"; }
for r in 1 2 3 4; do
  echo "--- round $r"
  F "16K no HUD, cuda, new" $nb --headless --no-hud --n 16384 --frames 3000 --sprites cuda
  F "16K no HUD, cuda, head" $head --headless --no-hud --n 16384 --frames 3000 --sprites cuda
  F "16K no HUD, auto, new" $nb --headless --no-hud --n 16384 --frames 3000
  F "16K HUD, auto, new" $nb --headless --n 16384 --frames 3000
  F "16K no HUD, gl, new" $nb --headless --no-hud --n 16384 --frames 3000 --sprites gl
done
F "131K (tree), auto" $nb --headless --no-hud --n 131072 --frames 600
F "131K best, auto" $nb --headless --no-hud --n 131072 --variant best --frames 300
echo "--- profile 16K no HUD, cuda"; timeout 60 $nb --headless --no-hud --n 16384 --frames 3000 --profile --sprites cuda 2>&1 | grep -E "frames of|upload|drawing|total"
T screenshot
timeout 60 $nb --headless --preset milky-way-andromeda --n 65536 --variant best --frames 200 --screenshot $OUT/mwa-64k.png 2>&1 | grep -E "frames of|wrote"
T done
