#!/usr/bin/env bash
# frames.sh - docs/PERFORMANCE.md, "Whole frames": headless frames/s at
# 1280 x 720 with each drawer of the sprites (--sprites auto, cuda, gl), the
# HUD off and on, at 16,384, 131,072 and 1,048,576 bodies; then the
# benchmark's --frame rows.
#
#   docs/bench/frames.sh BUILD_DIR > frames.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
k16=(--headless --n 16384 --frames 3000)
for r in 1 2 3; do
    stage "16K, round $r"
    for s in auto cuda gl; do
        frames "16K no HUD, $s" "$nb" "${k16[@]}" --no-hud --sprites $s
        frames "16K HUD, $s" "$nb" "${k16[@]}" --sprites $s
    done
done
stage larger N
for s in auto gl; do
    frames "131K (tree) no HUD, $s" "$nb" --headless --no-hud --n 131072 --frames 600 --sprites $s
done
frames "131K best no HUD, auto" "$nb" --headless --no-hud --n 131072 --variant best --frames 300
for s in auto gl; do
    frames "1M (tree) no HUD, $s" "$nb" --headless --no-hud --n 1048576 --frames 120 --sprites $s
done
stage benchmark --frame
"$nb" --benchmark --variant best --n 16384,131072 --frame 2>&1
stage "done"
