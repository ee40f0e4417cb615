#!/usr/bin/env bash
# test_cli.sh - every bad input: non-zero exit, one message plus a hint,
# and no file left behind (not even a temporary one).
#
#   test_cli.sh NBODY CUDA_AVAILABLE
set -u
nbody=$1
cuda_available=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_refusal DESCRIPTION ARGS... : exits non-zero, says nbody: and hint:,
# writes nothing into $tmp.
expect_refusal() {
    local what=$1
    shift
    "$nbody" "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"
    local rc=$?
    local left
    left=$(find "$tmp" -mindepth 1 -not -name '.stdout' -not -name '.stderr' -not -name 'adir')
    if [ "$rc" -eq 0 ]; then
        echo "FAIL ($what): exit 0 for: $*"; failures=$((failures + 1))
    elif ! grep -q '^nbody: ' "$tmp/.stderr" || ! grep -q '^hint: ' "$tmp/.stderr"; then
        echo "FAIL ($what): no 'nbody:' + 'hint:' lines for: $*"; cat "$tmp/.stderr"
        failures=$((failures + 1))
    elif [ -n "$left" ]; then
        echo "FAIL ($what): left files behind: $left"; failures=$((failures + 1))
    else
        echo "ok   ($what): exit $rc: $(head -n 1 "$tmp/.stderr")"
    fi
}

out=(--headless --frames 2 --screenshot "$tmp/out.png" --dump "$tmp/out.csv")
mkdir -p "$tmp/adir"
expect_refusal "unknown flag" --bogus "${out[@]}"
expect_refusal "bare word" plummer "${out[@]}"
expect_refusal "N = 0" --n 0 "${out[@]}"
expect_refusal "N < 0" --n -5 "${out[@]}"
expect_refusal "N not a number" --n 12abc "${out[@]}"
expect_refusal "N past int" --n 99999999999 "${out[@]}"
expect_refusal "negative softening" --softening -0.1 "${out[@]}"
expect_refusal "damping 0" --damping 0 "${out[@]}"
expect_refusal "damping > 1" --damping 1.5 "${out[@]}"
expect_refusal "dt 0" --dt 0 "${out[@]}"
expect_refusal "unknown scene" --ic cube "${out[@]}"
expect_refusal "unknown backend" --backend tpu "${out[@]}"
expect_refusal "unknown variant" --variant warp9 "${out[@]}"
expect_refusal "p too large" --p 4096 "${out[@]}"
expect_refusal "missing value" "${out[@]}" --frames
expect_refusal "unwritable screenshot" --headless --frames 1 --screenshot /nonexistent/dir/x.png
expect_refusal "unwritable dump" --headless --frames 1 --dump /nonexistent/dir/x.csv
expect_refusal "screenshot is a folder" --headless --frames 1 --screenshot "$tmp/adir"
expect_refusal "N beyond host memory" --backend cpu --n 2000000000 "${out[@]}"
expect_refusal "status-every 0" --status-json "$tmp/s.json" --status-every 0 "${out[@]}"
expect_refusal "status-every alone" --status-every 5 "${out[@]}"
scripts=$(mktemp -d)
printf '10 K\n20 Hyper+Q\n' >"$scripts/bad.txt"
expect_refusal "unknown key in a script" --script "$scripts/bad.txt" "${out[@]}"
printf '10 K\nK 20\n' >"$scripts/swapped.txt"
expect_refusal "script line out of order" --script "$scripts/swapped.txt" "${out[@]}"
expect_refusal "missing script" --script "$scripts/none.txt" "${out[@]}"
rm -rf "$scripts"
if "$cuda_available" >/dev/null; then
    expect_refusal "N beyond GPU memory" --backend cuda --n 2000000000 "${out[@]}"
else
    echo "skip (N beyond GPU memory): no CUDA device"
    expect_refusal "CUDA asked, none there" --backend cuda "${out[@]}"
fi

# And a good run writes both files, complete. It opens a GL context: see
# tests/CMakeLists.txt on leak checks of GL-driving runs.
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$nbody" --backend cpu --n 100 --headless --frames 2 --width 64 --height 48 \
    --dump "$tmp/ok.csv" --screenshot "$tmp/ok.png" >/dev/null 2>"$tmp/.stderr"
rc=$?
if [ $rc -ne 0 ] || [ "$(head -n 1 "$tmp/ok.csv")" != "x,y,z,vx,vy,vz,m" ] ||
   [ "$(wc -l <"$tmp/ok.csv")" -ne 101 ] || [ ! -s "$tmp/ok.png" ]; then
    echo "FAIL (good run): rc=$rc"; cat "$tmp/.stderr"; failures=$((failures + 1))
else
    echo "ok   (good run): header, 100 rows, PNG written"
fi
"$nbody" --help | grep -q -- '--steps-per-frame' || { echo "FAIL: --help"; failures=$((failures + 1)); }
# The lecture tour shipped in assets/ parses and runs.
tour=$(dirname "$0")/../assets/tours/lecture-ladder.txt
if ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$nbody" --backend cpu --n 64 --headless \
    --frames 2 --width 64 --height 48 --script "$tour" >/dev/null 2>"$tmp/.stderr"; then
    echo "ok   (lecture tour parses)"
else
    echo "FAIL (lecture tour)"; cat "$tmp/.stderr"; failures=$((failures + 1))
fi

echo "test_cli: $failures failure(s)"
[ "$failures" -eq 0 ]
