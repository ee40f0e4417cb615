#!/usr/bin/env bash
# Session 2026-11-24d, run 6: fp64 A/B, head (317d739) against the final
# tree of item 9 (fp64's loop 782 instructions against 789: the 32-bit walk),
# alternating, four repeats; run 5 measured fp64 3 % below run 3 with the
# same fp64 SASS, on a warmer GPU.
set -uo pipefail
exec > >(tee "$OUT/run6.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
rm -rf /tmp/head; mkdir -p /tmp/head && tar xzf gpu-in/head.tar.gz -C /tmp/head
(cmake -S /tmp/head -B /tmp/head/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/head/build -j8 --target nbody > /tmp/head/b.log 2>&1; echo "head build exit $?") & ph=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j8 --target nbody > /tmp/b.log 2>&1; echo "new build exit $?"
wait $ph
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64|fast) ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T fp64 A/B
for r in 1 2 3 4; do
  B new build-gpu/nbody --benchmark --variant fp64 --n 16384,65536,262144
  B head /tmp/head/build/nbody --benchmark --variant fp64 --n 16384,65536,262144
done
nvidia-smi --query-gpu=temperature.gpu,power.draw,clocks.sm --format=csv,noheader
T done
