#!/usr/bin/env bash
# tree.sh - docs/PERFORMANCE.md, "The tree": test_tree_gpu's sweeps (theta
# and group size at 1M bodies, the crossover against best, 10M bodies), then
# the benchmark's rows for best and the tree at 1M.
#
#   docs/bench/tree.sh BUILD_DIR [tree-bench.json] > tree.log
#   scripts/plot-tree-sweep.py tree.log docs/tree-theta-sweep.png
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
stage test_tree_gpu --bench
"$build/tests/test_tree_gpu" --bench 2>&1
stage benchmark best and tree at 1M
"$nb" --benchmark --variant best,tree --n 1048576 --theta 0.6,0.7,0.8 ${json:+--json "$json"} 2>&1
stage "done"
