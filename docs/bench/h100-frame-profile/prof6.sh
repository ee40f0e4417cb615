#!/usr/bin/env bash
# HUD on: the frame with the flush (committed), with and without orphaning the overlay's buffer.
set -uo pipefail
exec > >(tee "$OUT/prof6.log") 2>&1
source .devbundle/env.sh
rm -rf /tmp/b; mkdir /tmp/b; git ls-files -z | xargs -0 cp --parents -t /tmp/b; cp -r .devbundle /tmp/b/
(cd /tmp/b && patch -p1 -s < "$OLDPWD/gpu-in/orphan.patch")
pids=""
for d in . /tmp/b; do (cd $d && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null && cmake --build build-gpu -j8 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$") & pids="$pids $!"; done
for p in $pids; do wait $p; done
P() { echo "=== $*"; timeout 60 "$@" 2>&1 | grep -E "frames of|upload|hud|GPU" ; }
for r in 1 2 3; do
  echo "--- flush, HUD on"; P build-gpu/nbody --headless --n 16384 --frames 1200 --profile
  echo "--- flush + orphan, HUD on"; P /tmp/b/build-gpu/nbody --headless --n 16384 --frames 1200 --profile
  echo "--- flush, HUD off"; P build-gpu/nbody --headless --no-hud --n 16384 --frames 1200 --profile
done
build-gpu/nbody --headless --n 16384 --frames 100 --screenshot $OUT/hud16k.png 2>&1 | tail -1
echo done
