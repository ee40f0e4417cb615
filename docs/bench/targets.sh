#!/usr/bin/env bash
# targets.sh - docs/PERFORMANCE.md, "best and fp64 at the target sizes":
# fast, best and fp64 at their automatic shapes from 16,384 to 1,048,576
# bodies, then best twice more and fp64 four times more for the spread.
#
#   docs/bench/targets.sh BUILD_DIR [targets.json] > targets.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
stage targets
"$nb" --benchmark --variant fast,best,fp64 --n 16384,65536,262144,1048576 ${json:+--json "$json"} 2>&1
stage best again
for _ in 1 2; do "$nb" --benchmark --variant best --n 16384,262144,1048576 2>&1; done
stage fp64 again
for _ in 1 2 3 4; do "$nb" --benchmark --variant fp64 --n 16384,65536,262144 2>&1; done
stage "done"
