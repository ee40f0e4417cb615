#!/usr/bin/env bash
# Two body buffers: the frame with and without the CPU's wait for the vertex write.
set -uo pipefail
exec > >(tee "$OUT/prof4.log") 2>&1
source .devbundle/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 2>&1 | grep -E "error|warning|Built target nbody$"
nb=build-gpu/nbody
P() { echo "=== $*"; timeout 60 "$@" 2>&1 | grep -E "frames of|upload|GPU" ; }
for r in 1 2 3; do
  P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  NBODY_X_NOSYNC=1 NBODY_X_FLUSH=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
done
P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile
NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile
NBODY_X_NOSYNC=1 NBODY_X_FLUSH=1 P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile
NBODY_X_NOSYNC=1 $nb --headless --n 16384 --frames 100 --screenshot $OUT/db-nosync.png 2>&1 | tail -1
$nb --headless --n 16384 --frames 100 --screenshot $OUT/db-sync.png 2>&1 | tail -1
timeout 200 ctest --test-dir build-gpu -L gpu -j3 2>&1 | grep -E "tests passed|Failed|\*\*\*"
echo done
