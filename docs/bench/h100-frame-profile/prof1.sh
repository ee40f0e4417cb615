#!/usr/bin/env bash
# Frame profile at 16K and 131K on the H100: where the frame's time goes.
set -uo pipefail
exec > >(tee "$OUT/prof1.log") 2>&1
source .devbundle/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$"
nb=build-gpu/nbody
echo "1 B" > /tmp/b.txt; echo "1 A" > /tmp/a.txt; printf "1 A\n1 B\n" > /tmp/ab.txt
P() { echo "=== $*"; timeout 60 "$@" 2>&1 | grep -vE "^nbody: (headless|CUDA|backend)" | grep -E "frames of|  |profile" ; }
for r in 1 2; do
P $nb --headless --no-hud --n 16384 --frames 1200 --profile
done
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/b.txt
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/a.txt
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/ab.txt
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --host-copy
NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
NBODY_X_FLUSH=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
NBODY_X_FLUSH=1 NBODY_X_NOSYNC=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile
P $nb --headless --n 16384 --frames 1200 --profile
P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile
P $nb --headless --no-hud --n 131072 --variant best --frames 300 --profile --script /tmp/ab.txt
P $nb --headless --no-hud --n 131072 --frames 300 --profile
echo done
