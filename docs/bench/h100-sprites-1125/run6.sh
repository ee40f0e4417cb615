#!/usr/bin/env bash
# Session 2026-11-25, run 6: the final tree - CUDA's sprites with the
# automatic choice (app_sprites.c). GPU tests, sanitizers, whole frames
# against head (e41fb15), --benchmark --frame, screenshots.
set -uo pipefail
exec > >(tee "$OUT/run6.log") 2>&1
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
bash tests/test_headless.sh $nb build-gpu/tests/png_check build-gpu/tests/cuda_available cuda build-gpu/tests/yuv_check > /tmp/th.txt 2>&1
echo "test_headless.sh cuda again, verbose: exit $?"; grep -E "png_check: against|ok   (sphere|mwa|u_key|no_sprites|auto)|FAIL" /tmp/th.txt | head -30
echo "--- test_splat cpu on NVIDIA's EGL"; timeout 60 build-gpu/tests/test_splat cpu 2>&1 | tail -8
echo "--- test_splat gpu"; timeout 60 build-gpu/tests/test_splat gpu 2>&1 | tail -8
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 200 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_splat gpu" --tool memcheck --error-exitcode 9 build-gpu/tests/test_splat gpu
S "racecheck test_splat gpu" --tool racecheck --error-exitcode 9 build-gpu/tests/test_splat gpu
S "memcheck headless 4097, CUDA's sprites" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5 --sprites cuda
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2 3; do
  F "16K no HUD, auto" $nb --headless --no-hud --n 16384 --frames 3000
  F "16K no HUD, cuda" $nb --headless --no-hud --n 16384 --frames 3000 --sprites cuda
  F "16K no HUD, gl" $nb --headless --no-hud --n 16384 --frames 3000 --sprites gl
  F "16K no HUD, head" $head --headless --no-hud --n 16384 --frames 3000
  F "16K HUD, auto" $nb --headless --n 16384 --frames 3000
  F "16K HUD, cuda" $nb --headless --n 16384 --frames 3000 --sprites cuda
  F "16K HUD, gl" $nb --headless --n 16384 --frames 3000 --sprites gl
  F "16K HUD, head" $head --headless --n 16384 --frames 3000
done
F "131K (tree) no HUD, auto" $nb --headless --no-hud --n 131072 --frames 600
F "131K (tree) no HUD, gl" $nb --headless --no-hud --n 131072 --frames 600 --sprites gl
F "131K (tree) no HUD, head" $head --headless --no-hud --n 131072 --frames 600
F "131K best no HUD, auto" $nb --headless --no-hud --n 131072 --variant best --frames 300
F "131K best no HUD, head" $head --headless --no-hud --n 131072 --variant best --frames 300
F "1M tree no HUD, auto" $nb --headless --no-hud --n 1048576 --frames 120
F "1M tree no HUD, gl" $nb --headless --no-hud --n 1048576 --frames 120 --sprites gl
echo "--- profile 16K no HUD, auto"; timeout 60 $nb --headless --no-hud --n 16384 --frames 3000 --profile 2>&1 | grep -E "sprites:|frames of|upload|drawing"
echo "--- profile 16K HUD, auto"; timeout 60 $nb --headless --n 16384 --frames 3000 --profile 2>&1 | grep -E "sprites:|frames of|upload|drawing"
echo "--- benchmark --frame"; timeout 150 $nb --benchmark --variant best --n 16384,131072 --frame 2>&1 | grep -E "^(variant|best)"
T screenshots
timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/plummer-16k.png 2>&1 | grep -E "frames of|wrote"
timeout 60 $nb --headless --preset milky-way-andromeda --frames 300 --screenshot $OUT/mwa.png 2>&1 | grep -E "frames of|wrote"
echo "1 H" > /tmp/h.txt
timeout 60 $nb --headless --n 16384 --frames 30 --script /tmp/h.txt --screenshot $OUT/help.png 2>&1 | grep -E "frames of|wrote"
T done
