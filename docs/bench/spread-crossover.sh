#!/usr/bin/env bash
# spread-crossover.sh - docs/PERFORMANCE.md, "Where spreading pays": the
# tree on every GPU of the host with its bodies spread (--spread) and with
# every body on every GPU (--no-spread), N from where spreading loses to
# where it wins (each row times one GPU too), for the thresholds
# SIM_SPREAD*_MIN_BODIES in sim/sim.h. For the old build of a comparison,
# run it again with its BUILD_DIR (an old build without --no-spread
# fails that half). SIZES (N, comma-separated) replaces the default sizes,
# for instance to reach 100M on four GPUs or more.
#
#   docs/bench/spread-crossover.sh BUILD_DIR [crossover.json] > crossover.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
sizes=${SIZES:-4194304,6000000,8000000,10485760,15000000,20000000,30000000,40000000,50000000,70000000}
stage "the tree spread over $gpus GPUs"
"$nb" --benchmark --gpus "$gpus" --spread --variant tree --n "$sizes" ${json:+--json "$json"} 2>&1
stage "every body on every GPU, $gpus GPUs"
"$nb" --benchmark --gpus "$gpus" --no-spread --variant tree --n "$sizes" 2>&1
stage "done"
