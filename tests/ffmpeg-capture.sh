#!/bin/sh
# ffmpeg-capture.sh - a stand-in for ffmpeg in the tests: keeps the raw
# frames nbody hands its encoder in $NBODY_CAPTURE and the arguments it was
# given in $NBODY_CAPTURE.args, one a line, and creates its last argument
# (the file nbody renames when the encoder exits with status 0) empty.
printf '%s\n' "$@" >"$NBODY_CAPTURE.args"
cat >"$NBODY_CAPTURE"
for last; do :; done
: >"$last"
