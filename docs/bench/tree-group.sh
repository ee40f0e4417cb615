#!/usr/bin/env bash
# tree-group.sh - docs/PERFORMANCE.md, "The walk's group size": the tree's
# step, interactions, lane use and force errors for walk groups of 32 and
# 64 bodies from 512K to 100M bodies (Plummer sphere) and at 1M bodies (the
# antennae-like merger), twice each, behind the automatic group size
# (SIM_TREE_GROUP_AUTO in sim/sim_tree.h).
#
#   docs/bench/tree-group.sh BUILD_DIR > tree-group.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
for p in 32 64; do
    for run in 1 2; do
        stage "group size $p, run $run: Plummer, then the 1M merger"
        "$nb" --benchmark --variant tree --n 524288,1048576,4194304,10485760,104857600 --p "$p" 2>&1 |
            grep -E "^tree "
        "$nb" --benchmark --variant tree --preset antennae-like --n 1048576 --p "$p" 2>&1 |
            grep -E "^tree "
    done
done
stage "done"
