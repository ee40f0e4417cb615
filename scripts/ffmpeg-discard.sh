#!/bin/sh
# ffmpeg-discard.sh - a stand-in for ffmpeg that reads the frames and throws
# them away, to measure what recording costs the frame loop apart from the
# encoding (the GPU machine has no ffmpeg):
#
#   NBODY_FFMPEG=scripts/ffmpeg-discard.sh nbody --headless --frames 600 --no-hud \
#       --record /tmp/x.mp4
#
# It reads its stdin to the end and creates its last argument (the output
# file nbody renames when the encoder exits with status 0) empty.
cat >/dev/null
for last; do :; done
: >"$last"
