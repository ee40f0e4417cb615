#!/usr/bin/env bash
# Issue 12: a video's frames converted by CUDA. GPU tests (test_headless_gpu checks the frames
# with yuv_check), memcheck on a recording, A/B against 049dd48 (GL conversion + read-back).
set -uo pipefail
exec > >(tee "$OUT/vid2.log") 2>&1
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
nb=build-gpu/nbody old=/tmp/old/build/nbody
T quick check of the frames
for sz in "--width 1280 --height 720" "--width 1921 --height 1081"; do
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/q.yuv timeout 60 $nb --headless --no-hud $sz --n 4096 --frames 20 --record /tmp/q.mp4 --screenshot /tmp/q.png 2>&1 | tail -4
build-gpu/tests/yuv_check /tmp/q.png /tmp/q.yuv 2>&1 | tail -2 || true
done
T ctest gpu
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j3 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL|video|level" /tmp/ctest.txt | head -30
T memcheck
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/cs.yuv timeout 100 "$cs" --tool memcheck --error-exitcode 9 \
  $nb --headless --n 4097 --frames 8 --record-size 641x361 --record /tmp/cs.mp4 > /tmp/cs.txt 2>&1
echo "memcheck headless recording (CUDA frames, odd size): exit $?; $(grep -E 'ERROR SUMMARY|converted' /tmp/cs.txt)"
NBODY_FFMPEG=$PWD/tests/ffmpeg-capture.sh NBODY_CAPTURE=/tmp/cs.yuv timeout 100 "$cs" --tool racecheck --error-exitcode 9 \
  $nb --headless --n 4097 --frames 4 --record /tmp/cs.mp4 > /tmp/cs.txt 2>&1
echo "racecheck headless recording: exit $?; $(grep -E 'RACECHECK SUMMARY' /tmp/cs.txt)"
wait $po; echo "old build exit $?"; tail -1 /tmp/old/b.log
T recording
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|error' | sed 's/.*in \([0-9.]* s\)/\1/' | tr '\n' ' ')"; }
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
for r in 1 2 3; do
  F "plain        new" $nb --headless --no-hud --n 16384 --frames 1200
  F "record       new" $nb --headless --no-hud --n 16384 --frames 1200 --record /tmp/r.mp4
  NBODY_X_POLL=1 F "record poll   new" $nb --headless --no-hud --n 16384 --frames 1200 --record /tmp/r.mp4
  F "record       old" $old --headless --no-hud --n 16384 --frames 1200 --record /tmp/r.mp4
done
F "record 1080p old" $old --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
F "record 1080p new" $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
NBODY_X_POLL=1 F "rec 1080p poll  " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
F "record 4K    new" $nb --headless --no-hud --n 16384 --frames 600 --record-size 3840x2160 --record /tmp/r.mp4
F "record HUD   new" $nb --headless --n 16384 --frames 1200 --record-hud --record /tmp/r.mp4
F "plain HUD    new" $nb --headless --n 16384 --frames 1200
F "plain 131K   new" $nb --headless --no-hud --n 131072 --frames 600
F "record 131K  new" $nb --headless --no-hud --n 131072 --frames 600 --record /tmp/r.mp4
T pipe throughput into cat
( time (dd if=/dev/zero bs=1382400 count=3000 status=none | cat >/dev/null) ) 2>&1 | grep real
( time (dd if=/dev/zero bs=3110400 count=1000 status=none | cat >/dev/null) ) 2>&1 | grep real
T profiles
timeout 60 $nb --headless --no-hud --n 16384 --frames 1200 --profile 2>&1 | grep -vE "^$" | tail -12
timeout 60 $nb --headless --no-hud --n 16384 --frames 1200 --profile --record /tmp/r.mp4 2>&1 | tail -12
timeout 60 $nb --headless --no-hud --n 16384 --frames 1200 --profile --record-size 1920x1080 --record /tmp/r.mp4 2>&1 | tail -11
NBODY_X_POLL=1 timeout 60 $nb --headless --no-hud --n 16384 --frames 1200 --profile --record-size 1920x1080 --record /tmp/r.mp4 2>&1 | tail -11
unset NBODY_FFMPEG
T done
