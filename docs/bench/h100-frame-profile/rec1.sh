#!/usr/bin/env bash
# Recording cost at 16K (discarding encoder), and best against fast at small N.
set -uo pipefail
exec > >(tee "$OUT/rec1.log") 2>&1
source .devbundle/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$"
nb=build-gpu/nbody
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|upload|hud \+' | tr '\n' ' ')"; }
for r in 1 2 3 4 5; do
  F "plain  " $nb --headless --no-hud --n 16384 --frames 1200 --profile
  F "record " $nb --headless --no-hud --n 16384 --frames 1200 --profile --record /tmp/r.mp4
done
for r in 1 2; do
  F "plain HUD on        " $nb --headless --n 16384 --frames 1200
  F "record --record-hud " $nb --headless --n 16384 --frames 1200 --record-hud --record /tmp/r.mp4
  F "record HUD on, not in the video (offscreen)" $nb --headless --n 16384 --frames 1200 --record /tmp/r.mp4
  F "record 1920x1080    " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
done
F "plain 131K          " $nb --headless --no-hud --n 131072 --frames 600
F "record 131K         " $nb --headless --no-hud --n 131072 --frames 600 --record /tmp/r.mp4
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/c.yuv $nb --headless --no-hud --n 16384 --frames 20 --record /tmp/c.mp4 --screenshot /tmp/c.png >/dev/null 2>&1
cmake --build build-gpu -j16 --target yuv_check >/dev/null 2>&1; build-gpu/tests/yuv_check /tmp/c.png /tmp/c.yuv
for r in 1 2; do
  timeout 60 $nb --benchmark --variant best --n 512,1024,1536,2048,3072 2>&1 | grep -E "^best "
  timeout 60 $nb --benchmark --variant fast --p 32 --q 8 --n 512,1024,1536,2048,3072 2>&1 | grep -E "^fast "
done
echo done
