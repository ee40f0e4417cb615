#!/usr/bin/env bash
# Session 2026-11-25, run 3: the guard-band rule (splat_math.h) in the tree;
# GPU tests; the HUD-on frame with CUDA's sprites under experiment switches
# (gpu-in/xhud.py, NBODY_X_*: not in the program).
set -uo pipefail
exec > >(tee "$OUT/run3.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
d=/tmp/x; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
(cd $d && python3 $OLDPWD/gpu-in/xhud.py)
(cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j6 --target nbody > $d/b.log 2>&1; echo "x build exit $?") & px=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j10 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
wait $px
nb=build-gpu/nbody; x=/tmp/x/build/nbody
T tests
timeout 300 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -30
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
grep -E "png_check: against|ok   (sphere|mwa|u_key|no_sprites)|FAIL" /tmp/ctest.txt | head -30
echo "--- test_splat cpu on NVIDIA's EGL"; timeout 60 build-gpu/tests/test_splat cpu 2>&1 | tail -8
T HUD frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2 3; do
  F "HUD base" $x --headless --n 16384 --frames 3000
  F "HUD X_NOOVERLAY" env NBODY_X_NOOVERLAY=1 $x --headless --n 16384 --frames 3000
  F "HUD X_FENCE" env NBODY_X_FENCE=1 $x --headless --n 16384 --frames 3000
  F "HUD X_FLUSH2" env NBODY_X_FLUSH2=1 $x --headless --n 16384 --frames 3000
  F "HUD X_FINISH" env NBODY_X_FINISH=1 $x --headless --n 16384 --frames 3000
  F "no HUD base" $x --headless --no-hud --n 16384 --frames 3000
  F "no HUD X_FENCE" env NBODY_X_FENCE=1 $x --headless --no-hud --n 16384 --frames 3000
done
T done
