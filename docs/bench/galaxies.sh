#!/usr/bin/env bash
# galaxies.sh - docs/PERFORMANCE.md, "Whole frames", the galaxy scenes:
# headless frames/s of each galaxy preset as it starts on a GPU (1,048,576
# bodies on the tree, 2 steps a frame, 1280 x 720, HUD off), with the
# automatic choice of the sprites' drawer and with GL's, two rounds.
#
#   docs/bench/galaxies.sh BUILD_DIR > galaxies.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
for r in 1 2; do
    stage "round $r"
    for p in disk antennae-like retrograde minor-merger milky-way-andromeda; do
        for s in auto gl; do
            frames "$p, $s" "$nb" --headless --no-hud --preset "$p" --frames 300 --sprites $s
        done
    done
done
stage "done"
