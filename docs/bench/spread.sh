#!/usr/bin/env bash
# spread.sh - docs/PERFORMANCE.md, "Spread: each GPU its own bodies": the
# tree with the bodies spread over every GPU of the host (--spread) against
# every body on every GPU, in one run (each benchmark row times one GPU
# too, where one holds the bodies), then a billion bodies with the GPUs'
# memory sampled beside it.
#
#   docs/bench/spread.sh BUILD_DIR [spread.json] > spread.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
stage "the tree spread over $gpus GPUs"
"$nb" --benchmark --gpus "$gpus" --spread --variant tree --n 1048576,10485760,100000000 \
    ${json:+--json "$json"} 2>&1
stage "every body on every GPU, $gpus GPUs"
"$nb" --benchmark --gpus "$gpus" --no-spread --variant tree --n 10485760,100000000 2>&1
stage "a billion bodies spread over $gpus GPUs"
memory_start
"$nb" --benchmark --gpus "$gpus" --spread --variant tree --n 1000000000 --steps 2 2>&1
memory_peaks
stage "done"
