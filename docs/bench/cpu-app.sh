#!/usr/bin/env bash
# cpu-app.sh - docs/PERFORMANCE.md, "The CPU backend in the window": the
# CPU backend's ms per step inside the window's loop (Xvfb, Mesa llvmpipe
# drawing on the same cores) against --benchmark, for the exact sum
# (reference, which --variant best runs on the CPU) and the tree at N = 1,
# 256, 4,096 and 65,536, each REPEATS times (default 3; the exact sum at
# 65,536, about a minute a run, once): the median of the frames'
# ms_per_step in the status lines (frames 5 on) per run, and the
# benchmark's own ms/step.
#
#   docs/bench/cpu-app.sh BUILD_DIR [REPEATS] > cpu-app.log
#
# BUILD_DIR holds a Release build (any; no GPU is used: --backend cpu).
# Needs Xvfb and python3.
set -uo pipefail
if [ $# -lt 1 ] || [ ! -x "$1/nbody" ]; then
    echo "usage: $0 BUILD_DIR [REPEATS] > LOG   (BUILD_DIR/nbody: a Release build)" >&2
    exit 2
fi
nb=$1/nbody
repeats=${2:-3}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
echo "# docs/bench/$(basename "$0") $*"
echo "# $(date -u '+%F %T') UTC, commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}"

# shellcheck source-path=SCRIPTDIR source=../../scripts/xvfb.sh
source "$repo/scripts/xvfb.sh"
tmp=$(mktemp -d)
cleanup() {
    xvfb_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
xvfb_start "$tmp" || { echo "Xvfb did not start" >&2; exit 1; }

# window N METHOD FRAMES: the median ms_per_step of the status lines from frame 5 on
# (from a third of the frames on in shorter runs), the last (the exit's) left out.
window() {
    rm -f "$tmp/s.jsonl"
    timeout 300 "$nb" --backend cpu --n "$1" --variant "$2" --frames "$3" --no-vsync \
        --width 1280 --height 720 --status-json "$tmp/s.jsonl" --status-every 1 >/dev/null 2>&1
    python3 - "$tmp/s.jsonl" <<'PY'
import json, statistics, sys
ms = [json.loads(l)["ms_per_step"] for l in open(sys.argv[1]) if l.strip()]
ms = [m for m in ms[min(5, len(ms) // 3):-1] if m > 0]
print(f"{statistics.median(ms):.4g}" if ms else "n/a")
PY
}
# bench N METHOD: the benchmark's ms/step (its row names the method: best is the reference).
bench() {
    "$nb" --benchmark --backend cpu --variant "$2" --n "$1" 2>&1 |
        awk '$2 ~ /^N=/ {print $4; exit}'
}

printf '%-10s %9s %6s %14s %14s\n' method N run "window ms" "benchmark ms"
for r in $(seq "$repeats"); do
    for n in 1 256 4096 65536; do
        for m in best tree; do
            frames=60
            [ "$n" -ge 65536 ] && frames=12
            if [ "$n" -ge 65536 ] && [ "$m" = best ]; then
                [ "$r" -gt 1 ] && continue # a minute a run: once
                frames=4
            fi
            printf '%-10s %9s %6s %14s %14s\n' "$m" "$n" "$r" "$(window "$n" "$m" "$frames")" \
                "$(bench "$n" "$m")"
        done
    done
done
