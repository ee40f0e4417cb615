#!/usr/bin/env bash
set -uo pipefail
exec > >(tee "$OUT/rec3.log") 2>&1
source .devbundle/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|Built target nbody$"
nb=build-gpu/nbody
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
F() { local l=$1 e=$2; shift 2; echo "$l: $(env $e timeout 60 $nb --headless --no-hud --n 16384 --frames 1200 --profile "$@" 2>&1 | grep -E 'frames of|cannot|upload|rest' | sed 's/nbody: 1199 frames of 16384 bodies (1 step.frame) in//' | tr '\n' ' ')"; }
for r in 1 2; do
F "plain              " A=1
F "plain spin         " NBODY_X_SPIN=1
F "record             " A=1 --record /tmp/r.mp4
F "record spin        " NBODY_X_SPIN=1 --record /tmp/r.mp4
done
echo done
