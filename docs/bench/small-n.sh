#!/usr/bin/env bash
# small-n.sh - docs/PERFORMANCE.md, "Small N": best at its automatic shape
# against fast at 32 x 8 from 512 to 8,192 bodies, three repeats.
#
#   docs/bench/small-n.sh BUILD_DIR > small-n.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
n=512,1024,1536,2048,3072,4096,6144,8192
for r in 1 2 3; do
    stage "small N, repeat $r"
    "$nb" --benchmark --variant best --n $n 2>&1
    "$nb" --benchmark --variant fast --p 32 --q 8 --n $n 2>&1
done
stage "done"
