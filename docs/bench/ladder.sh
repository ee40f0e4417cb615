#!/usr/bin/env bash
# ladder.sh - docs/PERFORMANCE.md, "The ladder": every rung at its automatic
# block shape, at 16,384 and 262,144 bodies (and the tree's rows).
#
#   docs/bench/ladder.sh BUILD_DIR [ladder.json] > ladder.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
stage ladder
"$nb" --benchmark --variant all --n 16384,262144 ${json:+--json "$json"} 2>&1
stage "done"
