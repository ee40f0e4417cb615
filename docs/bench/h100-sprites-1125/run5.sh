#!/usr/bin/env bash
# Session 2026-11-25, run 5: is it the image map? HUD on, 16K: CUDA's sprites
# with the picture registered write-discard; GL's sprites with the picture
# mapped every frame but not drawn into (NBODY_X_*, gpu-in/xmap.py).
set -uo pipefail
exec > >(tee "$OUT/run5.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
d=/tmp/x; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
(cd $d && python3 $OLDPWD/gpu-in/xmap.py)
cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j16 --target nbody > $d/b.log 2>&1; echo "x build exit $?"
x=/tmp/x/build/nbody
T HUD frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ' | sed 's/.*s: //')"; }
for r in 1 2 3 4; do
  echo "--- round $r"
  F "CUDA sprites" $x --headless --n 16384 --frames 3000
  F "CUDA sprites, WRITEDISCARD" env NBODY_X_WRITEDISCARD=1 $x --headless --n 16384 --frames 3000
  F "picture mapped, nothing drawn by CUDA (MAPONLY)" env NBODY_X_MAPONLY=1 $x --headless --n 16384 --frames 3000
  F "GL sprites" $x --headless --n 16384 --frames 3000 --gl-sprites
done
T done
