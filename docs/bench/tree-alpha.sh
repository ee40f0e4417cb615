#!/usr/bin/env bash
# tree-alpha.sh - docs/PERFORMANCE.md, "The relative criterion": the tree's
# step, interactions and force errors at 1M bodies (Plummer sphere, the
# antennae-like merger, the disk) for theta 0.8 alone and for theta 1 with
# the relative criterion's alpha from 0.01 to 0.03, and at 10M bodies.
#
#   docs/bench/tree-alpha.sh BUILD_DIR > tree-alpha.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
for scene in plummer antennae-like disk; do
    stage "1M, $scene: theta 0.8 alone, then theta 1 with alpha"
    "$nb" --benchmark --variant tree --preset "$scene" --n 1048576 --theta 0.8 --tree-alpha 0 2>&1 |
        grep -E "^tree "
    for a in 0.01 0.015 0.02 0.03; do
        echo "alpha $a: $("$nb" --benchmark --variant tree --preset "$scene" --n 1048576 --theta 1 \
            --tree-alpha "$a" 2>&1 | grep -E "^tree ")"
    done
done
stage "10M Plummer: theta 0.8 alone, then theta 1 with alpha"
"$nb" --benchmark --variant tree --n 10485760 --theta 0.8 --tree-alpha 0 2>&1 | grep -E "^tree "
for a in 0.015 0.02 0.03; do
    echo "alpha $a: $("$nb" --benchmark --variant tree --n 10485760 --theta 1 --tree-alpha "$a" \
        2>&1 | grep -E "^tree ")"
done
stage "done"
