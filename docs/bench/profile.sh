#!/usr/bin/env bash
# profile.sh - docs/PERFORMANCE.md, "Where a 16K frame goes": --profile of
# 3,000 headless frames at 16,384 bodies, CUDA drawing the sprites, then the
# automatic choice with the HUD off and on.
#
#   docs/bench/profile.sh BUILD_DIR > profile.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
k16=(--headless --n 16384 --frames 3000 --profile)
stage "profile 16K no HUD, cuda"
"$nb" "${k16[@]}" --no-hud --sprites cuda 2>&1
stage "profile 16K no HUD, auto"
"$nb" "${k16[@]}" --no-hud 2>&1
stage "profile 16K HUD, auto"
"$nb" "${k16[@]}" 2>&1
stage "done"
