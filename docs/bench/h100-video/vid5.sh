#!/usr/bin/env bash
# Issue 12: CUDA's frames read in place, the wait for GL chosen by a trial per recording.
set -uo pipefail
exec > >(tee "$OUT/vid5.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
mkdir -p /tmp/old && tar xzf gpu-in/old.tar.gz -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/old/build -j8 --target nbody > /tmp/old/b.log 2>&1) & po=$!
nb=build-gpu/nbody old=/tmp/old/build/nbody
T ctest gpu
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j2 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL" /tmp/ctest.txt | head -30
T memcheck
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/cs.yuv timeout 150 "$cs" --tool memcheck --error-exitcode 9 \
  $nb --headless --n 4097 --frames 100 --record-size 641x361 --record /tmp/cs.mp4 > /tmp/cs.txt 2>&1
echo "memcheck recording past the trial: exit $?; $(grep -E 'ERROR SUMMARY|converted' /tmp/cs.txt | tr '\n' ' ')"
wait $po; echo "old build exit $?"
T recording
F() { echo "$1: $(timeout 60 "${@:2}" --profile 2>&1 | grep -E 'frames of|cannot|error|polling' | sed 's/.*in \([0-9.]* s\)/\1/;s/nbody: recording: //' | tr '\n' ' ')"; }
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
for r in 1 2 3; do
  F "plain         " $nb --headless --no-hud --n 16384 --frames 1500
  F "record        " $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
  F "record old    " $old --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
done
for r in 1 2; do
  F "record copied " env NBODY_TEST_VIDEO_COPY=1 $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
  F "plain HUD     " $nb --headless --n 16384 --frames 1500
  F "record +HUD   " $nb --headless --n 16384 --frames 1500 --record-hud --record /tmp/r.mp4
  F "record HUD off" $nb --headless --n 16384 --frames 1500 --record /tmp/r.mp4
  F "record 1080p  " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  F "record 1080p o" $old --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  F "record 4K     " $nb --headless --no-hud --n 16384 --frames 400 --record-size 3840x2160 --record /tmp/r.mp4
  F "record 4K old " $old --headless --no-hud --n 16384 --frames 400 --record-size 3840x2160 --record /tmp/r.mp4
  F "plain 131K    " $nb --headless --no-hud --n 131072 --frames 600
  F "record 131K   " $nb --headless --no-hud --n 131072 --frames 600 --record /tmp/r.mp4
done
T done
