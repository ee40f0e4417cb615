#!/usr/bin/env bash
# Session 2026-11-24c, run 9: does a longer unrolled step loop pay at large N?
# new = a722249 + fold3.patch (8 steps unrolled, BEST_UNROLL = 32 / 4 parts);
# u16, u32 = the same with SIM_PAIRMAP_MAX_PARTS 2 and 1 (16 and 32 steps
# unrolled; at large N every task is one part anyway).
set -uo pipefail
exec > >(tee "$OUT/run9.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j8 --target nbody > /tmp/b.log 2>&1; echo "new build exit $?"
pids=
for u in 2 1; do
  d=/tmp/u$u; rm -rf $d; mkdir -p $d
  tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
  sed -i "s/#define SIM_PAIRMAP_MAX_PARTS 4/#define SIM_PAIRMAP_MAX_PARTS $u/" $d/sim/sim_pairmap.h; grep -c "MAX_PARTS $u" $d/sim/sim_pairmap.h
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build $d/build -j4 --target nbody > $d/b.log 2>&1; echo "u$u build exit $?") & pids="$pids $!"
done
for p in $pids; do wait $p; done
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64|fast) ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T A/B
for r in 1 2 3; do
  B new build-gpu/nbody --benchmark --variant best --n 65536,262144,1048576
  B u16 /tmp/u2/build/nbody --benchmark --variant best --n 65536,262144,1048576
  B u32 /tmp/u1/build/nbody --benchmark --variant best --n 65536,262144,1048576
done
T done
