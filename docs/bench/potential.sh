#!/usr/bin/env bash
# potential.sh - docs/PERFORMANCE.md, "The walk's potentials": what the
# tree's per-body potentials cost (test_tree_gpu --bench-potential: calls
# of one step, each pass with potentials, against calls of 20, one pass in
# 20), and whole frames of the 1M-body merger with the HUD on, whose energy
# comes from them every frame.
#
#   docs/bench/potential.sh BUILD_DIR > potential.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
stage "test_tree_gpu --bench-potential"
"$build/tests/test_tree_gpu" --bench-potential 2>&1
for r in 1 2; do
    stage "1M merger, HUD on, round $r"
    frames "milky-way-andromeda" "$nb" --headless --preset milky-way-andromeda --frames 300
done
stage "done"
