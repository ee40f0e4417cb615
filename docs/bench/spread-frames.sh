#!/usr/bin/env bash
# spread-frames.sh - docs/PERFORMANCE.md, "Drawing spread bodies": whole
# headless frames (one step each) with the tree's bodies spread over every
# GPU of the host, every body drawn and one in four (--draw-max); then the
# first GPU's room choosing the sample at 300M, the GPUs' memory sampled
# beside it. For the old build of a comparison, run it again with its
# BUILD_DIR.
#
#   docs/bench/spread-frames.sh BUILD_DIR > spread-frames.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
frame=(--headless --gpus "$gpus" --spread --steps-per-frame 1 --width 1280 --height 720)
for n in 10000000 100000000; do
    stage "$n bodies spread over $gpus GPUs, every body drawn"
    "$nb" "${frame[@]}" --n "$n" --frames 40 2>&1
done
stage "100000000 bodies, one in four drawn"
"$nb" "${frame[@]}" --n 100000000 --draw-max 25000000 --frames 40 2>&1
stage "300000000 bodies: the first GPU's room chooses"
memory_start
"$nb" "${frame[@]}" --n 300000000 --frames 6 --screenshot /tmp/spread-300m.png 2>&1
memory_peaks
stage "done"
