#!/usr/bin/env bash
# Session 2026-11-24d, run 4: small N after item 9. cur = the working tree
# (B = 4 prefetching builds below 16,384 bodies, B = 6 from there), bar =
# the same with the task's last step held in a register (an empty asm on
# s1, so the compiler does not recompute it inside the step loop), head =
# 317d739. Automatic shapes, alternating, three repeats.
set -uo pipefail
exec > >(tee "$OUT/run4.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
pids=
mk() { # name: head | cur | bar
  local d=/tmp/$1; rm -rf $d; mkdir -p $d
  if [ $1 = head ]; then tar xzf gpu-in/head.tar.gz -C $d; else
    tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d; fi
  if [ $1 = bar ]; then
    sed -i 's|        const int s1 = sim_pairmap_walk_s1(&W);|        int s1 = sim_pairmap_walk_s1(\&W);\n        asm volatile("" : "+r"(s1));|' $d/sim/sim_kernels.cu
    echo "bar: $(grep -c 'asm volatile("" : "+r"(s1))' $d/sim/sim_kernels.cu) barrier"
  fi
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build $d/build -j5 --target nbody > $d/b.log 2>&1; echo "$1 build exit $?") & pids="$pids $!"
}
mk head; mk cur; mk bar
for p in $pids; do wait $p; done
B() { echo "$1: $(timeout 150 /tmp/$1/build/nbody --benchmark --variant best --n "$2" 2>&1 | grep -E '^best ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T small N
for r in 1 2 3; do
  for v in head cur bar; do B $v 1024,1536,2048,3072,4096,6144,8192,12288; done
done
T large N
for r in 1 2; do
  for v in head cur bar; do B $v 16384,65536,262144,1048576; done
done
T done
