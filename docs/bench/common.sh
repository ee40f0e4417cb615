# common.sh - sourced by the scripts beside it. Each of them reproduces one
# table of docs/PERFORMANCE.md and prints its log on stdout:
#
#   docs/bench/ladder.sh BUILD_DIR > ladder.log
#
# BUILD_DIR holds a Release build for the GPU (docs/PERFORMANCE.md,
# "Reproduce"). This file checks the argument, prints the lines a log opens
# with (the command, the date, the commit, the GPU, its driver and clock),
# and defines the helpers the scripts share.
# shellcheck shell=bash
# shellcheck disable=SC2034 # nb, json and repo are for the scripts that source this
set -uo pipefail

if [ $# -lt 1 ] || [ ! -x "$1/nbody" ]; then
    echo "usage: $0 BUILD_DIR [JSON] > LOG   (BUILD_DIR/nbody: a Release build for the GPU)" >&2
    echo "hint: cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build build-gpu -j 16" >&2
    exit 2
fi
build=$1
nb=$build/nbody
json=${2:-} # where a benchmark also writes its JSON (--json), when given
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$bench_dir/../.." && pwd)

echo "# docs/bench/$(basename "$0") $*"
echo "# $(date -u '+%F %T') UTC, commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/# /'

# stage TEXT: a heading with the time, as the logs have them.
stage() { echo "=== $* $(date +%T)"; }

# frames LABEL COMMAND...: one headless run; its frames/s line, and the
# sprite trial's choice where --sprites auto prints it.
frames() {
    echo "$1: $(timeout 120 "${@:2}" 2>&1 | grep -E 'frames of|sprites:|recording:|cannot|rror|warning' |
        tr -s ' ' | tr '\n' ' ')"
}

# memory_start / memory_peaks: every GPU's memory used, sampled every 2 s
# in the background between them; memory_peaks prints each GPU's peak.
memory_start() {
    memory_log=$(mktemp)
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader -l 2 >"$memory_log" &
    memory_pid=$!
}
memory_peaks() {
    kill "$memory_pid"
    echo "GPU memory, peak of 2 s samples (MiB):"
    awk -F', ' '{gsub(/ MiB/, "", $2); if ($2 + 0 > m[$1]) m[$1] = $2 + 0}
        END {for (g in m) print "GPU " g ": " m[g]}' "$memory_log" | sort
    rm -f "$memory_log"
}
