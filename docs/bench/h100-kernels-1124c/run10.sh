#!/usr/bin/env bash
# Session 2026-11-24c, run 10: the folded prefetching build held to 72
# registers (BEST_PREFETCH_THREADS 896: 28 warps an SM fit) against the
# committed one (79 registers, blocks of at most 768).
set -uo pipefail
exec > >(tee "$OUT/run10.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(git log --oneline -1 2>/dev/null || echo 1d47932)"  # the device copy's .git was stale: it printed a722249; the files were 1d47932's (auto picks 768 x 1 at 65K)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
d=/tmp/v896; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
sed -i "s/#define BEST_PREFETCH_THREADS 768/#define BEST_PREFETCH_THREADS 896/" $d/sim/sim_kernels.cu; grep -c "PREFETCH_THREADS 896" $d/sim/sim_kernels.cu
(cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j8 --target nbody > $d/b.log 2>&1; echo "v896 build exit $?") & pv=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j8 --target nbody > /tmp/b.log 2>&1; echo "build exit $?"
wait $pv
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64|fast) ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T A/B
for r in 1 2 3; do
  B "now auto" build-gpu/nbody --benchmark --variant best --n 16384,65536,262144,1048576
  B "v896 768" /tmp/v896/build/nbody --benchmark --variant best --p 768 --q 1 --n 16384,65536,262144,1048576
  B "v896 832" /tmp/v896/build/nbody --benchmark --variant best --p 832 --q 1 --n 16384,65536,262144,1048576
  B "v896 896" /tmp/v896/build/nbody --benchmark --variant best --p 896 --q 1 --n 16384,65536,262144,1048576
done
T done
