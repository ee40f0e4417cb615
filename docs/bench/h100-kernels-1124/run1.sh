#!/usr/bin/env bash
# Session 2026-11-24b, run 1: measure before changing more.
# Builds: new (working tree), old (HEAD 8a35324), v8 (B = 8, 640-thread
# bounds), np (no prefetch), pipe (new + gpu-in/xpipe.patch, NBODY_X_PIPE).
set -uo pipefail
exec > >(tee "$OUT/run1.log") 2>&1
source .devbundle/env.sh
R=$(pwd)
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv,noheader
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
echo "nsys=$NSYS ncu=$NCU"
T build new
[ -x build-gpu/nbody ] && echo "build-gpu kept" 
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
T ctest + variant builds
pc=
if ! grep -q "ctest exit" /tmp/ctest.txt 2>/dev/null; then
  (timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure -j2 > /tmp/ctest.txt 2>&1; echo "ctest exit $?" >> /tmp/ctest.txt) &
  pc=$!
fi
mkv() { # name cmake-extra-flags... ; source prepared in /tmp/$name
  local d=/tmp/$1; shift
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "$@" >/dev/null &&
   cmake --build $d/build -j4 --target nbody > $d/b.log 2>&1; echo "$(basename $d) build exit $?")
}
[ -x /tmp/old/build/nbody ] || { mkdir -p /tmp/old && tar xzf gpu-in/old.tar.gz -C /tmp/old; }
for v in v8 np pipe; do [ -x /tmp/$v/build/nbody ] && continue; rm -rf /tmp/$v; mkdir -p /tmp/$v; tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C /tmp/$v; done
[ -x /tmp/v8/build/nbody ] || sed -i -e "s/: PREFETCH ? BEST_PREFETCH_THREADS : 1024;/: PREFETCH ? BEST_PREFETCH_THREADS : 640;/" \
       -e "s/#define BEST_PREFETCH_THREADS 768/#define BEST_PREFETCH_THREADS 640/" /tmp/v8/sim/sim_kernels.cu
[ -x /tmp/np/build/nbody ] || sed -i "s/p->prefetch = !fp64 \&\& best_prefetch_fits(a->p, a->q);/p->prefetch = false \&\& best_prefetch_fits(a->p, a->q);/" /tmp/np/sim/sim_kernels.cu
grep -c "p->prefetch = false" /tmp/np/sim/sim_kernels.cu
[ -x /tmp/pipe/build/nbody ] || (cd /tmp/pipe && patch -p1 -s < $R/gpu-in/xpipe.patch); echo "patch exit $?"
pids=
for v in old v8 np pipe; do
  if [ -x /tmp/$v/build/nbody ]; then echo "$v: built already"; continue; fi
  if [ $v = v8 ]; then mkv $v -DCMAKE_CUDA_FLAGS=-DSIM_PAIRMAP_B=8 & else mkv $v & fi
  pids="$pids $!"
done
for p in $pids $pc; do wait $p; done; cat /tmp/ctest.txt | grep -E "Test +#|tests passed|exit|FAIL|Error" | head -20
nb=build-gpu/nbody old=/tmp/old/build/nbody v8=/tmp/v8/build/nbody np=/tmp/np/build/nbody pipe=/tmp/pipe/build/nbody
for b in $old $v8 $np $pipe; do [ -x $b ] || echo "MISSING $b"; done
B() { echo "$1: $(timeout 120 "${@:2}" 2>&1 | grep -E '^(best|fp64) ' | tr -s ' ' | cut -d' ' -f1-5 | tr '\n' '|')"; }
T best A/B
for r in 1 2; do
  for x in "new $nb" "old $old" "v8 $v8" "np $np"; do set -- $x
    B "$1" $2 --benchmark --variant best --n 4096,8192,16384,65536,262144,1048576
  done
done
T fp64 A/B
for r in 1 2; do
  B new $nb --benchmark --variant fp64 --n 16384,65536,262144
  B old $old --benchmark --variant fp64 --n 16384,65536,262144
done
T frames
F() { echo "$1: $(timeout 60 env ${X:-} "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|drawing' | sed 's/.*in \([0-9.]* s\)/\1/' | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2; do
  X= F "16K old" $old --headless --no-hud --n 16384 --frames 1500
  X= F "16K new" $pipe --headless --no-hud --n 16384 --frames 1500
  X=NBODY_X_PIPE=1 F "16K pipe3" $pipe --headless --no-hud --n 16384 --frames 1500
  X=NBODY_X_PIPE=2 F "16K pipe2" $pipe --headless --no-hud --n 16384 --frames 1500
done
X= F "16K new HUD" $pipe --headless --n 16384 --frames 1500
X=NBODY_X_PIPE=1 F "16K pipe3 HUD" $pipe --headless --n 16384 --frames 1500
X= F "16K new prof" $pipe --headless --no-hud --n 16384 --frames 1500 --profile
X=NBODY_X_PIPE=1 F "16K pipe3 prof" $pipe --headless --no-hud --n 16384 --frames 1500 --profile
X= F "131K new" $pipe --headless --no-hud --n 131072 --frames 600
X=NBODY_X_PIPE=1 F "131K pipe3" $pipe --headless --no-hud --n 131072 --frames 600
X= F "131K best new" $pipe --headless --no-hud --n 131072 --variant best --frames 200
X=NBODY_X_PIPE=1 F "131K best pipe3" $pipe --headless --no-hud --n 131072 --variant best --frames 200
echo "1 B" > /tmp/bloom.txt
X= F "16K bloom old" $old --headless --no-hud --n 16384 --frames 1200 --script /tmp/bloom.txt --profile
X= F "16K bloom new" $pipe --headless --no-hud --n 16384 --frames 1200 --script /tmp/bloom.txt --profile
$old --headless --no-hud --n 16384 --frames 200 --script /tmp/bloom.txt --screenshot $OUT/bloom-old.png > /dev/null 2>&1
$nb --headless --no-hud --n 16384 --frames 200 --script /tmp/bloom.txt --screenshot $OUT/bloom-new.png > /dev/null 2>&1
T nsys
if [ -n "$NSYS" ]; then
  for m in new pipe3; do
    e=; [ $m = pipe3 ] && e=NBODY_X_PIPE=1
    timeout 90 env $e $NSYS profile --trace=cuda,opengl,osrt --sample=none --cpuctxsw=none -o /tmp/ns-$m -f true \
      $pipe --headless --no-hud --n 16384 --frames 400 > /tmp/ns-$m.txt 2>&1; echo "nsys $m exit $?"
    timeout 90 $NSYS export --type sqlite -o /tmp/ns-$m.sqlite -f true /tmp/ns-$m.nsys-rep > /dev/null 2>&1
    gzip -c /tmp/ns-$m.sqlite > $OUT/ns-$m.sqlite.gz; ls -la $OUT/ns-$m.sqlite.gz
  done
fi
T ncu
if [ -n "$NCU" ]; then
  timeout 120 $NCU -k regex:forces_best -s 2 -c 1 --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy \
    $nb --benchmark --variant best --n 262144 --steps 1 > $OUT/ncu-best.txt 2>&1; echo "ncu exit $?"
  grep -E "Stall|Issued|Eligible|Active Warps|No Eligible|Registers|Warp Cycles|One or More" $OUT/ncu-best.txt | head -40
fi
T done
