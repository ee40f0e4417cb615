#!/usr/bin/env bash
# ceilings.sh - docs/PERFORMANCE.md, "The ladder on its ceilings": each
# all-pairs rung's measured rate at its automatic block shape against its
# binding ceiling (sim_rung_ceilings) at N = 4,096, 16,384, 65,536 and
# 262,144, from tests/test_ceilings (5 timed steps after a warm-up).
#
#   docs/bench/ceilings.sh BUILD_DIR > ceilings.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
stage "each rung against its binding ceiling"
"$build/tests/test_ceilings" gpu 4096 16384 65536 262144 2>&1
stage "done"
