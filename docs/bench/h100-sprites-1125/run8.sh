#!/usr/bin/env bash
# Session 2026-11-25, run 8: does a CPU wait for the interop unmap (before
# GL's commands) steady the frames with CUDA's sprites? And does auto's
# watch cost? (NBODY_X_*, gpu-in/xsync.py)
set -uo pipefail
exec > >(tee "$OUT/run8.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
d=/tmp/x; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
(cd $d && python3 $OLDPWD/gpu-in/xsync.py)
cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j16 --target nbody > $d/b.log 2>&1; echo "x build exit $?"
x=/tmp/x/build/nbody
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ' | sed 's/.*s: //')"; }
for r in 1 2 3 4; do
  echo "--- round $r"
  F "no HUD, cuda" $x --headless --no-hud --n 16384 --frames 3000 --sprites cuda
  F "no HUD, cuda, SYNCUNMAP" env NBODY_X_SYNCUNMAP=1 $x --headless --no-hud --n 16384 --frames 3000 --sprites cuda
  F "HUD, cuda" $x --headless --n 16384 --frames 3000 --sprites cuda
  F "HUD, cuda, SYNCUNMAP" env NBODY_X_SYNCUNMAP=1 $x --headless --n 16384 --frames 3000 --sprites cuda
  F "HUD, cuda, DEVSYNCUNMAP" env NBODY_X_DEVSYNCUNMAP=1 $x --headless --n 16384 --frames 3000 --sprites cuda
  F "HUD, gl, SYNCUNMAP" env NBODY_X_SYNCUNMAP=1 $x --headless --n 16384 --frames 3000 --sprites gl
  F "HUD, gl" $x --headless --n 16384 --frames 3000 --sprites gl
  F "no HUD, auto" $x --headless --no-hud --n 16384 --frames 3000
  F "no HUD, auto, NOWATCH" env NBODY_X_NOWATCH=1 $x --headless --no-hud --n 16384 --frames 3000
done
T done
