#!/usr/bin/env bash
# What in recording makes the frame wait ~2.9 ms: experiment switches.
set -uo pipefail
exec > >(tee "$OUT/rec2.log") 2>&1
source .devbundle/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|Built target nbody$"
nb=build-gpu/nbody
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
F() { echo "$1: $(env ${@:2} timeout 60 $nb --headless --no-hud --n 16384 --frames 1200 --profile --record /tmp/r.mp4 2>&1 | grep -E 'frames of|cannot|upload' | sed 's/nbody: 1199 frames of 16384 bodies (1 step.frame) in//' | tr '\n' ' ')"; }
F "record            " A=1
F "no write          " NBODY_X_NOWRITE=1
F "no map            " NBODY_X_NOMAP=1 NBODY_X_NOWRITE=1
F "no readpixels     " NBODY_X_NOREAD=1
F "no convert        " NBODY_X_NOCONVERT=1
F "no read no convert" NBODY_X_NOREAD=1 NBODY_X_NOCONVERT=1
F "no flush bit      " NBODY_X_NOFLUSHBIT=1
F "flush after push  " NBODY_X_FLUSHPUSH=1
F "record            " A=1
echo "plain: $($nb --headless --no-hud --n 16384 --frames 1200 2>&1 | grep 'frames of')"
echo done
