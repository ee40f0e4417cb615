#!/usr/bin/env bash
# Issue 12: a video's pictures read in place by CUDA (no blit where the picture is a renderbuffer).
set -uo pipefail
exec > >(tee "$OUT/vid4.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T ctest gpu
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j3 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL" /tmp/ctest.txt | head -30
bash tests/test_headless.sh $nb build-gpu/tests/png_check build-gpu/tests/cuda_available cuda build-gpu/tests/yuv_check 2>&1 | grep -E "video|yuv_check"
T sanitizers
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
for extra in "" "--record-size 641x361" "--width 643 --height 365"; do
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/cs.yuv timeout 100 "$cs" --tool memcheck --error-exitcode 9 \
  $nb --headless --no-hud --n 4097 --frames 8 $extra --record /tmp/cs.mp4 > /tmp/cs.txt 2>&1
echo "memcheck recording $extra: exit $?; $(grep -E 'ERROR SUMMARY|converted' /tmp/cs.txt | tr '\n' ' ')"
done
NBODY_TEST_VIDEO_COPY=1 NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/cs.yuv timeout 100 "$cs" --tool racecheck --error-exitcode 9 \
  $nb --headless --n 4097 --frames 4 --record /tmp/cs.mp4 > /tmp/cs.txt 2>&1
echo "racecheck recording (copied): exit $?; $(grep -E 'RACECHECK SUMMARY' /tmp/cs.txt)"
T recording
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|error' | sed 's/.*in \([0-9.]* s\)/\1/' | tr '\n' ' ')"; }
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
for r in 1 2 3; do
  F "plain              " $nb --headless --no-hud --n 16384 --frames 1500
  F "record             " $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
  NBODY_TEST_VIDEO_COPY=1 F "record copied first" $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
done
for r in 1 2; do
  F "plain HUD          " $nb --headless --n 16384 --frames 1500
  F "record HUD in video" $nb --headless --n 16384 --frames 1500 --record-hud --record /tmp/r.mp4
  F "record HUD offscrn " $nb --headless --n 16384 --frames 1500 --record /tmp/r.mp4
  F "record 1080p       " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  NBODY_X_POLL=1 F "record 1080p poll  " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  F "record 4K          " $nb --headless --no-hud --n 16384 --frames 300 --record-size 3840x2160 --record /tmp/r.mp4
  F "plain 131K         " $nb --headless --no-hud --n 131072 --frames 600
  F "record 131K        " $nb --headless --no-hud --n 131072 --frames 600 --record /tmp/r.mp4
done
T profiles
P() { echo "-- $*"; timeout 60 "$@" 2>&1 | grep -E "upload|draw|readback|GPU"; }
P $nb --headless --no-hud --n 16384 --frames 1500 --profile
P $nb --headless --no-hud --n 16384 --frames 1500 --profile --record /tmp/r.mp4
P $nb --headless --no-hud --n 16384 --frames 1200 --profile --record-size 1920x1080 --record /tmp/r.mp4
NBODY_X_POLL=1 P $nb --headless --no-hud --n 16384 --frames 1200 --profile --record-size 1920x1080 --record /tmp/r.mp4
T done
