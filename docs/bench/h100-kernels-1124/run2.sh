#!/usr/bin/env bash
# Session 2026-11-24b, run 2. new = working tree (best with cp.async double
# buffering, fp64 as pairs); regpf = new + regpf.patch (run 1's register
# prefetch); xf = new + xframe.patch (GL pass timing, skips, early flush);
# old = HEAD 8a35324.
set -uo pipefail
exec > >(tee "$OUT/run2.log") 2>&1
source .devbundle/env.sh
R=$(pwd)
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build new
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
T tests and sanitizers, variant builds
(timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure -j2 > /tmp/ctest.txt 2>&1; echo "ctest exit $?" >> /tmp/ctest.txt
 timeout 90 "$cs" --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick > /tmp/mc.txt 2>&1
 echo "memcheck test_gpu --quick: exit $?; $(grep -E 'ERROR SUMMARY' /tmp/mc.txt)" >> /tmp/ctest.txt
 timeout 150 "$cs" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best,fp64 --n 1000,4097 --steps 2 > /tmp/rc.txt 2>&1
 echo "racecheck best,fp64 1000,4097: exit $?; $(grep -E 'RACECHECK SUMMARY' /tmp/rc.txt)" >> /tmp/ctest.txt
 timeout 60 "$cs" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5 > /tmp/mc2.txt 2>&1
 echo "memcheck headless interop: exit $?; $(grep -E 'ERROR SUMMARY' /tmp/mc2.txt)" >> /tmp/ctest.txt) &
pt=$!
mkv() { local d=/tmp/$1; shift
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "$@" >/dev/null &&
   cmake --build $d/build -j4 --target nbody > $d/b.log 2>&1; echo "$(basename $d) build exit $?") ; }
rm -rf /tmp/old /tmp/regpf /tmp/xf; mkdir -p /tmp/old && tar xzf gpu-in/old.tar.gz -C /tmp/old
for v in regpf xf; do mkdir -p /tmp/$v; tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C /tmp/$v; done
(cd /tmp/regpf && patch -p1 -s < $R/gpu-in/regpf.patch) && (cd /tmp/xf && patch -p1 -s < $R/gpu-in/xframe.patch); echo "patches exit $?"
pids=; for v in old regpf xf; do mkv $v & pids="$pids $!"; done
for p in $pids $pt; do wait $p; done
grep -E "Test +#|tests passed|exit|FAIL|Error" /tmp/ctest.txt | head -20
old=/tmp/old/build/nbody regpf=/tmp/regpf/build/nbody xf=/tmp/xf/build/nbody
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64) ' | tr -s ' ' | cut -d' ' -f1-5 | tr '\n' '|')"; }
T best A/B
for r in 1 2; do
  B new $nb --benchmark --variant best --n 4096,8192,16384,65536,262144,1048576
  B regpf $regpf --benchmark --variant best --n 4096,8192,16384,65536,262144,1048576
  B old $old --benchmark --variant best --n 16384,262144,1048576
done
T best shapes near 16K
B new $nb --benchmark --variant best --n 12288,16384,24576 --p 384,512,640,768,1024 --q 1
T fp64
for r in 1 2; do
  B new $nb --benchmark --variant fp64 --n 16384,65536,262144,1048576
  B old $old --benchmark --variant fp64 --n 16384,262144
done
T ncu stalls
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
timeout 120 $NCU -k regex:forces_best -s 2 -c 1 --section ComputeWorkloadAnalysis --section SchedulerStats \
  --metrics regex:smsp__warp_issue_stalled_.*_per_warp_active\.pct \
  $nb --benchmark --variant best --n 262144 --steps 1 > $OUT/ncu2.txt 2>&1; echo "ncu exit $?"
grep -E "stalled|Issue Slots|Eligible" $OUT/ncu2.txt | sort -k3 -n -r | awk '$3 > 0.5' | head -20
T frames
F() { echo "$1: $(timeout 60 env ${X:-} "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|drawing|x passes' | tail -3 | sed 's/.*in \([0-9.]* s\)/\1/' | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2 3; do
  X= F "16K new" $nb --headless --no-hud --n 16384 --frames 1500
  X= F "16K old" $old --headless --no-hud --n 16384 --frames 1500
done
X=NBODY_X_PASSES=1 F "16K passes" $xf --headless --no-hud --n 16384 --frames 1500
X=NBODY_X_PASSES=1 F "1K passes" $xf --headless --no-hud --n 1024 --frames 1500
X=NBODY_X_PASSES=1 F "16K passes 640x360" $xf --headless --no-hud --n 16384 --frames 1500 --width 640 --height 360
for r in 1 2; do
  X=NBODY_X_SKIP=tonemap F "16K no tonemap" $xf --headless --no-hud --n 16384 --frames 1500 --profile
  X=NBODY_X_SKIP=sprites F "16K no sprites" $xf --headless --no-hud --n 16384 --frames 1500 --profile
  X=NBODY_X_SKIP=clear,sprites,tonemap F "16K no GL" $xf --headless --no-hud --n 16384 --frames 1500 --profile
  X=NBODY_X_EARLYFLUSH=1 F "16K early flush" $xf --headless --no-hud --n 16384 --frames 1500
  X= F "16K 64x64" $nb --headless --no-hud --n 16384 --frames 1500 --width 64 --height 64
  X= F "16K host copy" $nb --headless --no-hud --n 16384 --frames 1500 --host-copy
  X= F "1K" $nb --headless --no-hud --n 1024 --frames 1500
  X= F "131K" $nb --headless --no-hud --n 131072 --frames 600
done
T recording
export NBODY_FFMPEG=$R/scripts/ffmpeg-discard.sh
for r in 1 2 3; do
  X= F "plain " $nb --headless --no-hud --n 16384 --frames 1500
  X= F "record" $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
done
unset NBODY_FFMPEG
T ladder
timeout 120 $nb --benchmark --variant all --n 16384,262144 --json $OUT/ladder.json 2>&1 | grep -vE "^\s*$" | tail -26
T done
