#!/usr/bin/env bash
# gpus.sh - docs/PERFORMANCE.md, "Several GPUs": best and the tree on every
# GPU of the host (--gpus, NCCL) against one GPU, N from where it starts to
# pay to the largest that one GPU holds; each row of the benchmark's
# "GPUs" table times the same configuration on one GPU too. Then whole
# headless frames with the HUD on, one GPU against all.
#
#   docs/bench/gpus.sh BUILD_DIR [gpus.json] > gpus.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
echo "# $gpus GPUs; $(nvidia-smi topo -m 2>/dev/null | head -n 3 | tail -n 2 | tr -s ' ' | tr '\n' ';')"
stage "best on $gpus GPUs"
"$nb" --benchmark --gpus "$gpus" --variant best --n 4096,16384,65536,262144,1048576 2>&1
stage "tree on $gpus GPUs"
"$nb" --benchmark --gpus "$gpus" --variant tree --n 65536,262144,1048576,4194304,10485760 \
    ${json:+--json "$json"} 2>&1
stage "whole frames, HUD on, 1M-body merger"
frames "antennae-like 1 GPU" "$nb" --headless --preset antennae-like --gpus 1 --frames 300
frames "antennae-like $gpus GPUs" "$nb" --headless --preset antennae-like --gpus "$gpus" --frames 300
stage "done"
