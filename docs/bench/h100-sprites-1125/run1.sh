#!/usr/bin/env bash
# Session 2026-11-25, run 1: CUDA's sprites (splat/) - GPU tests, sanitizers,
# whole frames against GL's sprites and head (e41fb15), screenshots.
set -uo pipefail
exec > >(tee "$OUT/run1.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
rm -rf /tmp/head; mkdir -p /tmp/head && tar xzf gpu-in/head.tar.gz -C /tmp/head
(cmake -S /tmp/head -B /tmp/head/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/head/build -j4 --target nbody > /tmp/head/b.log 2>&1; echo "head build exit $?") & hp=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j12 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
wait $hp
nb=build-gpu/nbody; head=/tmp/head/build/nbody
T tests
timeout 300 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -30
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
grep -E "png_check: against|ok   (sphere|mwa|u_key|no_sprites)|FAIL" /tmp/ctest.txt | head -30
echo "--- test_splat cpu on NVIDIA's EGL (GL's picture here against splat_math.h)"
timeout 60 build-gpu/tests/test_splat cpu 2>&1 | tail -9
echo "--- test_splat gpu"
timeout 60 build-gpu/tests/test_splat gpu 2>&1 | tail -9
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 200 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_splat gpu" --tool memcheck --error-exitcode 9 build-gpu/tests/test_splat gpu
S "racecheck test_splat gpu" --tool racecheck --error-exitcode 9 build-gpu/tests/test_splat gpu
S "synccheck test_splat gpu" --tool synccheck --error-exitcode 9 build-gpu/tests/test_splat gpu
S "memcheck headless 4097, CUDA's sprites" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2 3; do
  F "16K CUDA sprites" $nb --headless --no-hud --n 16384 --frames 3000
  F "16K GL sprites" $nb --headless --no-hud --n 16384 --frames 3000 --gl-sprites
  F "16K head" $head --headless --no-hud --n 16384 --frames 3000
done
F "16K HUD, CUDA sprites" $nb --headless --n 16384 --frames 3000
F "16K HUD, head" $head --headless --n 16384 --frames 3000
F "131K (tree), CUDA sprites" $nb --headless --no-hud --n 131072 --frames 600
F "131K (tree), head" $head --headless --no-hud --n 131072 --frames 600
F "131K best, CUDA sprites" $nb --headless --no-hud --n 131072 --variant best --frames 200
F "131K best, head" $head --headless --no-hud --n 131072 --variant best --frames 200
F "1M tree, CUDA sprites" $nb --headless --no-hud --n 1048576 --frames 60
F "1M tree, GL sprites" $nb --headless --no-hud --n 1048576 --frames 60 --gl-sprites
echo "--- profile, CUDA sprites"; timeout 60 $nb --headless --no-hud --n 16384 --frames 3000 --profile 2>&1 | tail -12
echo "--- profile, GL sprites"; timeout 60 $nb --headless --no-hud --n 16384 --frames 3000 --profile --gl-sprites 2>&1 | tail -12
echo "--- benchmark --frame"; timeout 120 $nb --benchmark --variant best --n 16384,131072 --frame 2>&1 | grep -E "^(variant|best)"
T screenshots
for how in cuda gl; do
  flag=; [ $how = gl ] && flag=--gl-sprites
  timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/plummer-$how.png $flag 2>&1 | grep -E "frames of|wrote"
  timeout 60 $nb --headless --preset milky-way-andromeda --frames 300 --screenshot $OUT/mwa-$how.png $flag 2>&1 | grep -E "frames of|wrote"
done
build-gpu/tests/png_check $OUT/plummer-cuda.png --same-as $OUT/plummer-gl.png 1 1
build-gpu/tests/png_check $OUT/mwa-cuda.png --same-as $OUT/mwa-gl.png 1 1
T done
