#!/usr/bin/env bash
set -uo pipefail
exec > >(tee "$OUT/prof5.log") 2>&1
source .devbundle/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$"
nb=build-gpu/nbody
P() { echo "=== $*"; timeout 60 "$@" 2>&1 | grep -E "frames of|upload" ; }
for r in 1 2; do
  echo "--- base"; P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  echo "--- fence nosync"; NBODY_X_FENCE=1 NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  echo "--- fence nosync flush2"; NBODY_X_FENCE=1 NBODY_X_NOSYNC=1 NBODY_X_FLUSH2=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  echo "--- fence sync"; NBODY_X_FENCE=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  echo "--- nosync spin"; NBODY_X_SCHED=1 NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  echo "--- nosync GL_YIELD NOTHING"; __GL_YIELD=NOTHING NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
done
echo "--- fence nosync 131K"; NBODY_X_FENCE=1 NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile
NBODY_X_FENCE=1 NBODY_X_NOSYNC=1 $nb --headless --n 16384 --frames 100 --screenshot $OUT/fence.png 2>&1 | tail -1
echo done
