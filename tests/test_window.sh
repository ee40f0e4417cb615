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
xvfb-run -a -s "-screen 0 1280x800x24" \
    "$nbody" --backend cpu --n 2048 --frames 60 --width 800 --height 500 \
    --screenshot "$tmp/window.png"
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: nbody exited $rc"; exit 1; }
"$png_check" "$tmp/window.png" 0.002 800 500
