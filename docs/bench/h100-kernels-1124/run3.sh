#!/usr/bin/env bash
# Session 2026-11-24b, run 3: where the 16K frame's fixed ~0.4 ms goes, and
# best's automatic shape near 16K on the kept build (register prefetch).
# xf = working tree + xframe2.patch (GL pass timing, skips, quad clear,
# interop CPU timing, NBODY_X_NOMAP).
set -uo pipefail
exec > >(tee "$OUT/run3.log") 2>&1
source .devbundle/env.sh
R=$(pwd)
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T builds
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
(cmake --build build-gpu -j12 --target nbody > /tmp/b.log 2>&1; echo "new build exit $?") & p1=$!
rm -rf /tmp/xf; mkdir -p /tmp/xf; tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C /tmp/xf
(cd /tmp/xf && patch -p1 -s < $R/gpu-in/xframe2.patch); echo "patch exit $?"
(cmake -S /tmp/xf -B /tmp/xf/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/xf/build -j6 --target nbody > /tmp/xf/b.log 2>&1; echo "xf build exit $?") & p2=$!
wait $p1; wait $p2
nb=build-gpu/nbody xf=/tmp/xf/build/nbody
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64) ' | tr -s ' ' | cut -d' ' -f1-5 | tr '\n' '|')"; }
T best shapes, kept build
B auto $nb --benchmark --variant best --n 8192,12288,16384,20480,24576,32768
B sweep $nb --benchmark --variant best --n 8192,12288,16384,20480,24576,32768 --p 384,512,640,768,1024 --q 1
T frames
F() { echo "$1: $(timeout 60 env ${X:-} "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|drawing|x passes|x interop|  (input|step|diagn|upload|draw|hud|rest|loop)' | tail -12 | sed 's/.*in \([0-9.]* s\)/\1/' | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2; do
  X= F "16K" $xf --headless --no-hud --n 16384 --frames 1500
  X=NBODY_X_SKIP=clear,sprites,tonemap F "16K no GL" $xf --headless --no-hud --n 16384 --frames 1500
  X="NBODY_X_SKIP=clear,sprites,tonemap NBODY_X_NOMAP=1" F "16K no GL no map" $xf --headless --no-hud --n 16384 --frames 1500
  X=NBODY_X_NOMAP=1 F "16K no map" $xf --headless --no-hud --n 16384 --frames 1500
  X=NBODY_X_CLEAR=quad F "16K quad clear" $xf --headless --no-hud --n 16384 --frames 1500
  X=NBODY_X_SKIP=clear F "16K no clear" $xf --headless --no-hud --n 16384 --frames 1500
  X=__GL_THREADED_OPTIMIZATIONS=1 F "16K threaded GL" $xf --headless --no-hud --n 16384 --frames 1500
done
X="NBODY_X_CLEAR=quad NBODY_X_PASSES=1" F "16K quad clear passes" $xf --headless --no-hud --n 16384 --frames 1500
X= F "16K profile" $nb --headless --no-hud --n 16384 --frames 1500 --profile
X=NBODY_X_SKIP=clear,sprites,tonemap F "16K no GL profile" $xf --headless --no-hud --n 16384 --frames 1500 --profile
X="NBODY_X_SKIP=clear,sprites,tonemap NBODY_X_NOMAP=1" F "16K no GL no map profile" $xf --headless --no-hud --n 16384 --frames 1500 --profile
X= F "1K profile" $nb --headless --no-hud --n 1024 --frames 1500 --profile
T done
