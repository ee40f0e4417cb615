#!/usr/bin/env bash
# tree-targets.sh - docs/PERFORMANCE.md, "The tree at 1M, 10M and 100M":
# the tree's whole step by phase on Plummer spheres of 1M, 10M and 100M
# bodies and on the 1M-body merger, the crossover against best from 1K to
# 1M bodies, the energy drift over one time unit against best, whole
# frames with the HUD on (and where a 1M frame's time goes), and the
# 100M-body merger's start and frames.
#
#   docs/bench/tree-targets.sh BUILD_DIR [tree.json] > tree-targets.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
stage "tree, Plummer, 1M 10M 100M"
"$nb" --benchmark --variant tree --n 1048576,10485760,104857600 ${json:+--json "$json"} 2>&1
stage "tree, 1M-body merger"
"$nb" --benchmark --variant tree --preset antennae-like --n 1048576 2>&1
stage "crossover: best and tree"
"$nb" --benchmark --variant best,tree \
    --n 1024,4096,16384,32768,40960,45056,49152,53248,57344,65536,262144 2>&1
stage "whole frames, HUD on"
frames "1M Plummer, tree" "$nb" --headless --n 1048576 --variant tree --frames 300
frames "1M merger" "$nb" --headless --preset antennae-like --frames 300
frames "10M Plummer, tree" "$nb" --headless --n 10485760 --variant tree --frames 200
stage "whole frames after the sprites' trial (--frame: HUD on, 1280 x 720)"
"$nb" --benchmark --variant tree --n 1048576,10485760 --frame 2>&1
stage "where a 1M frame goes"
"$nb" --headless --n 1048576 --variant tree --frames 300 --profile 2>&1
stage "100M-body merger: start and frames"
t0=$(date +%s.%N)
frames "100M merger" "$nb" --headless --preset antennae-like --n 100000000 --frames 12
echo "wall $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (start = wall - the frames' seconds)"
stage "energy drift over one time unit, 1M"
"$build/tests/test_tree_gpu" --bench-energy 1048576 2>&1
stage "done"
