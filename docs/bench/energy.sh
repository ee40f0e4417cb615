#!/usr/bin/env bash
# energy.sh - docs/PERFORMANCE.md, "Energy": the drift of a 1M-body Plummer
# sphere over one time unit (128 steps of 1/128, softening 0.05) with the
# tree and with best, from the status JSON written at exit.
#
#   docs/bench/energy.sh BUILD_DIR > energy.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for v in tree best; do
    stage "$v"
    frames "$v" "$nb" --headless --no-hud --n 1048576 --variant $v --frames 128 \
        --width 320 --height 180 --status-json "$out/$v.json"
    python3 - "$out/$v.json" $v <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(sys.argv[2], "t", d["t"], "dE/E0", d["dE_over_E0"], "virial", d["virial_ratio"])
PY
done
stage "done"
