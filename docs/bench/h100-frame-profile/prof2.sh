#!/usr/bin/env bash
# Why 16K frames run at ~1000 or ~350 frames/s: CPU throttling? driver waits?
set -uo pipefail
exec > >(tee "$OUT/prof2.log") 2>&1
source .devbundle/env.sh
cat /sys/fs/cgroup/cpu.max 2>/dev/null; nproc; grep -c processor /proc/cpuinfo
cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$" || {
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
  cmake --build build-gpu -j16 --target nbody 2>&1 | grep -E "error|warning|Built target nbody$"; }
nb=build-gpu/nbody
echo "1 B" > /tmp/b.txt
st() { grep -E "nr_throttled|throttled_usec" /sys/fs/cgroup/cpu.stat 2>/dev/null | tr '\n' ' '; }
P() { echo "=== $*"; local s0; s0=$(st)
  /usr/bin/time -f "cpu: %e s wall, %U user, %S sys" timeout 60 "$@" 2>&1 | grep -E "frames of|upload|loop|cpu:"
  echo "  cgroup before: $s0"; echo "  cgroup after:  $(st)"; }
for r in 1 2; do P $nb --headless --no-hud --n 16384 --frames 1200 --profile; done
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/b.txt
for s in 1 2 3; do
  echo "--- NBODY_X_SCHED=$s (1 spin, 2 yield, 3 blocking)"
  NBODY_X_SCHED=$s P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  NBODY_X_SCHED=$s P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/b.txt
done
for y in USLEEP NOTHING; do
  echo "--- __GL_YIELD=$y"
  __GL_YIELD=$y P $nb --headless --no-hud --n 16384 --frames 1200 --profile
  __GL_YIELD=$y P $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/b.txt
done
echo "--- taskset 0-3"
P taskset -c 0-3 $nb --headless --no-hud --n 16384 --frames 1200 --profile
P taskset -c 0-3 $nb --headless --no-hud --n 16384 --frames 1200 --profile --script /tmp/b.txt
echo done
