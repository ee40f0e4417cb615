#!/usr/bin/env bash
# 16K frames: GL's GPU time per frame (timer queries), repeated to see the spread.
set -uo pipefail
exec > >(tee "$OUT/prof3.log") 2>&1
source .devbundle/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$"
nb=build-gpu/nbody
echo "1 B" > /tmp/b.txt
P() { echo "=== $*"; timeout 60 "$@" 2>&1 | grep -E "frames of|upload|draw  |GPU" ; }
for r in 1 2 3; do
  P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/b.txt
  NBODY_X_FLUSH=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
done
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --width 640 --height 360
P $nb --headless --no-hud --n 1024 --frames 1200 --profile
P $nb --headless --n 16384 --frames 1200 --profile
P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile
echo done
