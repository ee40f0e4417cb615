#!/usr/bin/env bash
# Final GPU run: build (HEAD and the old tree 3351828 for A/Bs), GPU tests, sanitizers,
# fp64 SASS count, benchmarks, frames, recording old vs new, screenshots.
set -uo pipefail
exec > >(tee "$OUT/final7.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
(cmake --build build-gpu -j12 > /tmp/b.log 2>&1) & pb=$!
mkdir -p /tmp/old && tar xzf gpu-in/old.tar.gz -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/old/build -j4 --target nbody > /tmp/old/b.log 2>&1) & po=$!
wait $pb; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head; tail -1 /tmp/b.log
T ctest gpu
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j3 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL|video|fp64" /tmp/ctest.txt | head -30
T sanitizers
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
for t in "memcheck test_gpu" "racecheck test_gpu" "memcheck test_tree_gpu"; do
  set -- $t
  timeout 120 "$cs" --tool $1 --error-exitcode 9 build-gpu/tests/$2 --quick > /tmp/cs.txt 2>&1
  echo "$1 $2 --quick: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/cs.txt)"
done
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/cs.yuv timeout 100 "$cs" --tool memcheck --error-exitcode 9 \
  build-gpu/nbody --headless --n 4096 --frames 8 --record /tmp/cs.mp4 > /tmp/cs.txt 2>&1
echo "memcheck headless interop + recording: exit $?; $(grep -E 'ERROR SUMMARY' /tmp/cs.txt)"
T fp64 SASS
nvcc -O3 -std=c++17 --generate-code=arch=compute_90,code=sm_90 -Isim -c sim/sim_kernels.cu -o /tmp/k.o &&
  cuobjdump -sass /tmp/k.o | python3 scripts/sass-loops.py 2>&1 | grep -iE "fp64|best|kernel" | head -12
wait $po; echo "old build exit $?"; tail -1 /tmp/old/b.log
nb=build-gpu/nbody old=/tmp/old/build/nbody
T benchmarks
for r in 1 2 3; do
  echo "new: $(timeout 60 $nb --benchmark --variant fp64 --n 262144 2>&1 | grep -E '^fp64 ')"
  echo "old: $(timeout 60 $old --benchmark --variant fp64 --n 262144 2>&1 | grep -E '^fp64 ')"
done
timeout 120 $nb --benchmark --variant best,fp64 --n 16384,65536,262144,1048576 2>&1 | grep -vE "^$"
for r in 1 2 3; do
  timeout 60 $nb --benchmark --variant best --n 512,1024,1536 2>&1 | grep -E "^best "
  timeout 60 $nb --benchmark --variant fast --p 32 --q 8 --n 512,1024,1536 2>&1 | grep -E "^fast "
done
T frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot' | sed 's/.*in \([0-9.]* s\)/\1/' | tr '\n' ' ')"; }
for r in 1 2 3; do
  F "16K HUD off" $nb --headless --no-hud --n 16384 --frames 1200
  F "16K HUD on " $nb --headless --n 16384 --frames 1200
done
F "131K auto (tree)" $nb --headless --no-hud --n 131072 --frames 600
F "131K best       " $nb --headless --no-hud --n 131072 --variant best --frames 300
T recording
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
for r in 1 2 3; do
  F "plain       new" $nb --headless --no-hud --n 16384 --frames 1200
  F "record      new" $nb --headless --no-hud --n 16384 --frames 1200 --record /tmp/r.mp4
  F "record      old" $old --headless --no-hud --n 16384 --frames 1200 --record /tmp/r.mp4
done
F "record 1080p new" $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
F "record 1080p old" $old --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
F "record HUD   new" $nb --headless --n 16384 --frames 1200 --record-hud --record /tmp/r.mp4
F "plain 131K   new" $nb --headless --no-hud --n 131072 --frames 600
F "record 131K  new" $nb --headless --no-hud --n 131072 --frames 600 --record /tmp/r.mp4
F "record 131K  old" $old --headless --no-hud --n 131072 --frames 600 --record /tmp/r.mp4
unset NBODY_FFMPEG
T screenshots
timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/hud-16k.png 2>&1 | grep -E "wrote"
T done
