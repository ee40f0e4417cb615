#!/usr/bin/env bash
# Session 2026-11-24b, run 4 (final): the committed tree. GPU tests, the
# sanitizers on the kernels as committed, the figures for the docs, the
# frames with a diagnostic build (xf = tree + xframe3.patch: NBODY_X_NOMAP,
# NBODY_X_NORENDER), recording, the ladder chart.
set -uo pipefail
exec > >(tee "$OUT/run4.log") 2>&1
source .devbundle/env.sh
R=$(pwd)
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
rm -rf /tmp/xf; mkdir -p /tmp/xf; tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C /tmp/xf
(cd /tmp/xf && patch -p1 -s < $R/gpu-in/xframe3.patch); echo "patch exit $?"
(cmake -S /tmp/xf -B /tmp/xf/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/xf/build -j4 --target nbody > /tmp/xf/b.log 2>&1; echo "xf build exit $?") & pxf=$!
T tests and sanitizers
timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure -j2 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL" /tmp/ctest.txt | head -20
cp /tmp/ctest.txt $OUT/ctest-gpu.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
S() { local what=$1; shift; timeout 150 "$cs" "$@" > /tmp/s.txt 2>&1; echo "$what: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.txt)"; }
S "memcheck test_gpu --quick" --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick
S "memcheck test_tree_gpu --quick" --tool memcheck --error-exitcode 9 build-gpu/tests/test_tree_gpu --quick
S "racecheck best,fp64 1000,4097" --tool racecheck --error-exitcode 9 $nb --benchmark --variant best,fp64 --n 1000,4097 --steps 2
S "memcheck headless interop" --tool memcheck --error-exitcode 9 $nb --headless --n 4097 --frames 5
wait $pxf; xf=/tmp/xf/build/nbody
T targets
timeout 200 $nb --benchmark --variant fast,best,fp64 --n 16384,65536,262144,1048576 --json $OUT/targets.json 2>&1 | grep -E "^(variant|fast|best|fp64) "
timeout 100 $nb --benchmark --variant best --n 262144,1048576 2>&1 | grep -E "^best "
T ladder
timeout 150 $nb --benchmark --variant all --n 16384,262144 --json $OUT/ladder.json 2>&1 | grep -E "^(variant|[a-z0-9]+ +[0-9]+ )"
T frames
F() { echo "$1: $(timeout 60 env ${X:-} "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|drawing|x interop' | tail -3 | sed 's/.*in \([0-9.]* s\)/\1/' | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2 3; do X= F "16K" $nb --headless --no-hud --n 16384 --frames 1500; done
for r in 1 2; do X= F "16K HUD" $nb --headless --n 16384 --frames 1500; done
for r in 1 2; do X= F "131K (tree)" $nb --headless --no-hud --n 131072 --frames 600; done
X= F "131K best" $nb --headless --no-hud --n 131072 --variant best --frames 200
X= F "16K profile" $nb --headless --no-hud --n 16384 --frames 1500 --profile
for r in 1 2; do
  X="NBODY_X_NOMAP=1 NBODY_X_NORENDER=1" F "16K no GL calls, no map" $xf --headless --no-hud --n 16384 --frames 3000
  X="NBODY_X_NORENDER=1" F "16K no GL calls, map" $xf --headless --no-hud --n 16384 --frames 3000
  X="NBODY_X_SKIP=clear,sprites,tonemap NBODY_X_NOMAP=1" F "16K GL without draws, no map" $xf --headless --no-hud --n 16384 --frames 3000
done
T recording
export NBODY_FFMPEG=$R/scripts/ffmpeg-discard.sh
for r in 1 2 3; do
  X= F "plain " $nb --headless --no-hud --n 16384 --frames 1500
  X= F "record" $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
done
unset NBODY_FFMPEG
T chart
echo "1 I" > /tmp/chart.txt
timeout 60 $nb --headless --n 16384 --frames 200 --script /tmp/chart.txt --screenshot $OUT/ladder-chart.png 2>&1 | grep -E "frames of|wrote"
T done
