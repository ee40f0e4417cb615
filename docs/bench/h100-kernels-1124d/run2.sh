#!/usr/bin/env bash
# Session 2026-11-24d, run 2: more i bodies per lane. The variants (copies
# of the tree, changed by sed as below), A/B at 65K, 262K and 1M, explicit
# shapes:
#   head  317d739                        (B = 4, 768 x 1)
#   new   this tree: 32-bit walk         (B = 4, 768 x 1)
#   h5    head, B = 5, 768 threads       (80 registers)
#   n5    new,  B = 5, 768 threads       (80 registers)
#   n5s   new,  B = 5, 640 threads       (94 registers)
#   n6s   new,  B = 6, 640 threads       (93 registers)
set -uo pipefail
exec > >(tee "$OUT/run2${SKIP_BUILD:+b}.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
R=$(pwd)
mk() { # name source B threads
  local d=/tmp/$1; rm -rf $d; mkdir -p $d
  if [ $2 = head ]; then tar xzf gpu-in/head.tar.gz -C $d; else
    tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d; fi
  sed -i "s/#define SIM_PAIRMAP_B 4 /#define SIM_PAIRMAP_B $3 /" $d/sim/sim_pairmap.h
  sed -i "s/#define BEST_PREFETCH_THREADS 768/#define BEST_PREFETCH_THREADS $4/" $d/sim/sim_kernels.cu
  echo "$1: B=$(grep -o 'define SIM_PAIRMAP_B [0-9]' $d/sim/sim_pairmap.h) T=$(grep -o 'define BEST_PREFETCH_THREADS [0-9]*' $d/sim/sim_kernels.cu)"
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build $d/build -j3 --target nbody test_gpu > $d/b.log 2>&1; echo "$1 build exit $?") & pids="$pids $!"
}
pids=
if [ -z "${SKIP_BUILD:-}" ]; then
mk head head 4 768; mk new new 4 768; mk h5 head 5 768; mk n5 new 5 768; mk n5s new 5 640; mk n6s new 6 640
for p in $pids; do wait $p; done
fi
B() { echo "$1 $2: $(timeout 150 /tmp/$1/build/nbody --benchmark --variant best --p $2 --q 1 --n 65536,262144,1048576 2>&1 | grep -E '^best ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T A/B
for r in 1 2; do
  B head 768; B new 768; B h5 768; B n5 768; B n5s 640; B n6s 640
done
B n5 640; B n6s 512; B head 768
T 16K
for v in head new h5 n5; do echo "$v: $(timeout 60 /tmp/$v/build/nbody --benchmark --variant best --n 16384 2>&1 | grep -E '^best ' | tr -s ' ' | cut -d' ' -f2-5)"; done
T test_gpu
for v in n5 n6s; do timeout 100 /tmp/$v/build/tests/test_gpu --quick > /tmp/$v.t 2>&1; echo "$v test_gpu --quick exit $? $(grep -c FAILED /tmp/$v.t) FAILED"; done
T done
