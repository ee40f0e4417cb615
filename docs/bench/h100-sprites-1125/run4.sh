#!/usr/bin/env bash
# Session 2026-11-25, run 4: which part of the HUD's overlay makes the frame
# with CUDA's sprites slow at times (NBODY_X_OVL_*, gpu-in/xovl.py).
set -uo pipefail
exec > >(tee "$OUT/run4.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
d=/tmp/x; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
(cd $d && python3 $OLDPWD/gpu-in/xovl.py)
cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j16 --target nbody > $d/b.log 2>&1; echo "x build exit $?"
x=/tmp/x/build/nbody
T HUD frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ' | sed 's/.*s: //')"; }
for r in 1 2 3 4; do
  echo "--- round $r"
  F "base (orphan + subdata)" $x --headless --n 16384 --frames 3000
  F "NOUPLOAD" env NBODY_X_OVL_NOUPLOAD=1 $x --headless --n 16384 --frames 3000
  F "NODRAW" env NBODY_X_OVL_NODRAW=1 $x --headless --n 16384 --frames 3000
  F "ONECALL" env NBODY_X_OVL_ONECALL=1 $x --headless --n 16384 --frames 3000
  F "NOORPHAN" env NBODY_X_OVL_NOORPHAN=1 $x --headless --n 16384 --frames 3000
  F "FLUSH2" env NBODY_X_FLUSH2=1 $x --headless --n 16384 --frames 3000
  F "FLUSH2 + ONECALL" env NBODY_X_FLUSH2=1 NBODY_X_OVL_ONECALL=1 $x --headless --n 16384 --frames 3000
  F "GL sprites" $x --headless --n 16384 --frames 3000 --gl-sprites
  F "no HUD" $x --headless --no-hud --n 16384 --frames 3000
done
T done
