#!/usr/bin/env bash
# Issue 12: where the remaining 12 % of a recorded 16K frame goes (experiment switches:
# NBODY_X_NOBLIT skips GL's copy of the picture, NBODY_X_NOCONVERT CUDA's kernel and copy,
# NBODY_X_POLL polls the frame fence before the map).
set -uo pipefail
exec > >(tee "$OUT/vid3.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|error' | sed 's/.*in \([0-9.]* s\)/\1/' | tr '\n' ' ')"; }
export NBODY_FFMPEG=$PWD/scripts/ffmpeg-discard.sh
T 720p
for r in 1 2 3; do
  F "plain            " $nb --headless --no-hud --n 16384 --frames 1500
  F "record           " $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
  NBODY_X_NOBLIT=1 F "record noblit    " $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
  NBODY_X_NOCONVERT=1 F "record noconvert " $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
  NBODY_X_NOBLIT=1 NBODY_X_NOCONVERT=1 F "record neither   " $nb --headless --no-hud --n 16384 --frames 1500 --record /tmp/r.mp4
done
T 720p profiles
for x in "" NBODY_X_NOBLIT NBODY_X_NOCONVERT; do
  echo "-- $x"; env $x${x:+=1} timeout 60 $nb --headless --no-hud --n 16384 --frames 1500 --profile --record /tmp/r.mp4 2>&1 | grep -E "upload|draw|GPU"
done
T 1080p offscreen
for r in 1 2; do
  F "record 1080p         " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  NBODY_X_POLL=1 F "record 1080p poll    " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  NBODY_X_NOBLIT=1 F "record 1080p noblit  " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  NBODY_X_NOCONVERT=1 F "record 1080p noconv  " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1920x1080 --record /tmp/r.mp4
  F "record 720p offscreen" $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1280x720 --record /tmp/r.mp4
  NBODY_X_POLL=1 F "rec 720p offscr poll " $nb --headless --no-hud --n 16384 --frames 1200 --record-size 1280x720 --record /tmp/r.mp4
  F "plain 1080p window   " $nb --headless --no-hud --n 16384 --frames 1200 --width 1920 --height 1080
  F "record 1080p window  " $nb --headless --no-hud --n 16384 --frames 1200 --width 1920 --height 1080 --record /tmp/r.mp4
done
T done
