#!/usr/bin/env bash
# Session 2026-11-24d, run 5: the final tree of best's item 9 (the wide
# build: six i bodies per lane from 16,384 bodies; the 32-bit walk; s1 held
# in a register) against head = 317d739 (gpu-in/head.tar.gz). GPU tests,
# sanitizers, a deliberately broken copy (wrongb: the wide build launched
# with the walks of B = 4, which test_gpu --quick must catch), A/B, targets,
# ladder, small N, frames, screenshots, ncu.
set -uo pipefail
exec > >(tee "$OUT/run5.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: working tree (item 9, uncommitted) and head 317d739"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
T build
pids=
rm -rf /tmp/head; mkdir -p /tmp/head && tar xzf gpu-in/head.tar.gz -C /tmp/head
(cmake -S /tmp/head -B /tmp/head/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/head/build -j4 --target nbody > /tmp/head/b.log 2>&1; echo "head build exit $?") & pids="$pids $!"
d=/tmp/wrongb; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
sed -i 's/    p->b = p->build == BEST_WIDE ? BEST_WIDE_B : BEST_B;/    p->b = BEST_B;/' $d/sim/sim_kernels.cu
echo "wrongb: $(diff -r sim $d/sim | grep -c '^>') line(s) changed"
(cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j4 --target test_gpu > $d/b.log 2>&1; echo "wrongb build exit $?") & pids="$pids $!"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j8 > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
for p in $pids; do wait $p; done
nb=build-gpu/nbody; head=/tmp/head/build/nbody
T tests and sanitizers
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED|runaway" /tmp/ctest.txt | head -20
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
timeout 120 /tmp/wrongb/build/tests/test_gpu --quick > /tmp/wrongb.txt 2>&1
echo "wrongb: test_gpu --quick exit $?; $(grep -c FAILED /tmp/wrongb.txt) FAILED lines; first: $(grep -m1 FAILED /tmp/wrongb.txt | cut -c1-200)"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 200 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_gpu --quick" --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick
S "racecheck best 1000,4097,20000 (prefetching B 4, wide B 6)" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 1000,4097,20000 --steps 1
S "racecheck best 4097,20000 p 1024 (1024-thread)" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 4097,20000 --p 1024 --q 1 --steps 1
S "racecheck best 1000,20000 eps 0 (plain loops)" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best --n 1000,20000 --steps 1 --softening 0
S "racecheck fp64 1000,4097" --tool racecheck --error-exitcode 9 $nb --benchmark --variant fp64 --n 1000,4097 --steps 1
S "memcheck headless interop" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64|fast) ' | tr -s ' ' | cut -d' ' -f1-5 | tr '\n' '|')"; }
T best A/B, automatic shapes
for r in 1 2 3; do
  B new $nb --benchmark --variant best --n 4096,8192,12288,16384,24576,65536,262144,1048576
  B head $head --benchmark --variant best --n 4096,8192,12288,16384,24576,65536,262144,1048576
done
B "new, eps 0 (plain loop)" $nb --benchmark --variant best --n 16384,262144 --softening 0
B "head, eps 0 (plain loop)" $head --benchmark --variant best --n 16384,262144 --softening 0
B "new 768x1 (prefetching B 4), 1024x1" $nb --benchmark --variant best --p 768,1024 --q 1 --n 16384,262144
T targets
timeout 200 $nb --benchmark --variant fast,best,fp64 --n 16384,65536,262144,1048576 --json $OUT/targets.json 2>&1 | grep -E "^(variant|fast|best|fp64|ceiling) "
B "best again" $nb --benchmark --variant best --n 16384,262144,1048576
T ladder
timeout 150 $nb --benchmark --variant all --n 16384,262144 --json $OUT/ladder.json 2>&1 | grep -E "^(variant|[a-z0-9]+ +[0-9]+ )"
T small N
for r in 1 2 3; do
  B "best auto" $nb --benchmark --variant best --n 512,1024,1536,2048,3072,4096,6144,8192
  B "head auto" $head --benchmark --variant best --n 512,1024,1536,2048,3072,4096,6144,8192
  B "fast 32x8" $nb --benchmark --variant fast --p 32 --q 8 --n 512,1024,1536,2048,3072,4096,6144,8192
done
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror' | tail -2 | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2; do F "16K new" $nb --headless --no-hud --n 16384 --frames 1500; F "16K head" $head --headless --no-hud --n 16384 --frames 1500; done
F "16K HUD" $nb --headless --n 16384 --frames 1500
F "131K (tree)" $nb --headless --no-hud --n 131072 --frames 600
F "131K best" $nb --headless --no-hud --n 131072 --variant best --frames 200
F "131K best head" $head --headless --no-hud --n 131072 --variant best --frames 200
T screenshots
timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/plummer-b6.png 2>&1 | grep -E "frames of|wrote"
timeout 60 $nb --headless --preset antennae-like --frames 300 --screenshot $OUT/antennae-b6.png 2>&1 | grep -E "frames of|wrote"
echo "1 I" > /tmp/chart.txt
timeout 60 $nb --headless --n 16384 --frames 200 --script /tmp/chart.txt --screenshot $OUT/ladder-chart.png 2>&1 | grep -E "frames of|wrote"
T ncu
if [ -n "$NCU" ]; then
  timeout 120 $NCU -k regex:forces_best -s 2 -c 1 --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy \
    --print-details all $nb --benchmark --variant best --n 262144 --steps 1 > $OUT/ncu-best-wide-262k.txt 2>&1; echo "ncu exit $?"
  grep -E "forces_best_kernel<|Issue Slots Busy|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Registers Per|Warp Cycles Per Issued|Stall" $OUT/ncu-best-wide-262k.txt | head -30
fi
T done
