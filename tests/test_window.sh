#!/usr/bin/env bash
# test_window.sh - the windowed front-end under Xvfb (Mesa, llvmpipe): the
# window opens, runs 60 frames on the CPU backend, the screenshot is not
# blank, and the exit status is 0.
#
#   test_window.sh NBODY PNG_CHECK
set -u
nbody=$1 png_check=$2
if ! command -v xvfb-run >/dev/null; then
    echo "xvfb-run is not installed (apt-get install xvfb)"
    # On CI the window test must run, not skip.
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Keys go through the same dispatch as the keyboard: help on and off, a
# colour change, a pause and a single step, the HUD stays on.
printf '10 H\n25 H\n30 C\n40 Space\n45 .\n50 Space\n' >"$tmp/keys.txt"
xvfb-run -a -s "-screen 0 1280x800x24" \
    "$nbody" --backend cpu --n 2048 --frames 60 --width 800 --height 500 \
    --script "$tmp/keys.txt" --status-json "$tmp/status.json" --screenshot "$tmp/window.png"
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: nbody exited $rc"; exit 1; }
grep -q '"frame": 60' "$tmp/status.json" || { echo "FAIL: status"; cat "$tmp/status.json"; exit 1; }
grep -q '"steps": 51,' "$tmp/status.json" || { echo "FAIL: 60 frames, 10 of them paused, one single step: 51 steps expected"; cat "$tmp/status.json"; exit 1; }
"$png_check" "$tmp/window.png" 0.002 800 500
